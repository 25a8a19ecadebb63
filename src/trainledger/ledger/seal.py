"""Proving a verified ledger state again cheaply: seals of the stored values, computed by the database.

``figures.verify`` recomputes the fingerprint of every stored cost line and run in Python — ~13
CPU-s at 200k job attempts, 50 at 1M — and the dashboard paid it on its first request and again
after every write (a decision, a confirmation), because the proof a sheet prints names the audit
head. A *seal* is a sha256 over the stored values of the tables that verification reads, as the
database itself prints them, at C speed:

    SQLite      ``printf('%Q', …)`` of every column and its storage class, row by row in rowid order,
                chunks concatenated by ``group_concat`` and hashed here (tag ``v2-sqlite:``)
    PostgreSQL  each row as the server prints it (``t::text``) in key order, a chunk at a time
                ``sha256(string_agg(…))`` on the server, the chunks' digests hashed here; instants
                printed in UTC (``SET LOCAL``); the latest attribution's summary hashed apart
                (tag ``v1-pg:``)

    tables   cost_lines, runs, figure_digests (every row) and attributions (the latest row)
    audit    the audit log's rows up to and including a given entry

Equal seals mean the stored values are the ones a full verification proved, so its proof still
holds. Sealing the tables still reads them once: 6.4 CPU-s at 1M job attempts (cost lines 3.6,
runs 1.4, summary 0.9), the whole first request after a write (25.5 s wall on the loaded machine,
6.9 s quiet). So a check after a write asks the database's own change tracking first
(ledger/tracking.py, migration 0007: triggers that count every change to a figure table, whoever
makes it, with guards so a counter only goes up, and the triggers' identity): when it reads as it
did in the verified snapshot, the tables are not read at all and the check costs the new audit
entries, four counters and (SQLite) four row counts. Chosen over a per-chunk (Merkle) seal: a chunk
seal still needs to know which chunks changed, which is the tracking's job; with the tracking, a
write without figures touches no chunk, and a write with figures (``attribute``, ``upsert_runs``)
rewrites the tables whole and gets a new figures digest, whose sheets are computed and sealed
afresh anyway (report/precompute.py). Three checks, each falling back to the next (web/cache.py
``Pages.proof``):

    since(ledger, base)  after a write: the entries after ``base``'s head continue its chain (only
                         they are hashed), none records new figures (``figures.recorded``'s keys),
                         the audit rows up to ``base``'s head seal as they did, and the tracking
                         reads as in ``base`` — or, when it does not (or is not intact, or
                         ``tracked=False``), the tables seal as they did; the result is ``base``'s
                         proof at the new head
    recorded(ledger)     at a server's start or after a new attribution: the whole chain verifies,
                         and the newest entry carrying a seal (``precompute_sheets``, written by
                         report/precompute.py from a snapshot ``figures.verify`` passed, or
                         ``seal_figures`` of ``record``), later than every entry that recorded
                         figures, holds the tables' seal now; the result is its figures digest
    full(ledger)         the whole chain and every fingerprint (``Ledger.verify``), and the seal of
                         that same snapshot

A row edited, inserted or deleted behind the ledger's back moves the tracking and changes its
table's seal, an edited older audit entry the audit seal, so the cheap checks decline and ``full``
names the problem. What the tracking cannot see (ledger/tracking.py lists it: SQLite's INSERT OR
REPLACE, a forged schema version, a TEMP trigger, PostgreSQL's ``session_replication_role``, a
byte edit of the file) the tables' seal still does: the dashboard's background prover runs
``since(..., tracked=False)`` right after a write carried on the tracking's word and every few
minutes, and a failure turns every page to 409 (web/cache.py). The tracking changes how soon such
an edit is seen, never whether. ``trainledger verify``, ``trainledger audit`` and a sheet on the
command line still run the full check every time. A seal is only compared with one the same code
computed on the same backend (its tag).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import DBAPIError

from trainledger.ledger import audit as chain
from trainledger.ledger import figures, tracking

ACTION = "seal_figures"  # ``record``'s entry; report/precompute.py's ``precompute_sheets`` carries one too
CARRIERS = frozenset({ACTION, "precompute_sheets"})
TAG = "v2-sqlite:"
PG_TAG = "v1-pg:"
CHUNK = 50_000  # rows per query
FIGURE_KEYS = (*figures.KEYS.values(), figures.SUMMARY_KEY, "attribution")  # what ``figures.recorded`` reads
TABLES = ("cost_lines", "runs", "figure_digests", "attributions")
KEYS = {"cost_lines": "id", "runs": "id", "figure_digests": "name", "attributions": "id", "audit_log": "id"}


@dataclass(frozen=True, slots=True)
class Verified:
    """A ledger state proved by a full verification, or by a seal that one recorded."""

    head: tuple[int, str]
    proof: dict[str, Any]
    tables: dict[str, str] | None  # table → seal; None: this backend has none
    audit: str | None  # seal of the audit rows up to ``head``
    tracked: tuple | None = None  # ``tracking.tracked`` in the same snapshot; None: no intact tracking


def _columns(conn: Any, table: str) -> list[str]:
    return [r[1] for r in conn.exec_driver_sql(f'PRAGMA table_info("{table}")')]


def _sqlite(conn: Any, table: str, where: str = "", params: tuple = ()) -> str:
    """sha256 over ``table``'s rows (those ``where`` keeps): rowid, each column as SQL text
    (``%Q``: quoted, NULL bare) and the first letter of each column's storage class."""
    cols = [f'"{c}"' for c in _columns(conn, table)]
    fmt = "%d|" + ",".join(["%Q"] * len(cols)) + "|" + "%.1s" * len(cols)
    row = f"printf('{fmt}', rowid, {', '.join(cols)}, {', '.join(f'typeof({c})' for c in cols)})"
    sql = (f"SELECT CAST(group_concat(r, char(10)) AS BLOB), max(k), count(*) FROM (SELECT rowid AS k, {row} AS r"
           f' FROM "{table}" WHERE rowid > ? {where} ORDER BY rowid LIMIT {CHUNK})')
    h = hashlib.sha256()
    last = -(2 ** 63)
    while True:
        blob, top, n = conn.exec_driver_sql(sql, (last, *params)).one()
        if not n:
            return TAG + h.hexdigest()
        h.update(blob)
        h.update(b"\n")
        last = top


def _latest_attribution(conn: Any) -> str:
    """sha256 over the latest attribution row: its other columns as ``_sqlite`` prints them, then
    the summary's stored bytes as they are (at 1M job attempts ~430 MB: one copy, not three)."""
    cols = [f'"{c}"' for c in _columns(conn, "attributions") if c != "summary"]
    fmt = "%d|" + ",".join(["%Q"] * len(cols)) + "|" + "%.1s" * (len(cols) + 1)
    head = f"printf('{fmt}', rowid, {', '.join(cols)}, {', '.join(f'typeof({c})' for c in [*cols, 'summary'])})"
    row = conn.exec_driver_sql(f"SELECT {head}, CAST(summary AS BLOB) FROM attributions"
                               " ORDER BY rowid DESC LIMIT 1").first()
    h = hashlib.sha256()
    if row is not None:
        h.update(row[0].encode("utf-8"))
        h.update(b"\n")
        h.update(row[1] or b"")
    return TAG + h.hexdigest()


def _pg(conn: Any, table: str, upto: int | None = None) -> str:
    """sha256 over ``table``'s rows in key order, each as PostgreSQL prints the row (``t::text``: every
    column in order, quoted where needed, NULL empty, "" the empty string), computed by the server a
    chunk at a time (``string_agg`` then ``sha256``); the chunks' digests hashed here. Instants print
    in the transaction's zone, set to UTC first (``SET LOCAL``). ``attributions``: the latest row.
    ``upto``: only rows with a key up to it (the audit log)."""
    conn.exec_driver_sql("SET LOCAL TimeZone = 'UTC'")
    conn.exec_driver_sql("SET LOCAL DateStyle = 'ISO, YMD'")
    key = KEYS[table]
    h = hashlib.sha256()
    if table == "attributions":  # the latest row; its summary (~430 MB at 1M job attempts) hashed apart
        cols = [r[0] for r in conn.exec_driver_sql(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()"
            " AND table_name = 'attributions' AND column_name <> 'summary' ORDER BY ordinal_position")]
        row = conn.exec_driver_sql(f"SELECT row({', '.join(f't.{c}' for c in cols)})::text, encode(sha256("
                                   "convert_to(t.summary::text, 'UTF8')), 'hex') FROM attributions t"
                                   " ORDER BY t.id DESC LIMIT 1").first()
        if row is not None:
            h.update(f"{row[0]}\n{row[1]}".encode())
        return PG_TAG + h.hexdigest()
    bound = "" if upto is None else f" AND t.{key} <= %(upto)s"

    def chunk(after: str) -> str:
        return (f"SELECT encode(sha256(convert_to(string_agg(r, E'\\n' ORDER BY k), 'UTF8')), 'hex'), max(k),"
                f" count(*) FROM (SELECT t.{key} AS k, t::text AS r FROM {table} t WHERE TRUE{after}{bound}"
                f" ORDER BY t.{key} LIMIT {CHUNK}) s")
    sql, params = chunk(""), {"upto": upto}
    while True:
        digest, top, n = conn.exec_driver_sql(sql, params).one()
        if not n:
            return PG_TAG + h.hexdigest()
        h.update(digest.encode("ascii"))
        h.update(b"\n")
        sql, params = chunk(f" AND t.{key} > %(last)s"), {"upto": upto, "last": top}


def tables(conn: Any) -> dict[str, str] | None:
    """The seal of each table a verification reads, in ``conn``'s snapshot; None on a backend
    without one, or when the database refuses (a value too long to print)."""
    try:
        if conn.dialect.name == "postgresql":
            return {t: _pg(conn, t) for t in TABLES}
        if conn.dialect.name != "sqlite":
            return None
        out = {t: _sqlite(conn, t) for t in TABLES[:3]}
        out["attributions"] = _latest_attribution(conn)
    except DBAPIError:
        return None
    return out


def audit_rows(conn: Any, upto: int) -> str | None:
    """The seal of the audit rows with id up to ``upto``."""
    try:
        if conn.dialect.name == "postgresql":
            return _pg(conn, "audit_log", upto)
        if conn.dialect.name != "sqlite":
            return None
        return _sqlite(conn, "audit_log", "AND rowid <= ?", (upto,))
    except DBAPIError:
        return None


def _log(conn: Any, after: int = 0) -> list[dict]:
    from trainledger.ledger.schema import audit_log

    q = select(audit_log).where(audit_log.c.id > after).order_by(audit_log.c.id)
    return [dict(m) for m in conn.execute(q).mappings()]


def records_figures(entry: dict) -> bool:
    d = entry["detail"]
    return isinstance(d, dict) and any(d.get(k) is not None for k in FIGURE_KEYS)


def full(ledger) -> tuple[list[str], Verified | None]:
    """(problems, the verified state): ``Ledger.verify`` and the seal, from one snapshot; None
    when there are problems or no audit entry yet."""
    with ledger.snapshot() as conn:
        log = _log(conn)
        problems, proof = figures.verify(conn, log)
        problems = chain.verify(log) + problems
        if problems or not log:
            return problems, None
        head = (log[-1]["id"], log[-1]["hash"])
        return [], Verified(head, proof, tables(conn), audit_rows(conn, head[0]), tracking.tracked(conn))


def since(ledger, base: Verified, *, tracked: bool = True) -> Verified | None:
    """``base`` carried to the current head when only entries that record no figures were appended
    and nothing it proved has changed (module docstring); None otherwise. With ``tracked`` the
    figure tables are taken as unchanged when their change tracking (ledger/tracking.py) reads as it
    did in ``base``'s snapshot, and sealed again only when it does not; without, always sealed
    again (the background prover's check)."""
    if base.tables is None or base.audit is None:
        return None
    with ledger.snapshot() as conn:
        new = _log(conn, base.head[0])
        if chain.verify(new, after=base.head) or any(records_figures(e) for e in new):
            return None
        if audit_rows(conn, base.head[0]) != base.audit:
            return None  # an older entry edited, or the chain cut below base's head (a restored database)
        now = tracking.tracked(conn)
        if not (tracked and now is not None and now == base.tracked) and tables(conn) != base.tables:
            return None
        if not new and now == base.tracked:
            return base
        head = base.head if not new else (new[-1]["id"], new[-1]["hash"])
        proof = dict(base.proof, audit_head_id=head[0], audit_head_hash=head[1])
        return Verified(head, proof, base.tables, audit_rows(conn, head[0]), now)


def recorded(ledger) -> Verified | None:
    """The state proved by the newest seal the chain holds (module docstring), or None."""
    with ledger.snapshot() as conn:
        log = _log(conn)
        if not log or chain.verify(log):
            return None
        after = max((e["id"] for e in log if records_figures(e)), default=0)
        carrier = next((e for e in reversed(log) if e["id"] > after and e["action"] in CARRIERS
                        and isinstance(e["detail"], dict) and isinstance(e["detail"].get("seal"), dict)
                        and e["detail"].get("figures_digest")), None)
        if carrier is None:
            return None
        now = tables(conn)
        if now is None or now != carrier["detail"]["seal"]:
            return None
        rec = figures.recorded(log)
        head = (log[-1]["id"], log[-1]["hash"])
        proof = {"audit_head_id": head[0], "audit_head_hash": head[1], "attribution_id": rec.attribution_id,
                 "figures_digest": carrier["detail"]["figures_digest"], "verified": True}
        return Verified(head, proof, now, audit_rows(conn, head[0]), tracking.tracked(conn))


def record(ledger) -> dict[str, Any] | None:
    """A full verification, and its seal appended to the chain (``seal_figures``) for ``recorded``;
    None (nothing written) when the ledger does not verify or the backend has no seal. For a
    workspace precomputed before seals existed; ``attribute`` records one with its precompute."""
    problems, v = full(ledger)
    if problems or v is None or v.tables is None or not v.proof.get("verified"):
        return None
    detail = {"figures_digest": v.proof["figures_digest"], "seal": v.tables}
    ledger.audit("", ACTION, "workspace", detail)
    return detail


__all__ = ["ACTION", "Verified", "audit_rows", "full", "record", "recorded", "records_figures", "since",
           "tables"]
