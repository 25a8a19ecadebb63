"""The imports as the lake's own log tells them: what each import left in the lake, for the ledger.

An import is one file's content read as one statement (lake/keys.py ``import_key``): the same
file with another ``--set`` is another import, with its own id, counts and drop.

The lake is the source of truth for what was accepted (``lake/``): its partitions hold the rows
and ``imports.jsonl`` the attempts and drops. The ledger's ``imports`` table is a record *of* that,
written after the lake — so a crash in between leaves the ledger behind. ``record_from_lake``
rebuilds a file's record from the lake alone (accepted = rows of its live partitions, whether the
log names them or not); ``Workspace.import_files`` writes it after every import, repairing what a
crash left. Also here: the state of every imported file (``states``), its quarantined and flagged
rows (``quarantined_rows``, ``flagged_rows``) and resolving the short id a user types (``resolve``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.errors import BadInput, NotFound
from trainledger.ingest import KIND_TABLES
from trainledger.lake import DROP, Lake, partition_key
from trainledger.lake.fs import read_jsonl
from trainledger.ledger import ImportRecord

ID_LEN = 12  # hex digits of an import's key shown as its id


def short_id(key: str) -> str:
    """The id ``imports list`` shows for an import key (``ImportRecord.import_key``)."""
    return key[:ID_LEN]


@dataclass(frozen=True, slots=True)
class FileState:
    """One import in the lake — (kind, file content, the statement its rows make; its ``key``,
    ``lake.keys.import_key``): its log records since the last drop, and the drop. Readings of
    the file with other options that make the same statement (another ``--tz``, ``--currency``)
    are attempts of the same import: their rows are settled against each other by row number,
    so together they count each row once; another statement (``--set vc=…``) is another import."""

    kind: str
    sha256: str
    records: tuple[Mapping[str, Any], ...]  # import records after the last drop (or before it, if dropped)
    drop: Mapping[str, Any] | None  # the drop line, when the file is dropped now
    key: str = ""  # the import's key ("": the content hash)
    statement: str | None = None  # what its rows state besides the content (None: unknown)
    # what happened to the import, in order: {"event": imported | dropped | reimported, "at", and
    # for a drop "reason", "by", "replaced_by"} — a re-import after a drop keeps the drop here
    history: tuple[Mapping[str, Any], ...] = ()

    @property
    def import_key(self) -> str:
        return self.key or self.sha256

    @property
    def latest(self) -> Mapping[str, Any] | None:
        """The attempt that speaks for the file now: the last one that published a partition (a
        later identical re-import only repeats an earlier attempt's counts), else the last one."""
        with_rows = [r for r in self.records if r.get("partition")]
        return (with_rows or list(self.records) or [None])[-1]

    @property
    def live(self) -> bool:
        return self.drop is None


def states(lake: Lake) -> dict[tuple[str, str], FileState]:
    """Every import (kind, import key) the lake's log names, in order of first appearance. A
    drop line names the import it dropped (its key); one written before imports had their own
    keys drops every import of its file."""
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    of_file: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for ev, key, statement in lake.keyed_events():
        kind, sha = ev["kind"], ev["sha256"]
        if ev.get("action") == DROP:
            hit = [(kind, key)] if statement is not None else of_file.get((kind, sha), [])
            for k in hit:
                st = seen.get(k)
                if st is not None:
                    if st["drop"] is None:  # a second drop line of a dropped import changes nothing
                        st["history"].append(_dropped(ev))
                    st["before"] += st["after"]
                    st["after"], st["drop"] = [], ev
            continue
        if (kind, key) not in seen:
            seen[(kind, key)] = {"before": [], "after": [], "drop": None, "sha": sha, "statement": statement,
                                 "history": [{"event": "imported", "at": ev.get("imported_at")}]}
            of_file.setdefault((kind, sha), []).append((kind, key))
        st = seen[(kind, key)]
        if st["drop"] is not None:  # the file imported again after its drop: live again, the drop kept
            st["history"].append({"event": "reimported", "at": ev.get("imported_at")})
        st["after"].append(ev)
        st["drop"] = None
    return {(kind, key): FileState(kind, st["sha"], tuple(st["after"] or st["before"]), st["drop"], key,
                                   st["statement"], tuple(st["history"]))
            for (kind, key), st in seen.items()}


def _dropped(line: Mapping[str, Any]) -> dict[str, Any]:
    """A drop line as an event of the import's history."""
    return {"event": "dropped", "at": line.get("at"), "reason": line.get("reason"), "by": line.get("actor"),
            "replaced_by": list(line.get("replaced_by") or [])}


def history_fields(state: FileState | None) -> dict[str, Any]:
    """What ``imports list --json``, ``imports show`` and the dashboard's /imports say of an
    import's past: ``history`` (every event), ``drops`` (each drop: when, why, by whom, even when
    the file was imported again since), ``earlier_drops`` (those but the one in force) and
    ``reimported_at`` (the last re-import after a drop;
    None when there was none, or when the import is dropped now)."""
    events = [dict(e) for e in (state.history if state is not None else ())]
    again = [e["at"] for e in events if e["event"] == "reimported"]
    live = state is None or state.live
    drops = [e for e in events if e["event"] == "dropped"]
    return {"history": events, "drops": drops, "earlier_drops": drops if live else drops[:-1],
            "reimported_at": again[-1] if again and live else None}


def _rows(path: Any) -> int:
    return pq.ParquetFile(path).metadata.num_rows


def state_parts(lake: Lake, state: FileState, table: str) -> list[Path]:
    """The partitions of an import: of its file, those recording its statement (all of the
    file's when its statement is unknown)."""
    return lake.source_parts(table, state.sha256, state.statement)


def record_from_lake(lake: Lake, state: FileState, dropped: set[str] | None = None) -> ImportRecord | None:
    """The ledger's record of one import, from the lake alone (None when the log has no import of it).

    accepted: the rows of the import's live partitions (for a dropped import: of those its drop
    tombstoned) — including a partition published just before a crash cut off its log line;
    rows_read, quarantined and the quarantine file: the latest attempt's; duplicates: the rest.
    ``dropped``: ``lake.dropped()``, when the caller already has it."""
    latest = state.latest
    if latest is None:
        return None
    table = KIND_TABLES.get(state.kind)
    if table is None:
        return None
    mine = state_parts(lake, state, table)
    if state.drop is None:
        dropped = lake.dropped() if dropped is None else dropped
        parts = [p for p in mine if partition_key(p) not in dropped]
    else:
        wanted = set(state.drop.get("partitions") or ())
        parts = [p for p in mine if partition_key(p) in wanted]
    accepted = sum(_rows(p) for p in parts)
    rows_read = int(latest.get("rows_read") or 0)
    quarantined = int(latest.get("quarantined") or 0)
    first = state.records[0]
    return ImportRecord(
        kind=state.kind, path=str(latest.get("path") or ""), source_sha256=state.sha256,
        rows_read=rows_read, accepted=accepted, duplicates=max(rows_read - accepted - quarantined, 0),
        quarantined=quarantined, quarantine_file=latest.get("quarantine_file") if quarantined else None,
        imported_at=_when(first.get("imported_at")),
        dropped_at=_when(state.drop["at"]) if state.drop else None,
        drop_reason=str(state.drop.get("reason")) if state.drop else None,
        import_key=state.import_key,
    )


def _when(text: Any) -> datetime:
    try:
        at = datetime.fromisoformat(str(text))
    except ValueError:
        return datetime.now(UTC)
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def resolve(records: Iterable[ImportRecord], ident: str) -> ImportRecord:
    """The import a user named: a prefix (6+ hex digits) of its key (for a file's first import
    its content hash), or ``KIND:PREFIX``."""
    kind, _, prefix = ident.rpartition(":")
    prefix = prefix.strip().lower()
    records = list(records)
    if len(prefix) < 6 or any(c not in "0123456789abcdef" for c in prefix):
        raise BadInput(f"{ident!r} is not an import id",
                       remedy="give the id `trainledger imports list` shows (at least 6 hex digits)")
    hits = [r for r in records if r.import_key.startswith(prefix) and (not kind or r.kind == kind)]
    if not hits:
        raise NotFound(f"no import with id {ident!r}", remedy="see `trainledger imports list`")
    if len(hits) > 1:
        raise BadInput(f"import id {ident!r} is ambiguous: "
                       + ", ".join(f"{r.kind}:{short_id(r.import_key)}" for r in hits),
                       remedy="give more digits, or KIND:ID")
    return hits[0]


def quarantined_rows(state: FileState, limit: int | None = None) -> list[dict[str, Any]]:
    """The rows the latest attempt of a file left in quarantine: file, row, line, reason, remedy, raw."""
    latest = state.latest
    qfile = latest.get("quarantine_file") if latest and latest.get("quarantined") else None
    if not qfile:
        return []
    out = []
    try:
        for rec in read_jsonl(Path(qfile), []):
            rec = {"kind": state.kind, "import": short_id(state.import_key), "status": "quarantined", **rec}
            rec["remedy"] = rec.get("remedy") or quarantine_remedy(state.kind)
            out.append(rec)
            if limit is not None and len(out) >= limit:
                break
    except FileNotFoundError:
        pass
    return out


def flagged_rows(lake: Lake, state: FileState, limit: int | None = None) -> list[dict[str, Any]]:
    """Accepted rows of a live file that carry notes (``flags``): row number and the notes."""
    table = KIND_TABLES.get(state.kind)
    if table is None or not state.live:
        return []
    dropped = lake.dropped()
    out: list[dict[str, Any]] = []
    path = str(state.latest.get("path") or "") if state.latest else ""
    for part in state_parts(lake, state, table):
        if partition_key(part) in dropped:
            continue
        t = pq.read_table(part, columns=["row", "flags"])
        for row, flags in zip(t.column("row").to_pylist(), t.column("flags").to_pylist(), strict=True):
            if flags and flags != "[]":
                notes = json.loads(flags) if flags.startswith("[") else [flags]
                out.append({"kind": state.kind, "import": short_id(state.import_key), "status": "flagged",
                            "file": path, "row": row, "reason": ", ".join(map(str, notes)),
                            "notes": [str(n) for n in notes],
                            "remedy": FLAG_REMEDY})
                if limit is not None and len(out) >= limit:
                    return out
    return out


def flagged_count(lake: Lake, state: FileState | None) -> int:
    """Accepted rows with flags of an import, counted in the lake as ``accepted`` is
    (``record_from_lake``): the rows of its live partitions (for a dropped import: of the partitions
    its drop tombstoned) whose ``flags`` are not empty, each row once — a partition a drop wrote
    for it from its held record (lake/resettle.py: rows it states that the dropped file's rows
    held) counts as its own, with the flags the rows were read with. A partition without a
    ``flags`` column (an early lake) counts what the log recorded for it."""
    if state is None:
        return 0
    table = KIND_TABLES.get(state.kind)
    if table is None:
        return 0
    if state.drop is None:
        dropped = lake.dropped()
        parts = [p for p in state_parts(lake, state, table) if partition_key(p) not in dropped]
    else:
        gone = set(state.drop.get("partitions") or ())
        parts = [p for p in state_parts(lake, state, table) if partition_key(p) in gone]
    logged = {partition_key(r["partition"]): int(r.get("flagged") or 0) for r in state.records
              if r.get("partition")}
    n = 0
    for part in parts:
        if "flags" not in pq.read_schema(part).names:
            n += logged.get(partition_key(part), 0)
            continue
        flags = pc.fill_null(pq.read_table(part, columns=["flags"]).column("flags"), "[]")
        n += int(pc.sum(pc.invert(pc.is_in(flags, value_set=pa.array(["[]", ""]))).cast(pa.int64())).as_py() or 0)
    return n


def live_flags(lake: Lake, state: FileState) -> list[str]:
    """The ``flags`` text of every row of the import's live partitions — not of a partition a drop
    tombstoned, nor of another import of the same content (another statement): what the import
    summary counts per rule (``ingest.focus.validation_report``)."""
    table = KIND_TABLES.get(state.kind)
    if table is None or not state.live:
        return []
    dropped = lake.dropped()
    out: list[str] = []
    for part in state_parts(lake, state, table):
        if partition_key(part) not in dropped:
            out += pq.read_table(part, columns=["flags"]).column("flags").to_pylist()
    return out


def missing_partitions(lake: Lake) -> list[tuple[FileState, str, int]]:
    """The partitions the log's records of live imports name (``partition``) that are not in the
    lake — deleted by hand, lost in a copy or a restore — with the rows each record accepted:
    (import, partition key, rows). A partition a drop tombstoned is not looked for; an import
    read again with ``--replace`` after the loss names it only in records before its drop."""
    dropped = lake.dropped()
    out = []
    for state in states(lake).values():
        if not state.live:
            continue
        for rec in state.records:
            where = rec.get("partition")
            if not where:
                continue
            key = partition_key(where)
            if key not in dropped and not (lake.root / key).exists():
                out.append((state, key, int(rec.get("accepted") or 0)))
    return out


def restored_rows(lake: Lake, keys: Iterable[str]) -> dict[str, int]:
    """Rows of the partitions ``keys`` (``table/source=…/part-<n>``, those a drop wrote for other
    imports: lake/resettle.py) by the import key they belong to, in the log's order."""
    from trainledger.lake.keys import statement_of

    keys = list(keys)
    if not keys:
        return {}
    by_file = {(st.sha256, st.statement or ""): st.import_key for st in states(lake).values() if st.live}
    out: dict[str, int] = {}
    for k in keys:
        path = lake.root / k
        sha = path.parent.name.removeprefix("source=")
        key = by_file.get((sha, statement_of(path)), sha)
        out[key] = out.get(key, 0) + _rows(path)
    return out


def quarantine_remedy(kind: str) -> str:
    """What to do about a quarantined row whose importer gave no specific remedy."""
    return (f"fix the row in the source (or export it again) and import the file again; docs/formats.md"
            f" lists what {kind} expects in each column")


FLAG_REMEDY = ("accepted and in the figures; check the source row (docs/formats.md lists each note)")


__all__ = ["FileState", "flagged_count", "flagged_rows", "history_fields", "live_flags", "missing_partitions",
           "quarantine_remedy", "restored_rows",
           "quarantined_rows", "record_from_lake", "resolve",
           "short_id", "state_parts", "states"]
