"""Reruns explained: the failure cause on the failed attempt, its evidence, repeats and time zones."""

from datetime import timedelta

from trainledger.engine import Facts, attribute
from trainledger.engine.causes import RunFacts, confirmations_from_audit, explain
from trainledger.engine.summary_runs import explained_of
from trainledger.engine.tzcheck import Sample, best_shift, likely_zones

from .factories import T0, at, event, job, price_lookup


def rf(run_id, state="COMPLETED", order="1", cause=None, retry_of=None, versions=("", "", ""), batch="b1"):
    return RunFacts(run_id=run_id, batch_id=batch, job=run_id, state=state, order=order, tag_cause=cause,
                    retry_of=retry_of, versions=versions)


def test_a_node_failure_is_an_assumed_infra_fault_on_the_failed_attempt():
    ex = explain([rf("a", "NODE_FAIL"), rf("b", "OUT_OF_MEMORY", "2"), rf("c", "FAILED", "3"),
                  rf("d", "PREEMPTED", "4")])
    assert (ex["a"].cause, ex["a"].cause_evidence, ex["a"].state_evidence) == ("infra_fault", "assumed", "measured")
    assert ex["a"].review_class == "unforeseeable_fault"
    assert (ex["b"].cause, ex["b"].review_class) == ("config_error", "avoidable_rework")
    assert ex["c"].cause is None and ex["c"].review_class is None  # FAILED says nothing: needs review
    assert ex["d"].cause == "infra_fault"


def test_the_retry_names_the_cause_of_the_attempt_it_retries():
    ex = explain([rf("a", "FAILED", "1"), rf("b", order="2", cause="data_quality", retry_of="a")])
    assert (ex["a"].cause, ex["a"].cause_evidence) == ("data_quality", "assumed")
    assert "its retry b" in ex["a"].cause_source
    assert (ex["b"].cause, ex["b"].cause_evidence) == ("data_quality", "measured")


def test_a_failed_sweep_run_tagged_exploration_that_was_preempted_is_an_infra_fault():
    ex = explain([rf("a", "PREEMPTED", cause="exploration")])
    assert ex["a"].cause == "infra_fault"
    ex = explain([rf("a", "TIMEOUT", cause="exploration")])  # nothing better: the tag stands
    assert (ex["a"].cause, ex["a"].cause_evidence) == ("exploration", "measured")


def test_a_confirmation_overrides_the_suggestion():
    audit = [{"action": "confirm_cause", "actor": "li", "detail": {"run": "a", "cause": "config_error", "by": "li"}}]
    ex = explain([rf("a", "NODE_FAIL")], confirmations_from_audit(audit))
    assert (ex["a"].cause, ex["a"].cause_evidence) == ("config_error", "measured")
    assert ex["a"].cause_source.startswith("confirmed by li")


def test_the_same_cause_again_without_a_version_change_is_avoidable_rework():
    runs = [rf("a", "FAILED", "1", cause="exploration"), rf("b", "FAILED", "2", cause="exploration"),
            rf("c", "FAILED", "3", cause="exploration", versions=("", "", "cfg-v2"))]
    ex = explain(runs)
    assert ex["a"].review_class == "reasonable_exploration"
    assert ex["b"].review_class == "avoidable_rework" and "repeats a" in ex["b"].review_note
    assert ex["c"].review_class == "reasonable_exploration"  # the config changed: a new attempt
    other_batch = explain([*runs[:1], rf("b", "FAILED", "2", cause="exploration", batch="b2")])
    assert other_batch["b"].review_class == "reasonable_exploration"


def test_the_engine_links_retry_of_by_job_id(config):
    jobs = (job("10", start=at(0), end=at(30), state="NODE_FAIL", tags='{"run": "r1"}', row=1),
            job("11", start=at(40), end=at(90), tags='{"run": "r2", "retry_of": "10", "reason": "fault_retry",'
                ' "cause": "infra_fault"}', row=2))
    result = attribute(Facts(jobs=jobs), config, price_lookup, T0.date())
    ex = explained_of(result.summary())
    assert ex["r2"]["retry_of"] == "r1"
    assert (ex["r1"]["cause"], ex["r1"]["cause_evidence"]) == ("infra_fault", "assumed")


def test_a_whole_hour_offset_names_the_import_and_the_likely_tz(config):
    # sacct read as UTC on a cluster in Asia/Shanghai: windows land 8 h after the events
    jobs = (job("100", start=at(480), end=at(540)),)
    ev = tuple(event("100", m, "step", step=m) for m in range(5, 60, 5))
    imports = ({"kind": "slurm", "sha256": "1" * 64, "path": "/data/sacct.txt", "options": {"tz": "UTC"}},)
    result = attribute(Facts(jobs=jobs, progress_events=ev, imports=imports), config, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "timezone_mismatch"]
    assert p.detail["shift_hours"] == 8 and p.detail["likely_tz"] == "Asia/Shanghai"
    assert "/data/sacct.txt" in p.message and "--tz Asia/Shanghai" in p.message


def test_no_time_zone_problem_when_events_fit():
    s = Sample("1" * 64, at(0), at(60), tuple(at(m) for m in range(5, 60, 5)))
    assert best_shift(s) is None
    off = Sample("1" * 64, at(0), at(60), tuple(at(m) + timedelta(hours=-3) for m in range(5, 60, 5)))
    assert best_shift(off) == 3
    assert "Europe/Moscow" in likely_zones("UTC", 3, T0)


def test_a_second_infra_fault_is_still_unforeseeable_not_a_repeat():
    """Review 6 K1: a preemption after an unrelated node failure, same versions, was "avoidable rework",
    even confirmed as an infra fault; no version change avoids either. A config error repeated is."""
    runs = [rf("a", "NODE_FAIL", "1"), rf("b", "PREEMPTED", "2"), rf("c", "OUT_OF_MEMORY", "3"),
            rf("d", "OUT_OF_MEMORY", "4")]
    audit = [{"action": "confirm_cause", "actor": "li", "detail": {"run": "b", "cause": "infra_fault", "by": "li"}}]
    for ex in (explain(runs), explain(runs, confirmations_from_audit(audit))):
        assert [ex[r].review_class for r in "ab"] == ["unforeseeable_fault"] * 2 and ex["b"].review_note == ""
        assert ex["d"].review_class == "avoidable_rework" and "repeats c" in ex["d"].review_note


def test_a_fault_retry_is_warned_about_only_when_its_failed_attempt_gives_no_cause_either(config):
    """Review 6 K3: "job 11 is a fault retry without a failure cause" beside a sheet that shows the
    NODE_FAIL it retries as an infra fault (assumed). A retry of a plain FAILED attempt is still warned."""
    retry = '{{"run": "{run}", "retry_of": "{of}", "reason": "fault_retry"}}'
    jobs = (job("10", start=at(0), end=at(30), state="NODE_FAIL", tags='{"run": "r1"}', row=1),
            job("11", start=at(40), end=at(90), tags=retry.format(run="r2", of="10"), row=2),
            job("20", start=at(100), end=at(130), state="FAILED", tags='{"run": "r3"}', row=3),
            job("21", start=at(140), end=at(190), tags=retry.format(run="r4", of="20"), row=4))
    result = attribute(Facts(jobs=jobs), config, price_lookup, T0.date())
    assert [p.detail["job_id"] for p in result.problems if p.kind == "missing_cause"] == ["21"]
    ex = explained_of(result.summary())
    assert (ex["r2"]["cause"], ex["r2"]["cause_evidence"]) == ("infra_fault", "assumed") and ex["r4"]["cause"] is None
