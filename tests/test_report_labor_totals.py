"""The sheet's labor total (totals_by_basis, basis internal) is one person's cost when the batch's labor
is one role: restricted for engineer and viewer in every format, as its phase and role rows are."""

from __future__ import annotations

import json
from io import BytesIO

import openpyxl
import pytest

from trainledger.report.render import render
from trainledger.report.xlsx import build_workbook


def _sheet(roles: list[str]) -> dict:
    money = lambda x: [{"low": x, "expected": x, "high": x, "currency": "CNY"}]  # noqa: E731
    return {
        "batch": {"id": "b1", "name": "n", "project": "p1", "team": "t"},
        "key": {"goal": "g", "batch_id": "b1"},
        "totals_by_basis": [
            {"basis": "billed", "evidence": "contract", "cash": True, "low": "10.00", "expected": "10.00",
             "high": "10.00", "currency": "CNY", "lines": 1},
            {"basis": "internal", "evidence": "assumed", "cash": False, "low": "4321.00", "expected": "4321.00",
             "high": "4321.00", "currency": "CNY", "lines": len(roles)}],
        "compute_by_state": [], "runs": [], "storage_by_class": [], "external": [],
        "labor_by_phase": [{"phase": "run", "hours": "10", "cost": money("4321.00"),
                            "roles": [{"role": r, "hours": "10", "cost": money(f"{4321 / len(roles):.2f}")}
                                      for r in roles]}],
        "assumptions": [], "conservation": {"by_currency": [], "rounding": "r"}, "problems": [],
    }


@pytest.mark.parametrize("role", ["engineer", "viewer"])
def test_one_roles_labor_total_is_restricted(role):
    s = _sheet(["training_engineering"])
    for fmt in ("md", "html", "json"):
        text = render(s, fmt, "en", role)
        assert "4,321.00" not in text and "4321.00" not in text, fmt
    totals = json.loads(render(s, "json", "en", role))["totals_by_basis"]
    assert next(r for r in totals if r["basis"] == "internal")["expected"] == "restricted"
    assert next(r for r in totals if r["basis"] == "billed")["expected"] == "10.00"
    buf = BytesIO()
    build_workbook(s, [], role).wb.save(buf)
    cells = {c.value for ws in openpyxl.load_workbook(BytesIO(buf.getvalue())) for row in ws.iter_rows() for c in row}
    assert 4321 not in cells and "4321.00" not in cells
    assert "4,321.00" in render(s, "md", "en", "finance")


def test_several_roles_summed_stay_visible_to_an_engineer():
    s = _sheet(["training_engineering", "data_prep"])
    md = render(s, "md", "en", "engineer")
    assert "| internal | assumed | no | 4,321.00 |" in md
    assert "4,321.00" not in render(s, "md", "en", "viewer")
