"""Alembic, driven from code: the migration scripts ship inside the package, no alembic.ini.

For developers adding a revision after changing ``schema.py``::

    from alembic import command
    from trainledger.ledger.migrate import alembic_config
    command.revision(alembic_config("sqlite:///scratch.db"), message="add x", autogenerate=True)

(upgrade ``scratch.db`` to head first, so autogenerate sees only your change).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # Alembic costs ~0.1 CPU-s to import: only a migration or a check loads it
    from alembic.config import Config
    from sqlalchemy import Connection

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
_REVISION = re.compile(r"^(down_revision|revision)\s*(?::[^=]*)?=\s*(?:['\"]([^'\"]+)['\"]|None)", re.M)


def packaged_head() -> str | None:
    """The one head revision of the packaged scripts, read from their ``revision`` /
    ``down_revision`` lines without importing Alembic; None when that is not one clear head (then
    callers ask Alembic)."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for script in (MIGRATIONS_DIR / "versions").glob("*.py"):
        found = dict((k, v) for k, v in _REVISION.findall(script.read_text(encoding="utf-8")))
        if "revision" in found and found["revision"]:
            revisions.add(found["revision"])
            if found.get("down_revision"):
                parents.add(found["down_revision"])
    heads = revisions - parents
    return next(iter(heads)) if len(heads) == 1 else None


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    """An Alembic config pointing at the packaged scripts; ``connection`` wins over ``url``."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("path_separator", "os")
    if url is not None:
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        cfg.attributes["connection"] = connection
    return cfg


def head_revision() -> str | None:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(connection: Connection) -> str | None:
    from alembic.runtime.migration import MigrationContext

    return MigrationContext.configure(connection).get_current_revision()


def upgrade(connection: Connection, revision: str = "head") -> None:
    """Upgrade inside the caller's transaction on ``connection`` (one atomic step)."""
    from alembic import command

    command.upgrade(alembic_config(connection=connection), revision)


def schema_diff(connection: Connection) -> list[Any]:
    """What Alembic autogenerate would change to make the database match ``schema.py``."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from trainledger.ledger.schema import metadata

    ctx = MigrationContext.configure(connection, opts={"compare_type": True})
    return compare_metadata(ctx, metadata)
