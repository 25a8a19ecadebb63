"""G16: on owned / reserved capacity the plan prices compute on the capacity's bases (amortized,
rate_card), so the review, the status table, the gates and the stop rules compare like with like.

The owned demo: h800-own (gpu-node-01/02, 16 GPUs, amortized 11.8758 CNY/GPU-h) and h800-reserved
(gpu-node-03/04, 16 GPUs, rate card 30.00), same period. The estimator's GPU-hours Q (the rented
demo's billed plan: 44,555.00 CNY at 36.00 = 1,237.64 GPU-h) split 16 : 16, so by hand
amortized plan = Q / 2 × 11.8758 = 7,348.98 and rate card plan = Q / 2 × 30.00 = 18,564.58."""

from __future__ import annotations

from decimal import Decimal

import pytest

from trainledger.cli.demo_cmd import run_demo
from trainledger.demo import DEFAULT_SEED
from trainledger.review import service
from trainledger.service import Workspace

A = "csa-sft-2026-11-a"


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    root = tmp_path_factory.mktemp("owned-demo")
    out: list[str] = []
    run_demo(root, DEFAULT_SEED, echo=out.append, scenario="owned")
    with Workspace.open(root) as wsp:
        _pid, plan = service.latest_plan(wsp, A)
        yield {"out": out, "plan": plan, "status": service.status(wsp, A), "review": service.review(wsp, A),
               "lines": wsp.ledger.cost_lines(A)}


def test_the_plan_is_on_the_capacity_bases_with_the_estimators_hours(owned):
    plan = owned["plan"]
    comp = {str(ln.basis): ln for ln in plan.lines if ln.category == "compute"}
    assert set(comp) == {"amortized", "rate_card"}  # no billed compute line: nothing on the bill runs the GPUs
    assert comp["amortized"].price.expected == Decimal("11.8758") and comp["rate_card"].price.expected == 30
    qa, qr = (comp[b].quantity(plan.work, "expected") for b in ("amortized", "rate_card"))
    assert qa == qr  # 16 GPUs each over the same period
    assert (qa + qr).quantize(Decimal("0.01")) == Decimal("1237.64")  # = 44,555.00 / 36.00, the billed plan's
    totals = {b: v.expected.quantize(Decimal("0.01")) for (b, _c), v in plan.totals().items()}
    assert totals["amortized"] == Decimal("7348.98") and totals["rate_card"] == Decimal("18564.58")
    assert "billed" not in totals


def test_the_review_bridges_each_basis_against_its_own_actuals(owned):
    rows = {r["basis"]: r for r in owned["review"]["variance"]}
    for basis, actual, plan in (("amortized", "15018.40", "7348.98"), ("rate_card", "29546.54", "18564.58")):
        r = rows[basis]
        assert Decimal(r["actual"]).quantize(Decimal("0.01")) == Decimal(actual)  # amortized: 4 decimals exact
        assert Decimal(r["plan"]).quantize(Decimal("0.01")) == Decimal(plan)
        parts = sum(Decimal(r[k]) for k in ("price", "volume", "efficiency", "rework"))
        assert parts == Decimal(r["actual"]) - Decimal(r["plan"])
    rc = [ln for ln in owned["lines"] if str(ln.basis) == "rate_card" and ln.quantity]
    runs: dict[str, list] = {}
    for ln in rc:
        runs.setdefault(ln.run_id, []).append(ln)
    # K2: each run is 30.00 × its GPU-hours to the cent, the batch the sum of its runs: 29,546.54, where
    # 30.00 × the batch's 984.884444 GPU-hours is 29,546.5333 — under half a cent per run of the runs' rounding
    for ls in runs.values():
        exact = 30 * sum(ln.quantity for ln in ls).quantize(Decimal("1e-9"))
        assert sum(ln.amount.expected for ln in ls) == exact.quantize(Decimal("0.01"))
    rc_hours = sum(ln.quantity for ln in rc)
    assert (30 * rc_hours.quantize(Decimal("1e-9"))).quantize(Decimal("0.01")) == Decimal("29546.53")
    # the card's rate: "price" is only the runs' rounding (0.0067 here), never a cent per run
    assert abs(Decimal(rows["rate_card"]["price"])) <= Decimal("0.005") * len(runs)
    billed = rows["billed"]  # only the rented data-processing instance: unplanned, no phantom saving
    assert Decimal(billed["plan"]) == 0 and Decimal(billed["efficiency"]) == 0
    assert any("amortized CNY: actual 15,018.40 − plan 7,348.98" in x for x in owned["out"])


def test_status_counts_capacity_hours_and_gates_and_rules_see_the_overrun(owned):
    st = owned["status"]
    eff = next(r for r in st["gpu_hours_by_state"] if r["state"] == "effective")
    by_hand = sum((ln.quantity or Decimal(0)).quantize(Decimal("0.000001")) for ln in owned["lines"]
                  if ln.category == "compute" and ln.detail == "effective"
                  and str(ln.basis) in ("amortized", "rate_card", "billed"))
    assert Decimal(eff["actual"]) == by_hand and by_hand > 2000  # 2,104.77 GPU-h ran effective, not 0.00
    gate = st["gates"][0]
    assert gate["reached"] and gate["verdict"]["action"] == "shrink"  # as the rented demo's identical story
    keys = {a["key"] for a in st["alerts"]}
    assert {"spend:amortized:CNY:100", "spend:rate_card:CNY:100"} <= keys  # no alert fired on the billed plan
    assert any("rules: shrink" in x for x in owned["out"])
