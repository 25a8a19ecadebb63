"""Restricted values fail closed, resolve per role, and every renderer's gate marks the sheet's
sensitive fields the same way (report/access.py); CSV cells cannot run as formulas."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from trainledger.model.restricted import (
    KINDS,
    ROLES,
    SEES,
    WORD,
    Restricted,
    Withheld,
    note,
    resolve,
    restrict,
)
from trainledger.report.access import for_role, mark_sheet
from trainledger.report.plan_access import mark_plan


def test_a_restricted_value_never_prints_itself():
    r = Restricted("263.17", "labor_rate")
    assert str(r) == f"{r}" == f"{r:>10}" == "restricted"
    assert "263" not in repr(r)
    with pytest.raises(TypeError):
        json.dumps({"rate": r})
    with pytest.raises(ValueError, match="unknown restricted kind"):
        Restricted(1, "salary")


def test_resolve_per_role_counts_what_it_showed_and_withheld():
    model = {"a": [Restricted("1.5", "labor_rate"), {"b": Restricted(["x"], "labor_cost_phase")}], "c": "plain"}
    for role in ROLES:
        out, d = resolve(model, role, "zh-CN")
        assert out["c"] == "plain"
        rate, phase = out["a"][0], out["a"][1]["b"]
        assert (rate == "1.5") is ("labor_rate" in SEES[role])
        assert (phase == ["x"]) is ("labor_cost_phase" in SEES[role])
        if isinstance(rate, Withheld):
            assert rate == WORD[1] and rate.kind == "labor_rate"
        assert sum(d.revealed.values()) + sum(d.withheld.values()) == 2
    assert SEES["finance"] == SEES["admin"] == frozenset(KINDS) and not SEES["viewer"]
    with pytest.raises(ValueError, match="unknown role"):
        resolve(model, "root")


def test_marking_twice_changes_nothing_and_empty_stays_empty():
    r = restrict("5", "unit_price")
    assert restrict(r, "labor_rate") is r
    assert restrict(None, "unit_price") is None and restrict([], "unit_price") == []
    w = Withheld("unit_price")
    assert restrict(w, "unit_price") is w


def _sheet():
    money = [{"low": "10.00", "expected": "12.00", "high": "14.00", "currency": "CNY"}]
    return {
        "labor_by_phase": [
            {"phase": "run", "hours": "3", "cost": money, "roles": [
                {"role": "data_prep", "hours": "1", "cost": money},
                {"role": "business_eval", "hours": "2", "cost": money}]},
            {"phase": "rework", "hours": "1", "cost": money,
             "roles": [{"role": "vendor", "hours": "1", "cost": money}]},
        ],
        "external": [{"vendor": "v", "stage": "delivery", "low": "9", "expected": "9", "high": "9", "currency": "CNY"}],
        "assumptions": [{"name": "labor rate: data_prep", "low": "220", "high": "320"},
                        {"name": "storage price storage:standard", "low": "0.11", "high": "0.15"},
                        {"name": "node-hour split", "value": "by GPU-seconds"}],
        "compute_by_state": [{"state": "effective", "price_per_gpu_hour": {"amount": "36.00", "currency": "CNY"}}],
        "conservation": {"capacity": [{"capacity": "own", "price_per_gpu_hour": "12.50"}]},
        "storage_reconciliation": {"groups": [{"billed": "58.09", "billed_price_per_gib_month": "0.113994"}]},
        "plan_vs_actual": {"lessons": [{"name": "compute: price per gpu_hour", "before": {"low": "30", "evidence": "x"},
                                        "after": {"value": "35.7"}}]},
    }


def test_the_sheet_fields_each_role_sees():
    eng, d = for_role(_sheet(), "engineer")
    run, rework = eng["labor_by_phase"]
    assert run["cost"][0]["expected"] == "12.00"  # several roles: the phase's cost is shown
    assert rework["cost"] == "restricted"  # one role: the phase's cost is that role's
    assert all(r["cost"] == "restricted" for p in eng["labor_by_phase"] for r in p["roles"])
    assert all(r["hours"] != "restricted" for p in eng["labor_by_phase"] for r in p["roles"])
    assert eng["external"][0]["expected"] == "9"
    assert [a.get("low") for a in eng["assumptions"]] == ["restricted", "restricted", None]
    assert eng["assumptions"][2]["value"] == "by GPU-seconds"
    assert eng["compute_by_state"][0]["price_per_gpu_hour"] == {"amount": "restricted", "currency": "CNY"}
    assert eng["conservation"]["capacity"][0]["price_per_gpu_hour"] == "restricted"
    lesson = eng["plan_vs_actual"]["lessons"][0]
    assert lesson["before"] == {"low": "restricted", "evidence": "x"} and lesson["after"]["value"] == "restricted"
    group = eng["storage_reconciliation"]["groups"][0]  # any field named as a unit price, wherever it is
    assert group == {"billed": "58.09", "billed_price_per_gib_month": "restricted"}
    assert eng["access"]["withheld"] == {"labor_cost_person": 4, "labor_rate": 2, "unit_price": 7}
    viewer, _ = for_role(_sheet(), "viewer")
    assert viewer["labor_by_phase"][0]["cost"] == "restricted" and viewer["external"][0]["expected"] == "restricted"
    fin, d = for_role(_sheet(), "finance")
    assert fin == {k: v for k, v in _sheet().items()} and not d.withheld  # finance: the sheet as it is
    assert "人力费率" in note(for_role(_sheet(), "engineer")[1], "zh-CN")


def test_review_lines_of_one_labor_role_are_restricted():
    model = {"review": {"lines": [
        {"line": "labor:data_prep", "plan": "100", "actual": "120", "price": "5", "efficiency_by_state": {"run": "3"},
         "quantities": {"actual_quantity": "2"}},
        {"line": "compute", "plan": "100", "actual": "120"}]}}
    out, _ = resolve(mark_plan(model), "engineer")
    labor, compute = out["review"]["lines"]
    assert labor["plan"] == labor["actual"] == labor["efficiency_by_state"]["run"] == "restricted"
    assert labor["quantities"] == {"actual_quantity": "2"} and compute["actual"] == "120"


def test_mark_sheet_keeps_the_unmarked_sheet_as_it_was():
    s = _sheet()
    mark_sheet(s)
    assert s == _sheet()


def test_csv_cells_never_run_and_amounts_follow_the_role():
    from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
    from trainledger.report.csv_lines import cell, to_csv

    assert cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and cell("@SUM(A1)") == "'@SUM(A1)"
    assert cell("+1+1") == "'+1+1" and cell("-12.50") == "-12.50" and cell("\tx") == "'\tx"
    prov = Provenance(source_sha256="a" * 64, row=3, rule="=cmd|' /C calc'!A0", source_kind="timesheet")
    amount = AmountRange(Decimal("526.34"), Decimal("607.82"), Decimal("700.00"), "CNY")
    line = CostLine(category="labor", basis=Basis.INTERNAL, evidence=Evidence.ASSUMED, amount=amount, batch_id="b1",
                    run_id=None, detail="run/data_prep", quantity=Decimal("2"), unit="hour", reason="",
                    provenance=prov)
    eng, fin = to_csv([line], "engineer"), to_csv([line], "finance")
    assert "607.82" not in eng and "restricted,restricted,restricted" in eng and "607.82" in fin
    assert ",'=cmd|" in fin  # the rule text is data, never a formula


def test_an_invoice_row_and_a_labor_or_invoice_pool_are_hidden_from_a_viewer():
    """Review 2, F8: the unattributed bucket's invoice rows are vendor_amount; an allocation pool
    (and a batch's share of it) drawn from invoices is vendor_amount, from labor labor_cost_phase."""
    s = {"conservation": {"by_currency": [{"currency": "CNY", "unattributed": "60100.00", "unattributed_by_reason": [
             {"reason": "no_rule_matched", "detail": "invoice YQ-1 (vendor, delivery)", "amount": "48000.00"},
             {"reason": "capacity_unheld", "detail": "node n1", "amount": "100.00"}]}]},
         "allocation": [
             {"policy": "inv", "source_basis": "billed", "category": "external", "pool": "48000.00",
              "share": "24000.00"},
             {"policy": "build", "source_basis": "internal", "category": "labor", "pool": "11185.00",
              "share": "2537.35"},
             {"policy": "net", "source_basis": "billed", "category": "network", "pool": "356.98", "share": "80.98"}]}
    viewer, d = for_role(s, "viewer")
    rows = viewer["conservation"]["by_currency"][0]["unattributed_by_reason"]
    assert [r["amount"] for r in rows] == ["restricted", "100.00"]
    # the bucket's total too: less its other rows, shown, it gives the invoice back (review 8 R8-2;
    # report/vendor_kinds.py mark_conservation)
    assert viewer["conservation"]["by_currency"][0]["unattributed"] == "restricted"
    assert [(a["pool"], a["share"]) for a in viewer["allocation"]] == [
        ("restricted", "restricted"), ("restricted", "restricted"), ("356.98", "80.98")]
    assert d.withheld == {"vendor_amount": 4, "labor_cost_phase": 2}
    eng, d = for_role(s, "engineer")
    assert (eng["conservation"], eng["allocation"]) == (s["conservation"], s["allocation"]) and not d.withheld
