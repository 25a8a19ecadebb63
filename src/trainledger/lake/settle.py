"""Settling a new partition against the lake: cross-file duplicates, repeats, conflicts.

``settle_partition`` runs while the table's lock is held (``Lake.lock``), between the end of an
import's stream and the publication of its partition, so two imports of overlapping files can
never both count the same rows. It reads only the columns it needs from each other partition; it
is given their paths (``Lake.partition_files``) and knows nothing else of the lake (store.py
imports this module, never the other way round).

Each partition records, in its Parquet metadata (``META_KEY``), how its rows were hashed
(``row_hash`` version, ``keys.VERSIONS``), the kind of the import that wrote it (``kind``;
partitions written before it was recorded have none), the identity of that import and its
*statement* (what,
besides the file's content, its rows are a statement about — e.g. the snapshot date of an
undated storage inventory). A row of the same file (same content hash and statement) already
in the lake is a duplicate by its row number, whatever its hash: a re-import with other options
adds only the rows that were not accepted before.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.errors import BadInput
from trainledger.ingest.keys import DEFAULT_VERSION, VERSIONS, active_version
from trainledger.ingest.keyset import KeySet
from trainledger.lake.encoding import options as write_options

META_KEY = b"trainledger"


def partition_meta(schema: pa.Schema) -> dict[str, Any] | None:
    """What a partition records about itself (None: written before partitions did)."""
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except ValueError:
        return None
    return meta if isinstance(meta, dict) else None


def meta_of(identity: str = "", statement: str = "", kind: str | None = None) -> dict[bytes, bytes]:
    """The metadata of a partition written now: the row-hash version in force (``keys.hashing``)."""
    meta: dict[str, Any] = {"row_hash": active_version(), "identity": identity, "statement": statement}
    if kind is not None:
        meta["kind"] = kind
    return {META_KEY: json.dumps(meta, sort_keys=True).encode()}


def import_version(parts: Iterable[Path], kind: str, versions: tuple[int, ...]) -> int:
    """The row-hash version an import of ``kind`` into a table whose live partitions are
    ``parts`` hashes with, given the ``versions`` its importer can compute (oldest first): the
    newest, unless a partition of the same kind — or of no recorded kind, written before
    partitions recorded theirs — was hashed with an older one of them; then the oldest such
    (the rows an older lake holds are found again only by the hash they were stored with).
    A partition of no recorded version is left to ``settle_partition`` to refuse."""
    if len(versions) == 1:
        return versions[0]
    found = [
        meta["row_hash"]
        for meta in (partition_meta(pq.read_schema(p)) for p in parts)
        if meta is not None and meta.get("kind", kind) == kind and meta.get("row_hash") in versions
    ]
    return min(found) if found else versions[-1]


def _version_of(meta: dict[str, Any] | None) -> int | None:
    v = (meta or {}).get("row_hash")
    return v if v in VERSIONS else None


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


def drop_repeats(path: Path, column: str) -> int:
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
        sample = pf.read_row_group(0) if pf.num_row_groups else None
        with pq.ParquetWriter(out, pf.schema_arrow, **write_options(sample)) as w:
            offset = 0
            for group in range(pf.num_row_groups):
                t = pf.read_row_group(group)
                w.write_table(t.filter(pa.array(keep[offset : offset + t.num_rows])))
                offset += t.num_rows
        os.replace(out, path)
    finally:
        out.unlink(missing_ok=True)
    return n - int(keep.sum())


def settle_partition(
    path: Path, parts: Iterable[Path], own: str, settle: Settle, statement: str = "",
    held_to: Path | None = None,
) -> int:
    """Apply ``settle`` to the temp partition at ``path`` (see ``Settle``) against the table's
    live partitions ``parts`` (``Lake.partition_files``); rewrite it only when a row is dropped
    or flagged. Returns the number of rows dropped as duplicates.

    ``held_to``: where to write the *held record* of the rows dropped because other files' rows
    hold them (the rows whole, with the flags they would have had; the same metadata as the
    partition) — what this import states beyond its partition, so that a later drop of those
    other files can give the rows back to it (``lake/resettle.py``). Nothing is written
    there when no row is such a duplicate (rows of this same file already in the lake are not:
    its own partitions hold them).

    The other partitions are read one at a time, and only the columns needed (``row_hash`` a
    row group at a time, plus each conflict column; ``row`` for an earlier import of the same
    file): no table is loaded whole, and no Python set or Arrow hash table of the row hashes is
    built — they are sorted 128-bit integers (``keyset.KeySet``; a 10M-row file settles within
    ~1.3 GB peak). ``own`` is the file's content hash.
    """
    by = settle.dedup_by
    conflict_cols = [c for c, _ in settle.conflicts]
    pf = pq.ParquetFile(path)
    own_meta = partition_meta(pf.schema_arrow) or {}
    version, kind = own_meta.get("row_hash", DEFAULT_VERSION), own_meta.get("kind")
    keyset = KeySet.of_file(pf, by)  # bounded: 16 bytes a row, no hash table of strings
    same_file: list[pa.Array] = []  # row numbers of this file already in the lake
    ids: dict[str, pa.Array] = {}
    keys: pa.Array | None = None
    if conflict_cols:  # invoice ids and the like: few rows, read as Arrow
        mine = pf.read(columns=[by, *conflict_cols])
        keys = mine.column(by).combine_chunks()
        ids = {c: mine.column(c).combine_chunks() for c in conflict_cols}
    wanted_ids = {c: pc.unique(v.drop_null()) for c, v in ids.items()}

    others: dict[str, list[pa.Table]] = {c: [] for c in conflict_cols}
    for part in parts:
        other_pf = pq.ParquetFile(part)
        meta = partition_meta(other_pf.schema_arrow)
        other = _version_of(meta)
        if other is None:
            raise BadInput(
                "the lake holds a partition written by an earlier trainledger, whose row "
                "hashes are spelled differently: duplicates across files cannot be found",
                path=str(part),
                remedy="import the source files again into a new workspace's lake",
            )
        assert meta is not None
        if other != version:
            # rows of another kind (its own column names) hashed with another version: they
            # can hold none of these rows. The same kind (or an unrecorded one) never gets
            # here through ``import_version``; if it does, nothing is guessed.
            if meta.get("kind") is not None and kind is not None and meta["kind"] != kind:
                continue
            raise BadInput(
                f"the lake holds a partition of these rows hashed with row-hash version "
                f"{other}, and this import hashed with version {version}: duplicates across "
                "the two cannot be found",
                path=str(part),
                remedy="import the file again (it then hashes as the lake does)",
            )
        mine_too = part.parent.name == f"source={own}" and meta.get("statement", "") == statement
        if mine_too:
            same_file.append(other_pf.read(columns=["row"]).column("row").combine_chunks())
        if by not in other_pf.schema_arrow.names:
            continue
        if not mine_too:  # this file's own rows are matched by row number, never by copies
            for group in range(other_pf.num_row_groups):
                keyset.see(other_pf.read_row_group(group, columns=[by]).column(0))
        have = [c for c in conflict_cols if c in other_pf.schema_arrow.names]
        if have:
            theirs = other_pf.read(columns=[by, *have])
            for c in have:
                hit = theirs.filter(pc.is_in(theirs.column(c), value_set=wanted_ids[c]))
                if hit.num_rows:
                    others[c].append(pa.table({"id": hit.column(c), "key": hit.column(by)}))

    in_repeat = keyset.repeated()
    repeated = in_repeat.any()
    if same_file:
        rows = pf.read(columns=["row"]).column("row").combine_chunks()
        present = _mask(pc.is_in(rows, value_set=pa.concat_arrays(same_file)))
        held = _held_besides(keyset, present)
        drop = present | held
    else:
        held = drop = keyset.held()  # the k-th copy here is a duplicate when others hold k or more
    keep = ~drop
    if held_to is not None and held.any():
        _write_held(pf, held, in_repeat if repeated else None, settle.repeated, held_to)
    notes: list[tuple[np.ndarray, str]] = []
    if repeated:
        notes.append((in_repeat & keep, settle.repeated))
    kept_keys = keys.filter(pa.array(keep)) if keys is not None else None
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
        sample = pf.read_row_group(0) if pf.num_row_groups else None
        with pq.ParquetWriter(out, pf.schema_arrow, **write_options(sample)) as w:
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


def _write_held(pf: pq.ParquetFile, held: np.ndarray, in_repeat: np.ndarray | None, note: str,
                out: Path) -> None:
    """The held record (``settle_partition``'s ``held_to``) of the rows in ``held``: those rows
    whole, as this import read them (its options: another ``--tz`` makes other times of rows of
    the same hash), with the flags they would have had."""
    flags_at = pf.schema_arrow.get_field_index("flags")
    sample = pf.read_row_group(0) if pf.num_row_groups else None
    with pq.ParquetWriter(out, pf.schema_arrow, **write_options(sample)) as w:
        offset = 0
        for group in range(pf.num_row_groups):
            t = pf.read_row_group(group)
            span = slice(offset, offset + t.num_rows)
            offset += t.num_rows
            if in_repeat is not None and (in_repeat[span] & held[span]).any():
                flags = _add_note(t.column(flags_at), in_repeat[span], note)
                t = t.set_column(flags_at, pf.schema_arrow.field(flags_at), flags)
            w.write_table(t.filter(pa.array(held[span])))


def _held_besides(keyset: KeySet, present: np.ndarray) -> np.ndarray:
    """``KeySet.held`` among the rows not ``present`` (already in the lake from an earlier import
    of this same file): the k-th copy of a value *still to add* is a duplicate when other files
    hold k or more. Counting the present rows as copies too would make a twin row in the file
    (two identical legitimate rows) a duplicate of its already-imported twin (review finding 9)."""
    n = keyset.n
    if not n:
        return np.zeros(0, dtype=bool)
    order = np.lexsort((keyset.rank, keyset.group))  # by group, then file order
    g = keyset.group[order]
    p = present[order].astype(np.int64)
    before = np.cumsum(p) - p  # present rows earlier in this order
    start = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    base = np.repeat(before[start], np.diff(np.r_[start, n]))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = keyset.rank[order] - (before - base)
    return ~present & (rank < keyset.theirs[keyset.group])


def _mask(result: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(result.to_numpy(zero_copy_only=False), dtype=bool)


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
