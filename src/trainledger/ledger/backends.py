"""What differs between SQLite and PostgreSQL, as data: one ``Backend`` record per dialect.

Both backends give the same guarantee: **one writer at a time**, readers never blocked.

* SQLite: WAL journal, foreign keys on, a busy timeout, and write transactions opened with
  ``BEGIN IMMEDIATE`` so a writer takes the write lock *before* reading. (A deferred
  transaction that reads and then writes fails at once with "database is locked" when another
  writer committed in between; the busy timeout cannot help it.)
* PostgreSQL: each write transaction first takes ``SHARE ROW EXCLUSIVE`` on ``audit_log``,
  which serialises writers (so the audit hash chain cannot fork and a replace of all cost
  lines cannot interleave with another) but lets readers through. Verification reads under
  ``REPEATABLE READ`` (``Backend.snapshot``) so the chain and the tables it checks are one state.

Bulk inserts (100k+ cost lines) skip SQLAlchemy's per-row parameter handling: values go through
the same column types (``bind_rows``, or column by column in ``bulk.py``), then straight to the
driver — ``executemany`` on SQLite, ``COPY … FROM STDIN`` on PostgreSQL — on the caller's
connection, inside its transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Engine, Table, create_engine, event
from sqlalchemy.dialects import sqlite
from sqlalchemy.engine import make_url

from trainledger.errors import BadInput, ConfigError

WRITE_OPTION = "trainledger_write"  # execution option marking a connection as a writer
SQLITE_BUSY_TIMEOUT_MS = 30_000


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # Take BEGIN away from the sqlite3 module; _sqlite_begin emits it (see module docstring).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
    finally:
        cursor.close()


def _sqlite_begin(conn: Any) -> None:
    write = conn.get_execution_options().get(WRITE_OPTION, False)
    conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def _sqlite_install(engine: Engine) -> None:
    event.listen(engine, "connect", _sqlite_pragmas)
    event.listen(engine, "begin", _sqlite_begin)


def _no_install(engine: Engine) -> None:
    return None


def bind_rows(conn: Connection, table: Table, columns: Sequence[str],
              rows: Sequence[dict[str, Any]], *, offset: int = 0) -> list[tuple[Any, ...]]:
    """``rows`` as tuples of driver values, each converted by its column's type (DecimalText…).
    A value its type refuses is a BadInput naming the column and the row (``offset`` + 1-based)."""
    dialect = conn.dialect
    procs = [table.c[name].type.dialect_impl(dialect).bind_processor(dialect)
             for name in columns]
    plan = list(zip(columns, procs, strict=True))
    try:
        return [tuple(v if p is None or v is None else p(v) for name, p in plan
                      for v in (row[name],)) for row in rows]
    except (TypeError, ValueError) as exc:
        bad = next(i for i, row in enumerate(rows) if _fails(plan, row))
        name = next(n for n, p in plan if _fails([(n, p)], rows[bad]))
        raise BadInput(
            f"{table.name}.{name} of row {offset + bad + 1}: {exc}",
            remedy="fix the value where it is produced; nothing was written",
        ) from exc


def _fails(plan: Sequence[tuple[str, Any]], row: dict[str, Any]) -> bool:
    try:
        for name, p in plan:
            if p is not None and row[name] is not None:
                p(row[name])
    except (TypeError, ValueError):
        return True
    return False


def _column_list(conn: Connection, table: Table, columns: Sequence[str]) -> tuple[str, str]:
    prep = conn.dialect.identifier_preparer
    return prep.format_table(table), ", ".join(prep.quote(c) for c in columns)


def _sqlite_bulk_insert(conn: Connection, table: Table, columns: Sequence[str],
                        rows: Sequence[tuple[Any, ...]]) -> None:
    name, cols = _column_list(conn, table, columns)
    sql = f"INSERT INTO {name} ({cols}) VALUES ({', '.join('?' * len(columns))})"
    cursor = conn.connection.cursor()
    try:
        cursor.executemany(sql, rows)
    finally:
        cursor.close()


def _pg_bulk_insert(conn: Connection, table: Table, columns: Sequence[str],
                    rows: Sequence[tuple[Any, ...]]) -> None:
    name, cols = _column_list(conn, table, columns)
    cursor = conn.connection.dbapi_connection.cursor()
    try:
        with cursor.copy(f"COPY {name} ({cols}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)
    finally:
        cursor.close()


def _pg_insert(*args: Any, **kwargs: Any) -> Any:
    """PostgreSQL's insert(), its dialect imported only by a workspace on PostgreSQL (start-up)."""
    from sqlalchemy.dialects import postgresql

    return postgresql.insert(*args, **kwargs)


@dataclass(frozen=True, slots=True)
class Backend:
    name: str
    insert: Callable[..., Any]  # dialect insert() with on_conflict_do_update
    install: Callable[[Engine], None]  # engine event hooks
    write_lock: tuple[str, ...]  # SQL run first in every write transaction
    migrate_lock: tuple[str, ...]  # SQL run first when migrating (tables may not exist yet)
    bulk_insert: Callable[[Connection, Table, Sequence[str], Sequence[tuple[Any, ...]]], None]
    engine_kwargs: tuple[tuple[str, Any], ...] = ()
    # execution options of a read that must see one snapshot across statements (verification);
    # SQLite's deferred BEGIN already holds one from the first read on
    snapshot: tuple[tuple[str, Any], ...] = ()


BACKENDS: dict[str, Backend] = {
    "sqlite": Backend(
        name="sqlite",
        insert=sqlite.insert,
        install=_sqlite_install,
        write_lock=(),
        migrate_lock=(),  # BEGIN IMMEDIATE already holds the write lock
        bulk_insert=_sqlite_bulk_insert,
        engine_kwargs=(("connect_args", {"timeout": SQLITE_BUSY_TIMEOUT_MS / 1000}),),
    ),
    "postgresql": Backend(
        name="postgresql",
        insert=_pg_insert,
        install=_no_install,
        write_lock=("LOCK TABLE audit_log IN SHARE ROW EXCLUSIVE MODE",),
        # Two processes opening a fresh database must not both create the tables.
        migrate_lock=("SELECT pg_advisory_xact_lock(hashtext('trainledger.ledger.migrate'))",),
        bulk_insert=_pg_bulk_insert,
        engine_kwargs=(("pool_pre_ping", True),),
        snapshot=(("isolation_level", "REPEATABLE READ"),),
    ),
}


def make_engine(url: str) -> tuple[Engine, Backend]:
    """An engine for ``url`` with its backend's hooks installed, or ConfigError."""
    try:
        parsed = make_url(url)
    except Exception as exc:  # sqlalchemy raises ArgumentError, ValueError…
        raise ConfigError(
            f"not a database URL: {url!r} ({exc})",
            remedy="use sqlite:///path/to/ledger.db or postgresql+psycopg://user@host/db",
        ) from None
    backend = BACKENDS.get(parsed.get_backend_name())
    if backend is None:
        raise ConfigError(
            f"unsupported ledger database {parsed.get_backend_name()!r} in "
            f"{parsed.render_as_string(hide_password=True)}",
            remedy="use sqlite:///path/to/ledger.db or postgresql+psycopg://user@host/db",
        )
    engine = create_engine(parsed, **dict(backend.engine_kwargs))
    backend.install(engine)
    return engine, backend
