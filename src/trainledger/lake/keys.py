"""Import keys: which import of a file a line of the import log belongs to.

An import is a file's content read as one *statement* (``settle``: what its rows state besides
the content, e.g. ``--set vc=…``). Its key (``import_key``; the id ``imports list`` shows is its
first 12 hex digits) is the content hash for the statement the file's first import made, and a
hash of (kind, content, statement) for another. A log line written before lines recorded their
``statement`` takes its partition's (Parquet metadata), else that of a line with the same
identity, else "". A drop line names the ``statement`` and ``import_key`` it dropped; one without
them (an earlier version's) dropped every import of its file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from trainledger.lake.settle import partition_meta

if TYPE_CHECKING:
    from trainledger.lake.store import Lake

DROP = "drop"  # the ``action`` of a drop line (store.DROP)
_SHA_RE = re.compile(r"^[0-9a-f]{64}$")


def statement_of(part: Path) -> str:
    """The statement a partition records in its metadata ("" when it records none)."""
    meta = partition_meta(pq.read_schema(part))
    return str((meta or {}).get("statement") or "")


def import_key(kind: str, sha256: str, statement: str, first: str | None) -> str:
    """The key (64 hex digits) of the import of the file ``sha256`` as ``kind`` that makes
    ``statement``: the content hash itself for the statement the file's first import made
    (``first``; None: this is the first), so every id stored before imports had their own keys
    stays the same; for any other statement (the same file said of another ``--set vc=…``, an
    undated inventory imported again another day) a hash of (kind, content hash, statement) —
    its own import, with its own counts and drop."""
    if first is None or statement == first:
        return sha256
    text = json.dumps({"kind": kind, "sha256": sha256, "statement": statement}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def keyed_events(lake: Lake) -> list[tuple[dict[str, Any], str, str | None]]:
    """Every line of the import log with (the key of the import it belongs to, the statement of
    that import) — for a drop line, the statement it dropped (None: an old drop line, of every
    import of its file; its key is then the content hash)."""
    events = lake.events()
    by_identity: dict[str, str] = {}
    for rec in events:
        if rec.get("action") != DROP and rec.get("identity") and (
                (st := _record_statement(lake, rec)) is not None):
            by_identity.setdefault(str(rec["identity"]), st)
    first: dict[tuple[Any, Any], str] = {}
    out: list[tuple[dict[str, Any], str, str | None]] = []
    for rec in events:
        kind, sha = rec.get("kind"), rec.get("sha256")
        if not (isinstance(kind, str) and isinstance(sha, str) and _SHA_RE.match(sha)):
            continue
        if rec.get("action") == DROP:
            st = rec.get("statement")
            out.append((rec, str(rec.get("import_key") or sha), None if st is None else str(st)))
            continue
        st = _record_statement(lake, rec)
        if st is None:
            st = by_identity.get(str(rec.get("identity") or ""), "")
        key = import_key(kind, sha, st, first.get((kind, sha)))
        first.setdefault((kind, sha), st)
        out.append((rec, key, st))
    return out


def key_for(lake: Lake, kind: str, sha256: str, statement: str) -> str:
    """The key the import of ``sha256`` as ``kind`` making ``statement`` has (or will have)."""
    for rec, _key, st in keyed_events(lake):
        if rec.get("action") != DROP and rec.get("kind") == kind and rec.get("sha256") == sha256:
            return import_key(kind, sha256, statement, st)
    return sha256


def _record_statement(lake: Lake, rec: Mapping[str, Any]) -> str | None:
    if "statement" in rec:
        return str(rec.get("statement") or "")
    where = rec.get("partition")
    if where:
        part = lake.root / "/".join(Path(where).parts[-3:])  # store.partition_key
        with contextlib.suppress(OSError, pa.ArrowException):
            return statement_of(part)
    return None
