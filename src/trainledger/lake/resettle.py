"""Settling a table again: every live import's rows counted as its file states them.

An import does not write the rows another file's rows already hold (``settle.py``: the k-th copy
of a row is a duplicate when the table holds k or more), so after importing two overlapping
exports the lake holds, for each row hash, as many copies as the import stating it most often
does. Dropping the import whose partition held them would take them out of every figure though
the later import still states them; since 2026-12 each import writes, beside its partition, a
*held record* (``held-<n>.parquet``: each row it did not write for that reason, whole, as it
read them, with the flags they would have had) so the lake knows what every import states.

The **invariant**, for each row hash ``h`` of a table (hashes of two row-hash versions never
meet): the live partitions hold ``max`` over the live imports of how many rows with ``h`` the
import states (its live partitions' rows and its held rows, counted once per row number — two
attempts of one import are one statement; a row number in two of its partitions, a copied
partition, is held twice and stated once). ``check`` reports where it does not hold;
``resettle`` (run under the table's lock by ``Lake.log_drop`` and after an import into a table
with held records) restores what is short: the missing copies are taken from the held record of
the import that states them most often and become a new partition of it — its own reading of its
own rows (another import's row of the same hash may have been read with another ``--tz``: the
hash of a sacct row does not depend on it). Rows in excess cannot be taken out of an append-only
lake: ``check`` reports them. An import written before held
records existed states, as far as this module knows, only its partition's rows: its duplicates
are not restored (``imports drop`` still names such imports, to be read again with ``--replace``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.lake.fs import link_into_place
from trainledger.lake.schemas import TABLES
from trainledger.lake.settle import META_KEY, partition_meta

if TYPE_CHECKING:
    from trainledger.lake.store import Lake

RESTORED = "restored"  # the partition metadata's mark of a partition this module wrote


@dataclass(slots=True)
class _Import:
    """One live import's files in a table: (its file's content hash, its statement)."""

    sha: str
    statement: str
    parts: list[Path] = field(default_factory=list)
    held: list[Path] = field(default_factory=list)
    meta: dict[str, Any] | None = None  # of its newest file: what a restored partition records


@dataclass(frozen=True, slots=True)
class Mismatch:
    """Where a table breaks the invariant: rows with ``row_hash`` (``version``) that ``stated_by``
    states ``stated`` times while the live partitions hold ``held`` copies."""

    version: int
    row_hash: str
    stated: int
    held: int
    stated_by: tuple[str, str]  # (content hash, statement) of the import stating it most often
    holders: tuple[tuple[str, str], ...]  # the imports whose partitions hold the copies


def _live_imports(lake: Lake, table: str) -> dict[tuple[str, str], _Import]:
    found: dict[tuple[str, str], _Import] = {}
    for path, kind in [*((p, "parts") for p in lake.partition_files(table)),
                       *((p, "held") for p in lake.held_files(table))]:
        meta = partition_meta(pq.read_schema(path)) or {}
        sha = path.parent.name.removeprefix("source=")
        key = (sha, str(meta.get("statement") or ""))
        imp = found.setdefault(key, _Import(*key))
        getattr(imp, kind).append(path)
        imp.meta = imp.meta or meta
    return found


def unrecorded(lake: Lake, table: str, recorded: set[tuple[str, str]], any_statement: set[str]
               ) -> list[tuple[tuple[str, str], list[Path], list[Path], str]]:
    """The live files of ``table`` of imports the log does not record: ((content hash,
    statement), partitions, held records, kind) of each import (``_live_imports``) not in
    ``recorded`` (the live imports' (content hash, statement)) whose file is not in
    ``any_statement`` (a live import of unknown statement: all of its file's). What an import
    killed between publishing its partition or held record and logging itself leaves."""
    out = []
    for key, imp in sorted(_live_imports(lake, table).items()):
        if key not in recorded and key[0] not in any_statement:
            out.append((key, sorted(imp.parts), sorted(imp.held), str((imp.meta or {}).get("kind") or "?")))
    return out


def _hashes(path: Path) -> pa.Table:
    """(row, h) of a partition or held record; ``h`` is ``<version>:<row_hash>``."""
    meta = partition_meta(pq.read_schema(path)) or {}
    t = pq.read_table(path, columns=["row", "row_hash"])
    h = pc.binary_join_element_wise(pa.scalar(f"{meta.get('row_hash')}"), t.column("row_hash").cast(pa.string()),
                                    ":")
    return pa.table({"row": t.column("row").cast(pa.int64()), "h": h})


def _counts(lake: Lake, table: str) -> tuple[dict[tuple[str, str], _Import], pa.Table, pa.Table, list[pa.Table]]:
    """The live imports; per (import, h): ``stated`` and ``held`` counts; each import's held rows
    its partitions do not hold (row, h, imp, the held record ``file`` (index into the import's
    ``held``) and the row's position ``at`` in it)."""
    imports = _live_imports(lake, table)
    stated, held, missing = [], [], []
    for i, imp in enumerate(imports.values()):
        parts = [_hashes(p) for p in imp.parts]
        mine = pa.concat_tables(parts) if parts else pa.table({"row": pa.array([], pa.int64()),
                                                              "h": pa.array([], pa.string())})
        own = _first_reading(parts) if len(parts) > 1 else mine
        extra = []
        for f, p in enumerate(imp.held):
            t = _hashes(p)
            t = t.append_column("file", pa.array([f] * t.num_rows, pa.int32()))
            t = t.append_column("at", pa.array(range(t.num_rows), pa.int64()))
            extra.append(t.filter(pc.invert(pc.is_in(t.column("row"), value_set=mine.column("row").combine_chunks()))))
        rows = [own.select(["row", "h"])]
        if extra:
            more = pa.concat_tables(extra)
            # two attempts of one import may both record a row: once per row number
            firsts = more.append_column("i", pa.array(range(more.num_rows), pa.int64()))
            firsts = firsts.group_by("row", use_threads=False).aggregate([("i", "min")]).column("i_min")
            more = more.take(firsts)
            rows.append(more.select(["row", "h"]))
            missing.append(more.append_column("imp", pa.array([i] * more.num_rows, pa.int32())))
        everything = pa.concat_tables(rows)
        if everything.num_rows:
            s = everything.group_by("h", use_threads=False).aggregate([("row", "count")])
            stated.append(pa.table({"imp": pa.array([i] * s.num_rows, pa.int32()), "h": s.column("h"),
                                    "stated": s.column("row_count")}))
        if mine.num_rows:
            s = mine.group_by("h", use_threads=False).aggregate([("row", "count")])
            held.append(pa.table({"imp": pa.array([i] * s.num_rows, pa.int32()), "h": s.column("h"),
                                  "held": s.column("row_count")}))
    empty = pa.table({"imp": pa.array([], pa.int32()), "h": pa.array([], pa.string())})
    st = pa.concat_tables(stated) if stated else empty.append_column("stated", pa.array([], pa.int64()))
    hd = pa.concat_tables(held) if held else empty.append_column("held", pa.array([], pa.int64()))
    return imports, st, hd, missing


def _first_reading(parts: list[pa.Table]) -> pa.Table:
    """The rows an import states through its partitions ``parts``: each row number in the first
    partition holding it only. An import's attempts settle against each other by row number
    (settle.py), so no row number is in two of its partitions — unless a partition was copied (by
    hand, a restore from a backup over the live lake): the copy's rows are held, not stated."""
    tagged = pa.concat_tables([t.append_column("part", pa.array([n] * t.num_rows, pa.int32()))
                               for n, t in enumerate(parts)])
    first = tagged.group_by("row", use_threads=False).aggregate([("part", "min")])
    joined = tagged.join(first, "row", use_threads=False)
    return joined.filter(pc.equal(joined.column("part"), joined.column("part_min"))).select(["row", "h"])


def check(lake: Lake, table: str) -> list[Mismatch]:
    """Every row hash of ``table`` whose live copies are not what the live imports state
    (module doc): fewer than the import stating it most often, or more."""
    imports, stated, held, _ = _counts(lake, table)
    return _mismatches(list(imports), stated, held)


def _mismatches(keys: list[tuple[str, str]], stated: pa.Table, held: pa.Table) -> list[Mismatch]:
    if not stated.num_rows:
        return []
    top = stated.group_by("h", use_threads=False).aggregate([("stated", "max")])
    lake = held.group_by("h", use_threads=False).aggregate([("held", "sum")])
    joined = top.join(lake, "h", join_type="left outer", use_threads=False)
    copies = pc.fill_null(joined.column("held_sum"), 0)
    off = joined.filter(pc.not_equal(joined.column("stated_max"), copies))
    if not off.num_rows:
        return []
    wanted = off.column("h").combine_chunks()
    st = stated.filter(pc.is_in(stated.column("h"), value_set=wanted)).to_pylist()
    hd = held.filter(pc.is_in(held.column("h"), value_set=wanted)).to_pylist()
    out = []
    for r in off.to_pylist():
        mine = sorted((s for s in st if s["h"] == r["h"]), key=lambda s: (-s["stated"], keys[s["imp"]]))
        version, _, row_hash = r["h"].partition(":")
        out.append(Mismatch(int(version) if version.isdigit() else 0, row_hash, int(r["stated_max"]),
                            int(r["held_sum"] or 0), keys[mine[0]["imp"]],
                            tuple(sorted(keys[x["imp"]] for x in hd if x["h"] == r["h"]))))
    return sorted(out, key=lambda m: (m.stated_by, m.row_hash))


def resettle(lake: Lake, table: str) -> list[str]:
    """Restore the copies the live partitions of ``table`` are short of (module doc), under the
    table's lock; returns the keys of the partitions written (``table/source=…/part-<n>``)."""
    with lake.lock(table):
        if not lake.held_files(table):
            return []  # no import states more than its partitions hold: nothing can be short
        imports, stated, held, missing = _counts(lake, table)
        keys = list(imports)
        short = [m for m in _mismatches(keys, stated, held) if m.stated > m.held]
        if not short or not missing:
            return []
        need = {(keys.index(m.stated_by), f"{m.version}:{m.row_hash}"): m.stated - m.held for m in short}
        rows = pa.concat_tables(missing)
        rows = rows.filter(pc.is_in(rows.column("h"), value_set=pa.array(sorted({h for _, h in need}), pa.string())))
        take: dict[int, list[dict[str, Any]]] = {}
        for r in sorted(rows.to_pylist(), key=lambda r: (r["imp"], r["row"])):
            k = (r["imp"], r["h"])
            if need.get(k, 0) > 0:
                need[k] -= 1
                take.setdefault(r["imp"], []).append(r)
        return [_write(lake, table, imports[keys[i]], rs) for i, rs in sorted(take.items())]


def _write(lake: Lake, table: str, imp: _Import, rows: list[dict[str, Any]]) -> str:
    """A partition of ``imp`` holding ``rows`` taken from its held records (``file``, ``at``)."""
    from trainledger.lake.store import _PART_RE, _conform, partition_key

    schema = TABLES[table]
    picked = []
    for f in sorted({r["file"] for r in rows}):
        at = [r["at"] for r in rows if r["file"] == f]
        picked.append(_conform(pq.read_table(imp.held[f]), schema).take(pa.array(at, pa.int64())))
    body = pa.concat_tables(picked)
    meta = {k: v for k, v in (imp.meta or {}).items() if k in ("row_hash", "identity", "statement", "kind")}
    meta[RESTORED] = True
    body = body.replace_schema_metadata({META_KEY: json.dumps(meta, sort_keys=True).encode()})
    tmp = lake.tmp_path(f"{table}-{imp.sha[:16]}-restored", ".parquet")
    try:
        pq.write_table(body, tmp)
        with open(tmp, "rb+") as f:
            os.fsync(f.fileno())
        where = lake.partition_path(table, imp.sha).parent
        while True:
            taken = [int(m[1]) for p in where.glob("part-*.parquet") if (m := _PART_RE.match(p.name))]
            final = where / f"part-{max(taken, default=-1) + 1}.parquet"
            try:
                link_into_place(tmp, final)
            except FileExistsError:
                continue
            return partition_key(final)
    finally:
        tmp.unlink(missing_ok=True)
