"""Unknown useful work is not zero work: nothing resting on earned value fires as if EV were 0.

Plan (tests/review/helpers): work 100 Mtoken; compute 36 CNY / GPU-hour expected (45 high) over
2.5 GPU-hours per Mtoken plus a 10 GPU-hour rework allowance: 9,360.00 expected, 11,700.00 high.
Actual: 6,600.00 CNY for 180 GPU-hours (70.5 % of the plan).
"""

from __future__ import annotations

from decimal import Decimal as D

from tests.review.helpers import compute_line, cost, plan_of, run, steps
from trainledger.review import actuals, status, variance

RULE = {"id": "overrun", "when": ["eac_over_plan > 0.2"], "action": "stop"}


def _status(progress):
    plan = plan_of(compute_line(), rules=(RULE,))
    act = actuals.collect(plan, [cost("6600.00", 180, run="a")], [run("a")], progress)
    return plan, act, status.build(plan, 1, act, variance.split(plan, act))


def test_without_work_the_eac_alert_is_a_work_unknown_notice_and_money_caps_still_fire():
    plan, act, st = _status([])
    assert not act.work_known
    by_kind = {}
    for a in st["_alerts"]:
        by_kind.setdefault(a["kind"], []).append(a)
    # the hard money cap: 6,600 ≥ 50 % of 9,360 (not 80 %: 70.5 %)
    assert [a["key"] for a in by_kind["spend"]] == ["spend:billed:CNY:50"]
    assert "eac_high" not in by_kind and "gate" not in by_kind
    (notice,) = by_kind["work_unknown"]
    assert notice["key"] == "work_unknown:billed:CNY" and notice["value"] == "6600.00"
    assert "useful work is unknown" in notice["text"]["en"] and "6,600.00" in notice["text"]["en"]
    assert "有效工作量未知" in notice["text"]["zh-CN"] and "trainledger import progress" in notice["text"]["zh-CN"]
    # EV = 0 would make EAC = AC + plan = 15,960.00, 70.5 % over plan: the rule must not hold on that
    assert "eac_over_plan" not in st["metrics"] and "efficiency_variance_share" not in st["metrics"]
    assert st["metrics"]["spend_share"].startswith("0.705128")
    assert status.verdict(plan, {k: D(v) for k, v in st["metrics"].items()})["action"] == "continue"


def test_with_work_known_the_eac_overrun_fires_and_no_notice():
    # 20 Mtoken done (200 steps of 100k tokens): 6,600 / 20 = 330 per Mtoken; EAC = 6,600 + 80 × 330
    # = 33,000.00 expected (high: 6,600 + 80 × max(330, 117) = 33,000.00) > plan high 11,700.00
    plan, act, st = _status(steps("a", (200, 20_000_000)))
    assert act.work_known and act.work == D(20)
    kinds = [a["kind"] for a in st["_alerts"]]
    assert "work_unknown" not in kinds
    (eac,) = [a for a in st["_alerts"] if a["kind"] == "eac_high"]
    assert eac["value"] == "33000.00"
    assert D(st["metrics"]["eac_over_plan"]) > D("0.2")
    assert status.verdict(plan, {k: D(v) for k, v in st["metrics"].items()})["action"] == "stop"
