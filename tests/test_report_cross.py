"""The cross-batch report (`trainledger report`) on the demo: totals equal the batches' sheets, the
workspace's bill reconciles, date windows partition the spend, the curves end where review/'s AC
does, and the workbook's formulas all come from the builder and check out against the engine."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.model import CASH_BASES
from trainledger.model.restricted import resolve
from trainledger.report import cross, cross_render, cross_text
from trainledger.report.cross_xlsx import write_xlsx
from trainledger.service import Workspace

CASH = {str(b) for b in CASH_BASES}
D = Decimal


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("cross-demo")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    return root


@pytest.fixture(scope="module")
def rep(demo):
    with Workspace.open(demo) as wsp:
        return cross.build(wsp, cross.Scope())


@pytest.fixture(scope="module")
def sheets(demo):
    with Workspace.open(demo) as wsp:
        return {b.id: resolve(wsp.sheet(b.id), "admin")[0] for b in wsp.config.batches}  # the figures, unmasked


def _build(demo, **kw) -> cross.CrossReport:
    with Workspace.open(demo) as wsp:
        return cross.build(wsp, cross.scope(wsp, kw.get("project"), kw.get("start"), kw.get("end"),
                                            kw.get("by", "month")))


def test_totals_equal_the_sum_of_the_batch_sheets(rep, sheets):
    want: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [D(0)] * 3)
    for s in sheets.values():
        for t in s["totals_by_basis"]:
            w = want[(t["basis"], t["currency"])]
            for i, k in enumerate(("low", "expected", "high")):
                w[i] += D(t[k])
    got = {(f.basis, f.currency): [f.low, f.expected, f.high] for f in rep.totals}
    assert got == dict(want)
    for b in rep.batches:  # and batch by batch
        mine = {(f.basis, f.currency): f.expected for f in b.totals}
        theirs: dict = defaultdict(Decimal)
        for t in sheets[b.batch]["totals_by_basis"]:
            theirs[(t["basis"], t["currency"])] += D(t["expected"])
        assert mine == dict(theirs), b.batch


def test_the_workspace_bill_is_attributed_plus_unattributed(demo, rep):
    with Workspace.open(demo) as wsp:
        lines = wsp.ledger.cost_lines()
    attributed, unattributed = defaultdict(Decimal), defaultdict(Decimal)
    for ln in lines:  # summed here, independently of the report
        if ln.basis in CASH_BASES:
            (attributed if ln.batch_id else unattributed)[ln.currency] += ln.amount.expected
    assert {c.currency for c in rep.control} == {"CNY", "USD"}
    for c in rep.control:
        assert c.billed_total == c.attributed + c.unattributed and c.difference == 0
        assert (c.attributed_lines, c.unattributed_lines) == (attributed[c.currency], unattributed[c.currency])
        assert (c.attributed, c.unattributed) == (attributed[c.currency], unattributed[c.currency])
        by_reason = sum((u.amount for u in rep.unattributed if u.currency == c.currency), D(0))
        assert by_reason == c.unattributed  # the trend by reason adds up to the bucket
    cny = next(c for c in rep.control if c.currency == "CNY")
    # the demo's printed figures (its bill includes 552.47 of OSS storage rows)
    assert (cny.billed_total, cny.attributed) == (D("645314.98"), D("363124.27"))


def test_cash_spend_over_time_adds_up_to_each_batch(rep):
    for b in rep.batches:
        for f in b.totals:
            cells = [c.figure.expected for c in rep.spend if c.batch == b.batch
                     and (c.figure.basis, c.figure.currency) == (f.basis, f.currency)]
            if f.basis in CASH:
                assert sum(cells, D(0)) == f.expected, (b.batch, f.basis)
            else:  # the sheet rounds an estimate once per evidence level; the cells are exact
                assert abs(sum(cells, D(0)) - f.expected) <= D("0.01") * 3


def test_date_windows_partition_the_spend(demo, rep):
    early, late = _build(demo, end="2026-11-10"), _build(demo, start="2026-11-11")
    for f in rep.totals:
        if f.basis not in CASH:
            continue
        parts = [sum((c.figure.expected for c in r.spend if (c.figure.basis, c.figure.currency) ==
                      (f.basis, f.currency)), D(0)) for r in (early, late)]
        assert parts[0] + parts[1] == f.expected, f
        if f.currency == "CNY":
            assert parts[0] and parts[1]  # both halves hold spend: the split is real
    assert all(u.period != cross.UNDATED for u in rep.unattributed)  # every demo line has a day
    unatt = lambda r: sum((u.amount for u in r.unattributed if u.currency == "CNY"), D(0))  # noqa: E731
    assert unatt(early) + unatt(late) == unatt(rep)


def test_by_batch_and_a_month_window(demo, rep):
    by_batch = _build(demo, by="batch")
    assert by_batch.periods == tuple(b.batch for b in rep.batches)
    assert {c.period for c in by_batch.spend} == {c.batch for c in by_batch.spend}
    nov = _build(demo, start="2026-11", end="2026-11")
    assert nov.scope.start == date(2026, 11, 1) and nov.scope.end == date(2026, 11, 30)
    assert [f.expected for f in nov.totals] == [f.expected for f in rep.totals]  # the demo is all November
    assert _build(demo, start="2026-12").spend == ()


def test_curves_end_at_reviews_actual_with_its_plan_and_eac(demo, rep):
    from trainledger.review import service

    assert rep.curves
    with Workspace.open(demo) as wsp:
        status = {b.batch: service.status(wsp, b.batch) for b in rep.batches}
    for c in rep.curves:
        st = status[c.batch]
        key = (c.basis, c.currency)
        pick = lambda k: next(x for x in st[k] if (x["basis"], x["currency"]) == key)  # noqa: E731, B023
        assert c.actual == D(pick("ac")["expected"])
        assert c.plan == tuple(D(pick("plan")[k]) for k in ("low", "expected", "high"))
        assert c.eac == tuple(D(pick("eac")[k]) for k in ("low", "expected", "high"))
        days = [p.day for p in c.points]
        assert days == sorted(days) and len(set(days)) == len(days)
    a = next(c for c in rep.curves if (c.batch, c.basis) == ("csa-sft-2026-11-a", "billed"))
    assert a.actual == D("80523.30") and a.points[0].cumulative == D("74.96")  # checked by hand on the demo


def test_plan_rows_are_reviews_figures(rep):
    a = next(b for b in rep.batches if b.batch == "csa-sft-2026-11-a")
    billed = next(p for p in a.plan if (p.basis, p.currency) == ("billed", "CNY"))
    parts = dict(billed.parts)
    assert billed.ac[1] - billed.plan[1] == sum(parts.values(), D(0))  # review's split is exact
    assert (billed.plan[1].quantize(D("0.01")), billed.ac[1]) == (D("44555.00"), D("80523.30"))


def test_shares_are_the_sheets_effective_share(rep, sheets):
    for b in rep.batches:
        for e in b.effective:
            row = next(r for r in sheets[b.batch]["compute_efficiency"]
                       if (r["basis"], r["currency"]) == (e.basis, e.currency))
            assert e.share == D(row["effective_share"])
        for w in b.rework:
            assert D(0) < w.part_gpu_hours < w.gpu_hours  # the demo has reruns, and other work


def test_json_contract(rep):
    d = json.loads(cross_render.to_json(rep))
    assert d["schema"] == "trainledger.report/1"
    assert set(d) == {"schema", "scope", "attribution_id", "as_of", "periods", "spend", "batches", "totals",
                      "effective_by_period", "unattributed", "control", "capacity_control", "spend_curves", "stale",
                      "undated_outside_window", "unattributed_noncash", "labor_control"}
    money = re.compile(r"-?\d+(\.\d+)?")
    for f in d["totals"] + d["spend"]:
        assert all(isinstance(f[k], str) and money.fullmatch(f[k]) for k in ("low", "expected", "high")), f
    assert {(f["basis"], f["currency"]) for f in d["totals"]} == {(f.basis, f.currency) for f in rep.totals}


def test_markdown_and_html_in_both_languages(rep):
    for lang in ("en", "zh-CN"):
        md, html = cross_render.to_markdown(rep, lang), cross_render.to_html(rep, lang)
        assert cross_text.t("title", lang) in md and cross_text.t("spend", lang) in html
        assert "363,124.27" in md and "645,314.98" in html
        assert html.count('<figure class="chart"') == len(rep.curves)
    zh = cross_render.to_html(rep, "zh-CN")
    assert "跨批次成本报告" in zh and 'lang="zh-CN"' in zh
    for key, (en, zh) in cross_text.TEXT.items():
        assert en.strip() and zh.strip() and (en != zh or key in ("eac",)), key


def test_the_spend_chart_draws_each_point_in_proportion(rep):
    from trainledger.report import charts

    c = next(c for c in rep.curves if c.basis == "billed")
    ch = charts.spend_curve(cross.curve_json(c), "en")
    svg = str(ch["svg"])
    pts = re.findall(r'<circle class="point" cx="([\d.]+)" cy="([\d.]+)" r="3" fill="#2f6fdf" '
                     r'data-day="([\d-]+)" data-value="([\d.-]+)"', svg)
    assert [(d, D(v)) for _x, _y, d, v in pts] == [(p.day.isoformat(), p.cumulative) for p in c.points]
    base = float(re.search(r'<line x1="[\d.]+" y1="([\d.]+)"', svg).group(1))  # the zero line
    heights = [base - float(y) for _x, y, _d, _v in pts]
    for h, p in zip(heights, c.points, strict=True):  # height ∝ value, to the 0.01 px of the geometry
        assert abs(h / heights[-1] - float(p.cumulative / c.points[-1].cumulative)) < 0.001
    assert f'data-value="{c.eac[1]}"' in svg and f'data-low="{c.eac[0]}"' in svg
    assert [r[1] for r in ch["rows"][:len(c.points)]][-1] == "80,523.30 CNY"


def test_the_batch_sheet_carries_its_curves(sheets):
    from trainledger.report.render import to_html

    s = sheets["csa-sft-2026-11-b"]
    curves = s["plan_vs_actual"]["spend_curves"]
    assert {(c["basis"], c["currency"]) for c in curves} >= {("billed", "CNY"), ("internal", "CNY")}
    html = to_html(s, "en")
    for c in curves:
        assert f'id="chart-spend-{c["batch"]}-{c["basis"]}-{c["currency"]}"' in html


def _formulas(wb) -> dict[tuple[str, str], str]:
    return {(ws.title, c.coordinate): c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
            if c.data_type == "f"}


def _num(v) -> Decimal:
    return D(v) if isinstance(v, str) else D(repr(v))


def test_workbook_formulas_come_from_the_builder_and_check_out(tmp_path, rep):
    out = tmp_path / "r.xlsx"
    book = write_xlsx(rep, out)
    wb = openpyxl.load_workbook(out)
    found = _formulas(wb)
    assert found and found == book.formulas
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if isinstance(c.value, str) and c.value[:1] in "=+-@" and (ws.title, c.coordinate) not in book.formulas:
                    assert c.data_type == "s" and not c.quotePrefix, (ws.title, c.coordinate)
    # Summary: the engine's totals as numbers equal to the view model, and the SUMIFS over Batches
    # (evaluated here) gives the same figure
    summ, bat = wb["Summary"], wb["Batches"]
    rows = [[c.value for c in r] for r in bat.iter_rows(min_row=2)]
    for i, f in enumerate(rep.totals, 2):
        assert (summ.cell(i, 1).value, summ.cell(i, 2).value) == (f.basis, f.currency)
        assert _num(summ.cell(i, 4).value) == f.expected
        assert "SUMIFS(Batches!$I$2:" in summ.cell(i, 6).value
        assert sum((_num(r[8]) for r in rows if (r[5], r[6]) == (f.basis, f.currency)), D(0)) == f.expected
    # Control: billed − (attributed + unattributed), attributed a SUMIFS over Batches and unattributed one over
    # Unattributed, each with what the report leaves out beside it; the engine's figures beside them
    ctl = wb["Control"]
    for r, c in enumerate(rep.control, 3):
        assert ctl.cell(r, 5).value == f"=ROUND(B{r}-(C{r}+D{r}),2)"
        assert (ctl.cell(r, 3).value, ctl.cell(r, 4).value) == (f"=G{r}+H{r}", f"=I{r}+J{r}")
        assert ctl.cell(r, 7).value.startswith("=SUMIFS(Batches!$I$2:")
        assert ctl.cell(r, 9).value.startswith("=SUMIFS(Unattributed!$D$2:")
        b, a, u = (_num(ctl.cell(r, k).value) for k in (2, 11, 12))
        assert (b, a, u) == (c.billed_total, c.attributed, c.unattributed) and b - (a + u) == 0
    # Plan: actual − plan as a formula; the engine's figure beside it
    plan = wb["Plan"]
    for r in range(2, plan.max_row + 1):
        assert plan.cell(r, 23).value == f"=I{r}-F{r}"  # after the six parts (credits, not split included)
        assert plan.cell(r, 24).value == f"=ROUND(W{r}-(Q{r}+R{r}+S{r}+T{r}+U{r}+V{r}),2)"
        ac, pl, eng = (_num(plan.cell(r, k).value) for k in (9, 6, 25))
        assert abs((ac - pl) - eng) < D("1e-6")
    assert "Curves" in wb.sheetnames and wb["Curves"]._charts  # native line charts


def test_batch_workbook_has_the_curves_sheet(tmp_path, demo, sheets):
    from trainledger.report import xlsx

    with Workspace.open(demo) as wsp:
        lines = wsp.ledger.cost_lines("csa-sft-2026-11-a")
    out = tmp_path / "a.xlsx"
    book = xlsx.write_xlsx(sheets["csa-sft-2026-11-a"], lines, out)
    wb = openpyxl.load_workbook(out)
    assert _formulas(wb) == book.formulas
    ws = wb["Curves"]
    assert ws._charts
    days = [ws.cell(r, 1).value for r in range(3, ws.max_row + 1) if re.fullmatch(r"\d{4}-\d{2}-\d{2}",
                                                                                     str(ws.cell(r, 1).value))]
    assert "2026-11-02" in days


def test_demo_writes_the_cross_report(demo):
    for kind in ("md", "html", "json", "xlsx"):
        assert (demo / "reports" / f"report.{kind}").stat().st_size > 0
    d = json.loads((demo / "reports" / "report.json").read_text(encoding="utf-8"))
    assert d["scope"] == {"project": None, "from": None, "to": None, "by": "month", "days": "Asia/Shanghai",
                          "months": "billing_period_or_day"}


@pytest.mark.parametrize("argv,remedy", [
    (["report", "--from", "2026-02-30"], "write YYYY-MM-DD or YYYY-MM"),
    (["report", "--from", "2026-12", "--to", "2026-11"], "swap them"),
    (["report", "--project", "nope"], "use one of: cs-assistant"),
    (["report", "--format", "xlsx"], "give --out FILE.xlsx"),
])
def test_cli_refuses_bad_arguments_with_the_remedy(demo, argv, remedy):
    r = CliRunner().invoke(cli, ["--workspace", str(demo), "--lang", "en", *argv])
    assert r.exit_code == 2, r.output
    assert remedy in r.output and "Traceback" not in r.output


def test_cli_writes_each_format(demo, tmp_path):
    for fmt in ("md", "json", "html", "xlsx"):
        out = tmp_path / f"r.{fmt}"
        r = CliRunner().invoke(cli, ["--workspace", str(demo), "report", "--project", "cs-assistant", "--by",
                                     "batch", "--format", fmt, "--out", str(out), "--lang", "en"])
        assert r.exit_code == 0, r.output
        assert out.stat().st_size > 0
    assert json.loads((tmp_path / "r.json").read_text())["scope"]["by"] == "batch"


def test_every_check_cell_of_the_workbook_recomputes_to_zero(tmp_path, rep):
    from tests.xlsx_eval import Evaluator

    out = tmp_path / "r.xlsx"
    write_xlsx(rep, out)
    wb = openpyxl.load_workbook(out)
    ev = Evaluator(wb)
    for i, f in enumerate(rep.totals, 2):  # SUMIFS over Batches = the engine's total
        assert ev.value("Summary", f"F{i}") == f.expected and ev.value("Summary", f"G{i}") == D("0.00")
    for r, c in enumerate(rep.control, 3):
        assert [ev.value("Control", f"{c}{r}") for c in "EMN"] == [D("0.00")] * 3
        assert ev.value("Control", f"C{r}") == c.attributed and ev.value("Control", f"D{r}") == c.unattributed
    cny = 3 + [c.currency for c in rep.control].index("CNY")
    assert ev.value("Control", f"G{cny}") > 0 and ev.value("Control", f"I{cny}") > 0  # the sheets' own rows
    broken = Evaluator(wb, {("Batches", next(f"I{i}" for i in range(2, wb["Batches"].max_row + 1)
                                            if wb["Batches"][f"F{i}"].value == "billed"
                                            and wb["Batches"][f"G{i}"].value == "CNY")): D(0)})
    assert broken.value("Control", f"E{cny}") != 0  # a batch's cash total edited: the control says so
    for r in range(2, wb["Plan"].max_row + 1):
        assert ev.value("Plan", f"V{r}") == D("0.00")
    shares = wb["Shares"]
    pairs = [(br.batch, e) for br in rep.batches for e in br.effective]
    for r, (batch, e) in enumerate(pairs, 2):
        assert abs(ev.value("Shares", f"G{r}") - e.share) < D("0.00005"), (batch, shares[f"G{r}"].value)


def test_a_line_without_a_date_is_never_dropped(demo, monkeypatch):
    real = cross.line_dates

    def no_labor_dates(wsp, lines, runs, capacity=None):  # as if the timesheet rows had no day
        return [None if ln.category == "labor" else d
                for ln, d in zip(lines, real(wsp, lines, runs, capacity), strict=True)]

    monkeypatch.setattr(cross, "line_dates", no_labor_dates)
    full = _build(demo)
    internal = {c.batch: c.figure.expected for c in full.spend if c.period == cross.UNDATED}
    assert full.periods[-1] == cross.UNDATED and set(internal) == {"csa-sft-2026-11-a", "csa-sft-2026-11-b"}
    assert {c.figure.basis for c in full.spend if c.period == cross.UNDATED} == {"internal"}
    windowed = _build(demo, start="2026-11")
    assert not any(f.basis == "internal" for f in windowed.totals)  # outside every window …
    assert {c.batch: c.figure.expected for c in windowed.undated_outside} == internal  # … and listed apart
    assert "undated_outside_window" in cross_render.as_json(windowed)
    assert cross_text.t("undated_outside", "en") in cross_render.to_markdown(windowed, "en")


def test_unknown_work_shows_ev_and_eac_unknown_never_zero(demo, monkeypatch, tmp_path):
    """Review 2, F4: with no useful work measured, review.service.status gives no EV and no EAC
    (``"ev": [], "eac": []``); the report then says unknown in every format — never an EAC of 0.00
    below the AC, nor an EAC bar at 0 on the spend curve."""
    from trainledger.review import service

    real = service.status

    def unknown(wsp, batch_id, *a, **kw):  # what status returns without a progress log
        st = real(wsp, batch_id, *a, **kw)
        return {**st, "ev": [], "eac": [], "work": {**st["work"], "known": False}}

    monkeypatch.setattr(service, "status", unknown)
    r = _build(demo)
    a = next(b for b in r.batches if b.batch == "csa-sft-2026-11-a")
    billed = next(p for p in a.plan if (p.basis, p.currency) == ("billed", "CNY"))
    assert billed.ev is None and billed.eac is None and billed.ac[1] == D("80523.30")
    d = json.loads(cross_render.to_json(r))
    row = next(p for b in d["batches"] if b["batch"] == a.batch for p in b["plan_vs_actual"] if p["basis"] == "billed")
    assert row["ev"] is None and row["eac"] is None and row["ac"]["expected"] == "80523.30"
    assert r.curves and all(c.eac is None for c in r.curves)
    assert all(c["eac"] is None for c in d["spend_curves"])
    for lang, word in (("en", "unknown"), ("zh-CN", "未知")):
        md = cross_render.to_markdown(r, lang)
        line = next(ln for ln in md.splitlines() if ln.startswith(f"| {a.batch} | v") and "80,523.30" in ln)
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert word in cells[6] and word in cells[7], cells  # EV, EAC
        assert "0.00" not in (cells[6], cells[7])
        html = cross_render.to_html(r, lang)
        assert 'class="eac-range"' not in html and 'class="eac-unknown"' in html
    out = tmp_path / "r.xlsx"
    write_xlsx(r, out)
    wb = openpyxl.load_workbook(out)
    rows = [[c.value for c in rr] for s in wb for rr in s.iter_rows() if rr[0].value == a.batch]
    plan_row = next(x for x in rows if x[2] == "billed" and x[3] == "CNY")
    assert plan_row[10:16] == ["unknown / 未知"] * 6  # EV and EAC low / expected / high


def test_rework_is_the_review_bridges_failure_and_the_sheets_chain_failure(demo, rep, sheets):
    """One meaning of "rework" (G21): batch A's report rework cost is what the review's variance bridge
    counts as rework (review/actuals.collect) and the sheet's retry-chain failure — a-r01 → a-r02
    84.56 + a-r03 → a-r07 2,096.00 = 2,180.56 CNY — not every fault-retry run whole (5,720.56)."""
    from trainledger.review import service as rsvc

    a = next(b for b in rep.batches if b.batch == "csa-sft-2026-11-a")
    (w,) = [x for x in a.rework if (x.basis, x.currency) == ("billed", "CNY")]
    chains = sum(D(m["amount"]) for c in sheets[a.batch]["retry_chains"] for m in c["failure_cost"]
                 if m.get("basis", "billed") == "billed" and m["currency"] == "CNY")
    with Workspace.open(demo) as wsp:
        act = rsvc.actuals(wsp, rsvc.latest_plan(wsp, a.batch)[1])
    bridge = sum(la.rework_amount for pl_id, la in act.planned.items() if pl_id.startswith("compute"))
    assert w.part_amount == chains == D("2180.56")
    assert bridge == chains, (bridge, sorted(act.planned))
    for lang, words in (("en", "variance bridge counts"), ("zh-CN", "复盘差异桥")):  # the definition beside it
        assert words in cross_render.to_markdown(rep, lang) and words in cross_render.to_html(rep, lang)


def test_each_rework_figure_says_its_definition(demo):
    """The sheet (review section and retry chains) and `review` label rework with its definition, bilingual."""
    from click.testing import CliRunner

    from trainledger.cli import cli

    for lang, bridge, chain in (("en", "less the plan's rework allowance", "variance bridge counts as the failure"),
                                ("zh-CN", "减去计划的返工预留", "复盘差异桥中计为该失败返工")):
        out = CliRunner().invoke(cli, ["--workspace", str(demo), "review", "csa-sft-2026-11-a", "--lang", lang])
        assert out.exit_code == 0 and bridge in out.output, out.output
        sheet = CliRunner().invoke(cli, ["--workspace", str(demo), "sheet", "csa-sft-2026-11-a", "--lang", lang])
        assert bridge in sheet.output.replace("\\", "") and chain in sheet.output.replace("\\", "")


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_batch_without_a_plan_has_one_cell_per_header(rep, lang):
    """Review 3 G15: the "no plan" row had 12 cells under 13 headers."""
    from dataclasses import replace

    from trainledger.report.cross_render import tables

    no_plan = replace(rep, batches=(replace(rep.batches[0], plan=()), *rep.batches[1:]))
    table = next(t for t in tables(no_plan, lang) if t.id == "plan")
    assert table.rows and all(len(row) == len(table.head) for row in table.rows)
    assert table.rows[0][0] == rep.batches[0].batch


def test_storage_findings_are_words_in_the_sheet(sheets):
    """Review 3 G12: the zh-CN sheet printed governance codes (no_purpose, no_retention_or_review_date)."""
    from trainledger.report.render import to_markdown

    flagged = [s for s in sheets.values() if any(r["findings"] for r in s["storage_by_class"])]
    assert flagged  # the demo has objects without a purpose or a retention date
    for s in flagged:
        zh, en = to_markdown(s, "zh-CN"), to_markdown(s, "en")
        for code in ("no_purpose", r"no\_purpose", "no_retention_or_review_date", r"no\_retention"):
            assert code not in zh and code not in en
        assert "无保留期限或复查日期" in zh and "no retention or review date" in en
