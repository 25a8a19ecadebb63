"""H9: the plan's "overhead (planned)" is the measured non-effective states, in status and review;
spend where the plan has nothing raises an "unplanned spend" alert; 0-on-both rows are not printed."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from tests.review.helpers import R, compute_line, cost, plan_of, run, steps
from trainledger.model import AmountRange, Basis
from trainledger.review import actuals, status, variance

D = Decimal


def _act(plan, extra=()):
    lines = [cost("6600.00", 180, row=1), cost("1050.00", 30, state="data_stall", row=2),
             cost("350.00", 10, state="setup", row=3), cost("35.00", 1, state="checkpoint", row=4), *extra]
    return actuals.collect(plan, lines, [run("r1")], steps("r1", (50, 40_000_000), (100, 80_000_000)))


def test_status_overhead_row_is_the_sum_of_the_states_the_plan_does_not_name():
    plan = plan_of(compute_line())  # plans effective 2.0 + overhead 0.5 GPU-h per Mtoken
    act = _act(plan)
    st = status.build(plan, 1, act, variance.split(plan, act))
    rows = {r["state"]: r for r in st["gpu_hours_by_state"] if r["state"] != "rework (reruns)"}
    assert set(rows) == {"effective", "overhead"}  # no state with plan "-" beside the planned overhead
    ovh = rows["overhead"]
    assert D(ovh["actual"]) == D(30 + 10 + 1)  # data-stall + setup + checkpoint, not 0
    assert D(ovh["planned_for_work_done"]) == D(80) * D("0.5")
    assert {x["state"]: D(x["actual"]) for x in ovh["states"]} == {"checkpoint": 1, "data_stall": 30, "setup": 10}
    # the rows still add up to the runs' GPU-hours (the listed states are a detail, not rows)
    assert sum(D(r["actual"]) for r in rows.values()) == sum(act.gpu_hours_by_state.values()) == 221


def test_review_efficiency_overhead_carries_the_states_it_stands_for():
    plan = plan_of(compute_line())
    act = _act(plan)
    (lv,) = variance.split(plan, act)
    # 36 x (41 measured non-effective - 80 x 0.5 planned) = +36, not -1,440 beside the states' positives
    assert lv.efficiency_by_state == {"effective": D(720), "overhead": D(36)}
    assert lv.efficiency == D(756) == sum(lv.efficiency_by_state.values())


def test_a_plan_that_names_each_state_folds_nothing():
    eff = {"effective": R("2.0"), "setup": R("0.1"), "data_stall": R("0.3"), "checkpoint": R("0.01")}
    plan = plan_of(compute_line(eff=eff))
    act = _act(plan)
    rows = {r["state"]: r for r in status.build(plan, 1, act, variance.split(plan, act))["gpu_hours_by_state"]}
    assert D(rows["setup"]["actual"]) == 10 and "states" not in rows["setup"] and "overhead" not in rows
    (lv,) = variance.split(plan, act)
    assert lv.efficiency_by_state["setup"] == 36 * (10 - D(80) * D("0.1"))


def _usd(amount, row):
    ln = cost(amount, 0, category="other", state="", row=row)
    return replace(ln, amount=AmountRange(D(amount), D(amount), D(amount), "USD"), quantity=None, unit=None)


def test_spend_where_the_plan_has_nothing_raises_an_unplanned_spend_alert_in_both_languages():
    queued = replace(compute_line(price=R(0)), id="storage", category="storage", basis=Basis.QUEUED)
    plan = plan_of(compute_line(), queued)
    act = _act(plan, [_usd("123.45", 9)])
    st = status.build(plan, 1, act, variance.split(plan, act))
    (alert,) = [a for a in st["_alerts"] if a["kind"] == "unplanned"]
    assert alert["key"] == "unplanned:billed:USD" and alert["value"] == "123.45" and alert["plan"] == "0"
    assert "123.45" in alert["text"]["en"] and "unplanned spend" in alert["text"]["en"]
    assert "计划外支出" in alert["text"]["zh-CN"] and "123.45" in alert["text"]["zh-CN"]
    assert alert["driver"] == {"en": "unplanned:other 123.45 USD: a cost of a kind the plan has no line for",
                               "zh-CN": "计划外：其他 123.45 USD：计划中没有对应行的一类成本"}
    # the planned CNY basis raises no unplanned alert; a basis neither planned nor spent is no status row
    assert not [a for a in st["_alerts"] if a["kind"] == "unplanned" and a["currency"] == "CNY"]
    for k in ("plan", "ac", "ev", "eac"):
        assert {(r["basis"], r["currency"]) for r in st[k]} == {("billed", "CNY"), ("billed", "USD")}, k
    usd = next(r for r in st["plan"] if r["currency"] == "USD")
    assert usd["expected"] == "0.00"  # planned 0 but spent on: shown, beside its AC
    assert next(r for r in st["ac"] if r["currency"] == "USD")["expected"] == "123.45"


def test_no_unplanned_alert_without_spend():
    plan = plan_of(compute_line())
    act = _act(plan)
    st = status.build(plan, 1, act, variance.split(plan, act))
    assert not [a for a in st["_alerts"] if a["kind"] == "unplanned"]


def test_a_failures_hang_and_lost_progress_stay_beside_the_rework_row():
    plan = plan_of(compute_line())  # with a fault-retry allowance
    act = _act(plan, [cost("70.00", 2, state="hang", row=7), cost("105.00", 3, state="lost_progress", row=8)])
    rows = {r["state"]: r for r in status.build(plan, 1, act, variance.split(plan, act))["gpu_hours_by_state"]}
    assert D(rows["hang"]["actual"]) == 2 and D(rows["lost_progress"]["actual"]) == 3
    assert D(rows["overhead"]["actual"]) == 41 and "rework (reruns)" in rows
    no_allowance = plan_of(compute_line(rework={}))
    act = _act(no_allowance, [cost("70.00", 2, state="hang", row=7)])
    rows = {r["state"]: r for r in status.build(no_allowance, 1, act, variance.split(no_allowance, act))[
        "gpu_hours_by_state"]}
    assert "hang" not in rows and D(rows["overhead"]["actual"]) == 43
