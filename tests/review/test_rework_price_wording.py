"""H5: the review's rework is the failure's GPU-hours at the *plan's* price less the allowance; the
sheet's retry chains (and the cross report) show them at their actual cost; the gap is in price.
The sentences that relate the figures say so, and the figures relate that way."""

from __future__ import annotations

import json
from decimal import Decimal

from tests.review.helpers import R, compute_line, cost, plan_of, run, steps
from trainledger.demo.scenario import BATCH_A
from trainledger.report.cross_text import TEXT as CROSS
from trainledger.report.i18n import TEXT as SHEET
from trainledger.review import actuals, service, variance
from trainledger.review.texts import TEXT as REVIEW
from trainledger.service import Workspace

D = Decimal


def test_rework_at_plan_price_and_its_price_gap_in_price():
    """As the repro: plan 20.00 CNY/GPU-h, the node's actual price 26.40; 6 rework GPU-hours, allowance 1."""
    plan = plan_of(compute_line(price=R(20), rework={"fault_retry": R(1)}))
    lines = [cost("264.00", 10, row=1), cost("158.40", 6, run="r2", row=2)]  # 26.40 per GPU-hour both
    act = actuals.collect(plan, lines, [run("r1"), run("r2", "fault_retry", "infra_fault")],
                          steps("r1", (10, 5_000_000)))
    (lv,) = variance.split(plan, act)
    a = act.planned["compute"]
    assert a.rework_quantity == 6 and a.rework_amount == D("158.40")  # the failure at its actual cost (the sheet's)
    at_plan = D(20) * 6
    assert sum(lv.rework_by_kind.values()) == at_plan == 120  # the review values them at the plan's price …
    assert lv.rework == at_plan - 20 * 1 == 100  # … less the allowance: not 158.40 − 20
    gap = a.rework_amount - at_plan  # 6 x (26.40 − 20.00) = 38.40
    assert gap == D("38.40")
    # … and their price gap is in price, beside the effective hours' own gap (10 x 6.40)
    assert lv.price == gap + 10 * (D("26.40") - 20) == D("102.40")
    assert lv.price + lv.volume + lv.efficiency + lv.rework == lv.actual - lv.plan


def test_the_sheets_retry_chains_are_the_reviews_rework_hours_at_actual_cost(demo_dir):
    sheet = json.loads((demo_dir / "reports" / f"{BATCH_A}.json").read_text())
    chains = sum((D(c["amount"]) for ch in sheet["retry_chains"] for c in ch["failure_cost"]), D(0))
    with Workspace.open(demo_dir) as wsp:
        _pid, plan = service.latest_plan(wsp, BATCH_A)
        act = service.actuals(wsp, plan)
    a = act.planned["compute"]
    assert chains == a.rework_amount == D("2180.56")  # the same GPU-hours' actual cost, fault retries only here
    (lv,) = [x for x in variance.split(plan, act) if x.line == "compute"]
    pp = next(p for p in plan.lines if p.id == "compute").price.expected
    assert sum(lv.rework_by_kind.values()) == pp * a.rework_quantity  # the bridge: at the plan's price


def test_the_sentences_say_the_plans_price_not_equality():
    for en, zh in (SHEET["chain_note"], CROSS["rework_note"], REVIEW["rework_def"]):
        assert "plan's price" in en and "计划单价" in zh
        assert "is this less" not in en and "the same figure" not in en and "同一数字" not in zh
    assert "price" in SHEET["chain_note"][0] and "价格" in SHEET["chain_note"][1]
