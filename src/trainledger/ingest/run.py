"""Drive one importer over one file into the lake, keeping the books straight.

    hash the file ─► already in the lake? ─► yes: every row a duplicate, nothing written
                          │ no
    parse ─► validate ─► normalise ─► batch of rows ─► temp partition (streamed)
       │         └─ Rejected ─► quarantine (file, row, line, reason, remedy, raw)
       └─ counts: rows_read = accepted + duplicates + quarantined, always

Rows are settled after the stream, on the ``row_hash`` column of the temp partition (no
per-row Python set: a 10M-row file stays within memory; see ``trainledger.lake.Settle``):

- identical rows *within* the file are all accepted and flagged ``repeated_row_in_file`` — the
  provider's file is the statement, and its total is the bill;
- a row the table already holds from *another* file (overlapping exports: a mid-month and a
  full-month bill of the same period) is a duplicate and is not written;
- an importer's ``conflicts`` ((column, note) pairs, e.g. invoice ids) flag a row whose key is
  shared by a row of different content, in this file or in the lake.

Rejected rows are each quarantined.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.ingest.base import Context, Importer, ImportResult, Rejected, dumps, sha256_file
from trainledger.ingest.schemas import TABLES

if TYPE_CHECKING:
    from trainledger.lake import Lake

BATCH_ROWS = 16_384  # small enough that the GC does not crawl over many live rows


def run_import(
    importer: Importer, path: Path, lake: Lake, options: Mapping[str, Any]
) -> ImportResult:
    from trainledger.lake import PartitionExists, Settle

    cfg = importer.configure(options)
    sha = sha256_file(path)
    kind = importer.kind
    if lake.has_source(sha, kind):
        return _already_in(importer, path, lake, sha, options, cfg)

    ctx = Context(path=path, sha256=sha, kind=kind, options=options, cfg=cfg)
    schema = TABLES[importer.table]
    names = set(schema.names)
    rows_read = quarantined = 0
    rows: list[dict[str, Any]] = []
    with lake.open_partition(importer.table, sha) as part, lake.open_quarantine(kind, sha) as q:
        for rec in importer.parse(path, ctx):
            rows_read += 1
            try:
                row = importer.normalise(importer.validate(rec, ctx), rec, ctx)
            except Rejected as r:
                quarantined += 1
                q.write(
                    {
                        "file": str(path),
                        "row": rec.row,
                        "line": rec.line,
                        "reason": r.reason,
                        "remedy": r.remedy,
                        "raw": rec.raw.rstrip("\r\n"),
                    }
                )
                continue
            row["flags"] = dumps(row.get("flags") or [])
            row["source_sha256"], row["row"], row["row_hash"] = sha, rec.row, rec.key
            rows.append(row)
            if len(rows) >= BATCH_ROWS:
                part.write(_batch(rows, schema, names, importer))
                rows = []
        part.write(_batch(rows, schema, names, importer))
        qfile = q.commit()
        try:
            committed = part.commit(settle=Settle(conflicts=getattr(importer, "conflicts", ())))
        except PartitionExists:  # a concurrent import of the same file won the race
            committed = None
            accepted, duplicates, flagged = 0, rows_read - quarantined, 0
        else:
            accepted = committed.rows if committed else 0
            duplicates = committed.duplicates if committed else 0
            flagged = _count_flagged(committed.path) if committed and committed.path else 0

    if accepted + duplicates + quarantined != rows_read:  # pragma: no cover - a bug, not input
        raise RuntimeError(
            f"{path}: {accepted} accepted + {duplicates} duplicates + {quarantined} quarantined "
            f"!= {rows_read} rows read"
        )
    result = ImportResult(
        kind=kind,
        path=str(path),
        sha256=sha,
        rows_read=rows_read,
        accepted=accepted,
        duplicates=duplicates,
        quarantined=quarantined,
        quarantine_file=str(qfile) if qfile else None,
        flagged=flagged,
    )
    _log(lake, importer, result, options, committed.path if committed else None)
    return result


def _batch(
    rows: list[dict[str, Any]], schema: pa.Schema, names: set[str], importer: Importer
) -> pa.RecordBatch:
    if rows and set(rows[0]) != names:  # a programming error in the importer, not bad input
        raise RuntimeError(
            f"{importer.kind} importer produced columns {sorted(set(rows[0]) ^ names)} "
            f"that differ from table {importer.table}"
        )
    return pa.RecordBatch.from_pylist(rows, schema=schema)


def _count_flagged(partition: Path) -> int:
    flags = pq.read_table(partition, columns=["flags"]).column("flags")
    return int(pc.sum(pc.not_equal(flags, "[]")).as_py() or 0)


def _already_in(
    importer: Importer, path: Path, lake: Lake, sha: str, options: Mapping[str, Any], cfg: Any
) -> ImportResult:
    """The file's content is in the lake: report its rows as duplicates and write no data."""
    previous = [
        r
        for r in lake.imports()
        if r.get("sha256") == sha and r.get("kind") == importer.kind and r.get("partition")
    ]
    if previous:
        n = int(previous[0]["rows_read"])
    else:  # the partition landed but the log line did not (a crash): count the rows again
        ctx = Context(path=path, sha256=sha, kind=importer.kind, options=options, cfg=cfg)
        n = sum(1 for _ in importer.parse(path, ctx))
    result = ImportResult(
        kind=importer.kind,
        path=str(path),
        sha256=sha,
        rows_read=n,
        accepted=0,
        duplicates=n,
        quarantined=0,
        quarantine_file=None,
        flagged=0,
    )
    _log(lake, importer, result, options, None)
    return result


def _log(
    lake: Lake,
    importer: Importer,
    result: ImportResult,
    options: Mapping[str, Any],
    partition: Path | None,
) -> None:
    lake.log_import(
        {
            "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "kind": result.kind,
            "path": result.path,
            "sha256": result.sha256,
            "table": importer.table,
            "rows_read": result.rows_read,
            "accepted": result.accepted,
            "duplicates": result.duplicates,
            "quarantined": result.quarantined,
            "flagged": result.flagged,
            "quarantine_file": result.quarantine_file,
            "partition": str(partition) if partition else None,
            "options": {k: options[k] for k in sorted(options)},
        }
    )
