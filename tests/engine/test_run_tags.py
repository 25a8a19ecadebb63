"""Run tags on requeued jobs and progress filed under a run tag (review 5 J7, J8).

J7: a tracker (MLflow, a ``run=`` Comment) files progress under the run tag, not the job id; a dump
read in the wrong zone moved those events out of their window with no time-zone problem raised.
J8: ``sacct -D`` repeats the job's Comment on every allocation, so a requeued job's second
allocation claims the same ``run=`` tag: that is an attempt of one run, not a run id used twice.
"""

from trainledger.engine import Facts, attribute
from trainledger.engine.summary_runs import explained_of

from .factories import SHA_JOBS, T0, at, event, job, price_lookup

IMPORTS = ({"kind": "slurm", "sha256": SHA_JOBS, "path": "/data/sacct.txt", "options": {"tz": "UTC"}},)


def _tagged(job_id, run, **kw):
    return job(job_id, tags=f'{{"run": "{run}"}}', **kw)


def test_events_filed_under_the_run_tag_reveal_a_whole_hour_shift(config):
    # sacct read as UTC on a cluster in Asia/Shanghai: the windows land 8 h after the tracker's events
    jobs = (_tagged("100", "r-a", start=at(480), end=at(540), row=1),
            _tagged("101", "r-b", start=at(600), end=at(660), row=2))
    ev = (*(event("r-a", m, "step", step=m) for m in range(5, 60, 5)),
          *(event("r-b", m, "step", step=m) for m in range(125, 180, 5)))
    result = attribute(Facts(jobs=jobs, progress_events=ev, imports=IMPORTS), config, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "timezone_mismatch"]
    assert p.detail["shift_hours"] == 8 and p.detail["likely_tz"] == "Asia/Shanghai" and p.detail["jobs"] == 2


def test_events_under_the_run_tag_inside_their_windows_raise_nothing(config):
    jobs = (_tagged("100", "r-a", start=at(0), end=at(60)),)
    ev = tuple(event("r-a", m, "step", step=m) for m in range(5, 60, 5))
    result = attribute(Facts(jobs=jobs, progress_events=ev, imports=IMPORTS), config, price_lookup, T0.date())
    assert not [p for p in result.problems if p.kind == "timezone_mismatch"]
    assert explained_of(result.summary())["r-a"]


def test_a_requeued_allocation_of_a_tagged_job_is_its_next_attempt_not_a_duplicate(config):
    first = _tagged("7002", "p-r02", start=at(0), end=at(240), state="NODE_FAIL", nodes="n1", row=1)
    second = _tagged("7002", "p-r02", start=at(300), end=at(540), nodes="n2", row=2)
    result = attribute(Facts(jobs=(first, second), imports=IMPORTS), config, price_lookup, T0.date())
    assert not [p for p in result.problems if p.kind == "duplicate_run_id"]
    ex = explained_of(result.summary())
    assert set(ex) >= {"p-r02", "p-r02#2"}
    assert ex["p-r02#2"]["retry_of"] == "p-r02"


def test_another_job_claiming_a_taken_run_tag_is_still_reported(config):
    jobs = (_tagged("10", "r1", start=at(0), end=at(60), row=1), _tagged("11", "r1", start=at(90), end=at(120), row=2))
    result = attribute(Facts(jobs=jobs, imports=IMPORTS), config, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "duplicate_run_id"]
    assert p.detail == {"run_id": "r1", "job_id": "11", "taken_by": "10"}
