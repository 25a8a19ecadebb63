"""What a failure cost: what the failed attempt lost plus the rerun's way back — not the failed attempt's
training its checkpoint kept, nor the rerun's training (the review bridge's rule, engine/causes.is_failure)."""

import json
from decimal import Decimal

from trainledger.engine import Facts, attribute
from trainledger.engine.causes import chain_cost, explain
from trainledger.engine.summary_runs import hours_of
from trainledger.report import sheet_compute as sc

from .factories import T0, at, bill, event, job, price_lookup

RETRY = json.dumps({"retry_of": "100", "reason": "fault_retry", "cause": "infra_fault"})


def _chains(facts, config):
    result = attribute(facts, config, price_lookup, T0.date())
    hours = hours_of(result.summary())
    explained = {k: e.as_dict() for k, e in explain([i.facts for i in result.runs.values()]).items()}
    return sc.retry_chains([i.run for i in result.runs.values()], explained,
                           sc.money_by_run_state(list(result.lines)), hours), result


def test_a_node_failure_costs_what_it_destroyed_and_the_reruns_setup(config):
    """Node n1 (8 GPUs) is billed 96.00 an hour: 12.00 per GPU-hour. Job 100 holds 4 GPUs 00:00-01:00
    and ends NODE_FAIL; its steps at 6, 18, 30, 42, 54 min and a checkpoint at 30 make it setup 0-6,
    effective 6-30, lost_progress 30-54 (after the last checkpoint), hang 54-60: 4 GPU-hours, 48.00.
    Job 101 retries it with 4 GPUs 01:00-02:00, steps at 72 ... 117 min: setup 60-72 (12 min × 4 GPUs
    = 0.8 GPU-hour = 9.60), effective 72-117 (3 GPU-hours, 36.00), unclassified 117-120 (2.40).

    failure = 100's lost_progress 1.6 + hang 0.4 GPU-h (24.00) + 101's setup 9.60 = 33.60, of which
    recovery 9.60; kept by the checkpoint = 100's setup 0.4 + effective 1.6 GPU-h = 24.00 (the first
    sheet said failure 48.00: job 100 whole); total 33.60 + 24.00 = 57.60. The rerun's 36.00 of
    effective training (and its 2.40 tail) are the batch's work, not the failure's."""
    jobs = (job("100", start=at(0), end=at(60), state="NODE_FAIL", row=1),
            job("101", start=at(60), end=at(120), row=2, tags=RETRY))
    bills = (bill(at(0), amount="96.00", row=1), bill(at(60), amount="96.00", row=2))
    prog = (tuple(event("100", m, "step", step=i + 1) for i, m in enumerate((6, 18, 30, 42, 54)))
            + (event("100", 30, "checkpoint_saved", duration_s=0),)
            + tuple(event("101", m, "step", step=i + 3) for i, m in enumerate((72, 84, 96, 108, 117))))
    (chain,), result = _chains(Facts(jobs=jobs, bill_lines=bills, progress_events=prog), config)
    assert chain["attempts"] == ["100", "101"] and chain["state"] == "NODE_FAIL"
    assert chain["failure_cost"] == [{"amount": "33.60", "currency": "CNY", "basis": "billed"}]
    assert chain["recovery_cost"] == [{"amount": "9.60", "currency": "CNY", "basis": "billed"}]
    assert chain["kept_cost"] == [{"amount": "24.00", "currency": "CNY", "basis": "billed"}]
    assert chain["other_cost"] == []
    assert chain["total"] == [{"amount": "57.60", "currency": "CNY", "basis": "billed"}]
    assert (chain["lost_gpu_hours"], chain["recovery_gpu_hours"]) == ("2.0000", "0.8000")
    rerun = sum(ln.amount.expected for ln in result.lines if ln.run_id == "101")
    assert rerun == Decimal("48.00")  # what the old sheet charged as "recovery"


def test_a_rerun_after_preemption_recovers_in_preemption_recovery(config):
    """The same with job 100 PREEMPTED: 101's first 12 minutes are preemption_recovery (9.60)."""
    jobs = (job("100", start=at(0), end=at(60), state="PREEMPTED", row=1),
            job("101", start=at(60), end=at(120), row=2, tags=RETRY))
    bills = (bill(at(0), amount="96.00", row=1), bill(at(60), amount="96.00", row=2))
    prog = tuple(event("101", m, "step", step=i + 1) for i, m in enumerate((72, 84, 120)))
    (chain,), result = _chains(Facts(jobs=jobs, bill_lines=bills, progress_events=prog), config)
    assert [ln.amount.expected for ln in result.lines
            if ln.run_id == "101" and str(ln.detail) == "preemption_recovery"] == [Decimal("9.60")]
    # 100 has no log: 4 GPU-hours unclassified, 48.00, all failure (it kept no progress we know of),
    # with 101's recovery 9.60; its hang / lost progress are unknown, not 0
    assert [c["amount"] for c in (chain["failure_cost"] + chain["recovery_cost"])] == ["57.60", "9.60"]
    assert chain["kept_cost"] == [] and chain["lost_gpu_hours"] is None


def test_chain_cost_by_hand():
    """a kept progress (effective): its setup and effective are kept, its hang the failure's; a rerun's
    setup / preemption recovery are the failure's (recovery), its training not; credits are "other"."""
    money = {"a": {"setup": {"k": Decimal(1)}, "effective": {"k": Decimal(10)}, "hang": {"k": Decimal(7)},
                   "credit": {"k": Decimal(-3)}},
             "b": {"setup": {"k": Decimal(2)}, "preemption_recovery": {"k": Decimal(3)},
                   "effective": {"k": Decimal(20)}, "checkpoint": {"k": Decimal(4)}},
             "c": {"setup": {"k": Decimal(5)}, "effective": {"k": Decimal(50)}}}
    c = chain_cost(["a", "b"], {"a"}, money, {"a", "b"})
    assert (c.failure, c.recovery, c.kept, c.other) == ({"k": Decimal(12)}, {"k": Decimal(5)},
                                                        {"k": Decimal(11)}, {"k": Decimal(-3)})
    # a kept no progress: all of it the failure's (its credit still "other")
    c = chain_cost(["a", "b"], {"a"}, money, {"b"})
    assert (c.failure, c.kept) == ({"k": Decimal(23)}, {})
    # a retry of a retry: b failed too — its way back is recovery, its checkpointed work kept, c's setup recovery
    c = chain_cost(["a", "b", "c"], {"a", "b"}, money, {"a", "b", "c"})
    assert (c.failure, c.recovery, c.kept) == ({"k": Decimal(17)}, {"k": Decimal(10)}, {"k": Decimal(35)})


def test_the_sheet_and_the_bridge_share_one_rule():
    """review/chains.Role.failure is engine/causes.is_failure: for every state the same answer."""
    from trainledger.engine.causes import is_failure
    from trainledger.review.chains import Role

    for failed in (True, False):
        for rerun in (True, False):
            role = Role(("fault_retry", "infra_fault"), "unforeseeable_fault", failed=failed, rerun=rerun)
            for kept in (True, False):
                for state in ("setup", "effective", "hang", "lost_progress", "checkpoint", "credit",
                              "preemption_recovery", "unclassified"):
                    assert role.failure(state, kept) == is_failure(state, failed=failed, rerun=rerun, kept=kept)
