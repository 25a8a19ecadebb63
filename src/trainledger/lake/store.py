"""The lake: append-only Parquet facts, immutable partitions, one directory per source file.

``Lake(root)`` takes the lake directory itself (a workspace's ``WORKSPACE/lake``)::

    <root>/<table>/source=<sha256>/part-<n>.parquet  accepted rows of one import of a file
    <root>/<table>/.lock                               held while an import settles and publishes
    <root>/quarantine/<kind>/<sha256>.jsonl            rejected rows: file, row, line, reason, raw
    <root>/imports.jsonl                               one JSON line per import attempt, and
                                                       one per drop ("action": "drop")
    <root>/.tmp/                                       files being written; never read

The first import of a file that accepts rows writes ``part-0``; a re-import of the same content
with other options (e.g. ``--currency`` after a quarantine) that accepts rows adds ``part-1``,
and so on. A partition is written to ``.tmp`` first and then hard-linked into place, so a reader
sees either no partition or a complete one, and an existing partition is never overwritten.
Settling a partition against the others (``trainledger.lake.settle``) and publishing it happen
under the table's lock, so concurrent imports of overlapping files never count a row twice.
Nothing in the lake is ever modified or deleted by trainledger, except leftovers in ``.tmp``
(a file whose writing process on this host is gone is removed at the next import; others after
an hour). Dropping an import (``trainledger imports drop``) deletes nothing either: a drop line in
imports.jsonl tombstones its partitions, which ``partition_files``, ``read`` and settling then
skip — the lake stays the source of truth for what was accepted and what was withdrawn.
``read`` returns partitions in import order (the order of ``imports.jsonl``).

An *import* is a file's content read as one *statement* (``settle``: what its rows state
besides the content, e.g. ``--set vc=…``); its key (``keys.import_key``) is the content hash for the
statement the file's first import made, and a hash of (kind, content, statement) for another —
the same file said of another virtual cluster is its own import, with its own counts and drop.
Each import line records its ``statement``, each drop line the ``statement`` and ``import_key``
it dropped (a line of an earlier version without them: the partition's metadata tells the
statement; a drop line without them dropped every import of its file).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import socket
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.lake import encoding
from trainledger.lake.encoding import options as write_options
from trainledger.lake.fs import FileLock, alive, append_line, lock_for, read_jsonl
from trainledger.lake.fs import file_sha as _file_sha
from trainledger.lake.fs import link_into_place as _link_into_place
from trainledger.lake.keys import key_for, keyed_events, statement_of
from trainledger.lake.schemas import TABLES
from trainledger.lake.settle import Settle, drop_repeats, meta_of, settle_partition

__all__ = ["Committed", "Lake", "PartitionExists", "PartitionWriter", "QuarantineWriter", "Settle"]

PART = "part-0.parquet"  # the first import's partition of a file
ROW_GROUP = 131_072
TMP_MAX_AGE = 3600.0  # seconds: a leftover in .tmp older than this, of a finished process, goes
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")
_PART_RE = re.compile(r"^part-(\d+)\.parquet$")
_HELD_RE = re.compile(r"^held-(\d+)\.parquet$")  # rows an import states that other files' rows hold
_TMP_PID = re.compile(r"-(\d+)-[0-9a-f]{8}\.")
_TMP_HOST = re.compile(r"-h([0-9a-f]{8})-(\d+)-[0-9a-f]{8}\.")
_HOST = hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]  # tags this host's temp files
DROP = "drop"  # the ``action`` of a drop line in imports.jsonl
log = logging.getLogger(__name__)


class PartitionExists(FileExistsError, TrainledgerError):
    """A partition for this (table, source) is already in the lake; it is never overwritten."""


@dataclass(frozen=True, slots=True)
class Committed:
    path: Path | None  # None: every row was a duplicate, so no partition was published
    rows: int
    duplicates: int  # rows dropped by ``unique_by`` or ``dedup_by``


def _check_name(kind: str, value: str) -> str:
    if not _NAME_RE.match(value) or value == "quarantine":
        raise ValueError(f"invalid lake {kind} name: {value!r}")
    return value


def _check_sha(sha256: str) -> str:
    if not _SHA_RE.match(sha256):
        raise ValueError(f"not a lowercase hex sha256: {sha256!r}")
    return sha256


# -- writers --------------------------------------------------------------------------------------


class PartitionWriter:
    """Streams record batches into a temp Parquet file; ``commit`` publishes it.

    Batches are buffered into row groups of about ``ROW_GROUP`` rows (Arrow memory, compact).
    ``identity`` and ``statement`` are recorded in the file's metadata (``settle.META_KEY``);
    ``index`` fixes the part number (``write_partition``: 0), else the next free one is taken.
    """

    def __init__(
        self,
        lake: Lake,
        table: str,
        sha256: str,
        schema: pa.Schema,
        *,
        identity: str = "",
        statement: str = "",
        index: int | None = None,
        kind: str | None = None,
    ) -> None:
        self.lake, self.table, self.sha256 = lake, table, sha256
        self.schema = schema.with_metadata(meta_of(identity, statement, kind))
        self.statement = statement
        self.index = index
        self.dir = lake.partition_path(table, sha256).parent
        self.final: Path | None = None
        self.tmp = lake.tmp_path(f"{table}-{sha256[:16]}", ".parquet")
        self._writer: pq.ParquetWriter | None = None
        self._layout: pa.Schema | None = None  # the columns' types as written (encoding.layout)
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self.rows = 0
        self.done = False

    def write(self, data: pa.RecordBatch | pa.Table) -> None:
        if data.num_rows == 0:
            return
        coded = None
        if not data.schema.equals(self.schema):
            coded = encoding.layout(data.schema, self.schema)  # text columns as dictionaries
            if coded is None or not encoding.coded(coded):
                coded = None
                data = data.select(self.schema.names).cast(self.schema)
        if self._layout is None:  # the first rows decide (later ones conform to them)
            self._layout = coded if coded is not None else self.schema
        batches = [data] if isinstance(data, pa.RecordBatch) else data.to_batches()
        batches = [encoding.conform(b, self._layout) for b in batches]
        self._pending.extend(batches)
        self._pending_rows += data.num_rows
        self.rows += data.num_rows
        if self._pending_rows >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        layout = self._layout or self.schema
        coded = encoding.coded(layout)
        table = pa.Table.from_batches(self._pending, layout) if self._pending else None
        if table is not None and coded:  # one dictionary per column and row group
            table = table.unify_dictionaries()
        if self._writer is None:  # dictionary pages and statistics as the first rows need them
            if coded:  # Arrow's schema would name the dictionaries: Parquet's own (encoding.bare)
                self._writer = pq.ParquetWriter(self.tmp, layout, store_schema=False, **write_options(table))
            else:
                self._writer = pq.ParquetWriter(self.tmp, self.schema, **write_options(table))
        if table is not None:
            self._writer.write_table(table, row_group_size=ROW_GROUP * 2)
        self._pending, self._pending_rows = [], 0

    def _close(self) -> None:
        if self._writer is not None:
            if encoding.coded(self._layout or self.schema) and self.schema.metadata:
                self._writer.add_key_value_metadata(self.schema.metadata)  # not written without Arrow's schema
            self._writer.close()
            self._writer = None

    def commit(
        self,
        *,
        unique_by: str | None = None,
        settle: Settle | None = None,
        keep_empty: bool = False,
    ) -> Committed | None:
        """Publish the partition; None (and nothing written) when no rows were written, unless
        ``keep_empty``. ``unique_by`` names a column: a row whose value repeats an earlier
        row's value is dropped (and counted in ``Committed.duplicates``). ``settle``: drop the
        rows other partitions already hold and flag repeats and conflicts (see ``Settle``);
        when every row is dropped nothing is published and ``Committed.path`` is None. Settling
        and publishing happen under the table's lock (``Lake.lock``).
        """
        if self.rows == 0 and not keep_empty:
            self.abort()
            return None
        held = self.lake.tmp_path(f"{self.table}-{self.sha256[:16]}-held", ".parquet")
        try:
            self._flush()
            self._close()
            duplicates = drop_repeats(self.tmp, unique_by) if unique_by else 0
            with self.lake.lock(self.table):
                if settle is not None:
                    others = self.lake.partition_files(self.table)
                    duplicates += settle_partition(
                        self.tmp, others, self.sha256, settle, self.statement, held_to=held
                    )
                    if duplicates == self.rows and not keep_empty:
                        self.abort()
                        self._publish_held(held)
                        return Committed(None, 0, duplicates)
                with open(self.tmp, "rb+") as f:
                    os.fsync(f.fileno())
                self.final = self._publish()
                # after the partition: a crash between leaves it unrecorded, never extra; a crash after
                # both, before the log line, is found by `audit` (lake_import_unlogged) and the next
                # import of the file records it
                self._publish_held(held)
        except FileExistsError:
            raise PartitionExists(
                f"lake partition {self.table}/source={self.sha256} already exists; "
                "partitions are immutable"
            ) from None
        finally:
            self.done = True
            self.tmp.unlink(missing_ok=True)  # already gone after a successful publish
            held.unlink(missing_ok=True)
        return Committed(self.final, self.rows - duplicates, duplicates)

    def _publish_held(self, held: Path) -> None:
        """Publish the held record ``settle_partition`` wrote (if any) as the next
        ``held-<n>.parquet`` of the file's directory (under the table's lock)."""
        if not held.exists():
            return
        with open(held, "rb+") as f:
            os.fsync(f.fileno())
        while True:
            taken = [int(m[1]) for p in self.dir.glob("held-*.parquet") if (m := _HELD_RE.match(p.name))]
            try:
                _link_into_place(held, self.dir / f"held-{max(taken, default=-1) + 1}.parquet")
            except FileExistsError:
                continue
            return

    def _publish(self) -> Path:
        if self.index is not None:
            final = self.dir / f"part-{self.index}.parquet"
            _link_into_place(self.tmp, final)
            return final
        while True:  # the next free part number (under the lock, no other import races)
            taken = [int(m[1]) for p in _part_files(self.dir) if (m := _PART_RE.match(p.name))]
            final = self.dir / f"part-{max(taken, default=-1) + 1}.parquet"
            try:
                _link_into_place(self.tmp, final)
            except FileExistsError:  # a writer that does not lock: take the next number
                continue
            return final

    def abort(self) -> None:
        self._pending = []
        self._close()
        self.done = True
        self.tmp.unlink(missing_ok=True)

    def reset(self) -> None:
        """Forget every row written so far (a reader starting the file again)."""
        self.abort()
        self.tmp = self.lake.tmp_path(f"{self.table}-{self.sha256[:16]}", ".parquet")
        self._pending_rows = self.rows = 0
        self._layout = None
        self.done = False

    def __enter__(self) -> PartitionWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self.done:
            self.abort()


def _part_files(directory: Path) -> list[Path]:
    return [p for p in directory.glob("part-*.parquet") if _PART_RE.match(p.name)]



class QuarantineWriter:
    """Streams rejected-row records (JSON lines) to a temp file; ``commit`` publishes it."""

    def __init__(self, lake: Lake, kind: str, sha256: str) -> None:
        self.dir = lake.root / "quarantine" / kind
        self.sha256 = sha256
        self.tmp = lake.tmp_path(f"q-{kind}-{sha256[:16]}", ".jsonl")
        self._f = open(self.tmp, "w", encoding="utf-8", newline="\n")  # noqa: SIM115
        self.count = 0
        self.done = False

    def write(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, default=str)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:  # undecodable bytes of the source: keep them as \udcXX escapes
            line = json.dumps(record, ensure_ascii=True, default=str)
        self._f.write(line + "\n")
        self.count += 1

    def reset(self) -> None:
        """Forget every record written so far (a reader starting the file again)."""
        self._f.seek(0)
        self._f.truncate()
        self.count = 0

    def commit(self, *, keep_empty: bool = False) -> Path | None:
        """Publish as ``<sha256>.jsonl``; a different earlier quarantine of the same file keeps
        its name and this one becomes ``<sha256>.2.jsonl`` (then .3, ...). An identical earlier
        one is reused. None when nothing was quarantined (unless ``keep_empty``)."""
        self._f.flush()
        os.fsync(self._f.fileno())
        self._f.close()
        self.done = True
        if self.count == 0 and not keep_empty:
            self.tmp.unlink(missing_ok=True)
            return None
        mine = _file_sha(self.tmp)
        n = 1
        while True:
            final = self.dir / (f"{self.sha256}.jsonl" if n == 1 else f"{self.sha256}.{n}.jsonl")
            if final.exists():
                if _file_sha(final) == mine:
                    self.tmp.unlink(missing_ok=True)
                    return final
                n += 1
                continue
            try:
                _link_into_place(self.tmp, final)
            except FileExistsError:  # another writer took the name in between: look again
                continue
            return final

    def abort(self) -> None:
        if not self._f.closed:
            self._f.close()
        self.done = True
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> QuarantineWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self.done:
            self.abort()


class Lake:
    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).absolute()
        self.log_damage: list[int] = []  # lines of imports.jsonl last found damaged (skipped)
        self._reported: list[int] = []

    # -- paths ------------------------------------------------------------------------------
    def partition_path(self, table: str, sha256: str, index: int = 0) -> Path:
        """Where import ``index`` (0: the first) of the file ``sha256`` has its partition."""
        source = f"source={_check_sha(sha256)}"
        return self.root / _check_name("table", table) / source / f"part-{index}.parquet"

    def partition_files(self, table: str) -> list[Path]:
        """Every published partition of ``table`` that no drop tombstoned, in no particular order."""
        dropped = self.dropped()
        return [
            p
            for p in (self.root / _check_name("table", table)).glob("source=*/part-*.parquet")
            if _PART_RE.match(p.name) and partition_key(p) not in dropped
        ]

    def held_files(self, table: str) -> list[Path]:
        """Every held record (``held-<n>.parquet``: rows an import states that other files' rows
        held when it was imported, ``settle_partition``) of ``table`` that no drop tombstoned."""
        dropped = self.dropped()
        return [
            p
            for p in (self.root / _check_name("table", table)).glob("source=*/held-*.parquet")
            if _HELD_RE.match(p.name) and partition_key(p) not in dropped
        ]

    def all_partition_files(self, table: str) -> list[Path]:
        """Every published partition of ``table``, tombstoned or not (where a row's content is
        found again: ``lake/resettle.py``)."""
        return [p for p in (self.root / _check_name("table", table)).glob("source=*/part-*.parquet")
                if _PART_RE.match(p.name)]

    def partitions(self, table: str) -> list[Path]:
        """Every published partition of ``table`` in import order: the order of their lines
        in imports.jsonl; a partition the log does not name (a crash between publishing and
        logging) comes after those, by modification time."""
        parts = self.partition_files(table)
        order: dict[str, int] = {}
        for rec in self.imports():
            where = rec.get("partition")
            if where:
                order.setdefault("/".join(Path(where).parts[-3:]), len(order))
        tail = len(order)

        def position(p: Path) -> tuple[int, float, str]:
            at = order.get("/".join(p.parts[-3:]))
            if at is not None:
                return (at, 0.0, "")
            return (tail, p.stat().st_mtime, str(p))

        return sorted(parts, key=position)

    def tmp_path(self, stem: str, suffix: str) -> Path:
        tmp = self.root / ".tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return tmp / f"{stem}-h{_HOST}-{os.getpid()}-{uuid.uuid4().hex[:8]}{suffix}"

    def clean_tmp(self, max_age: float = TMP_MAX_AGE) -> int:
        """Remove leftovers in ``.tmp`` (from a killed import): at once when the file was written
        on this host by a process that is gone; otherwise (another host sharing the lake, a name
        without a writer) when older than ``max_age`` seconds and its writer is not running here.
        Returns how many were removed."""
        tmp = self.root / ".tmp"
        if not tmp.is_dir():
            return 0
        cutoff, removed = time.time() - max_age, 0
        for p in tmp.iterdir():
            here = _TMP_HOST.search(p.name)
            orphan = here is not None and here[1] == _HOST and not alive(int(here[2]))
            try:
                if not orphan and p.stat().st_mtime >= cutoff:
                    continue
            except FileNotFoundError:
                continue
            m = _TMP_PID.search(p.name)
            if not orphan and m and (here is None or here[1] == _HOST) and alive(int(m[1])):
                continue
            with contextlib.suppress(FileNotFoundError):
                p.unlink()
                removed += 1
        return removed

    def lock(self, table: str) -> FileLock:
        """The table's exclusive lock (``<table>/.lock``): held from the cross-file duplicate
        check through publishing a partition and logging the import."""
        return lock_for(self.root / _check_name("table", table) / ".lock")

    # -- partitions ---------------------------------------------------------------------------
    def open_partition(
        self, table: str, sha256: str, *, identity: str = "", statement: str = "",
        kind: str | None = None,
    ) -> PartitionWriter:
        """A writer of a new partition; its metadata records the row-hash version in force
        (``keys.hashing``) and ``kind``, the kind of the import writing it."""
        schema = TABLES.get(table)
        if schema is None:
            raise ValueError(f"unknown lake table {table!r}; known: {', '.join(TABLES)}")
        return PartitionWriter(
            self, table, sha256, schema, identity=identity, statement=statement, kind=kind
        )

    def write_partition(self, table: str, sha256: str, arrow_table: pa.Table) -> Path:
        """Write ``arrow_table`` as the (first) partition of ``sha256``; refuses to overwrite.

        An empty table still writes a (row-less) partition: it records that the source is in.
        """
        if self.partition_path(table, sha256).exists():
            raise PartitionExists(f"lake partition {table}/source={sha256} already exists")
        schema = TABLES.get(table, arrow_table.schema)
        with PartitionWriter(self, table, sha256, schema, index=0) as writer:
            writer.write(arrow_table)
            committed = writer.commit(keep_empty=True)
        assert committed is not None and committed.path is not None
        return committed.path

    def has_source(self, sha256: str, table: str, statement: str | None = None) -> bool:
        """True when rows of the file with this content hash are live in ``table`` (the
        importer's ``table``: which kind fills which table is the registry's, ingest/); with
        ``statement``, only rows of imports that made that statement count."""
        _known(table)
        return bool(self.source_parts(table, sha256, statement, live=True))

    def source_parts(self, table: str, sha256: str, statement: str | None = None, *,
                     live: bool = False) -> list[Path]:
        """The partitions of the file ``sha256`` in ``table`` (``live``: those no drop
        tombstoned), sorted by part number; with ``statement``, only those whose metadata
        records that statement (a partition written before partitions recorded one: "")."""
        dropped = self.dropped() if live else set()
        parts = [p for p in _part_files(self.partition_path(table, sha256).parent)
                 if partition_key(p) not in dropped]
        if statement is not None:
            parts = [p for p in parts if statement_of(p) == statement]
        return sorted(parts, key=lambda p: int(_PART_RE.match(p.name)[1]))  # type: ignore[index]

    def read(self, table: str) -> pa.Table:
        """All partitions of ``table`` as one Arrow table, in import order (``partitions``);
        empty, with the schema, when there are none."""
        schema = TABLES.get(table)
        parts = self.partitions(table)
        if schema is None:
            if not parts:
                raise NotFound(f"no lake table {table!r}", remedy=f"known: {', '.join(TABLES)}")
            return pa.concat_tables(
                [_plain(pq.ParquetFile(p).read()) for p in parts], promote_options="default"
            )
        if not parts:
            return schema.empty_table()
        return pa.concat_tables([_conform(pq.ParquetFile(p).read(), schema) for p in parts])

    # -- quarantine and log -------------------------------------------------------------------
    def open_quarantine(self, kind: str, sha256: str) -> QuarantineWriter:
        return QuarantineWriter(self, _check_name("kind", kind), _check_sha(sha256))

    def write_quarantine(
        self, kind: str, sha256: str, records: Iterable[Mapping[str, Any]]
    ) -> Path:
        with self.open_quarantine(kind, sha256) as q:
            for r in records:
                q.write(r)
            path = q.commit(keep_empty=True)
        assert path is not None
        return path

    def quarantine(self, kind: str, sha256: str) -> list[dict[str, Any]]:
        """The records of the first quarantine file of ``sha256`` (empty when there is none)."""
        path = self.root / "quarantine" / kind / f"{sha256}.jsonl"
        return list(read_jsonl(path, [])) if path.exists() else []

    def log_import(self, record: Mapping[str, Any]) -> None:
        """Append one line to imports.jsonl: under an exclusive lock of the file, after a
        newline when the file does not end with one (a line torn by a crash stays alone), and
        looping until every byte is written."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(dict(record), ensure_ascii=False, default=str) + "\n").encode("utf-8")
        append_line(self.root / "imports.jsonl", line)

    def imports(self) -> list[dict[str, Any]]:
        """The import log's import records (drop lines left out: see ``events``)."""
        return [r for r in self.events() if r.get("action") != DROP]

    def log_drop(
        self, kind: str, sha256: str, reason: str, *, table: str, statement: str | None = None,
        import_key: str | None = None, **detail: Any
    ) -> dict[str, Any]:
        """Tombstone every live partition of ``table`` of the file ``sha256`` imported as
        ``kind`` — with ``statement``, only those of the imports that made that statement (one
        import: ``import_key``, see ``keys.py``): one drop line in imports.jsonl, after which
        its rows are in no read. Returns that line; its ``partitions`` are the keys
        (``table/source=<sha>/part-<n>.parquet``) dropped. A drop line without ``statement``
        (all written before imports had their own keys) drops every import of the file."""
        _known(table)
        _check_sha(sha256)
        with self.lock(table):
            keys = sorted(partition_key(p)
                          for p in self.source_parts(table, sha256, statement, live=True))
            held = sorted(partition_key(p)
                          for p in self.source_held(table, sha256, statement, live=True))
            which = {} if statement is None else {"statement": statement,
                                                  "import_key": import_key or sha256}
            line = {"action": DROP, "at": datetime.now(UTC).isoformat(), "kind": kind, "sha256": sha256,
                    "table": table, "partitions": keys, "reason": reason, **which,
                    **({"held": held} if held else {}), **detail}
            self.log_import(line)
            from trainledger.lake.resettle import resettle

            line["restored"] = resettle(self, table)  # the rows other imports state come back
        return line

    def source_held(self, table: str, sha256: str, statement: str | None = None, *,
                    live: bool = False) -> list[Path]:
        """The held records of the file ``sha256`` in ``table`` (``source_parts``' twin)."""
        dropped = self.dropped() if live else set()
        where = self.partition_path(table, sha256).parent
        parts = [p for p in where.glob("held-*.parquet")
                 if _HELD_RE.match(p.name) and partition_key(p) not in dropped]
        if statement is not None:
            parts = [p for p in parts if statement_of(p) == statement]
        return sorted(parts, key=lambda p: int(_HELD_RE.match(p.name)[1]))  # type: ignore[index]

    def keyed_events(self) -> list[tuple[dict[str, Any], str, str | None]]:
        """Every line of the import log with the key and statement of its import (``keys.py``)."""
        return keyed_events(self)

    def key_for(self, kind: str, sha256: str, statement: str) -> str:
        """The key the import of ``sha256`` as ``kind`` making ``statement`` has (or will have)."""
        return key_for(self, kind, sha256, statement)

    def dropped(self) -> set[str]:
        """Keys (``table/source=<sha>/part-<n>.parquet``) of the partitions a drop tombstoned."""
        return {k for r in self.events() if r.get("action") == DROP
                for k in (*(r.get("partitions") or ()), *(r.get("held") or ()))}

    def events(self) -> list[dict[str, Any]]:
        """Every line of the import log (imports and drops), in order. A damaged line (torn by a
        crash) is skipped, its line number kept in ``log_damage`` and reported in the log
        (``logging``)."""
        path = self.root / "imports.jsonl"
        damage: list[int] = []
        records = list(read_jsonl(path, damage)) if path.exists() else []
        self.log_damage = damage
        if damage and damage != self._reported:  # once per Lake, not at every read
            log.warning("%s: skipped damaged line(s) %s", path, ", ".join(map(str, damage)))
            self._reported = damage
        return records


def _known(table: str) -> None:
    if table not in TABLES:
        raise BadInput(f"no lake table {table!r}", remedy=f"known: {', '.join(TABLES)}")


def partition_key(path: Path | str) -> str:
    """``table/source=<sha>/part-<n>.parquet``: how the log names a partition wherever the lake is."""
    return "/".join(Path(path).parts[-3:])


def _plain(t: pa.Table) -> pa.Table:
    return t.replace_schema_metadata(None) if t.schema.metadata else t


def _conform(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """Fit a partition to the current schema: its own metadata dropped; a column added since
    it was written is null, or empty text ("{}" for ``extra``) when it cannot be null."""
    t = _plain(t)
    if t.schema == schema:
        return t
    cols = [
        t.column(f.name).cast(f.type)
        if f.name in t.column_names
        else (
            pa.array([_EMPTY.get(f.name, "")] * t.num_rows, f.type)
            if not f.nullable and pa.types.is_string(f.type)
            else pa.nulls(t.num_rows, f.type)
        )
        for f in schema
    ]
    return pa.Table.from_arrays(cols, schema=schema.with_metadata(None))


_EMPTY = {"extra": "{}", "tags": "{}", "flags": "[]"}
