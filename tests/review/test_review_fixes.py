"""Review 3 fixes, hand-worked: credits are not price (G13), no volume / efficiency split without
useful work (G24), a basis nothing was recorded on is not a measured zero (G11), a job that never
started is no round (G14), a confirmed cause reaches the rework split (G9)."""

from __future__ import annotations

from dataclasses import replace
from decimal import Decimal

from tests.review.helpers import R, compute_line, cost, plan_of, run, steps
from trainledger.model import Basis
from trainledger.review import actuals, status, variance
from trainledger.review.plan import PlanLine

D = Decimal


def _credit_case():
    """Plan: 32 CNY/GPU-h x 100 Mtoken x 0.1 GPU-h/Mtoken = 320.00. Actual: 10 effective GPU-h billed
    at 32.00 (320.00), an SLA credit of −100.00 and a tagged CPU instance of 20.00 (no GPU-hours):
    the bill's GPU price is 32.00 exactly; the −80.00 is credits and other charges."""
    plan = plan_of(compute_line(price=R(32), eff={"effective": R("0.1")}, rework={}))
    lines = [cost("320.00", 10, row=1), cost("-100.00", 0, state="credit", run=None, row=2),
             cost("20.00", 0, state="tagged_resource", run=None, row=3)]
    act = actuals.collect(plan, lines, [run("r1")], steps("r1", (100, 100_000_000)))
    return plan, act


def test_credits_and_non_gpu_compute_are_not_price():
    plan, act = _credit_case()
    (lv,) = variance.split(plan, act)
    assert lv.actual == D("240.00") and lv.plan == D("320.0")
    assert lv.price == 0  # 320.00 − 32 x 10: the usage lines' price is the plan's
    assert lv.other == D("-80.00")  # −100.00 credit + 20.00 CPU instance
    assert lv.volume == 0 and lv.efficiency == 0 and lv.rework == 0
    assert lv.price + lv.volume + lv.efficiency + lv.rework + lv.other + lv.not_split == lv.actual - lv.plan
    (row,) = variance.by_basis([lv])
    assert row["other"] == "-80.00" and row["price"] == "0.00"
    # the next baseline's price: 320.00 / 10 GPU-h = 32.000000, not (320 − 100 + 20) / 10 = 24.00
    assert actuals.measured_rates(plan, act)["compute"]["price"] == D("32.000000")
    assert "credit" not in act.gpu_hours_by_state and "tagged_resource" not in act.gpu_hours_by_state


def test_unknown_work_is_not_split_into_volume_and_efficiency():
    """Plan 36 x (100 x 2.5 + 10) = 9,360.00. Actual: 245 GPU-h for 8,700.00 and no progress log:
    price 8,700 − 36 x 245 = −120; rework 36 x (25 − 10) = 540; the rest, 8,700 − 9,360 + 120 − 540
    = −1,080.00, is not split (the old code said volume −9,000 = −36 x 2.5 x 100, work taken as 0)."""
    plan = plan_of(compute_line())
    lines = [cost("6600.00", 180, row=1), cost("1050.00", 30, state="data_stall", row=2),
             cost("350.00", 10, state="setup", row=3), cost("700.00", 25, run="r2", row=4)]
    act = actuals.collect(plan, lines, [run("r1"), run("r2", "fault_retry", "infra_fault")], [])
    assert not act.work_known
    (lv,) = variance.split(plan, act)
    assert (lv.price, lv.rework) == (D("-120"), D("540"))
    assert lv.volume == 0 and lv.efficiency == 0 and lv.efficiency_by_state == {}
    assert lv.not_split == D("-1080") and lv.note == "work_unknown"
    assert lv.price + lv.rework + lv.not_split == lv.actual - lv.plan == D("-660")


def test_a_basis_with_nothing_recorded_is_not_a_measured_zero():
    """A labor line (internal, 300 CNY/h x 2 h/Mtoken x 100 Mtoken = 60,000.00) and no timesheet: the
    old code booked an efficiency gain of 60,000; now it is not recorded, all of it not split."""
    labor = PlanLine(id="labor:training_engineering", category="labor", basis=Basis.INTERNAL, currency="CNY",
                     unit="hour", role="training_engineering", price=R(300),
                     price_meta={"evidence": "assumed"}, efficiency={"training": R(2)}, rework={}, fixed={})
    plan = plan_of(compute_line(price=R(32), eff={"effective": R("0.1")}, rework={}), labor)
    act = actuals.collect(plan, [cost("320.00", 10, row=1)], [run("r1")], steps("r1", (100, 100_000_000)))
    comp, lab = variance.split(plan, act)
    assert comp.note == "" and comp.not_split == 0
    assert lab.note == "not_recorded" and lab.actual == 0
    assert lab.efficiency == 0 and lab.volume == 0 and lab.price == 0
    assert lab.not_split == D("-60000")
    rows = {r["basis"]: r for r in variance.by_basis([comp, lab])}
    assert rows["internal"]["not_split"] == "-60000.00" and rows["internal"]["efficiency"] == "0.00"
    st = status.build(plan, 1, act, [comp, lab])  # the status says the AC 0.00 is not recorded
    ac = {r["basis"]: r for r in st["ac"]}
    assert ac["internal"]["recorded"] is False and "timesheet" in ac["internal"]["why_not_recorded"]["en"]
    assert "工时表" in ac["internal"]["why_not_recorded"]["zh-CN"] and "recorded" not in ac["billed"]


def test_a_job_that_never_started_is_no_round():
    pending = replace(run("r3"), state="PENDING", started_at=None, ended_at=None)
    assert actuals.rounds_used([run("r1"), run("r2", "param_tuning"), pending]) == ("r1", "r2")
    assert actuals.rounds_used([run("r1"), replace(run("r4"), state="PENDING")]) == ("r1",)


def test_a_requeue_takes_the_cause_of_the_attempt_it_continues():
    """A NODE_FAIL attempt f (job 9102, its cause infra_fault by the scheduler state or a confirmation)
    and its requeue g (job 9102@…, reason fault_retry, no retry_of link and no cause of its own):
    g's 16 GPU-h at 32.00 = 512.00 are fault-retry rework with f's cause, not "no cause"."""
    plan = plan_of(compute_line(price=R(32), eff={"effective": R("0.1")}, rework={}))
    runs = [run("f", "unrecorded", state="NODE_FAIL", job="9102"),
            run("g", "fault_retry", job="9102@20261110T032000Z")]
    explained = {"f": {"cause": "infra_fault", "review_class": "unforeseeable_fault"}, "g": {"cause": None}}
    lines = [cost("160.00", 5, run="f", row=1), cost("512.00", 16, run="g", row=2)]
    act = actuals.collect(plan, lines, runs, [], explained=explained)
    (lv,) = variance.split(plan, act)
    assert lv.rework_by.get("fault_retry/infra_fault") == D("512.00")
    assert "fault_retry/none" not in lv.rework_by
    assert dict(act.planned["compute"].rework_kind) == {"unforeseeable_fault": D(16)}  # f's review class
