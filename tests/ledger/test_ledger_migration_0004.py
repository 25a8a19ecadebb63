"""Revision 0004 (``runs.gpu_share``): a fractional run round-trips exactly, and a ledger
attributed before the column existed upgrades and still verifies."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from sqlalchemy import create_engine, text

from trainledger.ledger import Ledger, migrate, tracking
from trainledger.ledger.figures import fingerprint
from trainledger.model import Project, Run

from .conftest import make_batch

T = datetime(2026, 11, 2, tzinfo=UTC)


def _runs():
    return [Run(id="pod-a", batch_id="b1", reason="unrecorded", state="COMPLETED", started_at=T, ended_at=T,
                gpus=1, gpu_share=Decimal("0.250")),
            Run(id="job-w", batch_id="b1", reason="unrecorded", state="COMPLETED", gpus=8)]


def test_a_fractional_run_round_trips_exactly(seeded):
    seeded.replace_cost_lines([], summary={}, runs=_runs())
    got = {r.id: r for r in seeded.runs()}
    assert got["pod-a"].gpu_share == Decimal("0.250") and str(got["pod-a"].gpu_share) == "0.250"
    assert got["pod-a"].gpu_equivalents == Decimal("0.25")
    assert (got["job-w"].gpu_share, got["job-w"].gpu_equivalents) == (None, Decimal(8))
    assert seeded.verify_figures()[0] == []


def test_a_null_share_leaves_the_fingerprint_of_before_the_column(seeded):
    row = {"id": "r", "gpus": 8, "gpu_share": None}
    assert fingerprint(row, ("id", "gpus", "gpu_share")) == fingerprint(row, ("id", "gpus"))
    assert fingerprint(row | {"gpu_share": Decimal("0.5")}, ("id", "gpus", "gpu_share")) != fingerprint(
        row, ("id", "gpus"))


def test_a_0003_ledger_with_runs_upgrades_and_verifies(db_url):
    with Ledger.open(db_url) as led:  # a ledger attributed at 0004 with whole-GPU runs only...
        led.upsert_project(Project(id="p1", name="p", goal="g"))
        led.upsert_batch(make_batch("b1"))
        led.replace_cost_lines([], summary={}, runs=_runs()[1:])
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:  # ...taken back to 0003, where the column did not exist
            from alembic.migration import MigrationContext
            from alembic.operations import Operations

            ops = Operations(MigrationContext.configure(conn))
            for sql in tracking.tracking_drop(conn.dialect.name):  # a later revision's triggers (0007)
                conn.exec_driver_sql(sql)
            ops.drop_table("seal_counters")
            with ops.batch_alter_table("runs") as batch:
                batch.drop_column("gpu_share")
            with ops.batch_alter_table("cost_lines") as batch:  # a later revision's column (0008)
                batch.drop_column("import_key")
            ops.drop_table("api_tokens")  # a later revision's table (0005), absent at 0003 too
            with ops.batch_alter_table("imports") as batch:  # a later revision's column (0006)
                batch.drop_constraint("pk_imports", type_="primary")
                batch.create_primary_key("pk_imports", ["source_sha256", "kind"])
                batch.drop_column("import_key")
            conn.execute(text("UPDATE alembic_version SET version_num = '0003'"))
    finally:
        engine.dispose()
    with Ledger.open(db_url) as led:  # opening upgrades to head
        (run,) = led.runs()
        assert (run.id, run.gpus, run.gpu_share) == ("job-w", 8, None)
        assert led.verify_figures()[0] == [] and led.verify_audit_chain() == []
    engine = create_engine(db_url)
    try:
        with engine.connect() as conn:
            assert migrate.current_revision(conn) == migrate.head_revision()
    finally:
        engine.dispose()
