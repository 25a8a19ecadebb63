"""Review 5 J11: step times tied to a job with another worker count are flagged, naming both counts.

PAI job_2's step times name 10 workers. Tied to an 8-GPU job on one node (or the reviewer's 16-GPU
job on two), 10 is neither one worker per node nor an even share of the GPUs: the problem
``steps_workers_mismatch`` says so. Tied to a 10-GPU job, or a 20-GPU job (2 GPUs a worker), it fits.
"""

from __future__ import annotations

import pytest

from trainledger.engine import attribute
from trainledger.engine.straggler_workers import fits
from trainledger.report.problems_i18n import message

from .factories import T0, job, price_lookup
from .test_straggler_wait import _facts_with_steps


def _with_job(tmp_path, **kw):
    facts = _facts_with_steps(tmp_path, 2)
    from dataclasses import replace

    return replace(facts, jobs=(job("pai-2", start=facts.jobs[0]["start"], end=facts.jobs[0]["end"], **kw),))


@pytest.mark.parametrize(("gpus", "nodes"), [(8, "n1"), (16, "n1,n2")])
def test_steps_of_ten_workers_on_a_job_that_cannot_have_ten_are_flagged(tmp_path, config, gpus, nodes):
    result = attribute(_with_job(tmp_path, gpus=gpus, nodes=nodes), config, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "steps_workers_mismatch"]
    assert p.detail == {"job_id": "pai-2", "steps_job": "pai-2", "workers": 10, "gpus": gpus,
                        "nodes": len(nodes.split(","))}
    assert f"name 10 workers, but the job holds {gpus} GPUs" in p.message
    zh = message(p.as_dict(), "zh-CN")
    assert "10 个 worker" in zh and f"占用 {gpus} 张卡" in zh
    # the share is still carved (it is measured): the problem says it may be another job's
    assert any(ln.detail == "straggler_wait" for ln in result.lines if ln.run_id == "pai-2")


@pytest.mark.parametrize(("gpus", "nodes"), [(10, "n1"), (20, "n1,n2")])
def test_a_job_the_workers_fit_is_not_flagged(tmp_path, config, gpus, nodes):
    result = attribute(_with_job(tmp_path, gpus=gpus, nodes=nodes), config, price_lookup, T0.date())
    assert not [p for p in result.problems if p.kind == "steps_workers_mismatch"]


def test_the_counts_a_job_can_have():
    assert fits(16, 16, 2) and fits(2, 16, 2) and fits(4, 16, 2) and fits(1, 8, 1)  # per GPU, node, group
    assert not fits(10, 16, 2) and not fits(10, 8, 1) and not fits(3, 16, 2)
    assert not fits(17, 16, 2) and not fits(4, 0, 0)  # more workers than GPUs; a job without GPUs
    assert fits(10, 0, 10)  # one worker per node, whatever the GPUs say
