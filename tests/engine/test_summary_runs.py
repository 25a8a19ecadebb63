"""The summary's per-run parts as columns (engine/summary_runs.py, review 4 H12): stored and read
back, the readers give exactly the per-run dicts the summary used to hold, and a summary written in
the old form reads the same."""

from decimal import Decimal

from trainledger.engine import summary_runs as sr
from trainledger.engine.causes import RunFacts, explain
from trainledger.ledger.audit import jsonable
from trainledger.report.sheet import RetryLinks

FACTS = [
    RunFacts("r0", "b1", "100", "NODE_FAIL", "2026-11-01T00:00:00+00:00"),
    RunFacts("r1", "b1", "101", "COMPLETED", "2026-11-01T01:00:00+00:00", retry_of="r0",
             versions=("d1", "c1", "k1")),
    RunFacts("r2", None, "102", "FAILED", "2026-11-01T02:00:00+00:00", tag_cause="config_error"),
    RunFacts("r3", "b2", "103", "COMPLETED", "2026-11-01T03:00:00+00:00", retry_of="r2"),
]
SECONDS = {"r0": {"setup": Decimal(600), "lost_progress": Decimal("1800.5")},  # timeline order, not sorted
           "r1": {"effective": Decimal(7200), "checkpoint": Decimal(360)}, "r2": {}, "r3": {"unclassified": Decimal(1)}}


def _old() -> dict:
    """The summary's per-run keys as they were written before the columns."""
    return jsonable({"run_facts": [f.as_dict() for f in FACTS],
                     "runs_explained": {k: e.as_dict() for k, e in explain(FACTS).items()},
                     "run_gpu_hours_by_state": {r: {k: str(v / 3600) for k, v in acc.items()}
                                                for r, acc in SECONDS.items()}})


def _new() -> dict:
    return jsonable({sr.KEY: sr.encode(FACTS, explain(FACTS), SECONDS.items())})  # as the ledger gives it back


def test_the_columns_read_back_as_the_old_per_run_dicts():
    old, new = _old(), _new()
    assert list(sr.facts_rows(new)) == old["run_facts"]
    assert [list(d) for d in sr.facts_rows(new)] == [list(d) for d in old["run_facts"]]  # field order kept
    assert sr.explained_of(new) == old["runs_explained"]
    hours = sr.hours_of(new)
    assert dict(hours) == old["run_gpu_hours_by_state"] and len(hours) == 4 and "r9" not in hours
    assert list(hours["r0"]) == ["setup", "lost_progress"]  # each run's states in its timeline's order
    assert hours["r0"]["lost_progress"] == str(Decimal("1800.5") / 3600) and hours["r2"] == {}
    assert sum(Decimal(v) for v in hours["r1"].values()) == Decimal("2.1")


def test_an_old_summary_reads_the_same():
    old, new = _old(), _new()
    assert list(sr.facts_rows(old)) == list(sr.facts_rows(new))
    assert sr.explained_of(old) == sr.explained_of(new)
    assert dict(sr.hours_of(old)) == dict(sr.hours_of(new))


def test_retry_links_give_each_batch_the_same_facts_from_either_form():
    for ids in ({"r1"}, {"r3"}, {"r0", "r3"}, set()):
        a, b = RetryLinks(_old()).closure(ids), RetryLinks(_new()).closure(ids)
        assert a == b
    assert [d["run_id"] for d in RetryLinks(_new()).closure({"r1"})["facts"]] == ["r0", "r1"]  # the chain
    assert RetryLinks(_new()).hours["r3"] == {"unclassified": str(Decimal(1) / 3600)}


def test_the_columns_are_smaller_than_the_dicts():
    import json

    assert len(json.dumps(_new())) < 0.8 * len(json.dumps(_old()))
