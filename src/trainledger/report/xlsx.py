"""The batch cost sheet as an XLSX workbook (openpyxl), laid out the way financial modellers do.

Sheets: README (bilingual), Summary (totals per basis and currency, native charts: GPU-hours by
state, cost — one chart per basis, never stacked across bases), Lines (every cost line with its
source file hash, import key, row and rule; its columns are ``LINE_COLUMNS``, and every formula over
Lines takes its column from there, ``lines_range``), Assumptions (each value a defined name; the plan's rates too),
Variance (the bridge as live formulas over Lines and Assumptions — report/xlsx_variance.py — the
engine's exact figures beside them), Control (billed = attributed + unattributed
per currency, this batch a SUMIFS over Lines and the other batches a SUM over their table:
report/xlsx_control.py), Decisions (alerts and decisions of the plan), Curves (cumulative spend against the
plan and the EAC range, native line charts; report/cross_xlsx.py writes them).

Safety: every data string goes through ``Book.text`` (stored as a typed string cell with its exact text,
illegal control characters removed): a name starting with ``=`` ``+`` ``-`` ``@`` never becomes a
formula. No apostrophe / ``quotePrefix``: that is the CSV's escape (report/csv_lines.py), not needed here.
Formulas come only from ``Book.formula``, which records each one (``Book.formulas``) so a test can
check that every formula cell of the file was written by the builder, and stores the engine's result
of each as the cell's cached value (report/xlsx_cache.py), for readers that do not recalculate.

Roles: the workbook is written for one role (``role``, default ``admin``): the sheet's restricted
fields are resolved by report/access.py, a Lines row whose amounts the role may not see (a labor
line is one person's hours × a rate) says "restricted / 受限" and feeds no formula, and its basis
gets no SUMIFS check in Summary (the note says why).

Language: labels in English and Chinese side by side (``lang`` None) unless one language is asked for
(``sheet --lang``, the download's ``?lang=``); the CLI, the demo and the dashboard call ``build_workbook``
with the same arguments for the same role, so they write one workbook (tests/web/test_workbook_same.py).

Precision: money is written from ``Decimal``. An amount of at most 15 significant digits (what a
spreadsheet number keeps) is a number with the currency's number format; one with more digits is
written as text, exact, and its row says so (``PRECISION``) — it is never rounded silently. Formula
inputs (the variance parts) must be numbers: those are rounded to 15 significant digits (the row's
note names them) and the exact decimal is kept as text in the ``exact`` columns beside them.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.chart import BarChart, Reference
from openpyxl.chart.series import SeriesLabel
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter, quote_sheetname
from openpyxl.workbook.defined_name import DefinedName

from trainledger.model.money import minor_quantum
from trainledger.model.restricted import ADMIN, is_withheld
from trainledger.report import primitives as prim
from trainledger.report.access import for_role
from trainledger.report.field_kinds import line_withheld
from trainledger.report.i18n import assumption_name
from trainledger.report.i18n import t as _t
from trainledger.report.render import compute_notes, in_seed_order
from trainledger.report.xlsx_cache import Workbook
from trainledger.report.xlsx_text import L

PARTS = ("plan", "actual", "price", "volume", "efficiency", "rework", "other", "not_split")
# the Lines sheet's columns, in order: every formula over Lines finds its column here (``lines_range``)
LINE_COLUMNS = ("category", "basis", "evidence", "low", "expected", "high", "currency", "quantity", "unit", "run",
                "job", "detail", "source_kind", "source_sha256", "import_key", "row", "rule", "reason", "note",
                "quantity_exact", "for_formulas")
LINE_AT = {k: i for i, k in enumerate(LINE_COLUMNS, 1)}
SHEETS = ("README", "Summary", "Lines", "Assumptions", "Balance", "Variance", "Control", "Decisions", "Curves")
BOLD = Font(bold=True)


def H(key: str) -> str:
    """A heading in both languages: 'basis / 口径'."""
    en, zh = L[key] if key in L else (_t(key, "en"), _t(key, "zh-CN"))
    return f"{en} / {zh}"


def dec(value: Any) -> Decimal | None:
    if value is None or value == "":
        return None
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


SIGNIFICANT = 15  # what a spreadsheet keeps of a number (Excel: 15 significant digits)


def float_exact(d: Decimal) -> bool:
    """True when the decimal has at most ``SIGNIFICANT`` significant digits, so the number a
    spreadsheet keeps is exactly what the engine computed."""
    return abs(d) < Decimal(10) ** 15 and Decimal(nearest(d)) == d


def nearest(d: Decimal) -> str:
    """``d`` to ``SIGNIFICANT`` significant digits: the number a formula input holds."""
    return format(d, f".{SIGNIFICANT}g")


class Book:
    """A workbook with the only two ways to put content in a cell: ``text`` and ``formula``."""

    def __init__(self, lang: str | None = None) -> None:
        self.lang = lang  # the labels' language: "en", "zh-CN", or None for both ("billed / 账单现金")
        self.names: dict[str, dict[str, str]] = {}  # an assumption's name -> "low" / "high" -> its defined name
        self.wb = Workbook()
        self.formulas: dict[tuple[str, str], str] = {}  # (sheet, coordinate) -> formula, as written
        self.inexact: list[tuple[str, str]] = []  # money cells written as exact text

    def said(self, en: str, zh: str) -> str:
        """A label in the workbook's language: ``en``, ``zh``, or both ("billed / 账单现金")."""
        if (self.lang or "").startswith("zh"):
            return zh
        return en if self.lang or en == zh else f"{en} / {zh}"

    def vocab(self, code: Any) -> str:
        """A vocabulary code's catalogue label (model/vocab.py) in the workbook's language."""
        from trainledger.report.i18n import v

        return self.said(v(code, "en"), v(code, "zh-CN")) if code not in (None, "") else ""

    def line(self, code: Any) -> str:
        """A plan line's id as people read it (review/texts.py ``line_label``; English: its words too)."""
        return self.said(line_words(str(code)), _line_label(str(code), "zh-CN"))

    def sheet(self, title: str):
        ws = self.wb.active if self.wb.active.title == "Sheet" else self.wb.create_sheet()
        ws.title = title
        return ws

    def text(self, ws, row: int, col: int, value: Any, *, bold: bool = False):
        c = ws.cell(row=row, column=col)
        if value is None:
            return c
        c.value = ILLEGAL_CHARACTERS_RE.sub("", str(value))
        c.data_type = "s"  # never a formula, whatever the first character; no apostrophe either (the CSV
        # escape, report/csv_lines.py): a typed string cannot run, and lookups need the exact text
        if bold:
            c.font = BOLD
        return c

    def number(self, ws, row: int, col: int, value: Any, fmt: str = "0.00"):
        d = dec(value)
        c = ws.cell(row=row, column=col)
        if d is None:
            return self.text(ws, row, col, value)
        c.value = int(d) if d == d.to_integral_value() and abs(d) < 2**53 else float(nearest(d))
        c.number_format = fmt
        return c

    def money(self, ws, row: int, col: int, value: Any, currency: str) -> bool:
        """A money cell; False when it had to be written as exact text (``float_exact`` failed)."""
        d = dec(value)
        if d is None:
            self.text(ws, row, col, value)
            return True
        if not float_exact(d):
            self.text(ws, row, col, format(d, "f"))
            self.inexact.append((ws.title, ws.cell(row=row, column=col).coordinate))
            return False
        self.number(ws, row, col, d, money_format(currency))
        return True

    def formula(self, ws, row: int, col: int, template: str, fmt: str = "0.00", *, cached: Any, **refs: str):
        """The one place formulas are made: ``template`` is the builder's own text; ``refs`` are cell
        coordinates this builder computed (checked to be plain A1 references); ``cached`` is the
        engine's result of the formula, stored in the file beside it (report/xlsx_cache.py)."""
        for r in refs.values():
            if not re.fullmatch(r"\$?[A-Z]{1,3}\$?[0-9]{1,7}", r):
                raise ValueError(f"not a cell reference: {r!r}")
        c = ws.cell(row=row, column=col)
        c.value = "=" + template.format(**refs)
        c.number_format = fmt
        self.formulas[(ws.title, c.coordinate)] = c.value
        self.wb.cached[(ws.title, c.coordinate)] = cached
        return c


def _line_label(code: str, lang: str) -> str:
    from trainledger.review.texts import line_label

    return line_label(code, lang)


def line_words(code: str) -> str:
    """A plan line's id in English words: ``labor:business_eval`` → ``labor: business eval``."""
    from trainledger.review.texts import TEXT, label, t

    head, sep, tail = code.partition(":")
    if sep and head == "unplanned":
        return f"{t('unplanned', 'en')}: {line_words(tail)}"
    if f"line.{head}" in TEXT:
        return t(f"line.{head}", "en") + (f": {label(tail, 'en')}" if sep else "")
    return code


def unit_text(b: Book, unit: Any) -> str:
    """A unit as the sheets print it (``CNY/gpu_hour`` → ``CNY/卡时``), in the workbook's language."""
    from trainledger.report.balance_section import drawer_unit

    return b.said(drawer_unit(unit, "en"), drawer_unit(unit, "zh-CN")) if unit else ""


def xround(d: Decimal, n: int) -> Decimal:
    """A spreadsheet's ROUND(d, n): half away from zero."""
    from decimal import ROUND_HALF_UP

    return d.quantize(Decimal(1).scaleb(-n), ROUND_HALF_UP)


def places(currency: str) -> int:
    """Decimal places of the currency's minor unit (2 for a code that is not three letters)."""
    return max(0, -minor_quantum(currency).as_tuple().exponent) if re.fullmatch(r"[A-Z]{3}", currency) else 2


def money_format(currency: str) -> str:
    n = places(currency)
    num = "#,##0" + ("." + "0" * n if n else "")
    return f'{num} "{currency}"' if re.fullmatch(r"[A-Z]{3}", currency) else num


def ref(row: int, col: int) -> str:
    return f"{get_column_letter(col)}{row}"


def lines_range(key: str, last: int) -> str:
    """The Lines sheet's column ``key`` (``LINE_COLUMNS``) over its data rows 2 … ``last``, absolute:
    ``Lines!$T$2:$T$90`` — the builder's own range text."""
    letter = get_column_letter(LINE_AT[key])
    return f"Lines!${letter}$2:${letter}${max(last, 2)}"


def headings(b: Book, ws, row: int, keys: list[str]) -> None:
    for i, k in enumerate(keys, 1):
        b.text(ws, row, i, H(k), bold=True)


def build_workbook(sheet: dict[str, Any], lines: list | None = None, role: str = ADMIN,
                   lang: str | None = None, others: dict | None = None) -> Book:
    """The workbook of one batch sheet (``report.sheet.build_sheet``) and its cost lines, for ``role``;
    its labels in ``lang`` (None: English and Chinese side by side). ``others``: the attribution's
    ``attributed_by_batch`` (``report.sheet.attributed_by_batch``), which Control lists the other
    batches from; None: Control says "other batches" as one value per currency (a token limited to
    this batch sees no other batch)."""
    from trainledger.report import balance, xlsx_balance, xlsx_control

    sheet = in_seed_order(for_role(balance.of_sheet(sheet), role)[0])
    b = Book(lang)
    hidden = {(str(ln.basis), str(ln.evidence), ln.amount.currency) for ln in lines or [] if line_withheld(ln, role)}
    sums: dict[tuple[str, str, str], Decimal] = {}  # what Summary's SUMIFS over Lines adds up
    for ln in lines or []:
        if not line_withheld(ln, role):
            k = (str(ln.basis), str(ln.evidence), ln.amount.currency)
            sums[k] = sums.get(k, Decimal(0)) + Decimal(ln.amount.expected)
    _readme(b, sheet, role)
    _summary(b, sheet, len(lines or []) + 1, hidden, sums)
    _lines(b, sheet, lines or [], role)
    _assumptions(b, sheet)
    xlsx_balance.write(b, sheet)
    _variance(b, sheet, len(lines or []) + 1)
    xlsx_control.write(b, sheet, lines or [], role, len(lines or []) + 1, others)
    _decisions(b, sheet)
    _curves(b, sheet)
    for ws in b.wb.worksheets:
        for col in range(1, ws.max_column + 1):
            ws.column_dimensions[get_column_letter(col)].width = 18
    return b


def write_xlsx(sheet: dict[str, Any], lines: list, out: str | Path, role: str = ADMIN,
               lang: str | None = None, others: dict | None = None) -> Book:
    b = build_workbook(sheet, lines, role, lang, others)
    b.wb.save(str(out))
    return b


def _readme(b: Book, s: dict, role: str = ADMIN) -> None:
    ws = b.sheet("README")
    bt = s.get("batch") or {}
    b.text(ws, 1, 1, f"{_t('title', 'en')} / {_t('title', 'zh-CN')}", bold=True)
    b.text(ws, 2, 1, H("batch"))
    b.text(ws, 2, 2, bt.get("id"))
    b.text(ws, 2, 3, bt.get("name"))
    b.text(ws, 3, 1, H("attribution"))
    b.text(ws, 3, 2, s.get("attribution_id"))
    if s.get("stale"):  # the lake changed since that attribution (report/freshness.py): said beside it
        from trainledger.report.freshness import note

        b.text(ws, 3, 3, f"{note(s['stale'], 'en')} / {note(s['stale'], 'zh-CN')}", bold=True)
    b.text(ws, 4, 1, H("role"))
    b.text(ws, 4, 2, role)
    if s.get("access"):
        from trainledger.model.restricted import Disclosure
        from trainledger.model.restricted import note as access_note

        d = Disclosure(role)
        d.withheld.update(s["access"].get("withheld", {}))
        b.text(ws, 4, 3, f"{access_note(d, 'en')} / {access_note(d, 'zh-CN')}")
    headings(b, ws, 5, ["sheet", "what"])
    for i, (name, key) in enumerate(zip(SHEETS, ("readme", "summary", "lines", "assumptions", "balance",
                                                  "variance", "control", "decisions", "curves"), strict=True)):
        b.text(ws, 6 + i, 1, name)
        b.text(ws, 6 + i, 2, L[key][0])
        b.text(ws, 6 + i, 3, L[key][1])
    for i, key in enumerate(("bases", "evidence_levels", "verify", "precision", "price_version")):
        b.text(ws, 16 + 2 * i, 1, L[key][0])
        b.text(ws, 17 + 2 * i, 1, L[key][1])
    if s.get("problems"):  # the batch's own and a count per other kind of the workspace's (sheet_problems.py)
        b.text(ws, 27, 1, H("problems"), bold=True)
        for i, p in enumerate(s["problems"]):
            b.text(ws, 28 + i, 1, f"{p.get('label')} / {p.get('label_zh')}")
            b.text(ws, 28 + i, 2, p.get("message"))
            b.text(ws, 28 + i, 3, p.get("message_zh"))


def _summary(b: Book, s: dict, last: int, hidden: set | frozenset = frozenset(),
             sums: dict | None = None) -> None:
    """Totals as the engine states them; beside each, the same total as a live SUMIFS over Lines and a
    check that the two agree at the currency's minor unit."""
    ws = b.sheet("Summary")
    headings(b, ws, 1, ["basis", "evidence", "currency", "low", "expected", "high", "note", "from_lines", "check",
                        "label"])
    col = lambda k: lines_range(k, last)  # noqa: E731
    sumifs = (f"SUMIFS({col('for_formulas')},{col('basis')},{{basis}},{col('evidence')},{{evidence}},"
              f"{col('currency')},{{cur}})")
    rows_of: dict[str, list[int]] = {}
    row = 2
    for r in s.get("totals_by_basis") or []:
        cur = r.get("currency", "")
        b.text(ws, row, 1, r.get("basis"))
        b.text(ws, row, 2, r.get("evidence"))
        b.text(ws, row, 10, f"{b.vocab(r.get('basis'))} · {b.vocab(r.get('evidence'))}")
        b.text(ws, row, 3, cur)
        exact = all([b.money(ws, row, 4 + i, r.get(k), cur) for i, k in enumerate(("low", "expected", "high"))])
        if not exact:
            b.text(ws, row, 7, H("PRECISION"))
        if (r.get("basis"), r.get("evidence"), cur) in hidden:
            b.text(ws, row, 7, H("withheld_lines"))
        elif last > 1:
            fmt = money_format(cur)
            total = (sums or {}).get((r.get("basis"), r.get("evidence"), cur), Decimal(0))
            b.formula(ws, row, 8, sumifs, fmt, cached=total, basis=ref(row, 1), evidence=ref(row, 2), cur=ref(row, 3))
            if ws.cell(row=row, column=5).data_type == "n":
                # both sides at the currency's minor unit: a cash total is exact (a cloud bill's sub-cent
                # rows: 0.0000170952 USD), an estimate already rounded — the check is 0 exactly (review 8 R8-7)
                b.formula(ws, row, 9, f"ROUND({{sum}},{places(cur)})-ROUND({{total}},{places(cur)})", "0.00",
                          cached=xround(total, places(cur)) - xround(dec(r.get("expected")) or Decimal(0), places(cur)),
                          sum=ref(row, 8), total=ref(row, 5))
        rows_of.setdefault(r.get("basis", ""), []).append(row)
        row += 1
    for n in s.get("bill_notes") or []:  # provisional bill rows, vendor notes (report/provisional.py)
        b.text(ws, row, 1, f"{n['text']} / {n['text_zh']}")
        row += 1
    row += 1
    anchor = row
    b.text(ws, row, 1, H("chart_hours"), bold=True)
    headings(b, ws, row + 1, ["state", "basis", "gpu_hours", "label"])
    first = row + 2
    for r in s.get("compute_by_state") or []:
        row += 1
        b.text(ws, row + 1, 1, r.get("state"))
        b.text(ws, row + 1, 2, r.get("basis"))
        b.number(ws, row + 1, 3, r.get("gpu_hours"), "#,##0.00")
        covered = f", {H('commitment_covered')}" if r.get("covered") else ""
        unvalued = "" if r.get("valued", True) else f", {b.said(_t('not_valued', 'en'), _t('not_valued', 'zh-CN'))}"
        b.text(ws, row + 1, 4, f"{b.vocab(r.get('state'))} ({b.vocab(r.get('basis'))}{covered}{unvalued})")
    last = row + 1
    # the queued hours valued and not, and what price × GPU-hours gives where lines were rounded apart
    for at, (en, zh) in enumerate(zip(compute_notes(s, "en"), compute_notes(s, "zh-CN"), strict=True), last + 2):
        b.text(ws, at, 1, b.said(en, zh))
    if last >= first:
        ch = BarChart()
        ch.type, ch.title = "col", H("chart_hours")
        ch.y_axis.title = H("gpu_hours")
        ch.add_data(Reference(ws, min_col=3, min_row=first - 1, max_row=last), titles_from_data=True)
        ch.set_categories(Reference(ws, min_col=4, min_row=first, max_row=last))  # the states' labels
        ws.add_chart(ch, f"K{anchor}")
    # cost: one chart per basis (its evidence × currency rows; low / expected / high side by side)
    for n, (basis, rows) in enumerate(rows_of.items()):
        if any(ws.cell(row=r, column=5).data_type == "s" for r in rows):
            continue  # an exact-text amount cannot be charted without rounding it
        ch = BarChart()
        ch.type, ch.grouping = "col", "clustered"
        en, zh = L["chart_cost"]
        ch.title = f"{en.format(b=basis)} / {zh.format(b=basis)}"
        r0, r1 = min(rows), max(rows)  # in seed order a basis's rows are adjacent
        ch.add_data(Reference(ws, min_col=4, max_col=6, min_row=r0, max_row=r1), titles_from_data=False)
        ch.set_categories(Reference(ws, min_col=2, max_col=3, min_row=r0, max_row=r1))
        for ser, name in zip(ch.series, ("low", "expected", "high"), strict=True):
            ser.tx = SeriesLabel(v=H(name))
        ws.add_chart(ch, f"K{anchor + 16 * (n + 1)}")


def _lines(b: Book, s: dict, lines: list, role: str = ADMIN) -> None:
    ws = b.sheet("Lines")
    jobs = {r.get("id"): r.get("job") for r in s.get("runs") or []}
    headings(b, ws, 1, list(LINE_COLUMNS))
    at = LINE_AT
    for i, ln in enumerate(lines, 2):
        cur, p = ln.amount.currency, ln.provenance
        hide = line_withheld(ln, role)
        if hide:
            for k in ("low", "expected", "high"):
                b.text(ws, i, at[k], L["restricted"][0])
        exact = hide or all([b.money(ws, i, at[k], getattr(ln.amount, k), cur) for k in ("low", "expected", "high")])
        for key, value in (("category", ln.category), ("basis", str(ln.basis)), ("evidence", str(ln.evidence)),
                           ("currency", cur), ("unit", ln.unit), ("run", ln.run_id), ("job", jobs.get(ln.run_id)),
                           ("detail", ln.detail), ("source_kind", p.source_kind), ("source_sha256", p.source_sha256),
                           ("import_key", p.import_key), ("rule", p.rule), ("reason", ln.reason)):
            b.text(ws, i, at[key], value)
        if ln.quantity is not None:
            q = Decimal(ln.quantity)
            b.number(ws, i, at["quantity"], q, "#,##0.0000")  # a quantity, not money: 15 digits, exact text beside
            b.text(ws, i, at["quantity_exact"], prim.exact_quantity(q))  # exact, short: 451/450, not 28 digits
        b.number(ws, i, at["row"], p.row, "0")
        if not exact:
            b.text(ws, i, at["note"], H("PRECISION"))
        if not hide:  # 15 significant digits, for SUMIFS
            b.number(ws, i, at["for_formulas"], ln.amount.expected, money_format(cur))
    ws.freeze_panes = "A2"


def source_text(b: Book, row: dict) -> str:
    """A row's ``source``; its ``source_zh`` (a price book's reviewed Chinese, the sheet's own) in a
    workbook in Chinese. The side-by-side workbook (no language) keeps the English as it was."""
    zh = row.get("source_zh") if (b.lang or "").startswith("zh") else None
    return zh or row.get("source") or ""


def _slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()
    return "asm_" + (s or "x")


def _assumptions(b: Book, s: dict) -> None:
    ws = b.sheet("Assumptions")
    headings(b, ws, 1, ["name", "low", "high", "value", "unit", "owner", "evidence", "source", "defined_name"])
    used: set[str] = set()
    for i, a in enumerate(s.get("assumptions") or [], 2):
        name = str(a.get("name", ""))
        zh = assumption_name(name, "zh-CN")
        b.text(ws, i, 1, name if zh == name else f"{name} / {zh}")
        base = _slug(name)
        while base in used:
            base += "_"
        used.add(base)
        names = []
        for col, key in ((2, "low"), (3, "high")):
            if dec(a.get(key)) is not None:
                b.number(ws, i, col, a[key], "General")
                names.append((f"{base}_{key}", col))
            elif a.get(key):  # withheld for this role: the word, no defined name
                b.text(ws, i, col, a[key])
        val = a.get("value")
        if val or a.get("value_zh"):
            b.text(ws, i, 4, " / ".join(x for x in (val, a.get("value_zh")) if x))
            names.append((base, 4))
        b.text(ws, i, 5, unit_text(b, a.get("unit")))
        b.text(ws, i, 6, a.get("owner"))
        b.text(ws, i, 7, a.get("evidence"))
        b.text(ws, i, 8, source_text(b, a))
        b.names[name] = {k: dn for dn, col in names for k in ("low", "high") if dn == f"{base}_{k}"}
        for dn, col in names:
            target = f"{quote_sheetname(ws.title)}!${get_column_letter(col)}${i}"
            b.wb.defined_names[dn] = DefinedName(dn, attr_text=target)
        b.text(ws, i, 9, ", ".join(n for n, _ in names))


def _variance(b: Book, s: dict, last_line: int = 1) -> None:
    ws = b.sheet("Variance")
    pva = s.get("plan_vs_actual")
    if not pva:
        b.text(ws, 1, 1, H("no_plan"))
        return
    cols = ["basis", "currency", *PARTS]
    headings(b, ws, 1, cols)
    n = len(cols)
    extra = ["delta", "computed", "parts_sum", "computed", "check", "note"]
    for k, key in enumerate(extra):
        b.text(ws, 1, n + 1 + k, H(key), bold=True)
    for k, p in enumerate(PARTS):
        b.text(ws, 1, n + 7 + k, f"{H('exact')}: {p}", bold=True)
    b.text(ws, 1, n + 7 + len(PARTS), H("label"), bold=True)
    for i, v in enumerate(pva.get("variance") or [], 2):
        cur = v.get("currency", "")
        b.text(ws, i, 1, v.get("basis"))
        b.text(ws, i, 2, cur)
        b.text(ws, i, n + 7 + len(PARTS), b.vocab(v.get("basis")))
        if hidden := next((v[p] for p in PARTS if is_withheld(v.get(p))), None):
            _withheld_row(b, ws, i, v, n, hidden)
            continue
        rounded = []
        for k, p in enumerate(PARTS):
            d = dec(v.get(p)) or Decimal(0)
            b.number(ws, i, 3 + k, d, money_format(cur))
            b.text(ws, i, n + 7 + k, format(d, "f"))
            if not float_exact(d):
                rounded.append(p)
        c = {p: ref(i, 3 + k) for k, p in enumerate(PARTS)}
        delta = (dec(v.get("actual")) or Decimal(0)) - (dec(v.get("plan")) or Decimal(0))
        parts = sum((dec(v.get(p)) or Decimal(0) for p in PARTS[2:]), Decimal(0))
        b.formula(ws, i, n + 1, "{actual}-{plan}", money_format(cur), cached=delta, actual=c["actual"], plan=c["plan"])
        b.money(ws, i, n + 2, delta, cur)
        b.formula(ws, i, n + 3, "+".join("{" + p + "}" for p in PARTS[2:]), money_format(cur), cached=parts,
                  **{p: c[p] for p in PARTS[2:]})
        b.money(ws, i, n + 4, parts, cur)
        b.formula(ws, i, n + 5, "ROUND({d}-{p},2)", "0.00", cached=xround(delta - parts, 2),
                  d=ref(i, n + 1), p=ref(i, n + 3))
        if rounded:
            en, zh = L["rounded"]
            b.text(ws, i, n + 6, f"{en.format(f=', '.join(rounded))} / {zh.format(f=', '.join(rounded))}")
    _live_bridge(b, ws, s, last_line)


def _withheld_row(b: Book, ws, i: int, v: dict, n: int, hidden: str) -> None:
    """A bridge row this role may not see (one labor role's plan: report/plan_access.py ``mark_internal``):
    each part written as it is — the word for a withheld one —, and in place of the delta, sums and
    check the word too: no formula reads a withheld cell."""
    cur = v.get("currency", "")
    for k, p in enumerate(PARTS):
        b.money(ws, i, 3 + k, v.get(p), cur)
        b.text(ws, i, n + 7 + k, v.get(p))
    for col in range(n + 1, n + 6):
        b.text(ws, i, col, hidden)


def _live_bridge(b: Book, ws, s: dict, last_line: int) -> None:
    """The plan-line split below the bridge as live formulas over Lines and Assumptions
    (report/xlsx_variance.py); the bridge's parts become SUMIFS over it, so a rate moves the bridge."""
    from trainledger.report import xlsx_variance

    rows = (s.get("plan_vs_actual") or {}).get("variance") or []
    plan_lines = (s.get("plan_vs_actual") or {}).get("plan_lines")
    if not plan_lines or any(dec(pl.get("price")) is None for pl in plan_lines):
        return  # no plan, or a rate this role may not see: the bridge keeps the engine's figures
    rng = xlsx_variance.write(b, ws, s, len(rows) + 4, last_line)
    if not rng:
        return
    for i, v in enumerate(rows, 2):
        if any(is_withheld(v.get(p)) for p in PARTS):  # a withheld row keeps the word, no formula
            continue
        for k, p in enumerate(PARTS):
            part = rng["A" if p == "actual" else p]
            b.formula(ws, i, 3 + k, f"SUMIFS({part},{rng['basis']},{{basis}},{rng['currency']},{{cur}})",
                      money_format(v.get("currency", "")), cached=dec(v.get(p)) or Decimal(0),
                      basis=ref(i, 1), cur=ref(i, 2))


def _curves(b: Book, s: dict) -> None:
    """Spend over time against the plan with the EAC range: rows and native line charts (report/cross_xlsx.py)."""
    from trainledger.report.cross_xlsx import write_curves

    ws = b.sheet("Curves")
    curves = (s.get("plan_vs_actual") or {}).get("spend_curves") or []
    if not curves:
        b.text(ws, 1, 1, H("no_plan"))
    write_curves(b, ws, curves)


def _decisions(b: Book, s: dict) -> None:
    ws = b.sheet("Decisions")
    pva = s.get("plan_vs_actual") or {}
    b.text(ws, 1, 1, H("decisions"), bold=True)
    headings(b, ws, 2, ["id", "kind", "text", "open"])
    row = 3
    for a in pva.get("alerts") or []:
        text = a.get("text") or {}
        b.number(ws, row, 1, a.get("id"), "0")
        b.text(ws, row, 2, a.get("kind"))
        b.text(ws, row, 3, " / ".join(x for x in (text.get("en"), text.get("zh-CN")) if x))
        b.text(ws, row, 4, "yes / 是" if a.get("open") else "no / 否")
        row += 1
    row += 1
    headings(b, ws, row, ["id", "action", "verdict", "by", "approver", "next_review", "reason"])
    for d in pva.get("decisions") or []:
        row += 1
        b.number(ws, row, 1, d.get("id"), "0")
        b.text(ws, row, 2, str(d.get("action")) + (f" → {d['child_batch']}" if d.get("child_batch") else ""))
        b.text(ws, row, 3, (d.get("verdict") or {}).get("action"))
        b.text(ws, row, 4, d.get("by"))
        b.text(ws, row, 5, d.get("approver"))
        b.text(ws, row, 6, d.get("next_review"))
        b.text(ws, row, 7, d.get("reason"))
    if not pva:
        b.text(ws, row + 1, 1, H("none"))
