"""``Ledger``: the repository API over the ledger database.

Every method runs in one transaction. Every mutating method takes the backend's write lock
first (see ``backends``), makes its change, and appends a hash-chained audit entry in the same
transaction — so the audit log and the data cannot disagree. Reads never take the write lock.

A method that writes ``cost_lines``, ``runs`` or ``attributions`` also puts the new digests of
what is stored into that entry (``figures``: ``lines_digest``, ``runs_digest``,
``summary_digest``; see ``upsert_runs`` and ``replace_cost_lines``), so ``verify_figures`` can
tell an audited change from an edit behind the ledger's back. A new writer of those tables must
do the same, or every later verification (and so every sheet) will report a change.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import Connection, Table, delete, func, insert, or_, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from trainledger.errors import BadInput, ConfigError, NotFound
from trainledger.ledger import audit as chain
from trainledger.ledger import bulk, figures, migrate
from trainledger.ledger import schema as _schema
from trainledger.ledger.backends import WRITE_OPTION, bind_rows, make_engine
from trainledger.ledger.rows import (
    ImportRecord,
    batch_from,
    batch_row,
    chunks,
    cost_line_from,
    cost_line_row,
    import_from,
    import_row,
    item_list,
    os_user,
    price_from,
    price_row,
    project_from,
    project_row,
    run_from,
    run_row,
    vocab,
)
from trainledger.ledger.schema import (
    attributions,
    audit_log,
    batches,
    cost_lines,
    decisions,
    imports,
    plans,
    prices,
    projects,
    runs,
)
from trainledger.model import Batch, CostLine, DecisionKind, PlanStage, PriceEntry, Project, Run

CHUNK = 10_000  # cost lines per bulk insert; bounds memory on 100k+ line attributions


COST_LINE_COLUMNS = tuple(c.name for c in cost_lines.columns if c.name != "id")
RUN_COLUMNS = tuple(c.name for c in runs.columns)


class Ledger:
    """The system of record. ``Ledger.open(url)`` migrates; ``Ledger(url)`` only connects."""

    def __init__(self, url: str, *, actor: str | None = None) -> None:
        self.url = url
        self.actor = actor or os_user()
        self._engine, self._backend = make_engine(url)
        self.where = make_url(url).render_as_string(hide_password=True)

    @classmethod
    def open(cls, url: str, *, upgrade: bool = True, actor: str | None = None) -> Ledger:
        ledger = cls(url, actor=actor)
        try:
            if upgrade:
                ledger.upgrade()
            else:
                ledger.check_schema()
        except OperationalError as exc:
            ledger.close()
            raise ConfigError(
                f"cannot open the ledger database {ledger.where}: {exc.orig}",
                remedy="check the URL, that the server is running and that you may connect",
            ) from exc
        except BaseException:
            ledger.close()
            raise
        return ledger

    def __enter__(self) -> Ledger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Ledger({self.where!r})"

    def close(self) -> None:
        self._engine.dispose()

    # -- transactions and schema ------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            yield conn

    @contextmanager
    def _write(self, *, lock: bool = True) -> Iterator[Connection]:
        with self._engine.connect() as conn:
            conn.execution_options(**{WRITE_OPTION: True})
            with conn.begin():
                for sql in self._backend.write_lock if lock else ():
                    conn.exec_driver_sql(sql)
                yield conn

    def upgrade(self) -> None:
        """Migrate to the newest schema (one transaction); a no-op when already there."""
        if self._at_packaged_head():
            return
        with self._write(lock=False) as conn:
            for sql in self._backend.migrate_lock:
                conn.exec_driver_sql(sql)
            before = migrate.current_revision(conn)
            migrate.upgrade(conn)
            after = migrate.current_revision(conn)
            if before != after:
                for sql in self._backend.write_lock:
                    conn.exec_driver_sql(sql)
                self._append(conn, self.actor, "upgrade", "ledger schema",
                             {"from": before, "to": after})

    def _at_packaged_head(self) -> bool:
        """The common case, without Alembic: the database says it is at the scripts' one head.
        Anything else (no version table, another revision, several heads) takes the full path."""
        head = migrate.packaged_head()
        if head is None:
            return False
        try:
            with self._read() as conn:
                rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
        except DBAPIError:
            return False
        return [r[0] for r in rows] == [head]

    def check_schema(self) -> None:
        """ConfigError unless the database is at the schema revision this code expects."""
        head = migrate.head_revision()
        with self._read() as conn:
            current = migrate.current_revision(conn)
        if current != head:
            raise ConfigError(
                f"the ledger at {self.where} is at schema revision"
                f" {current or 'none (empty database)'}; this trainledger expects {head}",
                remedy="open it with Ledger.open(url) (upgrade=True) to migrate it",
            )

    # -- audit ------------------------------------------------------------------------------

    def _append(self, conn: Connection, actor: str, action: str, obj: str, detail: Any) -> None:
        last = conn.execute(
            select(audit_log.c.id, audit_log.c.hash).order_by(audit_log.c.id.desc()).limit(1)
        ).first()
        entry = {
            "id": 1 if last is None else last.id + 1,
            "at": datetime.now(UTC),
            "actor": actor or self.actor,
            "action": action,
            "object": obj,
            "detail": chain.jsonable(detail),
            "prev_hash": chain.GENESIS if last is None else last.hash,
        }
        conn.execute(insert(audit_log).values(**entry, hash=chain.entry_hash(**entry)))

    def audit(self, actor: str, action: str, obj: str, detail: dict) -> None:
        with self._write() as conn:
            self._append(conn, actor, action, obj, detail)

    def audit_log(self) -> list[dict]:
        with self._read() as conn:
            return [dict(m) for m in conn.execute(select(audit_log).order_by(audit_log.c.id))
                    .mappings()]

    def verify_audit_chain(self) -> list[str]:
        """Problems found in the audit hash chain; an empty list means intact."""
        return chain.verify(self.audit_log())

    def verify(self) -> tuple[list[dict], list[str], list[str], dict[str, Any]]:
        """(audit log, chain problems, figure problems, proof), all read from one snapshot — a
        concurrent ``attribute`` is seen whole or not at all. Figures: the digests of the stored
        cost lines, runs and latest attribution summary recomputed and compared with the newest
        ones in the chain (``figures.verify``); proof: what a sheet prints."""
        with self._engine.connect() as conn:
            conn.execution_options(**dict(self._backend.snapshot))
            with conn.begin():
                log = [dict(m) for m in conn.execute(select(audit_log).order_by(audit_log.c.id)).mappings()]
                problems, proof = figures.verify(conn, log)
        return log, chain.verify(log), problems, proof

    @contextmanager
    def snapshot(self) -> Iterator[Connection]:
        """A read transaction that sees one state across statements (as ``verify`` reads): for a
        reader that verifies the figures and then reads them (report/precompute.py)."""
        with self._engine.connect() as conn:
            conn.execution_options(**dict(self._backend.snapshot))
            with conn.begin():
                yield conn

    def audit_head(self) -> tuple[int, str] | None:
        """(id, hash) of the newest audit entry. Every write appends one, so an unchanged head
        means nothing was written in between."""
        q = select(audit_log.c.id, audit_log.c.hash).order_by(audit_log.c.id.desc()).limit(1)
        with self._read() as conn:
            row = conn.execute(q).first()
        return None if row is None else (row.id, row.hash)

    def verify_figures(self) -> tuple[list[str], dict[str, Any]]:
        """(figure problems, proof) of ``verify``."""
        _, _, problems, proof = self.verify()
        return problems, proof

    def _runs_digest(self, conn: Connection) -> str:
        return figures.store(conn, "runs", figures.table_fingerprints(conn, "runs"))

    # -- projects, batches, runs ------------------------------------------------------------

    def _known(self, conn: Connection, table: Table, ids: Iterable[str]) -> set[str]:
        wanted = sorted(set(ids))
        found: set[str] = set()
        for chunk in chunks(wanted, 500):
            found.update(conn.scalars(select(table.c.id).where(table.c.id.in_(chunk))))
        return found

    def _require_batches(self, conn: Connection, ids: Iterable[str], what: str) -> None:
        wanted = set(ids)
        missing = sorted(wanted - self._known(conn, batches, wanted))
        if missing:
            known = list(conn.scalars(select(batches.c.id).order_by(batches.c.id).limit(6)))
            hint = ", ".join(known[:5]) + (", …" if len(known) > 5 else "") or "none yet"
            shown = ", ".join(repr(m) for m in missing[:5]) + (" …" if len(missing) > 5 else "")
            raise NotFound(
                f"{what}: batch {shown} is not in the ledger at {self.where}",
                remedy=f"declare the batch first (Ledger.upsert_batch); known batches: {hint}",
            )

    def _upsert(self, conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
        keys = [c.name for c in table.primary_key.columns]
        stmt = self._backend.insert(table)
        stmt = stmt.on_conflict_do_update(
            index_elements=keys,
            set_={c.name: stmt.excluded[c.name] for c in table.columns if c.name not in keys},
        )
        for chunk in chunks(rows, CHUNK):
            conn.execute(stmt, chunk)

    def _same(self, table: Table, row: dict[str, Any]) -> bool:
        """True when ``row`` is already stored exactly: an upsert that changes nothing writes nothing
        (and adds nothing to the audit log), so syncing the config before a read is free."""
        (key,) = [c.name for c in table.primary_key.columns]
        with self._read() as conn:
            have = conn.execute(select(table).where(table.c[key] == row[key])).mappings().first()
        return have is not None and all(have[k] == v for k, v in row.items())

    def upsert_project(self, p: Project) -> None:
        row = project_row(p)
        if self._same(projects, row):
            return
        with self._write() as conn:
            self._upsert(conn, projects, [row])
            self._append(conn, "", "upsert_project", f"project:{p.id}", row)

    def projects(self) -> list[Project]:
        with self._read() as conn:
            return [project_from(m) for m in
                    conn.execute(select(projects).order_by(projects.c.id)).mappings().all()]

    def upsert_batch(self, b: Batch) -> None:
        row = batch_row(b)
        if self._same(batches, row):
            return
        with self._write() as conn:
            if not self._known(conn, projects, [b.project]):
                raise NotFound(
                    f"batch {b.id}: project {b.project!r} is not in the ledger at {self.where}",
                    remedy="declare the project first (Ledger.upsert_project)",
                )
            self._upsert(conn, batches, [row])
            self._append(conn, "", "upsert_batch", f"batch:{b.id}", row)

    def get_batch(self, batch_id: str) -> Batch:
        with self._read() as conn:
            m = conn.execute(select(batches).where(batches.c.id == batch_id)).mappings().first()
            if m is None:
                self._require_batches(conn, [batch_id], "get_batch")
        return batch_from(m)

    def list_batches(self) -> list[Batch]:
        with self._read() as conn:
            return [batch_from(m) for m in
                    conn.execute(select(batches).order_by(batches.c.id)).mappings()]

    def upsert_runs(self, runs_: Iterable[Run]) -> None:
        rows = [run_row(r) for r in runs_]
        if not rows:
            return
        by_batch = sorted({r["batch_id"] for r in rows})
        with self._write() as conn:
            self._require_batches(conn, by_batch, "upsert_runs")
            self._upsert(conn, runs, rows)
            self._append(conn, "", "upsert_runs", "runs",
                         {"runs": len(rows), "batches": by_batch,
                          "runs_digest": self._runs_digest(conn)})

    def runs(self, batch_id: str | None = None) -> list[Run]:
        q = select(runs).order_by(runs.c.batch_id, runs.c.id)
        if batch_id is not None:
            q = q.where(runs.c.batch_id == batch_id)
        with self._read() as conn:
            return [run_from(m) for m in conn.execute(q).mappings().all()]

    # -- imports ----------------------------------------------------------------------------

    def record_import(self, rec: ImportRecord) -> bool:
        """Record an import; False (and no change) when this import (kind + key) is already there."""
        with self._write() as conn:
            seen = conn.execute(select(imports.c.kind).where(
                imports.c.import_key == rec.import_key, imports.c.kind == rec.kind
            )).first()
            if seen is not None:
                return False
            row = import_row(rec)
            conn.execute(insert(imports).values(row))
            self._append(conn, "", "record_import", f"import:{rec.kind}:{rec.import_key}",
                         row)
        return True

    def sync_import(self, rec: ImportRecord, *, action: str = "record_import") -> bool:
        """Make the ledger's record of (kind, import key) equal ``rec`` — insert, or update one that
        differs (a repair from the lake's log, a re-import after a drop); False when it already
        was. ``imported_at`` of an existing record is kept. One audit entry per change."""
        row = import_row(rec)
        key = (imports.c.import_key == rec.import_key, imports.c.kind == rec.kind)
        with self._write() as conn:
            have = conn.execute(select(imports).where(*key)).mappings().first()
            if have is None:
                conn.execute(insert(imports).values(row))
                action_done = action
            else:
                action_done = "update_import"
                row["imported_at"] = have["imported_at"]
                if all(have[k] == v for k, v in row.items()):
                    return False
                conn.execute(update(imports).where(*key).values(row))
            self._append(conn, "", action_done, f"import:{rec.kind}:{rec.import_key}",
                         row | ({"before": {k: have[k] for k in row if have[k] != row[k]}} if have else {}))
        return True

    def drop_import(self, kind: str, import_key: str, reason: str, detail: dict, *,
                    at: datetime | None = None, actor: str = "") -> ImportRecord:
        """Mark the import (``kind``, ``import_key``; for a file's first import its content hash)
        dropped with ``reason``; ``detail`` (the lake partitions tombstoned, a replacement) goes
        into the audit entry. NotFound when there is no such import."""
        if not reason.strip():
            raise BadInput("a drop needs a reason", remedy="pass --reason TEXT (it is kept in the audit log)")
        key = (imports.c.import_key == import_key, imports.c.kind == kind)
        at = at or datetime.now(UTC)
        with self._write() as conn:
            have = conn.execute(select(imports).where(*key)).mappings().first()
            if have is None:
                raise NotFound(f"no {kind} import {import_key} in the ledger at {self.where}",
                               remedy="see `trainledger imports list`")
            conn.execute(update(imports).where(*key).values(dropped_at=at, drop_reason=reason))
            self._append(conn, actor, "drop_import", f"import:{kind}:{import_key}",
                         {"reason": reason, "path": have["path"], **detail})
            return import_from({**have, "dropped_at": at, "drop_reason": reason})

    def imports(self) -> list[ImportRecord]:
        q = select(imports).order_by(imports.c.imported_at, imports.c.source_sha256, imports.c.import_key)
        with self._read() as conn:
            return [import_from(m) for m in conn.execute(q).mappings().all()]

    # -- attribution results ----------------------------------------------------------------

    def replace_cost_lines(self, lines: Iterable[CostLine], *, summary: dict,
                           runs: Iterable[Run] | None = None) -> int:
        """Replace every cost line with ``lines`` in one transaction; returns the attribution id.

        With ``runs``, the runs table is replaced in the same transaction, so a run that a rule
        change moved out of a batch disappears from it together with its cost lines.
        If any line is refused (unknown batch, a broken constraint) nothing changes: the
        previous lines and the previous latest attribution stay as they were.
        """
        run_list = None if runs is None else list(runs)  # their rows are built a chunk at a time (H12)
        summary_json = chain.jsonable_each(summary)  # the run columns kept as they are: already JSON (H12)
        del summary  # the caller passes its only reference: one copy of the summary is held, not two (H12)
        with self._write() as conn:
            known = set(conn.scalars(select(batches.c.id)))
            attribution_id = conn.execute(insert(attributions).values(
                created_at=datetime.now(UTC), actor=self.actor, summary=summary_json
            )).inserted_primary_key[0]
            replaced = conn.execute(delete(cost_lines)).rowcount
            count = 0
            fps: list[str] = []
            for chunk, given in bulk.line_chunks(lines, CHUNK, attribution_id):  # columns as they are
                cols = given if given is not None else bulk.columns_of_lines(chunk, attribution_id)
                named = set(cols["batch_id"]) - {None}
                if not named <= known:
                    self._require_batches(conn, named, "replace_cost_lines")
                fast = bulk.bind_and_fingerprint(conn, cost_lines, COST_LINE_COLUMNS, cols, texts=given is not None)
                if fast is None:  # a value the columnar path does not vouch for: the general path
                    rows = [cost_line_row(c, attribution_id) for c in chunk]
                    chunk_fps = figures.fingerprints(rows, COST_LINE_COLUMNS)
                    values = bind_rows(conn, cost_lines, COST_LINE_COLUMNS, rows, offset=count)
                else:
                    values, chunk_fps = fast
                    first = None if given is None else cost_line_row(chunk.first(), attribution_id)
                    bulk.check_first(conn, cost_lines, COST_LINE_COLUMNS, cols, values, chunk_fps, first)
                fps += chunk_fps
                try:
                    self._backend.bulk_insert(conn, cost_lines, COST_LINE_COLUMNS, values)
                except conn.dialect.loaded_dbapi.IntegrityError as exc:
                    raise BadInput(
                        f"the ledger refused a cost line among lines {count + 1}..."
                        f"{count + len(chunk)}: {exc}; nothing was replaced",
                        remedy="fix the attribution that produced these lines and run it again",
                    ) from exc
                count += len(chunk)
            if run_list is not None:
                self._require_batches(conn, sorted({r.batch_id for r in run_list}), "replace_cost_lines")
                conn.execute(delete(_schema.runs))
                self._insert_runs(conn, run_list)
            self._append(conn, "", "replace_cost_lines", f"attribution:{attribution_id}",
                         {"lines": count, "replaced": replaced,
                          "runs": None if run_list is None else len(run_list),
                          "attribution": attribution_id,
                          "lines_digest": figures.store(conn, "cost_lines", fps),
                          "runs_digest": self._runs_digest(conn),
                          # already the JSON the database gives back: no second dump and parse
                          "summary_digest": figures.stored_summary_digest(summary_json)})
        return attribution_id

    def _insert_runs(self, conn: Connection, run_list: list[Run]) -> None:
        """The runs into the emptied table, a chunk at a time by the backend's bulk path (executemany,
        COPY), each chunk's values converted by the column types (``bind_rows``). Runs sharing an id
        (the last one stays, as an upsert keeps it) take the upsert path."""
        if len({r.id for r in run_list}) != len(run_list):
            for chunk in chunks(run_list, CHUNK):
                self._upsert(conn, _schema.runs, [run_row(r) for r in chunk])
            return
        columns = RUN_COLUMNS
        for n, chunk in enumerate(chunks(run_list, CHUNK)):
            values = bind_rows(conn, _schema.runs, columns, [run_row(r) for r in chunk], offset=n * CHUNK)
            self._backend.bulk_insert(conn, _schema.runs, columns, values)

    def cost_lines(
        self, batch_id: str | None = None, *, unattributed: bool = False
    ) -> list[CostLine]:
        """Cost lines of the latest attribution, in the order they were written.

        No arguments: all lines. ``batch_id``: that batch's lines. ``unattributed=True``: the
        unattributed bucket — alone, or added to the batch's lines when ``batch_id`` is given.
        """
        q = select(cost_lines).order_by(cost_lines.c.id)
        wanted = []
        if batch_id is not None:
            wanted.append(cost_lines.c.batch_id == batch_id)
        if unattributed:
            wanted.append(cost_lines.c.batch_id.is_(None))
        if wanted:
            q = q.where(or_(*wanted))
        with self._read() as conn:
            if batch_id is not None:
                self._require_batches(conn, [batch_id], "cost_lines")
            return [cost_line_from(m) for m in conn.execute(q).mappings().all()]

    def batch_amounts(self) -> list[tuple[str, str, str, Decimal, Decimal, Decimal]]:
        """(batch, basis, currency, low, expected, high) of every attributed cost line but the
        allocation views' (``allocation_lines``), in the order ``cost_lines`` gives them: the batches
        list's direct totals without building each line."""
        c = cost_lines.c
        q = (select(c.batch_id, c.basis, c.currency, c.low, c.expected, c.high)
             .where(c.batch_id.is_not(None), c.category != "allocation").order_by(c.id))
        with self._read() as conn:
            return [tuple(r) for r in conn.execute(q).all()]

    def labor_roles(self) -> set[tuple[str, str, str]]:
        """(batch, currency, role) of every attributed labor line (detail ``phase/role``): which roles a
        batch's labor (internal) total sums, so the batches list can mark it as the sheet does — one
        role's total is that role's rate times its hours (report/labor_kinds.py)."""
        c = cost_lines.c
        q = select(c.batch_id, c.currency, c.detail).where(c.batch_id.is_not(None), c.category == "labor").distinct()
        with self._read() as conn:
            return {(b, cur, d.partition("/")[2] or d) for b, cur, d in conn.execute(q).all()}

    def invoice_keys(self) -> set[tuple[str, str, str]]:
        """(batch, basis, currency) of every attributed external-service (invoice) line: the batch
        totals an invoice is part of (report/access.py ``invoice_totals``, review 7 L13)."""
        c = cost_lines.c
        q = select(c.batch_id, c.basis, c.currency).where(c.batch_id.is_not(None), c.category == "external").distinct()
        with self._read() as conn:
            return {(b, basis, cur) for b, basis, cur in conn.execute(q).all()}

    def labor_hours(self) -> list[tuple[str, str, str, str, Decimal, bool]]:
        """(batch, currency, detail ``phase/role``, evidence, hours, valued) of every attributed labor
        line, in ledger order: the hours each labor figure is a sum over (report/rate_guard.py), read
        without building the lines. ``valued`` False: a line whose hours have no rate (amount zero)."""
        c = cost_lines.c
        q = (select(c.batch_id, c.currency, c.detail, c.evidence, c.quantity, c.reason, c.low, c.high)
             .where(c.batch_id.is_not(None), c.category == "labor").order_by(c.id))
        with self._read() as conn:
            return [(b, cur, d, ev, Decimal(str(qty or 0)),
                     not (str(reason).startswith("not_valued") and Decimal(str(lo)) == 0 and Decimal(str(hi)) == 0))
                    for b, cur, d, ev, qty, reason, lo, hi in conn.execute(q).all()]

    def allocation_lines(self) -> list[CostLine]:
        """The attributed lines of the allocation views (category allocation, engine/allocation.py),
        in ledger order: a declared policy's shares, few beside the direct lines."""
        q = (select(cost_lines).where(cost_lines.c.batch_id.is_not(None), cost_lines.c.category == "allocation")
             .order_by(cost_lines.c.id))
        with self._read() as conn:
            return [cost_line_from(m) for m in conn.execute(q).mappings().all()]

    def run_lines(self, batch_id: str, run_id: str) -> list[tuple[CostLine, int]]:
        """One run's cost lines in ledger order, each with how many lines of the same source row
        come before it in ``cost_lines()`` order (the ``n`` of a dashboard line id): the run page
        without reading every line of the workspace (one indexed count per line)."""
        c, c2 = cost_lines.c, cost_lines.alias("earlier").c
        before = (select(func.count()).where(c2.source_sha256 == c.source_sha256, c2.source_row == c.source_row,
                                             c2.id < c.id).scalar_subquery())
        q = (select(cost_lines, before.label("n_before")).where(c.batch_id == batch_id, c.run_id == run_id)
             .order_by(c.id))
        with self._read() as conn:
            return [(cost_line_from(m), m["n_before"]) for m in conn.execute(q).mappings().all()]

    def row_lines(self, short: str, row: int) -> list[CostLine]:
        """The lines of the latest attribution from source row ``row`` of every import whose key
        starts with ``short`` (a dashboard line id's ``IMPORT-ROW``), in ledger order: one indexed
        range read, not every line of the workspace."""
        c = cost_lines.c
        after = short[:-1] + chr(ord(short[-1]) + 1) if short else None  # the keys starting with short sort before it
        q = (select(cost_lines).where(c.source_sha256 >= short, c.source_row == row,
                                      *([c.source_sha256 < after] if after else [])).order_by(c.id))
        with self._read() as conn:
            return [cost_line_from(m) for m in conn.execute(q).mappings().all()
                    if m["source_sha256"].startswith(short)]

    def latest_attribution(self) -> dict | None:
        q = select(attributions).order_by(attributions.c.id.desc()).limit(1)
        with self._read() as conn:
            m = conn.execute(q).mappings().first()
        return None if m is None else dict(m)

    # -- prices -----------------------------------------------------------------------------

    def upsert_prices(self, entries: Iterable[PriceEntry]) -> None:
        rows = [price_row(e) for e in entries]
        if not rows:
            return
        with self._write() as conn:
            self._upsert(conn, prices, rows)
            self._append(conn, "", "upsert_prices", "prices",
                         {"prices": len(rows), "items": sorted({r["item"] for r in rows})})

    def prices(self) -> list[PriceEntry]:
        with self._read() as conn:
            return [price_from(m) for m in conn.execute(
                select(prices).order_by(prices.c.item, prices.c.effective)).mappings()]

    # -- plans and decisions ----------------------------------------------------------------

    def add_plan(self, batch_id: str, stage: str, body: dict) -> int:
        row = {"batch_id": batch_id, "stage": vocab(PlanStage, stage, "plan stage"),
               "created_at": datetime.now(UTC), "body": chain.jsonable(body)}
        with self._write() as conn:
            self._require_batches(conn, [batch_id], "add_plan")
            plan_id = conn.execute(insert(plans).values(row)).inserted_primary_key[0]
            self._append(conn, "", "add_plan", f"batch:{batch_id}",
                         {"plan_id": plan_id, "stage": row["stage"], "body": row["body"]})
        return plan_id

    def plans(self, batch_id: str) -> list[dict]:
        q = select(plans).where(plans.c.batch_id == batch_id).order_by(plans.c.id)
        with self._read() as conn:
            self._require_batches(conn, [batch_id], "plans")
            return [dict(m) for m in conn.execute(q).mappings().all()]

    def add_decision(
        self,
        batch_id: str,
        kind: str,
        rationale: str,
        *,
        reusable_assets: Iterable[Any] = (),
        unknowns_removed: Iterable[Any] = (),
        next_to_verify: Iterable[Any] = (),
        author: str = "",
    ) -> int:
        """Record a decision; ``author`` defaults to the ledger's actor (a decision has one)."""
        row = {
            "batch_id": batch_id,
            "kind": vocab(DecisionKind, kind, "decision kind"),
            "created_at": datetime.now(UTC),
            "rationale": rationale,
            "reusable_assets": item_list(reusable_assets, "reusable_assets"),
            "unknowns_removed": item_list(unknowns_removed, "unknowns_removed"),
            "next_to_verify": item_list(next_to_verify, "next_to_verify"),
            "author": author or self.actor,
        }
        with self._write() as conn:
            self._require_batches(conn, [batch_id], "add_decision")
            decision_id = conn.execute(insert(decisions).values(row)).inserted_primary_key[0]
            detail = {k: v for k, v in row.items() if k not in ("batch_id", "created_at")}
            self._append(conn, row["author"], "add_decision", f"batch:{batch_id}",
                         {"decision_id": decision_id, **detail})
        return decision_id

    def decisions(self, batch_id: str) -> list[dict]:
        q = select(decisions).where(decisions.c.batch_id == batch_id).order_by(decisions.c.id)
        with self._read() as conn:
            self._require_batches(conn, [batch_id], "decisions")
            return [dict(m) for m in conn.execute(q).mappings().all()]
