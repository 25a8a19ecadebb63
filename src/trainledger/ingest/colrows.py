"""What the column-at-a-time readers share: the rows they leave to the per-row steps, and merging.

A column-at-a-time reader (``progress_fast``, ``slurm_fast``) computes the *plain* rows of a block
with Arrow / numpy and hands every other row — one it would quarantine, one with a value of an
unusual shape — to ``per_row``: the importer's own ``validate`` and ``normalise`` on the same
``Record`` the per-row reader builds, so those rows come out exactly as they do on the per-row
path (their reasons, remedies and flags are the importer's own). ``merged`` puts both kinds of
row back in file order as one batch.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest.base import Context, Importer, Record, Rejected, dumps
from trainledger.ingest.fastcsv import NotFast


def quarantine_entry(path: Path, rec: Record, reason: str, remedy: str | None) -> dict[str, Any]:
    """The quarantine entry of ``rec`` as ``run._per_row`` writes it."""
    return {
        "file": str(path),
        "row": rec.row,
        "line": rec.line,
        "reason": reason,
        "remedy": remedy,
        "raw": rec.raw.rstrip("\r\n"),
    }


def per_row(
    importer: Importer, recs: Iterable[Record], ctx: Context, path: Path
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(lake rows, quarantine entries) of ``recs`` by the importer's ``validate`` / ``normalise``."""
    rows: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for rec in recs:
        try:
            row = importer.normalise(importer.validate(rec, ctx), rec, ctx)
        except Rejected as r:
            entries.append(quarantine_entry(path, rec, r.reason, r.remedy))
            continue
        row["flags"] = dumps(row.get("flags") or [])
        row["source_sha256"], row["row"], row["row_hash"] = ctx.sha256, rec.row, rec.key
        rows.append(row)
    return rows, entries


def merged(fast: pa.Table | None, rows: list[dict[str, Any]], schema: pa.Schema) -> pa.RecordBatch | None:
    """The plain rows (``fast``, already in the schema) and the per-row ones as one batch in
    row order, or None when there are none. A per-row value the lake's types refuse (the per-row
    path quarantines it when its batch is written) gives the file back (NotFast)."""
    parts = [] if fast is None or not fast.num_rows else [fast]
    if rows:
        try:
            parts.append(pa.Table.from_pylist(rows, schema=schema))
        except (pa.ArrowException, OverflowError, ValueError, TypeError):
            raise NotFast("a value the lake's types refuse") from None
    if not parts:
        return None
    table = parts[0] if len(parts) == 1 else pa.concat_tables(parts)
    if len(parts) > 1:
        table = table.take(pc.sort_indices(table["row"]))
    return table.combine_chunks().to_batches()[0]


def hashes(texts: pa.Array) -> list[str]:
    """blake2b-128 (hex) of each text's UTF-8 bytes (``keys.content_key``'s digest), no nulls."""
    b2 = hashlib.blake2b
    arr = texts if pa.types.is_large_string(texts.type) else texts.cast(pa.large_string())
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    blob = memoryview(data) if data is not None else memoryview(b"")
    return [b2(blob[a:b], digest_size=16).hexdigest() for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist(),
                                                                        strict=True)]
