"""Revision 0002 (figure digests, droppable imports) upgrades a ledger that already holds data."""

from __future__ import annotations

from sqlalchemy import create_engine, text

from trainledger.ledger import Ledger, migrate


def test_a_0001_ledger_with_imports_upgrades_and_verifies(db_url):
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            migrate.upgrade(conn, "0001")
            conn.execute(text("INSERT INTO imports (source_sha256, kind, path, imported_at, rows_read, accepted,"
                              " duplicates, quarantined) VALUES (:s, 'slurm', 'old.txt', :at, 3, 3, 0, 0)"),
                         {"s": "c" * 64, "at": "2026-11-01 08:00:00+00:00"})
    finally:
        engine.dispose()
    with Ledger.open(db_url) as led:
        (rec,) = led.imports()
        assert (rec.path, rec.accepted, rec.dropped_at, rec.drop_reason) == ("old.txt", 3, None, None)
        assert led.verify_figures()[0] == [] and led.verify_audit_chain() == []
        dropped = led.drop_import("slurm", "c" * 64, "imported twice", {"partitions": []})
        assert dropped.dropped_at is not None and led.imports() == [dropped]
