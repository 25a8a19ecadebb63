"""Change tracking of the figure tables by the database itself (migration 0007): the cheap half of
the dashboard's check after a write (ledger/seal.py ``since``).

``seal_counters`` holds one counter per figure table. The database's own triggers move it on every
change to that table, whoever makes it — the ledger's writes and an edit behind its back alike:

    SQLite      AFTER UPDATE and AFTER DELETE row triggers (+1 per row). No INSERT trigger: any
                trigger on INSERT costs the bulk insert of an attribution 1-3 µs a row (measured:
                300k rows 0.64 → 0.93-1.9 s); a plain INSERT shows in the table's row count
                instead, which ``tracked`` reads (from the smallest index)
    PostgreSQL  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE statement triggers (+1 per statement;
                a COPY of 1M rows is one), the function pinned to the schema's search_path

and guard triggers let a counter only go up: an UPDATE lowering it, a DELETE, a TRUNCATE, or (SQLite)
an INSERT OR REPLACE of an existing counter is refused. ``marks`` is what the tracking looks like in
a snapshot — the counters and the identity of the installed triggers (SQLite: ``PRAGMA
schema_version`` and each trigger's exact text; PostgreSQL: each trigger's and function's oid, its
events, whether it is enabled, the function's source and settings) — or None when the triggers are
not exactly these (dropped, disabled, replaced, one added on a figure table): then nothing is
carried over on their word. ``tracked`` adds the row counts (SQLite).

Equal ``tracked`` in two snapshots means no row of a figure table was updated or deleted and (SQLite)
no row was inserted, and (PostgreSQL) no statement wrote to one, unless someone also changed the
schema and put it back exactly (SQLite: forging ``PRAGMA schema_version``), disabled triggers for
the session (PostgreSQL: ``session_replication_role = replica``, superuser), silenced the counter
with a TEMP trigger of their own connection (SQLite), replaced a row with ``INSERT OR REPLACE``
(SQLite: the replace deletes without firing delete triggers unless ``recursive_triggers`` is on,
and the count stays), or edited the database file's bytes. Those are left to the content seal that
the dashboard's background prover recomputes (web/cache.py): the tracking decides how fast an edit
is seen, never whether.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy.exc import DBAPIError

TRACKED = ("attributions", "cost_lines", "figure_digests", "runs")  # the figure tables (seal.TABLES)


def _sqlite_triggers() -> dict[str, tuple[str, str]]:
    """name → (table, the exact CREATE text SQLite keeps in ``sqlite_master``)."""
    out = {}
    for t in TRACKED:
        for ev in ("UPDATE", "DELETE"):
            name = f"seal_count_{t}_{ev.lower()}"
            out[name] = (t, f"CREATE TRIGGER {name} AFTER {ev} ON {t} BEGIN UPDATE seal_counters SET n = n + 1"
                            f" WHERE name = '{t}'; END")
    out["seal_guard_update"] = ("seal_counters", "CREATE TRIGGER seal_guard_update BEFORE UPDATE ON seal_counters"
                                " WHEN NEW.n < OLD.n OR NEW.name IS NOT OLD.name BEGIN SELECT RAISE(ABORT,"
                                " 'seal_counters: a counter only goes up'); END")
    out["seal_guard_delete"] = ("seal_counters", "CREATE TRIGGER seal_guard_delete BEFORE DELETE ON seal_counters"
                                " BEGIN SELECT RAISE(ABORT, 'seal_counters: a counter is never deleted'); END")
    out["seal_guard_insert"] = ("seal_counters", "CREATE TRIGGER seal_guard_insert BEFORE INSERT ON seal_counters"
                                " WHEN EXISTS (SELECT 1 FROM seal_counters WHERE name = NEW.name) BEGIN SELECT"
                                " RAISE(ABORT, 'seal_counters: a counter is never replaced'); END")
    return out


PG_COUNT = "BEGIN UPDATE seal_counters SET n = n + 1 WHERE name = TG_TABLE_NAME; RETURN NULL; END"
PG_GUARD = ("BEGIN IF TG_OP = 'UPDATE' AND NEW.name = OLD.name AND NEW.n >= OLD.n THEN RETURN NEW; END IF;"
            " RAISE EXCEPTION 'seal_counters: a counter only goes up (%)', TG_OP; END")
# pg_trigger.tgtype: ROW 1, BEFORE 2, INSERT 4, DELETE 8, UPDATE 16, TRUNCATE 32
PG_TRIGGERS = {**{f"seal_count_{t}": (t, "seal_count", 4 | 8 | 16 | 32) for t in TRACKED},
               "seal_guard_rows": ("seal_counters", "seal_guard", 1 | 2 | 8 | 16),
               "seal_guard_truncate": ("seal_counters", "seal_guard", 2 | 32)}
PG_SOURCES = {"seal_count": PG_COUNT, "seal_guard": PG_GUARD}


def _counters_rows() -> str:
    return ", ".join(f"('{t}', 0)" for t in TRACKED)


def tracking_ddl(dialect: str) -> list[str]:
    """The statements that install the tracking on an existing ``seal_counters`` table."""
    rows = [f"INSERT INTO seal_counters (name, n) VALUES {_counters_rows()}"]
    if dialect == "sqlite":
        return rows + [sql for _, sql in _sqlite_triggers().values()]
    if dialect == "postgresql":
        fns = [f"CREATE FUNCTION seal_count() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT"
               f" AS $body${PG_COUNT}$body$",
               f"CREATE FUNCTION seal_guard() RETURNS trigger LANGUAGE plpgsql AS $body${PG_GUARD}$body$"]
        trg = [f"CREATE TRIGGER seal_count_{t} AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {t}"
               " FOR EACH STATEMENT EXECUTE FUNCTION seal_count()" for t in TRACKED]
        guards = ["CREATE TRIGGER seal_guard_rows BEFORE UPDATE OR DELETE ON seal_counters FOR EACH ROW"
                  " EXECUTE FUNCTION seal_guard()",
                  "CREATE TRIGGER seal_guard_truncate BEFORE TRUNCATE ON seal_counters FOR EACH STATEMENT"
                  " EXECUTE FUNCTION seal_guard()"]
        return rows + fns + trg + guards
    return rows


def tracking_drop(dialect: str) -> list[str]:
    if dialect == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {name}" for name in _sqlite_triggers()]
    if dialect == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {name} ON {table}" for name, (table, _, _) in PG_TRIGGERS.items()] + [
            "DROP FUNCTION IF EXISTS seal_count()", "DROP FUNCTION IF EXISTS seal_guard()"]
    return []


def _sqlite_marks(conn: Any) -> tuple | None:
    want = _sqlite_triggers()
    names = ", ".join(f"'{t}'" for t in (*TRACKED, "seal_counters"))
    have = {r[0]: (r[1], r[2]) for r in conn.exec_driver_sql(
        f"SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN ({names})")}
    if have != want:
        return None
    version = conn.exec_driver_sql("PRAGMA schema_version").scalar()
    return ("sqlite", version, _counters(conn))


def _pg_marks(conn: Any) -> tuple | None:
    if conn.exec_driver_sql("SELECT to_regclass('seal_counters')").scalar() is None:
        return None  # a ledger before 0007 (an error would end the snapshot's transaction)
    regs = ", ".join(f"to_regclass('{t}')" for t in (*TRACKED, "seal_counters"))
    rows = conn.exec_driver_sql(
        "SELECT t.tgname, c.relname, p.proname, t.tgtype, t.tgenabled, t.tgqual IS NULL, t.tgattr::text,"
        " t.oid::bigint, p.oid::bigint, p.prosrc, coalesce(p.proconfig::text, ''), p.prosecdef"
        " FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_proc p ON p.oid = t.tgfoid"
        f" WHERE NOT t.tgisinternal AND t.tgrelid IN ({regs}) ORDER BY t.tgname").all()
    if {r[0] for r in rows} != set(PG_TRIGGERS):
        return None
    for name, table, fn, tgtype, enabled, no_when, cols, _, _, src, config, _ in rows:
        if ((table, fn, tgtype) != PG_TRIGGERS[name] or enabled != "O" or not no_when or cols != ""
                or src != PG_SOURCES[fn] or (fn == "seal_count" and not config.startswith("{search_path="))):
            return None
    ident = hashlib.sha256(repr([r[:1] + r[3:] for r in rows]).encode()).hexdigest()
    return ("postgresql", ident, _counters(conn))


def _counters(conn: Any) -> tuple:
    return tuple(tuple(r) for r in conn.exec_driver_sql("SELECT name, n FROM seal_counters ORDER BY name"))


def counters(conn: Any) -> tuple:
    """The counters alone (one small query): the dashboard reads them per request, so an UPDATE or
    DELETE behind the ledger's back is seen at the next request even without a write; () before 0007."""
    if conn.dialect.name == "postgresql" and conn.exec_driver_sql(
            "SELECT to_regclass('seal_counters')").scalar() is None:
        return ()
    try:
        return _counters(conn)
    except DBAPIError:  # SQLite: no such table
        return ()


def marks(conn: Any) -> tuple | None:
    """The counters and the triggers' identity in ``conn``'s snapshot (module docstring); None when the
    tracking is missing or not exactly the one installed by migration 0007."""
    try:
        if conn.dialect.name == "sqlite":
            return _sqlite_marks(conn)
        if conn.dialect.name == "postgresql":
            return _pg_marks(conn)
    except DBAPIError:  # SQLite: no such table, a ledger before 0007
        return None
    return None


def tracked(conn: Any) -> tuple | None:
    """``marks`` and, on SQLite (no INSERT trigger), each figure table's row count."""
    m = marks(conn)
    if m is None or m[0] != "sqlite":
        return m
    counts = tuple(conn.exec_driver_sql(f'SELECT count(*) FROM "{t}"').scalar() for t in TRACKED)
    return (*m, counts)


__all__ = ["TRACKED", "counters", "marks", "tracked", "tracking_ddl", "tracking_drop"]
