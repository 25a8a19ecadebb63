"""Which import each row of a lake table came through: the ``import_key`` column the engine reads.

A table's rows carry their file's content hash (``source_sha256``) and row number, but two imports
of one content (the same file with another ``--set vc=…``: ``keys.py``) share both. The key of an
import is its content hash for the file's first statement, so a row needs its own key only where
some partition of the table belongs to another import. ``import_key_column`` gives that column for
the rows ``Lake.read`` returns (the same partitions, in the same order), or None when every row's
import key is its content hash — the common case, which then costs nothing.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.parquet as pq

from trainledger.lake.keys import DROP, statement_of

if TYPE_CHECKING:
    from trainledger.lake.store import Lake


def partition_keys(lake: Lake) -> tuple[dict[str, str], dict[tuple[str, str], str]]:
    """(partition key → import key, (content hash, statement) → import key) from the import log."""
    by_part: dict[str, str] = {}
    by_statement: dict[tuple[str, str], str] = {}
    for rec, key, statement in lake.keyed_events():
        if rec.get("action") == DROP:
            continue
        where = rec.get("partition")
        if where:
            by_part.setdefault("/".join(Path(str(where)).parts[-3:]), key)
        by_statement.setdefault((str(rec["sha256"]), statement or ""), key)
    return by_part, by_statement


def import_key_column(lake: Lake, table: str, rows: int, keys=None) -> pa.Array | None:
    """The import key of every row of ``lake.read(table)`` (``rows`` of them), dictionary-encoded;
    None when each is its row's content hash (or the partitions no longer add up to ``rows``: an
    import published between the two reads — the rows then read as of their first import).
    ``keys``: ``partition_keys(lake)``, when the caller reads several tables."""
    parts = lake.partitions(table)
    if not parts:
        return None
    by_part, by_statement = keys if keys is not None else partition_keys(lake)
    keys, counts = [], []
    for p in parts:
        sha = p.parent.name.removeprefix("source=")
        where = "/".join(p.parts[-3:])
        key = by_part.get(where)
        if key is None:
            statement = ""
            with contextlib.suppress(OSError, pa.ArrowException):
                statement = statement_of(p)
            key = by_statement.get((sha, statement), sha)
        keys.append(key)
        counts.append(pq.ParquetFile(p).metadata.num_rows)
    if sum(counts) != rows or all(k == p.parent.name.removeprefix("source=") for k, p in zip(keys, parts, strict=True)):
        return None
    names = sorted(set(keys))
    at = {k: i for i, k in enumerate(names)}
    import numpy as np

    indices = np.repeat(np.array([at[k] for k in keys], np.int32), counts)
    return pa.DictionaryArray.from_arrays(pa.array(indices, pa.int32()), pa.array(names, pa.string()))
