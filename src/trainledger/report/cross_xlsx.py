"""The cross-batch report as an XLSX workbook, through report/xlsx.py's ``Book`` (the only writer of
text and formulas: data strings stay strings, every formula is recorded in ``Book.formulas``).

Sheets: README (bilingual), Summary (totals per basis and currency: the engine's figure, the same
as a live SUMIFS over Batches, and their difference), Spend (per period, project, batch, basis,
currency), Batches, Shares, Unattributed, Plan (plan, AC, EV, EAC, variance parts; actual − plan
and the parts' sum as formulas), Curves (the cumulative spend with the plan and the EAC, one native
line chart per curve), Control (billed − (attributed + unattributed) per currency; the lines' sums
against the engine's; Summary against Batches — each a formula that must show 0.00, the engine's
figure beside it).

Figures: cash exact; a non-cash figure of Spend or Curves is written at the currency's minor unit
(its exact decimal is in ``report --format json``).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from openpyxl.chart import LineChart, Reference

from trainledger.model.money import minor_quantum
from trainledger.model.restricted import ADMIN, is_withheld
from trainledger.model.restricted import note as access_note
from trainledger.report.cross import CASH, UNDATED, CrossReport, Figure, curve_json
from trainledger.report.cross_access import cross_for_role
from trainledger.report.cross_text import TEXT, dates_note
from trainledger.report.xlsx import Book, dec, money_format, places, ref, xround

SHEETS = ("README", "Summary", "Spend", "Batches", "Shares", "Unattributed", "Noncash", "Plan", "Curves", "Control")
README = {
    "Summary": ("Totals per basis and currency: the engine's, a live SUMIFS over Batches, the check",
                "按口径与币种合计：引擎值、对批次表的实时 SUMIFS、校验"),
    "Spend": ("Spend per period, project, batch, basis and currency", "按期间、项目、批次、口径与币种的支出"),
    "Batches": ("Per batch: totals per basis and currency (equal to each batch's sheet)",
                "各批次按口径与币种合计（等于各批次成本底稿）"),
    "Shares": ("Effective and rework shares of the GPU time held", "占用卡时中的有效训练与返工占比"),
    "Unattributed": ("The workspace's unattributed money by period, reason and basis (cash; owned / reserved"
                     " capacity on its own basis)",
                     "工作区未归属金额按期间、原因与口径（现金；自有/预留容量按其口径）"),
    "Noncash": ("The non-cash bases' lines without a batch (internal labor, storage estimates, queued time) by"
                " period, reason and shared pool ('—': unattributed): quantity and money range",
                "非现金口径中无批次的成本行（内部人力、存储估算、排队时间）按期间、原因与共享分摊池"
                "（“—”：未归属）：数量与金额区间"),
    "Plan": ("Plan vs actual per batch (review/): plan, AC, EV, EAC, variance parts",
             "各批次计划与实际（复盘）：计划、实际、挣值、完工估算、偏差分解"),
    "Curves": ("Cumulative spend against the plan and the EAC range, with line charts",
               "累计支出对照计划与完工估算区间（折线图）"),
    "Control": ("Control: every check is a formula that must show 0.00", "控制：每项校验都是必须显示 0.00 的公式"),
}


def H(key: str) -> str:
    en, zh = TEXT[key]
    return f"{en} / {zh}"


def _minor(d: Decimal, cur: str, cash: bool) -> Decimal:
    return d if cash else d.quantize(minor_quantum(cur), ROUND_HALF_EVEN)


def build_workbook(r: CrossReport, role: str = ADMIN) -> Book:
    """The workbook of ``r`` as ``role`` may see it (report/cross_access.py ``cross_for_role``)."""
    r, seen = cross_for_role(r, role)
    b = Book()
    ws = b.sheet("README")
    b.text(ws, 1, 1, H("title"), bold=True)
    b.text(ws, 2, 1, f"{H('attribution')}: #{r.attribution_id}"
           + (f" — {access_note(seen, 'en')} / {access_note(seen, 'zh-CN')}" if seen.withheld else ""))
    b.text(ws, 3, 1, dates_note(r.zone, "en"))
    b.text(ws, 4, 1, dates_note(r.zone, "zh-CN"))
    b.text(ws, 5, 1, TEXT["rounding"][0])
    b.text(ws, 6, 1, TEXT["rounding"][1])
    for i, name in enumerate(SHEETS[1:], 8):
        b.text(ws, i, 1, name)
        b.text(ws, i, 2, README[name][0])
        b.text(ws, i, 3, README[name][1])
    if r.stale:  # the lake changed since the attribution (report/freshness.py): said on the README
        from trainledger.report.freshness import note

        b.text(ws, 8 + len(SHEETS), 1, note(r.stale, "en"), bold=True)
        b.text(ws, 9 + len(SHEETS), 1, note(r.stale, "zh-CN"), bold=True)
    bt = _batches(b, r)
    _summary(b, r, bt)
    _spend(b, r)
    _shares(b, r)
    _unattributed(b, r)
    _noncash(b, r)
    _plan(b, r)
    _curves(b, r)
    _control(b, r)
    for w in b.wb.worksheets:
        for col in "ABCDEFGHIJKLMNOP":
            w.column_dimensions[col].width = 18
    return b


def write_xlsx(r: CrossReport, out: str | Path, role: str = ADMIN) -> Book:
    b = build_workbook(r, role)
    b.wb.save(str(out))
    return b


def _heads(b: Book, ws, keys: list[str]) -> None:
    for i, k in enumerate(keys, 1):
        b.text(ws, 1, i, H(k) if k in TEXT else k, bold=True)


def _figure(b: Book, ws, row: int, col: int, f: Figure, *, minor: bool = False) -> None:
    for k, x in enumerate((f.low, f.expected, f.high)):
        b.money(ws, row, col + k, _minor(x, f.currency, f.cash) if minor and not is_withheld(x) else x, f.currency)


def _batches(b: Book, r: CrossReport) -> int:
    ws = b.sheet("Batches")
    _heads(b, ws, ["project", "batch", "name", "first", "last", "basis", "currency", "low", "expected", "high"])
    row = 1
    for br in r.batches:
        for f in br.totals:
            row += 1
            for c, x in enumerate((br.project, br.batch, br.name, br.first and br.first.isoformat(),
                                   br.last and br.last.isoformat(), f.basis, f.currency), 1):
                b.text(ws, row, c, x)
            _figure(b, ws, row, 8, f)
    return row


def _summary(b: Book, r: CrossReport, last: int) -> None:
    ws = b.sheet("Summary")
    _heads(b, ws, ["basis", "currency", "low", "expected", "high", "from_lines", "check"])
    b.text(ws, 1, 6, "SUMIFS(Batches) / 批次表求和", bold=True)
    rng = lambda c: f"Batches!${c}$2:${c}${max(last, 2)}"  # noqa: E731 - the builder's own range text
    for i, f in enumerate(r.totals, 2):
        b.text(ws, i, 1, f.basis)
        b.text(ws, i, 2, f.currency)
        _figure(b, ws, i, 3, f)
        if is_withheld(f.expected):
            continue  # no check against a withheld total: the batches' sum of the others is not it
        fm = money_format(f.currency)
        total = _batches_sum(r, f.basis, f.currency)
        b.formula(ws, i, 6, f"SUMIFS({rng('I')},{rng('F')},{{basis}},{rng('G')},{{cur}})", fm, cached=total,
                  basis=ref(i, 1), cur=ref(i, 2))
        b.formula(ws, i, 7, f"ROUND({{sum}}-{{total}},{places(f.currency)})", "0.00",
                  cached=_summary_check(r, f), sum=ref(i, 6), total=ref(i, 4))


def _batches_sum(r: CrossReport, basis: str, cur: str) -> Decimal:
    """What Summary's SUMIFS over Batches adds up: the batches' expected totals of that basis and currency."""
    return sum((dec(f.expected) or Decimal(0) for br in r.batches for f in br.totals
                if f.basis == basis and f.currency == cur), Decimal(0))


def _summary_check(r: CrossReport, f: Figure) -> Decimal:
    return xround(_batches_sum(r, f.basis, f.currency) - (dec(f.expected) or Decimal(0)), places(f.currency))


def _share(part, whole) -> Decimal:
    p, w = dec(part) or Decimal(0), dec(whole) or Decimal(0)
    return Decimal(0) if w == 0 else p / w


def _spend(b: Book, r: CrossReport) -> None:
    ws = b.sheet("Spend")
    _heads(b, ws, ["period", "project", "batch", "basis", "currency", "low", "expected", "high"])
    for i, c in enumerate(r.spend, 2):
        for k, x in enumerate((TEXT["undated"][0] if c.period == UNDATED else c.period, c.project, c.batch,
                               c.figure.basis, c.figure.currency), 1):
            b.text(ws, i, k, x)
        _figure(b, ws, i, 6, c.figure, minor=True)


def _shares(b: Book, r: CrossReport) -> None:
    ws = b.sheet("Shares")
    _heads(b, ws, ["project", "batch", "basis", "currency", "held_hours", "effective_hours", "effective_share",
                   "rework_hours", "rework_share", "rework_cost", "unclassified_hours"])
    row = 1
    for br in r.batches:
        for e, w in zip(br.effective, br.rework, strict=True):
            row += 1
            for k, x in enumerate((br.project, br.batch, e.basis, e.currency), 1):
                b.text(ws, row, k, x)
            b.number(ws, row, 5, e.gpu_hours, "#,##0.00")
            b.number(ws, row, 6, e.part_gpu_hours, "#,##0.00")
            # over the hours with a progress signal (held − unclassified, column K); none: unknown, never 0 %
            b.number(ws, row, 11, e.unclassified_gpu_hours, "#,##0.00")
            b.formula(ws, row, 7, 'IF({h}-{u}=0,"—",{e}/({h}-{u}))', "0.00%",
                      cached="—" if e.share is None else _share(e.part_gpu_hours, e.base_gpu_hours),
                      h=ref(row, 5), u=ref(row, 11), e=ref(row, 6))
            b.number(ws, row, 8, w.part_gpu_hours, "#,##0.00")
            b.formula(ws, row, 9, "IF({h}=0,0,{w}/{h})", "0.00%", cached=_share(w.part_gpu_hours, e.gpu_hours),
                      h=ref(row, 5), w=ref(row, 8))
            b.money(ws, row, 10, _minor(w.part_amount, w.currency, w.basis in CASH), w.currency)


def _unattributed(b: Book, r: CrossReport) -> None:
    ws = b.sheet("Unattributed")
    _heads(b, ws, ["period", "reason", "currency", "amount", "lines", "basis"])
    for i, u in enumerate(r.unattributed, 2):
        b.text(ws, i, 1, TEXT["undated"][0] if u.period == UNDATED else u.period)
        b.text(ws, i, 2, u.reason)
        b.text(ws, i, 3, u.currency)
        b.money(ws, i, 4, u.amount if u.basis == "billed" else _minor(u.amount, u.currency, False), u.currency)
        b.number(ws, i, 5, u.lines, "0")
        b.text(ws, i, 6, u.basis)


NO_POOL = "—"  # the Noncash sheet's pool column of unattributed rows (the labor control's SUMIFS criterion)


def _noncash(b: Book, r: CrossReport) -> None:
    ws = b.sheet("Noncash")
    _heads(b, ws, ["period", "reason", "pool", "basis", "currency", "unit", "quantity", "low", "expected", "high",
                   "lines"])
    for i, c in enumerate(r.noncash, 2):
        b.text(ws, i, 1, TEXT["undated"][0] if c.period == UNDATED else c.period)
        b.text(ws, i, 2, c.reason)
        b.text(ws, i, 3, c.pool or NO_POOL)
        b.text(ws, i, 4, c.figure.basis)
        b.text(ws, i, 5, c.figure.currency)
        b.text(ws, i, 6, c.unit)
        b.number(ws, i, 7, c.quantity, "#,##0.0000")
        _figure(b, ws, i, 8, c.figure, minor=True)
        b.number(ws, i, 11, c.figure.lines, "0")


def _labor_control(b: Book, ws, row: int, r: CrossReport) -> int:
    """timesheet hours = on batches + shared pools + unattributed per currency: unattributed = SUMIFS over
    Noncash (internal, no pool, hours) + what the window leaves out (a value); the check must show
    0.0000, and so must the lines' unattributed against the engine's."""
    if not r.labor_control:
        return row
    row += 2
    b.text(ws, row, 1, H("labor_control"), bold=True)
    row += 1
    for i, k in enumerate(["currency", "timesheet_hours", "batches_hours", "pooled_hours", "unattributed_hours",
                           "check_hours", "outside_window_hours", "engine_unattributed_hours", "check_hours"], 1):
        b.text(ws, row, i, H(k), bold=True)
    last = max(b.wb["Noncash"].max_row, 2)
    rng = lambda c: f"Noncash!${c}$2:${c}${last}"  # noqa: E731 - the builder's own range text
    hours = "#,##0.0000"
    for c in r.labor_control:
        row += 1
        b.text(ws, row, 1, c.currency)
        b.number(ws, row, 2, c.timesheet_hours, hours)
        b.number(ws, row, 3, c.batches_lines, hours)
        b.number(ws, row, 4, c.pooled_lines, hours)
        shown = sum((n.quantity for n in r.noncash if n.figure.basis == "internal" and not n.pool
                     and n.figure.currency == c.currency and n.unit == "hour"), Decimal(0))
        b.formula(ws, row, 5, f'SUMIFS({rng("G")},{rng("D")},"internal",{rng("C")},"{NO_POOL}",{rng("E")},{{cur}},'
                              f'{rng("F")},"hour")+{{out}}', hours, cached=c.unattributed_lines, cur=ref(row, 1),
                  out=ref(row, 7))
        b.number(ws, row, 7, c.unattributed_lines - shown, hours)
        b.formula(ws, row, 6, "ROUND({t}-({a}+{p}+{u}),4)", hours,
                  cached=xround(c.timesheet_hours - (c.batches_lines + c.pooled_lines + c.unattributed_lines), 4),
                  t=ref(row, 2), a=ref(row, 3), p=ref(row, 4), u=ref(row, 5))
        b.number(ws, row, 8, c.unattributed_hours, hours)
        b.formula(ws, row, 9, "ROUND({x}-{y},4)", hours, cached=xround(c.unattributed_lines - c.unattributed_hours, 4),
                  x=ref(row, 5), y=ref(row, 8))
    return row


PLAN_COLS = ("plan", "ac", "ev", "eac")


def _plan(b: Book, r: CrossReport) -> None:
    ws = b.sheet("Plan")
    heads = ["batch", "plan_version", "basis", "currency"]
    heads += [f"{TEXT[k][0]} {TEXT[s][0]} / {TEXT[k][1]}{TEXT[s][1]}" for k in PLAN_COLS for s in ("low", "expected",
                                                                                                      "high")]
    heads += ["price", "volume", "efficiency", "rework", "other", "not_split", "variance", "check"]
    _heads(b, ws, heads)
    b.text(ws, 1, 25, "actual − plan, engine / 实际 − 计划（引擎）", bold=True)
    row = 1
    for br in r.batches:
        for p in br.plan:
            row += 1
            b.text(ws, row, 1, br.batch)
            b.number(ws, row, 2, br.plan_version, "0")
            b.text(ws, row, 3, p.basis)
            b.text(ws, row, 4, p.currency)
            for k, trip in enumerate((p.plan, p.ac, p.ev, p.eac)):
                for j, x in enumerate(trip or (None,) * 3):  # None: unknown (no useful work measured)
                    if x is None:
                        b.text(ws, row, 5 + 3 * k + j, "unknown / 未知")
                    else:
                        b.number(ws, row, 5 + 3 * k + j, x, money_format(p.currency))
            for j, (_k, x) in enumerate(p.parts):
                b.number(ws, row, 17 + j, x, money_format(p.currency))
            fm = money_format(p.currency)
            if is_withheld(p.ac[1]):
                b.text(ws, row, 25, p.ac[1])
                continue  # restricted for this role: no formula over it
            delta = p.ac[1] - p.plan[1]
            b.formula(ws, row, 23, "{ac}-{plan}", fm, cached=delta, ac=ref(row, 9), plan=ref(row, 6))
            parts = sum((dec(x) or Decimal(0) for _k, x in p.parts), Decimal(0))
            b.formula(ws, row, 24, "ROUND({d}-({a}+{b}+{c}+{e}+{o}+{n}),2)", "0.00", cached=xround(delta - parts, 2),
                      d=ref(row, 23), a=ref(row, 17), b=ref(row, 18), c=ref(row, 19), e=ref(row, 20),
                      o=ref(row, 21), n=ref(row, 22))
            b.number(ws, row, 25, p.ac[1] - p.plan[1], fm)


def _curves(b: Book, r: CrossReport) -> None:
    write_curves(b, b.sheet("Curves"), [curve_json(c) for c in r.curves])


def write_curves(b: Book, ws, curves: list[dict]) -> None:
    """Each curve (``report.cross.curve_json``) as a block of rows — day, cumulative actual, plan, EAC
    low / expected / high — and a native line chart over them. Also the batch workbook's Curves sheet.
    A value this role may not see (one labor role's plan: report/plan_access.py ``mark_internal``) is
    written as the word; the chart draws only the columns without one, and its title says what is
    restricted."""
    row = 1
    for n, c in enumerate(curves):
        cur, cash = c["currency"], c["basis"] in CASH
        b.text(ws, row, 1, f"{c['batch']} · {c['basis']} · {cur}", bold=True)
        _h = [TEXT["day" if c["step"] == "day" else "week"], TEXT["cumulative"], TEXT["plan_expected"],
              TEXT["eac_low"], TEXT["eac_expected"], TEXT["eac_high"]]
        for k, (en, zh) in enumerate(_h, 1):
            b.text(ws, row + 1, k, f"{en} / {zh}", bold=True)
        first = row + 2
        withheld = {2} if any(is_withheld(pt["cumulative"]) for pt in c["points"]) else set()
        withheld |= {3} if is_withheld(c["plan"]["expected"]) else set()
        withheld |= {4, 5, 6} if c["eac"] is not None and any(is_withheld(x) for x in c["eac"].values()) else set()

        def put(rr: int, col: int, x, minor: bool, cur: str = cur) -> None:
            if is_withheld(x):
                b.text(ws, rr, col, x)
            else:
                d = Decimal(x)
                b.money(ws, rr, col, _minor(d, cur, minor) if col < 4 else d, cur)

        for i, pt in enumerate(c["points"]):
            rr = first + i
            b.text(ws, rr, 1, pt["day"])
            put(rr, 2, pt["cumulative"], cash)
            put(rr, 3, c["plan"]["expected"], False)
            for k, key in enumerate(("low", "expected", "high")):
                if c["eac"] is None:  # unknown: no useful work measured
                    b.text(ws, rr, 4 + k, "unknown / 未知")
                else:
                    put(rr, 4 + k, c["eac"][key], False)
        last = first + len(c["points"]) - 1
        drawn = [k for k in range(2, 7 if c["eac"] is not None else 4) if k not in withheld]
        if c["points"]:
            title = f"{TEXT['curve_title'][0]} / {TEXT['curve_title'][1]}: {c['batch']} · {c['basis']} · {cur}"
            if withheld:
                from trainledger.report.i18n import TEXT as SHEET_TEXT

                en, zh = SHEET_TEXT["chart_withheld"]
                title += f" ({en} / {zh}: " + ", ".join(
                    f"{_h[k - 1][0]} / {_h[k - 1][1]}" for k in sorted(withheld)) + ")"
            if not drawn:  # nothing this role may see: the title and the note where the chart would be
                b.text(ws, 1 + 16 * n, 8, title)
                row = max(last + 2, row + 16)
                continue
            ch = LineChart()
            ch.title = title
            for k in drawn:
                ch.add_data(Reference(ws, min_col=k, max_col=k, min_row=first - 1, max_row=last),
                            titles_from_data=True)
            ch.set_categories(Reference(ws, min_col=1, min_row=first, max_row=last))
            ch.height, ch.width = 7.5, 16
            ws.add_chart(ch, f"H{1 + 16 * n}")
        row = max(last + 2, row + 16)


def _control(b: Book, r: CrossReport) -> None:
    """billed = attributed + unattributed per currency, over this workbook's sheets: attributed = SUMIFS
    over Batches (each cash basis) + what the report's batches and window leave out; unattributed =
    SUMIFS over Unattributed (basis billed) + what its window leaves out (both left-outs are the
    ledger's lines less the rows shown: values, said so); the check must show 0.00, and so must the
    lines' sums against the engine's attributed and unattributed."""
    from trainledger.report.xlsx import H as book_H

    ws = b.sheet("Control")
    b.text(ws, 1, 1, H("control"), bold=True)
    heads = [H("currency"), H("billed_total"), H("attributed"), H("unattributed_short"), H("check"),
             H("difference"), book_H("in_batches"), book_H("outside_report"), book_H("in_unattributed"),
             book_H("outside_window"), book_H("engine_attributed"), book_H("engine_unattributed"), H("check"),
             H("check")]
    for i, k in enumerate(heads, 1):
        b.text(ws, 2, i, k, bold=True)
    bat, un = max(b.wb["Batches"].max_row, 2), max(b.wb["Unattributed"].max_row, 2)
    brng = lambda c: f"Batches!${c}$2:${c}${bat}"  # noqa: E731 - the builder's own range text
    urng = lambda c: f"Unattributed!${c}$2:${c}${un}"  # noqa: E731
    row = 2
    for c in r.control:
        row += 1
        cur, fm, q = c.currency, money_format(c.currency), places(c.currency)
        b.text(ws, row, 1, cur)
        if is_withheld(c.billed_total):  # an invoice's currency (report/cross_access.py ``control_row``)
            for col in range(2, 15):
                b.money(ws, row, col, c.difference if col == 6 else c.unattributed if col == 12 else c.billed_total,
                        cur)
            continue
        b.money(ws, row, 2, c.billed_total, cur)
        shown_a = sum((dec(f.expected) or Decimal(0) for br in r.batches for f in br.totals
                       if f.basis in CASH and f.currency == cur), Decimal(0))
        shown_u = sum((u.amount for u in r.unattributed if u.basis == "billed" and u.currency == cur), Decimal(0))
        b.formula(ws, row, 7, "+".join(f'SUMIFS({brng("I")},{brng("F")},"{basis}",{brng("G")},{{cur}})'
                                       for basis in sorted(CASH)), fm, cached=shown_a, cur=ref(row, 1))
        b.money(ws, row, 8, c.attributed_lines - shown_a, cur)
        b.formula(ws, row, 9, f'SUMIFS({urng("D")},{urng("F")},"billed",{urng("C")},{{cur}})', fm, cached=shown_u,
                  cur=ref(row, 1))
        b.money(ws, row, 10, c.unattributed_lines - shown_u, cur)
        b.formula(ws, row, 3, "{x}+{y}", fm, cached=c.attributed_lines, x=ref(row, 7), y=ref(row, 8))
        b.formula(ws, row, 4, "{x}+{y}", fm, cached=c.unattributed_lines, x=ref(row, 9), y=ref(row, 10))
        b.formula(ws, row, 5, f"ROUND({{t}}-({{a}}+{{u}}),{q})", "0.00",
                  cached=xround(c.billed_total - (c.attributed_lines + c.unattributed_lines), q),
                  t=ref(row, 2), a=ref(row, 3), u=ref(row, 4))
        b.money(ws, row, 6, c.difference, cur)
        b.money(ws, row, 11, c.attributed, cur)
        b.money(ws, row, 12, c.unattributed, cur)
        b.formula(ws, row, 13, f"ROUND({{x}}-{{y}},{q})", "0.00", cached=xround(c.attributed_lines - c.attributed, q),
                  x=ref(row, 3), y=ref(row, 11))
        b.formula(ws, row, 14, f"ROUND({{x}}-{{y}},{q})", "0.00",
                  cached=xround(c.unattributed_lines - c.unattributed, q), x=ref(row, 4), y=ref(row, 12))
    if r.capacity_control:
        row += 2
        b.text(ws, row, 1, H("capacity_control"), bold=True)
        row += 1
        for i, k in enumerate(["capacity", "basis", "currency", "cap_total", "cap_attributed", "cap_unheld",
                               "cap_job_without_batch", "cap_held_not_imported", "check"], 1):
            b.text(ws, row, i, H(k), bold=True)
        for c in r.capacity_control:
            row += 1
            b.text(ws, row, 1, c.capacity)
            b.text(ws, row, 2, c.basis)
            b.text(ws, row, 3, c.currency)
            parts = [c.total, c.attributed, c.unheld, c.job_without_batch, c.held_not_imported]  # exact
            for k, x in enumerate(parts, 4):
                b.money(ws, row, k, x, c.currency)
            b.formula(ws, row, 9, "ROUND({t}-({a}+{u}+{j}+{n}),2)", "0.00",
                      cached=xround(parts[0] - (parts[1] + parts[2] + parts[3] + parts[4]), 2),
                      t=ref(row, 4), a=ref(row, 5), u=ref(row, 6), j=ref(row, 7), n=ref(row, 8))
    row += 2
    b.text(ws, row, 1, "Summary − SUMIFS(Batches) / 合计 − 批次表求和", bold=True)
    for i, f in enumerate(r.totals, 2):
        row += 1
        b.text(ws, row, 1, f"{f.basis} · {f.currency}")
        b.formula(ws, row, 2, "Summary!{c}", "0.00", cached=None if is_withheld(f.expected) else _summary_check(r, f),
                  c=ref(i, 7))
    _labor_control(b, ws, row, r)
