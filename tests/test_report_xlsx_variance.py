"""The batch workbook's Variance sheet as live formulas over Lines and Assumptions, recomputed here
(tests/xlsx_eval.py): the bridge equals review/'s exact split, and a rate changed on Assumptions
moves the bridge by what the split's algebra says."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest

from tests.xlsx_eval import Evaluator
from trainledger.report import access, xlsx
from trainledger.service import Workspace

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")
D = Decimal
CENT = D("0.005")


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("var-demo")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    out = {}
    with Workspace.open(root) as wsp:
        for b in BATCHES:
            sheet, lines = wsp.sheet(b), wsp.ledger.cost_lines(b)
            path = Path(root) / f"{b}-v.xlsx"
            book = xlsx.write_xlsx(sheet, lines, path)
            out[b] = (access.for_role(sheet)[0], book, openpyxl.load_workbook(path))  # as admin sees it
    return out


def _block(ws) -> dict[tuple[str, str, str], int]:
    """Plan-line rows of the Variance sheet: (line id, basis, currency) → row."""
    rows, seen = {}, False
    for r in range(1, ws.max_row + 1):
        v = ws.cell(r, 1).value
        if isinstance(v, str) and v.startswith("plan line / "):
            seen = True
        elif seen and v:
            rows[(v, ws.cell(r, 3).value, ws.cell(r, 4).value)] = r
    return rows


@pytest.mark.parametrize("batch", BATCHES)
def test_the_bridge_is_live_and_equals_the_engines_split(books, batch):
    sheet, book, wb = books[batch]
    from tests.test_report_xlsx import _all_formulas

    assert _all_formulas(wb) == book.formulas
    ev, ws = Evaluator(wb), wb["Variance"]
    pva = sheet["plan_vs_actual"]
    for i, v in enumerate(pva["variance"], 2):
        assert ws.cell(i, 3).value.startswith("=SUMIFS(")  # the bridge's parts are formulas over the block
        for k, p in enumerate(xlsx.PARTS):
            got = ev.value("Variance", f"{chr(ord('C') + k)}{i}")
            assert abs(got - D(v[p])) < CENT, (batch, v["basis"], p, got, v[p])
        assert ev.value("Variance", f"O{i}") == D("0.00")  # actual − plan = the parts' sum
    rows = _block(ws)
    assert set(rows) == {(x["line"], x["basis"], x["currency"]) for x in pva["variance_lines"]}
    for x in pva["variance_lines"]:
        r = rows[(x["line"], x["basis"], x["currency"])]
        assert ev.value("Variance", f"AC{r}") == D("0.00"), x["line"]  # formulas = the engine's parts
        assert abs(ev.value("Variance", f"N{r}") - D(x["actual"])) < CENT  # A: SUMIFS over Lines


def test_a_rate_changed_on_assumptions_moves_the_bridge(books):
    sheet, _book, wb = books["csa-sft-2026-11-a"]
    aw = wb["Assumptions"]
    cell = next(f"D{r}" for r in range(1, aw.max_row + 1) if aw.cell(r, 9).value == "plan_compute_price")
    assert wb.defined_names["plan_compute_price"].attr_text == f"Assumptions!${cell[0]}${cell[1:]}"
    pp = D(repr(aw[cell].value))
    assert pp == D("36.00")
    base, moved = Evaluator(wb), Evaluator(wb, {("Assumptions", cell): pp + 1})
    comp = next(x for x in sheet["plan_vs_actual"]["variance_lines"] if x["line"] == "compute")
    q = comp["quantities"]
    qa, ra, wa, wp = (D(q[k]) for k in ("actual_quantity", "rework_quantity", "work_done", "planned_work"))
    pl = next(x for x in sheet["plan_vs_actual"]["plan_lines"] if x["id"] == "compute")
    e, f, rp = (D(pl[k]) for k in ("efficiency", "fixed", "rework_allowance"))
    row = next(i for i, v in enumerate(sheet["plan_vs_actual"]["variance"], 2) if v["basis"] == "billed")
    delta = {p: moved.value("Variance", f"{col}{row}") - base.value("Variance", f"{col}{row}")
             for p, col in zip(xlsx.PARTS, "CDEFGHIJ", strict=True)}
    want = {"plan": f + wp * e + rp, "actual": D(0), "price": -qa, "volume": e * (wa - wp),
            "efficiency": qa - ra - f - wa * e, "rework": ra - rp,
            "other": D(0), "not_split": D(0)}  # the credits do not move with the price; work is known
    for p in xlsx.PARTS:  # one more CNY per GPU-hour, through the split's algebra
        assert abs(delta[p] - want[p]) < D("0.0001"), (p, delta[p], want[p])
    assert delta["plan"] > 0 and delta["price"] < 0
    assert moved.value("Variance", f"O{row}") == D("0.00")  # the bridge still closes
    comp_row = _block(wb["Variance"])[("compute", "billed", "CNY")]
    assert moved.value("Variance", f"AC{comp_row}") > 0  # and the row no longer equals the engine's split
