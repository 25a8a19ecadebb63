"""Every formula of the batch and cross-batch workbooks stores its computed result (issue 10 item 4):
read back without a calculation engine (the raw ``<v>``, ``openpyxl data_only=True``), each formula
cell holds the engine's figure — equal to the same formula recomputed from the file's inputs
(tests/xlsx_eval.py) and to the figure the engine states beside it."""

from __future__ import annotations

import re
import zipfile
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest

from tests.xlsx_eval import Evaluator
from trainledger.report import cross, cross_text, xlsx
from trainledger.report.access import for_role
from trainledger.report.cross_xlsx import write_xlsx as write_cross
from trainledger.service import Workspace

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("xlsx-cached")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    out = {}
    with Workspace.open(root) as wsp:
        for b in BATCHES:
            sheet = for_role(wsp.sheet(b))[0]
            xlsx.write_xlsx(sheet, wsp.ledger.cost_lines(b), root / f"{b}.xlsx")
            out[b] = (root / f"{b}.xlsx", sheet)
        write_cross(cross.build(wsp, cross.Scope()), root / "report.xlsx")
        out["report"] = (root / "report.xlsx", {})
    return out


def _raw_formula_cells(path: Path) -> list[tuple[str, str, str]]:
    """(part, coordinate, text of <v>) of every formula cell, read from the XML itself."""
    out = []
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.startswith("xl/worksheets/sheet"):
                xml = z.read(name).decode()
                for m in re.finditer(r'<c r="([A-Z]+[0-9]+)"[^>]*>(<f>.*?</f>)(<v\s*/>|<v>(.*?)</v>)?', xml):
                    out.append((name, m.group(1), m.group(4) or ""))
    return out


@pytest.mark.parametrize("name", [*BATCHES, "report"])
def test_no_formula_cell_has_an_empty_cached_value(books, name):
    cells = _raw_formula_cells(books[name][0])
    assert cells, "the workbook has formulas"
    empty = [(p, c) for p, c, v in cells if v == ""]
    assert not empty, f"{len(empty)} of {len(cells)} formula cells store no result, e.g. {empty[:3]}"
    assert all("E" not in v.upper() for _, _, v in cells)  # plain decimal text, no scientific notation
    assert not any(v.startswith("-") and not Decimal(v) for _, _, v in cells)  # no "-0"


def _close(a: Decimal, b: Decimal) -> bool:
    """Equal up to what a 15-significant-digit formula input can carry."""
    return abs(a - b) <= max(Decimal("1e-6"), abs(b) * Decimal("1e-12"))


@pytest.mark.parametrize("name", [*BATCHES, "report"])
def test_each_stored_result_is_what_the_formula_computes(books, name):
    path = books[name][0]
    wb, cached = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    ev = Evaluator(wb)
    n = 0
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.data_type != "f":
                    continue
                n += 1
                stored = cached[ws.title][c.coordinate].value
                assert isinstance(stored, int | float), (ws.title, c.coordinate, c.value, stored)
                got = Decimal(ev.formula(ws.title, c.value))
                assert _close(Decimal(repr(stored)), got), (ws.title, c.coordinate, c.value, stored, got)
    assert n > 10


@pytest.mark.parametrize("batch", BATCHES)
def test_stored_results_are_the_engines_figures(books, batch):
    path, sheet = books[batch]
    wb = openpyxl.load_workbook(path, data_only=True)
    ctl = wb["Control"]
    for i, r in enumerate(sheet["conservation"]["by_currency"], 4):  # attributed, unattributed, check
        assert ctl.cell(row=i, column=1).value == r["currency"]
        assert Decimal(repr(ctl.cell(row=i, column=5).value)) == Decimal(r["attributed"])
        assert Decimal(repr(ctl.cell(row=i, column=6).value)) == Decimal(r["unattributed"])
        assert Decimal(repr(ctl.cell(row=i, column=7).value)) == Decimal(r["difference"])
    var = wb["Variance"]
    for i, v in enumerate(sheet["plan_vs_actual"]["variance"], 2):
        for k, p in enumerate(xlsx.PARTS):  # the bridge's SUMIFS over the plan-line block
            assert _close(Decimal(repr(var.cell(row=i, column=3 + k).value)), Decimal(v[p]))
        delta = Decimal(v["actual"]) - Decimal(v["plan"])
        assert _close(Decimal(repr(var.cell(row=i, column=11).value)), delta)  # after the 8 bridge columns
    summ = wb["Summary"]
    for i, r in enumerate(xlsx.in_seed_order(sheet)["totals_by_basis"], 2):
        stored = summ.cell(row=i, column=8).value
        if stored is not None:  # the lines' sum: a cash total to the digit, another at the engine's minor unit
            got = Decimal(repr(stored))
            if not r["cash"]:
                got = xlsx.xround(got, xlsx.places(r["currency"]))
            assert _close(got, Decimal(r["expected"]))
            assert Decimal(repr(summ.cell(row=i, column=9).value)) == 0  # and its check is 0.00


def test_cross_control_heads_its_unattributed_column_as_such(books):
    ws = openpyxl.load_workbook(books["report"][0])["Control"]
    en, zh = cross_text.TEXT["unattributed_short"]
    assert ws["D2"].value == f"{en} / {zh}"
    assert ws["I2"].value.startswith(f"{en}, in Unattributed")
    section = cross_text.TEXT["unattributed"]
    assert not any(section[0] in (c.value or "") for c in ws[2])
