"""engine/tzcheck.py: a sacct file read in the wrong zone is found from the progress events — a 1 h shift on a
multi-hour job as well as an 8 h one — and a file read right never is."""

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine.tzcheck import Sample, best_shift, problems

T = datetime(2026, 11, 10, 0, 0, tzinfo=UTC)
SHA = "1" * 64
IMPORTS = ({"kind": "slurm", "sha256": SHA, "path": "/data/sacct.txt", "options": {"tz": "UTC"}},)


@st.composite
def jobs(draw):
    """A job's window and its progress events: after a setup, every few minutes, up to shortly before the end."""
    start = T + timedelta(minutes=draw(st.integers(0, 60 * 24 * 20)))
    end = start + timedelta(minutes=draw(st.integers(120, 20 * 60)))
    setup, tail, every = draw(st.integers(0, 15)), draw(st.integers(0, 10)), draw(st.integers(1, 10))
    events, t = [], start + timedelta(minutes=setup)
    while t <= end - timedelta(minutes=tail):
        events.append(t)
        t += timedelta(minutes=every)
    if draw(st.booleans()):  # one stray event an hour after the end (a late upload): no reason to shift
        events.append(end + timedelta(hours=1))
    return start, end, tuple(events)


HOURS = st.integers(-14, 14).filter(bool)


@settings(max_examples=60, deadline=None)
@given(jobs(), HOURS)
def test_events_shifted_by_k_hours_are_detected_as_k(job, k):
    start, end, events = job
    shifted = tuple(t - timedelta(hours=k) for t in events)  # sacct read k hours off: events look k h early
    assert best_shift(Sample(SHA, start, end, shifted)) == k


@settings(max_examples=60, deadline=None)
@given(st.lists(jobs(), min_size=1, max_size=4))
def test_unshifted_jobs_raise_no_problem(js):
    samples = [Sample(SHA, s, e, ev) for s, e, ev in js]
    assert all(best_shift(x) is None for x in samples)
    assert problems(samples, IMPORTS) == []


def test_one_hour_on_a_ten_hour_job_is_found_and_names_the_zone():
    # 90 % of the events are inside without a shift: the old check (fire only under 50 %) missed it
    start, end = T, T + timedelta(hours=10)
    events = tuple(start + timedelta(minutes=m) - timedelta(hours=1) for m in range(5, 600, 5))
    (p,) = problems([Sample(SHA, start, end, events)], IMPORTS)
    assert p.detail["shift_hours"] == 1 and p.detail["likely_tz"] == "Europe/Berlin"
    assert "/data/sacct.txt" in p.message and "--tz Europe/Berlin" in p.message


def test_a_half_hour_zone_is_found():
    start, end = T, T + timedelta(hours=6)
    events = tuple(start + timedelta(minutes=m) - timedelta(hours=5, minutes=30) for m in range(5, 360, 5))
    assert best_shift(Sample(SHA, start, end, events)) == 5.5
    (p,) = problems([Sample(SHA, start, end, events)], IMPORTS)
    assert p.detail["likely_tz"] == "Asia/Kolkata"


def test_a_requeued_job_one_hour_off_is_found_through_attribute(config):
    # job 100 ran twice (sacct -D: a failed allocation and its requeue); its events, logged under job 100,
    # span both. Read one hour off, no single allocation is under 50 % inside, but the job is 1 h off.
    from trainledger.engine import Facts, attribute

    from .factories import at, event, job, price_lookup

    jobs = (job("100", start=at(60), end=at(150), state="NODE_FAIL", tags='{"run": "m1"}', row=1),
            job("100", start=at(165), end=at(300), tags='{"run": "m1r"}', row=2))
    ev = tuple(event("100", m, "step", step=m) for m in range(10, 240, 2))  # the truth: 0-90, 105-240 min
    imports = ({"kind": "slurm", "sha256": "1" * 64, "path": "/data/sacct.txt", "options": {"tz": "UTC"}},)
    result = attribute(Facts(jobs=jobs, progress_events=ev, imports=imports), config, price_lookup, T.date())
    (p,) = [p for p in result.problems if p.kind == "timezone_mismatch"]
    assert p.detail["shift_hours"] == 1 and p.detail["likely_tz"] == "Europe/Berlin"
