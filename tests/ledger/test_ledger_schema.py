"""Migrations create exactly the model's schema, from empty, on every backend."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import create_engine, inspect

import trainledger.ledger
from trainledger.errors import ConfigError
from trainledger.ledger import Ledger, migrate
from trainledger.ledger.schema import metadata


def test_exports_are_exactly_ledger_and_import_record():
    assert trainledger.ledger.__all__ == sorted(trainledger.ledger.__all__)
    assert set(trainledger.ledger.__all__) == {"ImportRecord", "Ledger"}


def test_upgrade_from_empty_creates_every_table_and_matches_the_model(db_url):
    with Ledger(db_url) as bare, pytest.raises(ConfigError, match="none \\(empty database\\)"):
        bare.check_schema()

    with Ledger.open(db_url, actor="tester") as led:
        led.check_schema()
        with led._read() as conn:
            tables = set(inspect(conn).get_table_names())
            assert tables == set(metadata.tables) | {"alembic_version"}
            assert migrate.current_revision(conn) == migrate.head_revision()
            assert migrate.schema_diff(conn) == []
        log = led.audit_log()
        assert [(e["action"], e["detail"]) for e in log] == [
            ("upgrade", {"from": None, "to": migrate.head_revision()})]

    with Ledger.open(db_url) as again:  # already at head: nothing to do, nothing audited
        assert len(again.audit_log()) == 1


def test_open_without_upgrade_refuses_an_unmigrated_database(db_url):
    with pytest.raises(ConfigError, match="expects"):
        Ledger.open(db_url, upgrade=False)
    Ledger.open(db_url).close()
    Ledger.open(db_url, upgrade=False).close()


def test_downgrade_to_base_and_back(db_url):
    with Ledger.open(db_url) as led, led._write(lock=False) as conn:
        command.downgrade(migrate.alembic_config(connection=conn), "base")
        assert set(inspect(conn).get_table_names()) <= {"alembic_version"}
        migrate.upgrade(conn)
        assert migrate.schema_diff(conn) == []


def test_unreachable_database_is_a_config_error(tmp_path):
    url = f"sqlite:///{tmp_path / 'missing-dir' / 'ledger.db'}"
    with pytest.raises(ConfigError, match="cannot open the ledger database"):
        Ledger.open(url)


def test_unsupported_backend_is_a_config_error():
    with pytest.raises(ConfigError, match="unsupported ledger database"):
        Ledger("mysql://u@localhost/db")


def test_migration_scripts_ship_with_the_package():
    """setuptools' package discovery ships .py files only from directories with an
    __init__.py (pyproject's package-data globs cover *.mako and *.ini)."""
    scripts = migrate.MIGRATIONS_DIR
    for folder in (scripts, scripts / "versions"):
        assert (folder / "__init__.py").is_file(), f"{folder} would not be packaged"
    assert (scripts / "env.py").is_file() and (scripts / "script.py.mako").is_file()
    assert list((scripts / "versions").glob("0001_*.py"))


def test_sqlite_runs_in_wal_mode_with_foreign_keys(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    with Ledger.open(url) as led, led._read() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 10_000
    # A plain engine (no ledger hooks) sees the WAL journal persisted in the file.
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
    finally:
        engine.dispose()
