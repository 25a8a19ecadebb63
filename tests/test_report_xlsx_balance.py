"""The batch workbook's Balance sheet read back (openpyxl): the sheet's ``balance`` view model — the same
numbers as the JSON —, each drawer assumption's low / high a formula over its named cell on Assumptions,
the money moves as values; labels beside the codes (Summary, Variance, Balance) in the workbook's
language; an engineer's Balance holds no rate."""

from __future__ import annotations

import io
from decimal import Decimal

import openpyxl
import pytest

from tests.xlsx_eval import Evaluator
from trainledger.report import xlsx
from trainledger.report.access import for_role
from trainledger.service import Workspace

BATCH = "csa-sft-2026-11-a"


@pytest.fixture(scope="module")
def sheet_lines(demo_pristine):
    with Workspace.open(demo_pristine) as wsp:
        return wsp.sheet(BATCH), wsp.ledger.cost_lines(BATCH)


def _book(sheet, lines, role="admin", lang=None):
    buf = io.BytesIO()
    book = xlsx.build_workbook(sheet, lines, role, lang)
    book.wb.save(buf)
    buf.seek(0)
    data = buf.getvalue()
    return book, openpyxl.load_workbook(io.BytesIO(data)), openpyxl.load_workbook(io.BytesIO(data), data_only=True)


def _rows(ws) -> list[list]:
    return [[c.value for c in row] for row in ws.iter_rows()]


def test_balance_sheet_holds_the_json_balance(sheet_lines):
    sheet, lines = sheet_lines
    bl = for_role(sheet)[0]["balance"]
    _, wb, _ = _book(sheet, lines)
    rows = _rows(wb["Balance"])
    by_part = {}
    for r in rows:
        if r[0] in ("compute", "storage", "labor", "earned_value"):
            by_part[(r[0], r[2])] = r
    for part in ("compute", "storage", "labor"):
        for x in bl["left"][part]:
            got = by_part[(part, x["basis"])]
            assert [Decimal(repr(v)) for v in got[7:10]] == [Decimal(x[k]) for k in ("low", "expected", "high")]
    for x in bl["right"]["earned_value"]:
        got = by_part[("earned_value", x["basis"])]
        assert Decimal(repr(got[8])) == Decimal(x["expected"])
    assert by_part[("compute", "billed")][3] == "billed / 账单现金"  # the label beside the code


def test_drawer_reads_its_named_cells_and_moves_are_values(sheet_lines):
    sheet, lines = sheet_lines
    full = for_role(sheet)[0]
    bl = full["balance"]
    book, wb, cached = _book(sheet, lines)
    ws, ev = wb["Balance"], Evaluator(wb)
    start = next(i for i, r in enumerate(_rows(ws), 1) if r[0] and str(r[0]).startswith("Assumptions drawer"))
    moved = {}
    named = 0
    for i in range(start + 2, ws.max_row + 1):
        low, high = ws.cell(row=i, column=2), ws.cell(row=i, column=3)
        if low.data_type == "f":
            named += 1
            name = low.value[1:]
            assert ("Balance", low.coordinate) in book.formulas and name in wb.defined_names
            a = next(a for a in full["assumptions"] if xlsx._slug(a["name"]) + "_low" == name)
            assert ev.value("Balance", low.coordinate) == Decimal(str(a["low"]))
            assert Decimal(repr(cached["Balance"][low.coordinate].value)) == Decimal(str(a["low"]))
            assert high.value == f"={xlsx._slug(a['name'])}_high"
        if isinstance(ws.cell(row=i, column=9).value, int | float):
            assert ws.cell(row=i, column=9).data_type == "n"  # a value, not a formula
            moved[(ws.cell(row=i, column=1).value.split(" / ")[0], ws.cell(row=i, column=6).value)] = (
                Decimal(repr(ws.cell(row=i, column=9).value)), Decimal(repr(ws.cell(row=i, column=10).value)))
    assert named >= 10
    for a in bl["sensitivity"]:
        for m in a["moves"] or []:
            key = ("storage prices (all tiers together)" if a["joint"] else a["name"], m["basis"])
            assert moved[key] == (Decimal(m["low"]), Decimal(m["high"])), key
    # a rate changed on Assumptions: the drawer's cell follows it
    title, coord = next(wb.defined_names["asm_labor_rate_training_engineering_low"].destinations)
    row = next(i for i in range(start, ws.max_row + 1)
               if ws.cell(row=i, column=2).value == "=asm_labor_rate_training_engineering_low")
    assert Evaluator(wb, {(title, coord.replace("$", "")): Decimal(290)}).value("Balance", f"B{row}") == 290


def test_labels_in_the_workbooks_language(sheet_lines):
    sheet, lines = sheet_lines
    for lang, state, line in ((None, "data stall / 数据等待", "labor: business eval / 人力：业务评测"),
                              ("zh-CN", "数据等待", "人力：业务评测"), ("en", "data stall", None)):
        _, wb, _ = _book(sheet, lines, lang=lang)
        summary = _rows(wb["Summary"])
        assert any(r[0] == "data_stall" and str(r[3]).startswith(f"{state} (") for r in summary), lang
        assert any(r[0] == "billed" and (r[9] or "").startswith(("billed", "账单现金")) for r in summary)
        if line:
            assert any(str(v).startswith(f"{line} · ") for r in _rows(wb["Variance"]) for v in r), (lang, line)
        if lang == "zh-CN":
            assert any(r[0] == "labor" and r[1] == "人力" for r in _rows(wb["Balance"]))


def test_engineer_balance_has_no_rate_and_no_formula_over_one(sheet_lines):
    sheet, lines = sheet_lines
    _, wb, _ = _book(sheet, lines, "engineer")
    ws = wb["Balance"]
    rates = [r for r in _rows(ws) if r[0] and str(r[0]).startswith("labor rate: ")]
    assert len(rates) == 6 and all(r[1] == r[2] == "restricted" for r in rates)
    assert all(r[8] == r[9] == "restricted" for r in rates if r[5] is None)
    assert not any(c.data_type == "f" and "labor_rate" in str(c.value) for row in ws.iter_rows() for c in row)
