"""Revision 0006 (``imports.import_key``): a ledger holding imports from before upgrades with every
record's key = its content hash (the ids already shown keep naming the same import), and then a
second import of the same file (another statement) is a record of its own, dropped alone."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import create_engine, text

from trainledger.ledger import ImportRecord, Ledger, migrate

SHA, OTHER = "c" * 64, "d" * 64


def test_a_0005_ledger_with_imports_upgrades_keyed_by_content(db_url):
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            migrate.upgrade(conn, "0005")
            conn.execute(text("INSERT INTO imports (source_sha256, kind, path, imported_at, rows_read, accepted,"
                              " duplicates, quarantined) VALUES (:s, 'occupancy', 'old.csv', :at, 4, 8, 0, 0)"),
                         {"s": SHA, "at": "2026-11-01 08:00:00+00:00"})
    finally:
        engine.dispose()
    with Ledger.open(db_url) as led:  # opening upgrades to head
        (rec,) = led.imports()
        assert (rec.source_sha256, rec.import_key, rec.accepted) == (SHA, SHA, 8)
        assert led.verify_figures()[0] == [] and led.verify_audit_chain() == []
        at = datetime(2026, 11, 2, tzinfo=UTC)
        second = ImportRecord(kind="occupancy", path="old.csv", source_sha256=SHA, rows_read=4, accepted=4,
                              duplicates=0, quarantined=0, imported_at=at, import_key=OTHER)
        assert led.sync_import(second)
        assert led.sync_import(rec.__class__(**{**{k: getattr(rec, k) for k in rec.__slots__}, "accepted": 4}))
        assert sorted((r.import_key, r.accepted) for r in led.imports()) == [(SHA, 4), (OTHER, 4)]
        dropped = led.drop_import("occupancy", SHA, "vcWRONG was a typo", {"partitions": []})
        assert dropped.import_key == SHA
        assert {r.import_key: r.dropped_at is not None for r in led.imports()} == {SHA: True, OTHER: False}
        assert led.verify_audit_chain() == []
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            assert migrate.current_revision(conn) == migrate.head_revision()
    finally:
        engine.dispose()
