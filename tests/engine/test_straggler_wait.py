"""Synchronous waiting on stragglers: per-worker step times → compute state ``straggler_wait``.

The share of worker time spent waiting at the iteration barrier is carved out of a run's
effective time (evidence measured). On the Alibaba PAI jobs 1-4 the carved share is computed here
again from the raw CSV with plain Python (csv + fractions), never through trainledger.
"""

import csv
from collections import defaultdict
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from trainledger.engine import Facts, attribute
from trainledger.engine.summary_runs import hours_of
from trainledger.engine.timeline import STRAGGLER_HOOK, classify
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.model import CASH_BASES, Evidence
from trainledger.model.vocab import ORDERS, label
from trainledger.model.vocab import ComputeState as S

from .factories import T0, at, bill, event, job, price_lookup

PAI = Path(__file__).resolve().parents[1] / "data" / "alibaba-pai-gpu-v2020"


def raw_share(path: Path) -> Fraction:
    """Σ over iterations every worker timed of Σ_w (max − t_w) / Σ n · max, from the CSV itself."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    workers = {r["worker"] for r in rows}
    by_iter: dict[str, dict[str, Fraction]] = defaultdict(dict)
    for r in rows:
        by_iter[r["time"]][r["worker"]] = Fraction(r["batch_time_norm"])
    wait = total = Fraction(0)
    for times in by_iter.values():
        if len(times) == len(workers):
            top = max(times.values())
            wait += sum(top - t for t in times.values())
            total += len(workers) * top
    return wait / total


def test_the_state_is_named_in_both_languages_in_lifecycle_order():
    order = ORDERS["state"]
    assert order.index("data_stall") < order.index("straggler_wait") < order.index("effective")
    assert label(S.STRAGGLER_WAIT, "en") == "straggler wait" and label(S.STRAGGLER_WAIT, "zh-CN") == "同步等待慢节点"


def test_the_share_is_carved_out_of_effective_time_only():
    assert STRAGGLER_HOOK == "straggler_share"
    steps = [event("r", m, "step", step=i) for i, m in enumerate((10, 20, 60))]
    segs = classify(at(0), at(90), "COMPLETED", steps, straggler_share=Decimal("0.25"))
    gpu_s = defaultdict(Decimal)
    for seg in segs:
        gpu_s[seg.state] += seg.exact_seconds * seg.weight
    # setup 0-10, effective 10-60 (50 min, a quarter of it waiting), unclassified 60-90
    assert dict(gpu_s) == {S.SETUP: 600, S.EFFECTIVE: Decimal("2250.00"), S.STRAGGLER_WAIT: Decimal("750.00"),
                           S.UNCLASSIFIED: 1800}
    assert sum(gpu_s.values()) == 90 * 60  # nothing added, nothing lost
    assert classify(at(0), at(90), "COMPLETED", steps, straggler_share=None) == classify(
        at(0), at(90), "COMPLETED", steps)
    with pytest.raises(ValueError):
        classify(at(0), at(90), "COMPLETED", steps, straggler_share=Decimal("1.5"))


def _facts_with_steps(tmp_path, number: int) -> Facts:
    lake = Lake(tmp_path / "lake")
    (res,) = import_files("steps", [PAI / f"job_{number}_norm.csv"], lake,
                          options={"preset": "alibaba-pai-2020", "set": [f"job=pai-{number}"]})
    assert res.accepted == res.rows_read
    steps = tuple(lake.read("worker_steps").to_pylist())
    # the job on node n1 (8 GPUs, 2 hours), effective from its first step at 0:10 to its last at 2:00
    return Facts(jobs=(job(f"pai-{number}", start=at(0), end=at(120), gpus=8),),
                 bill_lines=(bill(at(0), amount="80.00", row=1), bill(at(60), amount="80.00", row=2)),
                 progress_events=tuple(event(f"pai-{number}", m, "step", step=i)
                                       for i, m in enumerate(range(10, 121, 10))),
                 worker_steps=steps)


FIGURES = {1: "0.099856", 2: "0.110532", 3: "0.09583", 4: "0.546229"}


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_pai_jobs_wait_the_share_their_step_times_imply(tmp_path, config, number):
    result = attribute(_facts_with_steps(tmp_path, number), config, price_lookup, T0.date())
    hours = defaultdict(Decimal)
    for ln in result.lines:
        if ln.run_id == f"pai-{number}" and ln.basis in CASH_BASES:
            hours[ln.detail] += ln.quantity
            if ln.detail == S.STRAGGLER_WAIT:
                assert ln.evidence is Evidence.MEASURED  # a measured state on a billed amount
    carved = hours[S.STRAGGLER_WAIT] / (hours[S.STRAGGLER_WAIT] + hours[S.EFFECTIVE])
    expected = raw_share(PAI / f"job_{number}_norm.csv")
    assert abs(Fraction(carved) - expected) <= Fraction(1, 2_000_000)  # the share is kept to 6 places
    assert hours[S.STRAGGLER_WAIT] + hours[S.EFFECTIVE] == Decimal(8) * 110 / 60  # 8 GPUs × 1:50
    assert sum(hours.values()) == 16  # the run's 8 GPUs × 2 h, conserved
    summary = hours_of(result.summary())[f"pai-{number}"]
    assert Decimal(summary["straggler_wait"]) == hours[S.STRAGGLER_WAIT]
    # the figures, to 6 places (job 4's workers wait more than half their time at the barrier)
    assert hours_of(result.summary()) and str(round(float(expected), 6)) == FIGURES[number]


def test_steps_without_progress_events_are_reported_not_guessed(tmp_path, config):
    facts = _facts_with_steps(tmp_path, 1)
    facts = Facts(jobs=facts.jobs, bill_lines=facts.bill_lines, worker_steps=facts.worker_steps)
    result = attribute(facts, config, price_lookup, T0.date())
    assert {ln.detail for ln in result.lines if ln.run_id} == {S.UNCLASSIFIED}
    (p,) = [p for p in result.problems if p.kind == "straggler_share_unused"]
    assert p.detail["job_id"] == "pai-1"
