"""Revision 0008 (``cost_lines.import_key``): a line records the import its source row came through,
round-trips exactly, and a ledger attributed before the column existed upgrades, still verifies,
and reads its lines as of an unknown import (no crash)."""

from __future__ import annotations

from decimal import Decimal

from sqlalchemy import create_engine, inspect, text

from trainledger.ledger import Ledger, migrate, repo
from trainledger.model import AmountRange, CostLine, Project, Provenance

from .conftest import make_batch

SHA, OTHER_IMPORT = "a" * 64, "b" * 64


def _lines():
    amt = AmountRange(Decimal("1.25"), Decimal("1.25"), Decimal("1.25"), "CNY")
    return [CostLine(category="compute", basis="billed", evidence="contract", amount=amt, batch_id="b1",
                     provenance=Provenance(SHA, 7, "r1", "slurm", OTHER_IMPORT)),
            CostLine(category="compute", basis="billed", evidence="contract", amount=amt, batch_id="b1",
                     provenance=Provenance(SHA, 7, "r1", "slurm", SHA)),
            CostLine(category="compute", basis="rate_card", evidence="assumed", amount=amt,
                     reason="capacity_unheld: node n1", provenance=Provenance("c" * 64, 3, "unheld", "config"))]


def test_a_line_keeps_the_import_it_came_through(ledger):
    ledger.upsert_project(Project(id="p1", name="p", goal="g"))
    ledger.upsert_batch(make_batch("b1"))
    ledger.replace_cost_lines(_lines(), summary={})
    got = [ln.provenance.import_key for ln in ledger.cost_lines()]
    assert got == [OTHER_IMPORT, SHA, ""]
    assert ledger.verify_figures()[0] == []


def test_a_0007_ledger_with_lines_upgrades_verifies_and_reads_unknown_imports(db_url, monkeypatch):
    with Ledger.open(db_url) as led:  # lines written as at 0007: no import_key column in the write
        led.upsert_project(Project(id="p1", name="p", goal="g"))
        led.upsert_batch(make_batch("b1"))
        with monkeypatch.context() as m:
            m.setattr(repo, "COST_LINE_COLUMNS", tuple(c for c in repo.COST_LINE_COLUMNS if c != "import_key"))
            led.replace_cost_lines(_lines(), summary={})
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:  # ...and the column taken away, back to 0007
            conn.exec_driver_sql("ALTER TABLE cost_lines DROP COLUMN import_key")
            conn.execute(text("UPDATE alembic_version SET version_num = '0007'"))
            assert "import_key" not in {c["name"] for c in inspect(conn).get_columns("cost_lines")}
    finally:
        engine.dispose()
    with Ledger.open(db_url) as led:  # opening upgrades to head
        lines = led.cost_lines()
        assert [ln.provenance.import_key for ln in lines] == ["", "", ""]  # unknown: not the content's
        assert [ln.provenance.source_sha256 for ln in lines][:2] == [SHA, SHA]
        assert led.verify_figures()[0] == [] and led.verify_audit_chain() == []
        led.replace_cost_lines(_lines(), summary={})  # a new attribution records the keys
        assert [ln.provenance.import_key for ln in led.cost_lines()] == [OTHER_IMPORT, SHA, ""]
        assert led.verify_figures()[0] == []
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            assert migrate.current_revision(conn) == migrate.head_revision()
    finally:
        engine.dispose()
