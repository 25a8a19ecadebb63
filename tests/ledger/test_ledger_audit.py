"""The audit log is a hash chain: any edit, removal or reordering of a row is reported."""

from __future__ import annotations

from sqlalchemy import create_engine, delete, update

from trainledger.ledger.schema import audit_log


def _tamper(db_url, stmt):
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(stmt)
    finally:
        engine.dispose()


def _fill(ledger):
    for i in range(1, 5):
        ledger.audit("auditor", "export", f"report:b{i}", {"format": "xlsx", "n": i})
    return ledger.audit_log()


def test_intact_chain_verifies(ledger):
    log = _fill(ledger)
    assert [e["id"] for e in log] == [1, 2, 3, 4, 5]
    assert log[0]["prev_hash"] == "0" * 64
    assert all(b["prev_hash"] == a["hash"] for a, b in zip(log, log[1:], strict=False))
    assert ledger.verify_audit_chain() == []


def test_edited_detail_is_detected(ledger, db_url):
    _fill(ledger)
    _tamper(db_url, update(audit_log).where(audit_log.c.id == 3)
            .values(detail={"format": "pdf", "n": 2}))
    problems = ledger.verify_audit_chain()
    assert len(problems) == 1 and "audit entry 3" in problems[0] and "edited" in problems[0]


def test_edited_actor_and_time_are_detected(ledger, db_url):
    log = _fill(ledger)
    _tamper(db_url, update(audit_log).where(audit_log.c.id == 2).values(actor="someone else"))
    _tamper(db_url, update(audit_log).where(audit_log.c.id == 4).values(at=log[1]["at"]))
    problems = ledger.verify_audit_chain()
    assert [p.split(" (")[0] for p in problems] == ["audit entry 2", "audit entry 4"]


def test_deleted_row_is_detected(ledger, db_url):
    _fill(ledger)
    _tamper(db_url, delete(audit_log).where(audit_log.c.id == 3))
    problems = ledger.verify_audit_chain()
    assert any("3..3 are missing" in p for p in problems)
    assert any("audit entry 4" in p and "prev_hash" in p for p in problems)


def test_rehashed_row_still_breaks_the_link(ledger, db_url):
    """Recomputing the edited row's own hash moves the break to the next row's link."""
    from trainledger.ledger.audit import entry_hash

    log = _fill(ledger)
    e = dict(log[2], detail={"format": "csv"})
    forged = entry_hash(id=e["id"], at=e["at"], actor=e["actor"], action=e["action"],
                        object=e["object"], detail=e["detail"], prev_hash=e["prev_hash"])
    _tamper(db_url, update(audit_log).where(audit_log.c.id == 3)
            .values(detail=e["detail"], hash=forged))
    problems = ledger.verify_audit_chain()
    assert len(problems) == 1 and problems[0].startswith("audit entry 4")
