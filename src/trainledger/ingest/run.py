"""Drive one importer over one file into the lake, keeping the books straight.

    identity = (content hash, the options that shape its rows) ─► imported like this before
       │                                                            (and no drop since)?
       │ yes: the fast path — nothing read or written; its accepted rows are duplicates and
       │      its quarantined rows quarantined again
       │ no
    parse ─► validate ─► normalise ─► batch of rows ─► temp partition (streamed)
       │         └─ Rejected ─► quarantine (file, row, line, reason, remedy, raw)
       │                   a row the table's types refuse (int64, timestamp) ─► quarantine
       └─ counts: rows_read = accepted + duplicates + quarantined, always
    the bytes parsed hash to the content hash? (else BadInput: the file changed meanwhile)
    table lock ─► settle against the lake ─► publish ─► log ─► unlock

Rows are settled after the stream, on the ``row_hash`` column of the temp partition (no
per-row Python set: a 10M-row file stays within memory; see ``trainledger.lake.settle``):

- identical rows *within* the file are all accepted and flagged ``repeated_row_in_file`` — the
  provider's file is the statement, and its total is the bill;
- a row the table already holds from *another* file (overlapping exports: a mid-month and a
  full-month bill of the same period) is a duplicate and is not written; so is a row of this
  same file already accepted by an import with other options (only rows that were quarantined
  then can be added by a re-import with, e.g., ``--currency``) — and then the result carries the
  notice ``reread`` (ingest/notices.py: those rows keep the old ``--tz``; ``--replace`` re-reads);
  the same file with another statement (another ``--set``) is its own import (its own key, counts
  and drop: lake/keys.py ``import_key``), settled by row hash; when it adds nothing of its own,
  the notice ``reread_other`` names the earlier import to ``--replace``;
- an importer's ``conflicts`` ((column, note) pairs, e.g. invoice ids) flag a row whose key is
  shared by a row of different content, in this file or in the lake.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Importer, ImportResult, Record, Rejected, dumps
from trainledger.ingest.keys import DEFAULT_VERSION, hashing
from trainledger.ingest.text import ContentWatch, sha256_file
from trainledger.lake.schemas import TABLES, row_problem

if TYPE_CHECKING:
    from trainledger.lake import Lake

BATCH_ROWS = 16_384  # small enough that the GC does not crawl over many live rows
VALUE_REMEDY = "fix the value in the source (it is beyond what the lake stores)"
CHANGED_REMEDY = "import the file when whatever writes it has finished (or import a copy of it)"


def import_identity(
    importer: Importer, path: Path, sha: str, options: Mapping[str, Any], cfg: Any
) -> tuple[str, str]:
    """(identity, statement) of importing ``path`` (content ``sha``) with ``options``: the
    identity names the content and the options that change what its rows become (time zone,
    currency, encoding, ...); the statement names what, besides the content, the rows are a
    statement about (an undated inventory: the import date)."""
    ident = getattr(importer, "identity", None)
    if ident is not None:
        reading, statement = ident(path, options, cfg)
    else:  # an importer without the hook: every option counts
        reading, statement = dict(options), {}
    text = json.dumps(
        {"kind": importer.kind, "sha256": sha, "options": reading},
        sort_keys=True,
        default=str,
    )
    stated = json.dumps(statement, sort_keys=True, default=str) if statement else ""
    return hashlib.sha256(text.encode()).hexdigest(), stated


def run_import(
    importer: Importer,
    path: Path,
    lake: Lake,
    options: Mapping[str, Any],
    progress: Callable[[int, int], None] | None = None,
) -> ImportResult:
    """Import ``path``; ``progress(bytes_read, file_size)`` is told as the file is read."""
    from trainledger.lake.settle import import_version

    cfg = importer.configure(options)
    lake.clean_tmp()
    sha = sha256_file(path)
    kind, table = importer.kind, importer.table
    identity, statement = import_identity(importer, path, sha, options, cfg)
    key = lake.key_for(kind, sha, statement)  # which import of the file this is
    earlier = _earlier_reading(lake, importer, sha, identity)
    previous = _previous(lake, importer, sha, identity, statement)
    if previous is not None:
        again = _again(importer, path, lake, sha, identity, previous, options, statement, key)
        if previous.get("accepted"):  # its duplicates are this very reading's own rows
            return again
        return _reread_notice(again, earlier, options, statement)

    versions = getattr(importer, "row_hash_versions", (DEFAULT_VERSION,))
    with hashing(import_version(lake.partition_files(table), kind, versions)):
        result = _stream(importer, path, lake, options, cfg, sha, identity, statement, key, progress)
    return _reread_notice(result, earlier, options, statement)


def _stream(
    importer: Importer,
    path: Path,
    lake: Lake,
    options: Mapping[str, Any],
    cfg: Any,
    sha: str,
    identity: str,
    statement: str,
    key: str,
    progress: Callable[[int, int], None] | None,
) -> ImportResult:
    """Read, settle, publish and log one import (``run_import``), with the row-hash version in
    force."""
    from trainledger.lake import PartitionExists, Settle
    from trainledger.lake.resettle import resettle

    kind, table = importer.kind, importer.table
    watch = ContentWatch()
    ctx = Context(path=path, sha256=sha, kind=kind, options=options, cfg=cfg, watch=watch)
    schema = TABLES[table]
    names = set(schema.names)
    size = path.stat().st_size
    tell = progress or (lambda done, total: None)
    with (
        lake.open_partition(table, sha, identity=identity, statement=statement, kind=kind) as part,
        lake.open_quarantine(kind, sha) as q,
    ):
        counted = _fast(importer, path, ctx, part, q, tell, size)
        if counted is None:  # the per-row path, from the start
            watch = ContentWatch()
            ctx = dataclasses.replace(ctx, watch=watch)
            counted = _per_row(importer, path, ctx, part, q, schema, names, tell, size)
        rows_read, quarantined = counted
        tell(size, size)
        seen = watch.digest() or sha256_file(path)  # a Parquet parser reads on its own
        if seen != sha:
            raise BadInput(
                "the file changed while it was being imported (its content hash differs "
                "from the bytes read); nothing was written",
                path=str(path),
                remedy=CHANGED_REMEDY,
            )
        # settle, publish and log as one step against other imports (no rows: nothing to lock)
        with lake.lock(table) if part.rows else contextlib.nullcontext():
            qfile = q.commit()
            try:
                committed = part.commit(
                    settle=Settle(conflicts=getattr(importer, "conflicts", ()))
                )
            except PartitionExists:  # a writer that does not lock took the name
                committed = None
                accepted, duplicates, flagged = 0, rows_read - quarantined, 0
            else:
                accepted = committed.rows if committed else 0
                duplicates = committed.duplicates if committed else 0
                flagged = _count_flagged(committed.path) if committed and committed.path else 0

            if accepted + duplicates + quarantined != rows_read:  # pragma: no cover - a bug
                raise RuntimeError(
                    f"{path}: {accepted} accepted + {duplicates} duplicates + {quarantined} "
                    f"quarantined != {rows_read} rows read"
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
                import_key=key,
            )
            _log(lake, importer, result, options, committed.path if committed else None, identity,
                 statement)
            # a drop cut off before it gave other imports their rows back is healed here
            resettle(lake, table)
    return result


def _fast(
    importer: Importer,
    path: Path,
    ctx: Context,
    part: Any,
    q: Any,
    tell: Callable[[int, int], None],
    size: int,
) -> tuple[int, int] | None:
    """(rows read, quarantined) by the importer's column-at-a-time reader, or None (nothing
    kept written) when it has none or finds the file needs the per-row path."""
    fast = getattr(importer, "fast_batches", None)
    stream = fast(path, ctx) if fast is not None else None
    if stream is None:
        return None
    from trainledger.ingest.fastcsv import NotFast
    from trainledger.ingest.vector import Unexpected

    rows_read = quarantined = 0
    try:
        for batch, entries, n, done in stream:
            rows_read += n
            quarantined += len(entries)
            for e in entries:
                q.write(e)
            if batch is not None:
                part.write(batch)
            tell(done, size)
    except (NotFast, Unexpected):
        part.reset()
        q.reset()
        return None
    return rows_read, quarantined


def _per_row(
    importer: Importer,
    path: Path,
    ctx: Context,
    part: Any,
    q: Any,
    schema: pa.Schema,
    names: set[str],
    tell: Callable[[int, int], None],
    size: int,
) -> tuple[int, int]:
    """(rows read, quarantined) by parse → validate → normalise, one row at a time."""
    rows_read = quarantined = 0
    rows: list[dict[str, Any]] = []
    recs: list[Record] = []  # beside rows: a row the lake's types refuse is quarantined
    sha = ctx.sha256
    for rec in importer.parse(path, ctx):
        rows_read += 1
        try:
            row = importer.normalise(importer.validate(rec, ctx), rec, ctx)
        except Rejected as r:
            quarantined += 1
            q.write(_quarantine_entry(path, rec, r.reason, r.remedy))
            continue
        row["flags"] = dumps(row.get("flags") or [])
        row["source_sha256"], row["row"], row["row_hash"] = sha, rec.row, rec.key
        rows.append(row)
        recs.append(rec)
        if len(rows) >= BATCH_ROWS:
            quarantined += _write(part, q, rows, recs, schema, names, importer, path)
            rows, recs = [], []
            tell(ctx.watch.read if ctx.watch is not None else 0, size)
    quarantined += _write(part, q, rows, recs, schema, names, importer, path)
    return rows_read, quarantined


def _quarantine_entry(
    path: Path, rec: Record, reason: str, remedy: str | None
) -> dict[str, Any]:
    return {
        "file": str(path),
        "row": rec.row,
        "line": rec.line,
        "reason": reason,
        "remedy": remedy,
        "raw": rec.raw.rstrip("\r\n"),
    }


def _write(
    part: Any,
    q: Any,
    rows: list[dict[str, Any]],
    recs: list[Record],
    schema: pa.Schema,
    names: set[str],
    importer: Importer,
    path: Path,
) -> int:
    """Write ``rows`` as one batch; when the lake's types refuse the batch (an integer beyond
    64 bits, a time outside the calendar), quarantine the rows they refuse, write the others,
    and return how many were quarantined."""
    try:
        part.write(_batch(rows, schema, names, importer))
        return 0
    except (pa.ArrowException, OverflowError, ValueError, TypeError):
        pass
    good = []
    for row, rec in zip(rows, recs, strict=True):
        problem = row_problem(row, schema)
        if problem is None:
            good.append(row)
        else:
            q.write(_quarantine_entry(path, rec, problem, VALUE_REMEDY))
    part.write(_batch(good, schema, names, importer))
    return len(rows) - len(good)


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


def _previous(lake: Lake, importer: Importer, sha: str, identity: str,
              statement: str = "") -> dict[str, Any] | None:
    """The first logged import with this identity since the last drop, if the lake still holds
    what it wrote. A drop (of this file or any other) after it voids it: what were duplicates
    then (of the dropped rows) may be rows to add now."""
    from trainledger.lake import DROP

    found: dict[str, Any] | None = None
    for rec in lake.events():
        if rec.get("action") == DROP:
            found = None
        elif found is None and rec.get("identity") == identity and rec.get("kind") == importer.kind:
            found = rec
    if found is not None and found.get("accepted") and not lake.has_source(sha, importer.table, statement):
        return None  # the log says rows went in, the lake does not have them: read again
    return found


def _earlier_reading(lake: Lake, importer: Importer, sha: str,
                     identity: str) -> tuple[dict[str, Any], str, str] | None:
    """The last logged import of this same content with *another* identity (other options)
    whose partition is still live, with its import's key and statement: its rows stand in the
    lake for this file's rows."""
    from trainledger.lake import DROP, partition_key

    dropped = lake.dropped()
    found = None
    for rec, key, st in lake.keyed_events():
        if (rec.get("action") != DROP and rec.get("kind") == importer.kind and rec.get("sha256") == sha
                and rec.get("partition") and rec.get("identity") != identity
                and partition_key(rec["partition"]) not in dropped):
            found = (rec, key, st or "")
    return found


def _reread_notice(
    result: ImportResult, earlier: tuple[Mapping[str, Any], str, str] | None,
    options: Mapping[str, Any], statement: str = "",
) -> ImportResult:
    """Say so when rows of this file were duplicates because an import of the same content with
    other options holds them: the new options did not reach those rows (notices ``reread``, and
    ``reread_other`` when that import made another statement — another ``--set`` — and this
    one added nothing of its own: only duplicates, or rows that conflict with it)."""
    if earlier is None or not result.duplicates:
        return result
    from trainledger.ingest.notices import option_text

    rec, key, stated = earlier
    ident = key[:12]  # the import id `imports list` shows
    if stated != statement:  # another import of the file (another --set): did this one add anything?
        if result.accepted and result.flagged < result.accepted:
            return result
        return dataclasses.replace(result, notices=result.notices + (("reread_other", {"id": ident}),))
    old = rec.get("options") or {}  # (--currency only fills rows without one: not a re-reading)
    keys = [k for k in ("tz", "encoding", "preset", "mapping")
            if str(old.get(k) or "") != str(options.get(k) or "")]
    if not keys:
        return result
    flags = " ".join(f"--{k.replace('_', '-')} {options[k]}" for k in keys if options.get(k))
    command = f"trainledger import {result.kind} {result.path} {flags} --replace {ident}".replace("  ", " ")
    values = {"rows": int(rec.get("accepted") or 0), "id": ident, "old": option_text(old, keys),
              "new": option_text(options, keys), "command": command}
    return dataclasses.replace(result, notices=result.notices + (("reread", values),))


def _again(
    importer: Importer,
    path: Path,
    lake: Lake,
    sha: str,
    identity: str,
    previous: Mapping[str, Any],
    options: Mapping[str, Any],
    statement: str = "",
    key: str = "",
) -> ImportResult:
    """The same content imported the same way before: its rows that went in (or were
    duplicates then) are duplicates now, its quarantined rows are quarantined again (the
    same quarantine file); nothing is read or written but a log line."""
    n, quarantined = int(previous["rows_read"]), int(previous.get("quarantined") or 0)
    result = ImportResult(
        kind=importer.kind,
        path=str(path),
        sha256=sha,
        rows_read=n,
        accepted=0,
        duplicates=n - quarantined,
        quarantined=quarantined,
        quarantine_file=previous.get("quarantine_file") if quarantined else None,
        flagged=0,
        import_key=key,
    )
    _log(lake, importer, result, options, None, identity, statement)
    return result


def _log(
    lake: Lake,
    importer: Importer,
    result: ImportResult,
    options: Mapping[str, Any],
    partition: Path | None,
    identity: str,
    statement: str = "",
) -> None:
    lake.log_import(
        {
            "imported_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "kind": result.kind,
            # absolute: the source-row page reads the file from wherever the server runs (review 8, R8-11)
            "path": str(Path(result.path).absolute()),
            "sha256": result.sha256,
            "identity": identity,
            "statement": statement,  # which import of the file (lake.keys.import_key)
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
