"""``inventory``: an S3 Inventory or OSS inventory report, by its ``manifest.json`` → table
``storage_objects``.

Both providers deliver a ``manifest.json`` (``sourceBucket``, ``fileFormat``, ``fileSchema``,
``files`` [{``key``, ``size``, ``MD5checksum``}], ``creationTimestamp`` in ms) beside data files
without a header: gzip-compressed CSV whose fields are ``fileSchema`` in order (S3: ``Bucket,
Key, Size, LastModifiedDate, ETag, StorageClass, ...``; OSS likewise), or Parquet with those
column names. A data file is found under the manifest's directory tree by its key, or by its
name in a ``data/`` directory beside the manifest's (the providers' layout,
``<prefix>/<bucket>/<config>/data/``). S3 writes CSV keys URL-encoded: they are decoded.

Each object becomes a storage row exactly as the ``storage`` importer makes one (class from
the object's tags or the prefix rules, tier from the provider's class, governance flags); the
snapshot date is the manifest's creation date, so successive reports are successive snapshots
(the engine accrues each object's GB-months between them). A noncurrent version or a delete
marker is kept and flagged. ORC data files are refused with the remedy (export CSV or Parquet).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Verdict
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import content_key, mapping_key
from trainledger.ingest.storage import StorageImporter
from trainledger.ingest.text import sha256_file, sniff

FIELDS = {  # fileSchema name (case-folded) → storage importer column
    "bucket": "bucket",
    "key": "key",
    "size": "size_bytes",
    "lastmodifieddate": "last_modified",
    "storageclass": "storage_class",
}


def read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadInput(f"not a JSON manifest: {e}", path=str(path),
                       remedy="give the inventory's manifest.json") from None
    if not isinstance(data, dict) or "files" not in data or "fileSchema" not in data:
        raise BadInput("the manifest has no files or fileSchema", path=str(path),
                       remedy="give the inventory's manifest.json as delivered")
    return data


def data_file(manifest: Path, key: str) -> Path:
    """Where the data file ``key`` of ``manifest`` is on this machine."""
    name = key.rsplit("/", 1)[-1]
    for base in (manifest.parent, *manifest.parents):
        if (base / key).is_file():
            return base / key
    for cand in (manifest.parent.parent / "data" / name, manifest.parent / "data" / name,
                 manifest.parent / name):
        if cand.is_file():
            return cand
    raise BadInput(f"data file {key} of the manifest is not here", path=str(manifest),
                   remedy="download the inventory's data/ files beside its manifest")


class InventoryImporter(StorageImporter):
    kind = "inventory"
    table = "storage_objects"
    description = "an S3 / OSS inventory manifest.json"

    def identify(self, path: Path) -> bool | str:
        if sniff(path).container == "empty":
            return True  # nothing in it: a valid, empty import
        if path.suffix.lower() != ".json":
            return "it is not an inventory's manifest.json"  # check_file says what it looks like
        try:
            read_manifest(path)
        except BadInput as e:
            return Verdict(e.args[0] if e.args else "not an inventory manifest", e.remedy)
        return True

    def _snapshot(self, manifest: Mapping[str, Any]) -> str:
        ts = manifest.get("creationTimestamp")
        try:
            return datetime.fromtimestamp(int(ts) / 1000, UTC).date().isoformat()
        except (TypeError, ValueError):
            raise BadInput("the manifest has no creationTimestamp (ms)",
                           remedy="give the manifest as delivered") from None

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if sniff(path).container == "empty":
            return reading_options(options, self.options_used), {}
        m = read_manifest(path)
        h = hashlib.sha256()
        for f in m["files"]:
            h.update(bytes.fromhex(sha256_file(data_file(path, f["key"]))))  # streamed
        day = {"snapshot_date": self._snapshot(m), "data_files": h.hexdigest()}
        return {**reading_options(options, self.options_used), **day}, day

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        if sniff(path).container == "empty":
            return
        m = read_manifest(path)
        day = self._snapshot(m)
        schema = [s.strip() for s in str(m["fileSchema"]).split(",")]
        fmt = str(m.get("fileFormat", "CSV")).upper()
        if fmt not in ("CSV", "PARQUET"):
            raise BadInput(f"{fmt} inventory data files are not read", path=str(path),
                           remedy="configure the inventory to write CSV or Parquet")
        row = 0
        for f in m["files"]:
            src = data_file(path, f["key"])
            for raw, obj in _rows(src, schema, fmt):
                row += 1
                if "__problem__" in obj:
                    yield Record(row, None, f"{src.name}: {raw}", mapping_key({"raw": raw}), {},
                                 None, obj["__problem__"], "check the manifest's fileSchema")
                    continue
                values: dict[str, Any] = {}
                extra: dict[str, Any] = {}
                for name, v in obj.items():
                    col = FIELDS.get(name.casefold())
                    if v in (None, ""):
                        continue
                    if col:
                        values[col] = v
                    else:
                        extra[name] = v
                if "size_bytes" not in values and str(obj.get("IsDeleteMarker")).lower() == "true":
                    values["size_bytes"] = "0"
                if fmt == "CSV" and "key" in values:
                    values["key"] = unquote_plus(str(values["key"]))
                values["snapshot_date"] = day
                key = content_key([mapping_key(obj), "snapshot_date", day])
                yield Record(row, None, f"{src.name}: {raw}", key, values, extra)

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        out = super().normalise(values, record, ctx)
        extra = record.extra or {}
        if str(extra.get("IsDeleteMarker", "")).lower() == "true":
            out["flags"].append("delete marker (no stored bytes)")
        elif str(extra.get("IsLatest", "")).lower() == "false":
            out["flags"].append("noncurrent version (still stored and billed)")
        return out


def _rows(src: Path, schema: list[str], fmt: str) -> Iterator[tuple[str, dict[str, Any]]]:
    if fmt == "PARQUET":
        import pyarrow.parquet as pq

        for batch in pq.ParquetFile(src).iter_batches(batch_size=8192):
            for d in batch.to_pylist():
                yield json.dumps(d, default=str, ensure_ascii=False), {
                    _schema_name(schema, k): v for k, v in d.items()}
        return
    with open(src, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(src, "rb") as fb:
        text = io.TextIOWrapper(fb, encoding="utf-8", newline="")
        for line in text:
            if not line.strip():
                continue
            fields = next(csv.reader([line]))
            if len(fields) != len(schema):
                yield line.rstrip("\r\n"), {"__problem__": f"has {len(fields)} fields, the "
                                             f"manifest's fileSchema has {len(schema)}"}
                continue
            yield line.rstrip("\r\n"), dict(zip(schema, fields, strict=True))


def _schema_name(schema: list[str], name: str) -> str:
    """Parquet inventories name columns in snake case (``last_modified_date``)."""
    folded = name.replace("_", "").casefold()
    return next((s for s in schema if s.casefold() == folded), name)
