"""Useful work across a retry chain: the furthest progress of the counter, counted once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal as D

from tests.review.helpers import compute_line, cost, plan_of
from trainledger.model import Run
from trainledger.review import actuals, status, variance

T = datetime(2026, 11, 10, 8, tzinfo=UTC)


def _run(rid, job, start_h, end_h, *, reason="planned_experiment", state="COMPLETED", cause=None):
    return Run(id=rid, batch_id="b1", reason=reason, cause=cause, source_job=job, state=state,
               started_at=T + timedelta(hours=start_h), ended_at=T + timedelta(hours=end_h), gpus=16)


def _ev(job, minute, event, step, tokens=None):
    e = {"run": job, "event": event, "step": step, "ts": T + timedelta(minutes=minute)}
    if tokens is not None:
        e["tokens"] = tokens
    return e


def _chain_progress(job_of_retry="5001"):
    """m1 runs steps 0..400 (100k tokens a step), saves step 300, dies; m1r resumes at 300 → 1440."""
    ev = [_ev("5001", m, "step", m * 10, m * 10 * 100_000) for m in range(0, 41)]
    ev.append(_ev("5001", 31, "checkpoint_saved", 300))
    ev.append(_ev(job_of_retry, 110, "resume", 300))
    ev += [_ev(job_of_retry, 110 + i, "step", 300 + i * 10, (300 + i * 10) * 100_000) for i in range(0, 115)]
    return ev


def test_a_requeued_retry_continues_the_counter_and_replayed_steps_count_once():
    m1 = _run("m1", "5001", 0, 1.5, state="NODE_FAIL")
    m1r = _run("m1r", "5001@20261110T094500Z", 1.75, 4, reason="fault_retry", cause="infra_fault")
    act = actuals.collect(plan_of(compute_line()), [], [m1, m1r], _chain_progress())
    # m1: 0..300 saved = 30 Mtoken (300..400 is redone); m1r: 300..1440 = 114 Mtoken; 144 in all, not 30
    assert act.work_by_run == {"m1": D(30), "m1r": D(114)}
    assert act.work == D(144) and act.work_known


def test_a_retry_under_its_own_job_joins_by_retry_of_and_a_replay_is_not_double_counted():
    m1 = _run("m1", "5001", 0, 1.5, state="NODE_FAIL")
    m1r = _run("m1r", "5010", 1.75, 4, reason="fault_retry", cause="infra_fault")
    ev = _chain_progress("5010")
    assert actuals.collect(plan_of(compute_line()), [], [m1, m1r], ev).work == D(30)  # no link: a lone rerun
    act = actuals.collect(plan_of(compute_line()), [], [m1, m1r], ev, retry_of={"m1r": "m1"})
    assert act.work == D(144)
    # a retry restored from an older checkpoint (step 100) replays 100..300: counted once
    ev = [e if e["event"] != "resume" else {**e, "step": 100} for e in ev]
    ev += [_ev("5010", 109, "step", 100, 100 * 100_000)]
    act = actuals.collect(plan_of(compute_line()), [], [m1, m1r], ev, retry_of={"m1r": "m1"})
    assert act.work == D(144) and act.work_by_run["m1r"] == D(114)


def test_separate_experiments_keep_separate_counters():
    a = _run("a", "7001", 0, 1)
    b = _run("b", "7002", 0, 1)
    ev = [_ev("7001", 5, "step", 100, 10_000_000), _ev("7002", 5, "step", 50, 5_000_000)]
    assert actuals.collect(plan_of(compute_line()), [], [a, b], ev).work == D(15)


def test_no_progress_signal_means_unknown_work_not_zero():
    plan = plan_of(compute_line())
    act = actuals.collect(plan, [cost("6600.00", 180, run="a")], [_run("a", "7001", 0, 1)], [])
    assert not act.work_known
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    assert st_["work"]["done"] is None and st_["work"]["known"] is False
    # the spend itself is money against money (6,600 of a 9,000 plan): it still crosses 50 %, but its driver
    # says the split cannot be judged instead of "work done 0.00"; nothing that rests on the work fires
    kinds = {a["kind"] for a in st_["_alerts"]}
    assert "eac_high" not in kinds and "gate" not in kinds
    (spend,) = [a for a in st_["_alerts"] if a["key"] == "spend:billed:CNY:50"]
    assert "cannot be judged" in spend["driver"]["en"] and "无法判断" in spend["driver"]["zh-CN"]
    assert st_["ev"] == [] and st_["eac"] == [] and st_["work"]["why_unknown"]["zh-CN"]
    assert "work_done" not in st_["metrics"]


def test_rounds_used_counts_experiment_rounds_not_jobs():
    """m1 + its retry m1r are one round, the sweep trial s1 another; the eval array tasks are none."""
    runs = [_run("m1", "5001", 0, 1.5, state="NODE_FAIL"),
            _run("m1r", "5001@20261110T094500Z", 1.75, 4, reason="fault_retry", cause="infra_fault"),
            _run("s1", "5002", 0, 2, reason="param_tuning", state="FAILED"),
            _run("e1", "5003_1", 3, 4, reason="eval_rework"), _run("e2", "5003_2", 3, 4, reason="eval_rework")]
    plan = plan_of(compute_line(), max_rounds=3)
    act = actuals.collect(plan, [], runs, [])
    assert act.rounds == ("m1", "s1")
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    assert st_["rounds"] == {"used": 2, "max": 3} and not [a for a in st_["_alerts"] if a["kind"] == "rounds"]
