"""A capacity-only workspace — the demo's owned cluster, its jobs and progress, and no cloud bill — reads
as one: the sheet's conservation is the capacity's (capacity cost = attributed + no job held + jobs
without a batch), never an empty per-currency bill table; the workbook's Control holds it as a formula.
Its GPU-hours are exact but short in JSON and in the workbook's exact column (no 28-digit quotients)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from fractions import Fraction
from io import BytesIO

import openpyxl
import pytest

from tests.xlsx_eval import Evaluator
from trainledger.demo import DEFAULT_SEED, generate
from trainledger.report.render import render
from trainledger.report.sheet import attributed_by_batch
from trainledger.report.xlsx import LINE_AT, H, build_workbook
from trainledger.service import Workspace

A = "csa-sft-2026-11-a"


@pytest.fixture(scope="module")
def capacity_only(tmp_path_factory):
    root = tmp_path_factory.mktemp("capacity-only")
    files = generate(root, seed=DEFAULT_SEED, scenario="owned")
    with Workspace.init(root) as wsp:
        for kind in ("slurm", "progress"):  # no focus bill, no invoice: the cluster is owned
            wsp.import_files(kind, [getattr(files, kind)])
        wsp.attribute()
        sheet = wsp.sheet(A)
        lines = wsp.ledger.cost_lines(A)
        others = attributed_by_batch(wsp, sheet["attribution_id"])
    return sheet, lines, others


def test_no_bill_means_the_capacity_is_the_conservation(capacity_only):
    sheet, _, _ = capacity_only
    c = sheet["conservation"]
    assert c["by_currency"] == [] and {r["capacity"] for r in c["capacity"]} == {"h800-own", "h800-reserved"}
    for r in c["capacity"]:  # by hand: the parts add up to the capacity's cost
        parts = Decimal(r["attributed"]) + Decimal(r["unheld"]) + Decimal(r.get("job_without_batch") or 0)
        assert parts == Decimal(r["total"]) and Decimal(r["difference"]) == 0
    md = render(sheet, "md", "en")
    section = md.split("## Conservation check (workspace)")[1].split("\n## ")[0]
    assert "| currency | billed total |" not in section  # no empty bill table
    assert "No bill in this workspace: what is conserved is each capacity's cost" in section
    assert "| h800-own | amortized |" in section and "| h800-reserved | rate card |" in section
    zh = render(sheet, "md", "zh-CN")
    assert "本工作区没有账单：守恒的是各容量的成本" in zh and "| 币种 | 账单总额 |" not in zh
    html = render(sheet, "html", "en")
    assert 'id="conservation"' not in html and 'id="conservation-capacity-only"' in html
    assert 'id="conservation-capacity"' in html


def _capacity_block(ws) -> dict[str, int]:
    """The Control sheet's capacity rows: capacity id → row (the first block under its heading)."""
    head = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == H("capacity_id"))
    rows = {}
    for r in range(head + 1, ws.max_row + 1):
        if ws.cell(r, 1).value is None:
            return rows
        rows[ws.cell(r, 1).value] = r
    return rows


def _book(sheet, lines, others):
    buf = BytesIO()
    book = build_workbook(sheet, lines, others=others)
    book.wb.save(buf)
    return book, openpyxl.load_workbook(BytesIO(buf.getvalue()))


def _lines_sum(wb, cap: str, basis: str, cur: str) -> Decimal:
    """What the capacity's SUMIFS should add, summed here over the Lines sheet's own rows: the lines of
    source kind capacity whose rule names the capacity, of its basis and currency."""
    lw = wb["Lines"]
    col = {k: LINE_AT[k] for k in ("source_kind", "rule", "basis", "currency", "for_formulas")}
    total = Decimal(0)
    for r in range(2, lw.max_row + 1):
        v = {k: lw.cell(r, c).value for k, c in col.items()}
        if (v["source_kind"], v["basis"], v["currency"]) == ("capacity", basis, cur) and \
                v["rule"].startswith(f"capacity {cap} ("):
            total += Decimal(repr(v["for_formulas"]))
    return total


def test_the_workbook_controls_each_capacity_with_a_formula(capacity_only):
    """Each capacity: this batch = a SUMIFS over Lines (recomputed here over the Lines rows), other
    batches = SUM over their table (the engine's per batch), attributed = the two, and the check
    capacity cost − (attributed + no job held + jobs without a batch) comes to 0.00, stored too."""
    sheet, lines, others = capacity_only
    book, wb = _book(sheet, lines, others)
    ws, ev = wb["Control"], Evaluator(wb)
    recs = {x["capacity"]: x for x in sheet["conservation"]["capacity"]}
    rows = _capacity_block(ws)
    assert set(rows) == set(recs) == {"h800-own", "h800-reserved"}
    for cap, r in rows.items():
        rec = recs[cap]
        mine = sum((ln.amount.expected for ln in lines if ln.provenance.source_kind == "capacity"
                    and ln.provenance.rule.startswith(f"capacity {cap} (")), Decimal(0))
        assert mine > 0  # the batch ran on this capacity
        assert ws.cell(r, 5).value.startswith("=SUMIFS(")
        assert ev.value("Control", f"E{r}") == _lines_sum(wb, cap, rec["basis"], rec["currency"]) == mine
        assert book.wb.cached[("Control", f"E{r}")] == mine  # the formula's stored result: the lines' decimal
        theirs = [x for x in others["capacity"] if x["capacity"] == cap and x["batch"] != A]
        assert theirs and ws.cell(r, 6).value.startswith("=SUM(")
        assert ev.value("Control", f"F{r}") == sum((Decimal(x["amount"]) for x in theirs), Decimal(0))
        assert ev.value("Control", f"G{r}") == Decimal(rec["attributed"])  # this + the others: the engine's
        assert str(ws.cell(r, 10).value).startswith("=ROUND(D")
        assert ev.value("Control", f"J{r}") == 0 == book.wb.cached[("Control", f"J{r}")]
        assert Decimal(str(ws.cell(r, 4).value)) == Decimal(rec["total"])


def test_the_capacity_check_moves_when_a_line_a_range_or_a_sign_is_broken(capacity_only):
    sheet, lines, others = capacity_only
    _, wb = _book(sheet, lines, others)
    ws = wb["Control"]
    r = _capacity_block(ws)["h800-reserved"]
    check = f"J{r}"
    assert Evaluator(wb).value("Control", check) == 0
    lw, at = wb["Lines"], LINE_AT["for_formulas"]
    line = next(i for i in range(2, lw.max_row + 1) if str(lw.cell(i, LINE_AT["rule"]).value).startswith(
        "capacity h800-reserved ("))
    coord = lw.cell(line, at).coordinate
    moved = Evaluator(wb, {("Lines", coord): Decimal(repr(lw[coord].value)) + 1})
    assert moved.value("Control", check) == Decimal("-1.00")  # a Lines amount edited: the check says so
    basis = LINE_AT["basis"]  # the other capacity's lines given this one's basis: still not this capacity's
    same = {("Lines", lw.cell(i, basis).coordinate): "rate_card" for i in range(2, lw.max_row + 1)
            if str(lw.cell(i, LINE_AT["rule"]).value).startswith("capacity h800-own (")}
    assert same and Evaluator(wb, same).value("Control", check) == 0
    sumifs = ws[f"E{r}"].value
    ws[f"E{r}"].value = re.sub(r"(\$[A-Z]+\$2:\$[A-Z]+\$)[0-9]+", lambda m: m.group(1) + str(line - 1), sumifs)
    assert Evaluator(wb).value("Control", check) != 0  # the SUMIFS range cut short
    ws[f"E{r}"].value = sumifs
    ws[f"G{r}"].value = ws[f"G{r}"].value.replace("+", "-")  # a sign flipped
    assert Evaluator(wb).value("Control", check) != 0


def test_without_the_other_batches_table_they_are_one_value_said_so(capacity_only):
    """An older attribution (or a token limited to this batch): other batches is the engine's
    attributed less this batch's lines, a value with its note; the check still comes to 0.00."""
    sheet, lines, _ = capacity_only
    _, wb = _book(sheet, lines, None)
    ws, ev = wb["Control"], Evaluator(wb)
    for r in _capacity_block(ws).values():
        assert ws.cell(r, 6).data_type == "n" and "other batches" in ws.cell(r, 12).value
        assert ev.value("Control", f"J{r}") == 0
    assert not any(ws.cell(r, 1).value == H("other_batches_table") for r in range(1, ws.max_row + 1))


LONG = re.compile(r"\d+\.\d{13,}")


def test_gpu_hours_are_exact_but_short_in_json_and_the_workbook(capacity_only):
    sheet, lines, _ = capacity_only
    raw = [r["gpu_hours_by_state"] for r in sheet["runs"]]
    assert any(LONG.fullmatch(v) for h in raw for v in h.values())  # the engine's quotients, before
    text = render(sheet, "json")
    assert not LONG.search(text)
    runs = json.loads(text)["runs"]
    exact_seen = False
    for r, before in zip(runs, raw, strict=True):
        exact = r.get("gpu_hours_by_state_exact", r["gpu_hours_by_state"])
        for state, v in before.items():
            rounded, x = Decimal(r["gpu_hours_by_state"][state]), Fraction(exact[state])
            assert abs(rounded - Decimal(v)) <= Decimal("0.0000005")  # display: six places
            assert abs(x - Fraction(Decimal(v))) < Fraction(1, 10**20)  # exact: the quotient it was cut from
            assert (x * 3600).denominator in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000)
            exact_seen |= "/" in exact[state]
    assert exact_seen  # hours that do not terminate are a rational, e.g. 451/450
    buf = BytesIO()
    build_workbook(sheet, lines).wb.save(buf)
    ws = openpyxl.load_workbook(BytesIO(buf.getvalue()))["Lines"]
    col = [c.value for c in ws[1]].index("quantity, exact / 数量（精确值）") + 1
    cells = [ws.cell(r, col).value for r in range(2, ws.max_row + 1) if ws.cell(r, col).value]
    assert cells and not any(LONG.fullmatch(str(v)) for v in cells) and any("/" in str(v) for v in cells)
    for r in range(2, ws.max_row + 1):
        if (v := ws.cell(r, col).value) and ws.cell(r, 8).value is not None:
            assert abs(float(Fraction(v)) - float(ws.cell(r, 8).value)) < 1e-9
