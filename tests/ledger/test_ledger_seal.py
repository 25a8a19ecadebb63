"""ledger/seal.py: the incremental check after a write proves what the full verification proves, and
declines (so the full check runs and names the problem) whenever something it proved has changed —
a cost line, a run, the summary, the stored fingerprints, an older audit entry — or new figures
were recorded; the seal recorded in the chain proves a fresh start the same way. Both backends have a seal (SQLite
and PostgreSQL each hash in SQL). The change tracking (ledger/tracking.py) decides when the tables are
sealed again; tests/ledger/test_ledger_tracking.py checks what it sees and what it leaves to the
content seal."""

from __future__ import annotations

import pytest
from sqlalchemy import delete, insert, update

from tests.ledger.test_ledger_figures import attributed, line, run, tamper  # noqa: F401 - fixtures
from trainledger.ledger import audit as chain
from trainledger.ledger import seal
from trainledger.ledger.schema import attributions, audit_log, cost_lines, figure_digests, runs


def _write(ledger, n: int = 1) -> None:
    for i in range(n):
        ledger.audit("tester", "add_decision", "batch:b1", {"n": i})


def test_the_incremental_check_equals_the_full_one_along_a_chain(attributed, backend):  # noqa: F811
    problems, base = seal.full(attributed)
    assert problems == [] and base is not None and base.proof["verified"]
    assert base.tables is not None and base.tracked is not None
    for step in (1, 3):
        _write(attributed, step)
        later = seal.since(attributed, base)
        _, whole = seal.full(attributed)
        assert later == whole  # the same head, proof, seals
        assert later.head == attributed.audit_head() and later.proof["figures_digest"] == base.proof["figures_digest"]
        base = later


@pytest.mark.parametrize("what", ["line", "run", "summary", "fingerprints", "old_entry", "deleted_line",
                                  "inserted_run"])
def test_anything_changed_behind_the_ledgers_back_is_declined(attributed, db_url, backend, what):  # noqa: F811
    _, base = seal.full(attributed)
    stmt = {
        "line": update(cost_lines).where(cost_lines.c.source_row == 2).values(expected="20.11"),
        "run": update(runs).where(runs.c.id == "job-2").values(gpus=64),
        "summary": update(attributions).values(summary={"conservation": []}),
        "fingerprints": update(figure_digests).where(figure_digests.c.name == "runs").values(fingerprints="x"),
        "old_entry": update(audit_log).where(audit_log.c.id == 2).values(actor="someone else"),
        "deleted_line": delete(cost_lines).where(cost_lines.c.source_row == 3),
        "inserted_run": insert(runs).values(id="ghost", batch_id="b1", reason="planned_experiment",
                                            source_job="", state="COMPLETED", gpus=1),
    }[what]
    seal.record(attributed)  # a seal in the chain, so ``recorded`` has something to decline
    tamper(db_url, stmt)
    _write(attributed)  # a legitimate write after the edit: a new head to prove
    assert seal.since(attributed, base) is None  # the tracking saw it
    assert seal.since(attributed, base, tracked=False) is None  # and so does the content seal alone
    assert seal.recorded(attributed) is None
    problems, _ = seal.full(attributed)
    assert problems  # the full check names it, as it did before


def test_a_continuation_that_does_not_chain_is_declined(attributed, db_url, backend):  # noqa: F811
    _, base = seal.full(attributed)
    _write(attributed, 2)
    head = attributed.audit_head()
    tamper(db_url, update(audit_log).where(audit_log.c.id == head[0]).values(object="batch:b2"))
    assert seal.since(attributed, base) is None


def test_new_figures_are_never_carried_over(attributed, backend):  # noqa: F811
    _, base = seal.full(attributed)
    attributed.replace_cost_lines([line(1, "10.00")], summary={"conservation": []}, runs=[run(1)])
    assert seal.since(attributed, base) is None  # a new attribution: proved afresh
    problems, now = seal.full(attributed)
    assert problems == [] and now.proof["figures_digest"] != base.proof["figures_digest"]


def test_the_recorded_seal_proves_a_fresh_start(attributed, backend):  # noqa: F811
    assert seal.recorded(attributed) is None  # nothing recorded yet
    detail = seal.record(attributed)
    assert detail["seal"]["cost_lines"].startswith("v2-sqlite:" if backend == "sqlite" else "v1-pg:")
    _write(attributed)
    fresh = seal.recorded(attributed)
    _, whole = seal.full(attributed)
    assert fresh == whole
    attributed.replace_cost_lines([line(1, "10.00")], summary={"conservation": []}, runs=[run(1)])
    assert seal.recorded(attributed) is None  # recorded before the latest figures: not theirs


def test_the_chain_checked_from_an_entry_equals_the_whole_check(attributed):  # noqa: F811
    _write(attributed, 4)
    log = attributed.audit_log()
    assert chain.verify(log) == []
    for k in range(1, len(log)):
        assert chain.verify(log[k:], after=(log[k - 1]["id"], log[k - 1]["hash"])) == []
    assert chain.verify(log[3:], after=(log[1]["id"], log[1]["hash"]))  # a gap: entries missing
    assert chain.verify(log[3:], after=(log[2]["id"], "0" * 64))  # not the hash it continues


def test_a_chain_cut_below_the_verified_head_is_declined(attributed, db_url, backend):  # noqa: F811
    _write(attributed, 2)
    _, base = seal.full(attributed)
    assert seal.since(attributed, base) == base  # nothing new, nothing changed: the same proof
    tamper(db_url, delete(audit_log).where(audit_log.c.id == base.head[0]))  # the newest entry removed
    assert seal.since(attributed, base) is None
