"""Alembic, driven from code: the migration scripts ship inside the package, no alembic.ini.

For developers adding a revision after changing ``schema.py``::

    from alembic import command
    from trainledger.ledger.migrate import alembic_config
    command.revision(alembic_config("sqlite:///scratch.db"), message="add x", autogenerate=True)

(upgrade ``scratch.db`` to head first, so autogenerate sees only your change).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection

from trainledger.ledger.schema import metadata

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the packaged scripts; ``connection`` wins over ``url``."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str | None:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade inside the caller's transaction on ``connection`` (one atomic step)."""
    command.upgrade(alembic_config(connection=connection), revision)


def schema_diff(connection: Connection) -> list[Any]:
    """What Alembic autogenerate would change to make the database match ``schema.py``."""
    ctx = MigrationContext.configure(connection, opts={"compare_type": True})
    return compare_metadata(ctx, metadata)
