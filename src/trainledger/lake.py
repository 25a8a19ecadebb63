"""The lake: append-only Parquet facts, one immutable partition per imported file.

``Lake(root)`` takes the lake directory itself (a workspace's ``WORKSPACE/lake``)::

    <root>/<table>/source=<sha256>/part-0.parquet    accepted rows of one source file
    <root>/quarantine/<kind>/<sha256>.jsonl            rejected rows: file, row, line, reason, raw
    <root>/imports.jsonl                               one JSON line per import attempt
    <root>/.tmp/                                       files being written; never read

A partition is written to ``.tmp`` first and then hard-linked into place, so a reader sees either
no partition or a complete one, and an existing partition is never overwritten (a second writer
gets ``PartitionExists``). Nothing in the lake is ever modified or deleted by trainledger.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import uuid
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.ingest.schemas import KIND_TABLES, TABLES

PART = "part-0.parquet"
ROW_GROUP = 131_072
_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


class PartitionExists(FileExistsError, TrainledgerError):
    """A partition for this (table, source) is already in the lake; it is never overwritten."""


@dataclass(frozen=True, slots=True)
class Committed:
    path: Path | None  # None: every row was a duplicate, so no partition was published
    rows: int
    duplicates: int  # rows dropped by ``unique_by`` or ``dedup_by``


@dataclass(frozen=True, slots=True)
class Settle:
    """What ``PartitionWriter.commit`` does to the rows before publishing them.

    ``dedup_by``: a column (``row_hash``) whose value names a row's content. A row the table's
    *other* partitions already hold is a duplicate and is dropped; identical rows *within* this
    partition are all kept (the file is the statement) and get the note ``repeated`` in their
    ``flags``. Counting is by copies: the k-th copy of a value in this partition is a duplicate
    when the other partitions hold at least k copies of it.

    ``conflicts``: (column, note) pairs — a kept row whose ``column`` value is shared by a row of
    different ``dedup_by`` value, in this partition or another, gets ``note`` (e.g. an invoice id
    reused for different content).
    """

    dedup_by: str = "row_hash"
    repeated: str = "repeated_row_in_file"
    conflicts: tuple[tuple[str, str], ...] = ()


def _check_name(kind: str, value: str) -> str:
    if not _NAME_RE.match(value) or value == "quarantine":
        raise ValueError(f"invalid lake {kind} name: {value!r}")
    return value


def _check_sha(sha256: str) -> str:
    if not _SHA_RE.match(sha256):
        raise ValueError(f"not a lowercase hex sha256: {sha256!r}")
    return sha256


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):  # not every filesystem lets a directory be fsynced
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _link_into_place(tmp: Path, final: Path) -> None:
    """Atomically publish ``tmp`` as ``final``; raise FileExistsError if ``final`` exists."""
    final.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(tmp, final)  # atomic and refuses an existing target
    except FileExistsError:
        raise
    except OSError:  # a filesystem without hard links: check, then rename (small race window)
        if final.exists():
            raise FileExistsError(final) from None
        os.replace(tmp, final)
    else:
        tmp.unlink()
    _fsync_dir(final.parent)


def _file_sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class PartitionWriter:
    """Streams record batches into a temp Parquet file; ``commit`` publishes it.

    Batches are buffered into row groups of about ``ROW_GROUP`` rows (Arrow memory, compact).
    """

    def __init__(self, lake: Lake, table: str, sha256: str, schema: pa.Schema) -> None:
        self.lake, self.table, self.sha256, self.schema = lake, table, sha256, schema
        self.final = lake.partition_path(table, sha256)
        self.tmp = lake.tmp_path(f"{table}-{sha256[:16]}", ".parquet")
        self._writer: pq.ParquetWriter | None = None
        self._pending: list[pa.RecordBatch] = []
        self._pending_rows = 0
        self.rows = 0
        self.done = False

    def write(self, data: pa.RecordBatch | pa.Table) -> None:
        if data.num_rows == 0:
            return
        if data.schema != self.schema:
            data = data.select(self.schema.names).cast(self.schema)
        batches = [data] if isinstance(data, pa.RecordBatch) else data.to_batches()
        self._pending.extend(batches)
        self._pending_rows += data.num_rows
        self.rows += data.num_rows
        if self._pending_rows >= ROW_GROUP:
            self._flush()

    def _flush(self) -> None:
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.tmp, self.schema, compression="zstd")
        if self._pending:
            self._writer.write_table(
                pa.Table.from_batches(self._pending, self.schema), row_group_size=ROW_GROUP * 2
            )
        self._pending, self._pending_rows = [], 0

    def _close(self) -> None:
        if self._writer is not None:
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
        when every row is dropped nothing is published and ``Committed.path`` is None.
        """
        if self.rows == 0 and not keep_empty:
            self.abort()
            return None
        try:
            self._flush()
            self._close()
            duplicates = _drop_repeats(self.tmp, unique_by) if unique_by else 0
            if settle is not None:
                duplicates += _settle(self.tmp, self.lake, self.table, self.sha256, settle)
                if duplicates == self.rows and not keep_empty:
                    self.abort()
                    return Committed(None, 0, duplicates)
            with open(self.tmp, "rb+") as f:
                os.fsync(f.fileno())
            _link_into_place(self.tmp, self.final)
        except FileExistsError:
            raise PartitionExists(
                f"lake partition {self.table}/source={self.sha256} already exists; "
                "partitions are immutable"
            ) from None
        finally:
            self.done = True
            self.tmp.unlink(missing_ok=True)  # already gone after a successful publish
        return Committed(self.final, self.rows - duplicates, duplicates)

    def abort(self) -> None:
        self._pending = []
        self._close()
        self.done = True
        self.tmp.unlink(missing_ok=True)

    def __enter__(self) -> PartitionWriter:
        return self

    def __exit__(
        self, et: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        if not self.done:
            self.abort()


def _drop_repeats(path: Path, column: str) -> int:
    """Rewrite ``path`` without rows whose ``column`` repeats an earlier row. Returns the count."""
    pf = pq.ParquetFile(path)
    keys = pf.read(columns=[column]).column(column)
    n = len(keys)
    if pc.count_distinct(keys).as_py() == n:
        return 0
    idx = pa.table({"k": keys, "i": pa.array(np.arange(n, dtype=np.int64))})
    first = idx.group_by("k", use_threads=False).aggregate([("i", "min")]).column("i_min")
    keep = np.zeros(n, dtype=bool)
    keep[first.to_numpy()] = True
    out = path.with_name(path.name + ".dedup")
    try:
        with pq.ParquetWriter(out, pf.schema_arrow, compression="zstd") as w:
            offset = 0
            for group in range(pf.num_row_groups):
                t = pf.read_row_group(group)
                w.write_table(t.filter(pa.array(keep[offset : offset + t.num_rows])))
                offset += t.num_rows
        os.replace(out, path)
    finally:
        out.unlink(missing_ok=True)
    return n - int(keep.sum())


def _settle(path: Path, lake: Lake, table: str, own: str, settle: Settle) -> int:
    """Apply ``settle`` to the temp partition at ``path`` (see ``Settle``); rewrite it only
    when a row is dropped or flagged. Returns the number of rows dropped as duplicates.

    The other partitions are read one at a time, and only the columns needed (``row_hash``,
    plus each conflict column): no table is loaded whole, and no Python set is built.
    """
    by = settle.dedup_by
    conflict_cols = [c for c, _ in settle.conflicts]
    pf = pq.ParquetFile(path)
    mine = pf.read(columns=[by, *conflict_cols])
    keys = mine.column(by).combine_chunks()
    n = len(keys)
    repeated: pa.Array | None = None
    if pc.count_distinct(keys).as_py() != n:
        counts = pc.value_counts(keys)
        repeated = counts.field("values").filter(pc.greater(counts.field("counts"), 1))
    ids = {c: mine.column(c).combine_chunks() for c in conflict_cols}
    wanted_ids = {c: pc.unique(v.drop_null()) for c, v in ids.items()}

    held = np.zeros(n, dtype=bool)  # the value is in another partition
    held_repeats: list[pa.Array] = []  # the other partitions' copies of repeated values
    others: dict[str, list[pa.Table]] = {c: [] for c in conflict_cols}
    for part in lake.partitions(table):
        if part.parent.name == f"source={own}":
            continue
        other_pf = pq.ParquetFile(part)
        if by not in other_pf.schema_arrow.names:
            continue
        have = [c for c in conflict_cols if c in other_pf.schema_arrow.names]
        theirs = other_pf.read(columns=[by, *have])
        their_keys = theirs.column(by).combine_chunks()
        held |= _mask(pc.is_in(keys, value_set=their_keys))
        if repeated is not None:
            held_repeats.append(their_keys.filter(pc.is_in(their_keys, value_set=repeated)))
        for c in have:
            hit = theirs.filter(pc.is_in(theirs.column(c), value_set=wanted_ids[c]))
            if hit.num_rows:
                others[c].append(pa.table({"id": hit.column(c), "key": hit.column(by)}))

    drop = held
    in_repeat = np.zeros(n, dtype=bool)
    if repeated is not None:
        in_repeat = _mask(pc.is_in(keys, value_set=repeated))
        if (held & in_repeat).any():  # count copies: keep those beyond what others hold
            theirs = pc.value_counts(pa.chunked_array(held_repeats, keys.type).combine_chunks())
            cap = np.zeros(len(repeated), dtype=np.int64)
            cap[_ints(pc.index_in(theirs.field("values"), value_set=repeated))] = _ints(
                theirs.field("counts")
            )
            where = np.flatnonzero(in_repeat)
            codes = _ints(pc.index_in(keys.take(pa.array(where)), value_set=repeated))
            drop = held & ~in_repeat
            drop[where] = _rank_within(codes) < cap[codes]

    keep = ~drop
    notes: list[tuple[np.ndarray, str]] = []
    if repeated is not None:
        notes.append((in_repeat & keep, settle.repeated))
    kept_keys = keys.filter(pa.array(keep))
    for c, note in settle.conflicts:
        kept = pa.table({"id": ids[c].filter(pa.array(keep)), "key": kept_keys})
        pairs = pa.concat_tables([kept.filter(pc.is_valid(kept.column("id"))), *others[c]])
        groups = pairs.group_by("id", use_threads=False).aggregate([("key", "count_distinct")])
        reused = groups.column("id").filter(pc.greater(groups.column("key_count_distinct"), 1))
        notes.append((_mask(pc.is_in(ids[c], value_set=reused)) & keep, note))
    notes = [(m, note) for m, note in notes if m.any()]
    if not drop.any() and not notes:
        return 0
    out = path.with_name(path.name + ".settled")
    try:
        flags_at = pf.schema_arrow.get_field_index("flags")
        with pq.ParquetWriter(out, pf.schema_arrow, compression="zstd") as w:
            offset = 0
            for group in range(pf.num_row_groups):
                t = pf.read_row_group(group)
                span = slice(offset, offset + t.num_rows)
                offset += t.num_rows
                for m, note in notes:
                    if m[span].any():
                        flags = _add_note(t.column(flags_at), m[span], note)
                        t = t.set_column(flags_at, pf.schema_arrow.field(flags_at), flags)
                w.write_table(t.filter(pa.array(keep[span])))
        os.replace(out, path)
    finally:
        out.unlink(missing_ok=True)
    return int(drop.sum())


def _mask(result: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(result.to_numpy(zero_copy_only=False), dtype=bool)


def _ints(result: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(result.to_numpy(zero_copy_only=False), dtype=np.int64)


def _rank_within(codes: np.ndarray) -> np.ndarray:
    """For each position, how many earlier positions have the same code (0 for the first)."""
    order = np.argsort(codes, kind="stable")
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    sizes = np.diff(np.r_[starts, len(codes)])
    rank = np.empty(len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes)) - np.repeat(starts, sizes)
    return rank


def _add_note(flags: pa.ChunkedArray, mask: np.ndarray, note: str) -> pa.ChunkedArray:
    """Append ``note`` to the JSON-list ``flags`` of the rows in ``mask``."""
    quoted = json.dumps(note, ensure_ascii=False)
    inner = pc.utf8_slice_codeunits(flags, 1, -1)  # the list's items, without [ ]
    added = pc.if_else(
        pc.equal(inner, ""),
        pa.scalar(f"[{quoted}]"),
        pc.binary_join_element_wise(pa.scalar("["), inner, pa.scalar(f",{quoted}]"), ""),
    )
    return pc.if_else(pa.array(mask), added, flags)


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

    # -- paths ------------------------------------------------------------------------------
    def partition_path(self, table: str, sha256: str) -> Path:
        return self.root / _check_name("table", table) / f"source={_check_sha(sha256)}" / PART

    def partitions(self, table: str) -> list[Path]:
        """Every published partition of ``table``, in a stable order (by source hash)."""
        return sorted((self.root / _check_name("table", table)).glob(f"source=*/{PART}"))

    def tmp_path(self, stem: str, suffix: str) -> Path:
        tmp = self.root / ".tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        return tmp / f"{stem}-{os.getpid()}-{uuid.uuid4().hex[:8]}{suffix}"

    # -- partitions ---------------------------------------------------------------------------
    def open_partition(self, table: str, sha256: str) -> PartitionWriter:
        schema = TABLES.get(table)
        if schema is None:
            raise ValueError(f"unknown lake table {table!r}; known: {', '.join(TABLES)}")
        return PartitionWriter(self, table, sha256, schema)

    def write_partition(self, table: str, sha256: str, arrow_table: pa.Table) -> Path:
        """Write ``arrow_table`` as the partition of ``sha256``; refuses to overwrite one.

        An empty table still writes a (row-less) partition: it records that the source is in.
        """
        if self.partition_path(table, sha256).exists():
            raise PartitionExists(f"lake partition {table}/source={sha256} already exists")
        schema = TABLES.get(table, arrow_table.schema)
        with PartitionWriter(self, table, sha256, schema) as writer:
            writer.write(arrow_table)
            committed = writer.commit(keep_empty=True)
        assert committed is not None
        return committed.path

    def has_source(self, sha256: str, kind: str) -> bool:
        """True when the file with this content hash is already in the lake as ``kind``."""
        table = KIND_TABLES.get(kind)
        if table is None:
            raise BadInput(
                f"unknown import kind {kind!r}", remedy=f"use one of {', '.join(KIND_TABLES)}"
            )
        return self.partition_path(table, sha256).is_file()

    def read(self, table: str) -> pa.Table:
        """All partitions of ``table`` as one Arrow table (empty, with the schema, when none)."""
        schema = TABLES.get(table)
        parts = self.partitions(table)
        if schema is None:
            if not parts:
                raise NotFound(f"no lake table {table!r}", remedy=f"known: {', '.join(TABLES)}")
            return pa.concat_tables(
                [pq.ParquetFile(p).read() for p in parts], promote_options="default"
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
        return list(_read_jsonl(path)) if path.exists() else []

    def log_import(self, record: Mapping[str, Any]) -> None:
        """Append one line to imports.jsonl with a single O_APPEND write (safe for concurrent
        writers on a local filesystem)."""
        self.root.mkdir(parents=True, exist_ok=True)
        line = (json.dumps(dict(record), ensure_ascii=False, default=str) + "\n").encode("utf-8")
        fd = os.open(self.root / "imports.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            os.write(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)

    def imports(self) -> list[dict[str, Any]]:
        path = self.root / "imports.jsonl"
        return list(_read_jsonl(path)) if path.exists() else []


def _read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        lines = f.readlines()
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield json.loads(line)
        except json.JSONDecodeError:
            if i == len(lines) and not line.endswith("\n"):
                return  # a torn last line from a crash mid-append: not a record
            raise BadInput(
                "not a JSON line",
                path=str(path),
                row=i,
                remedy="the lake log is damaged; restore it from a backup",
            ) from None


def _conform(t: pa.Table, schema: pa.Schema) -> pa.Table:
    """Fit a partition written under an older schema to the current one (new columns null)."""
    if t.schema == schema:
        return t
    cols = [
        t.column(f.name).cast(f.type) if f.name in t.column_names else pa.nulls(t.num_rows, f.type)
        for f in schema
    ]
    return pa.Table.from_arrays(cols, schema=schema.with_metadata(None))
