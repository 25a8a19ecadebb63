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
from trainledger.report.xlsx import build_workbook
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
    return sheet, lines


def test_no_bill_means_the_capacity_is_the_conservation(capacity_only):
    sheet, _ = capacity_only
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


def test_the_workbook_controls_each_capacity_with_a_formula(capacity_only):
    sheet, lines = capacity_only
    buf = BytesIO()
    build_workbook(sheet, lines).wb.save(buf)
    wb = openpyxl.load_workbook(BytesIO(buf.getvalue()))
    ws = wb["Control"]
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    ev = Evaluator(wb)
    for cap in ("h800-own", "h800-reserved"):
        r = rows[cap]
        assert str(ws.cell(r, 8).value).startswith("=ROUND(D")
        assert ev.value("Control", f"H{r}") == 0  # capacity cost − (attributed + unheld + jobs without a batch)
        total = next(x for x in sheet["conservation"]["capacity"] if x["capacity"] == cap)["total"]
        assert Decimal(str(ws.cell(r, 4).value)) == Decimal(total)


LONG = re.compile(r"\d+\.\d{13,}")


def test_gpu_hours_are_exact_but_short_in_json_and_the_workbook(capacity_only):
    sheet, lines = capacity_only
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
