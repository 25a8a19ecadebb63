"""``inventory``: an S3 Inventory or OSS inventory report, by its ``manifest.json`` → table
``storage_objects``.

Both providers deliver a ``manifest.json`` (``sourceBucket``, ``fileFormat``, ``fileSchema``,
``files`` [{``key``, ``size``, ``MD5checksum``}], ``creationTimestamp``: S3 in ms, OSS in s) beside data files:
gzip-compressed CSV without a header whose fields are ``fileSchema`` in order (S3: ``Bucket,
Key, Size, LastModifiedDate, ETag, StorageClass, ...``; OSS likewise), or Parquet or ORC with
those fields as snake-case columns (``last_modified_date``; the manifest's ``fileSchema`` is then
a Parquet ``message`` or an ORC ``struct<...>``). Every field name is read in the CSV spelling
(``FIELD_NAMES``), whatever the format. A data file is found under the manifest's directory tree
by its key, or by its name in a ``data/`` directory beside the manifest's (the providers' layout,
``<prefix>/<bucket>/<config>/data/``). S3 writes CSV keys URL-encoded: they are decoded.

Integrity: each data file's MD5 must equal its ``files[].MD5checksum`` and, when a
``manifest.checksum`` lies beside the manifest, the manifest's own MD5 must equal it; a mismatch
stops the import before any row is read, naming the file (a partial or corrupted download).
Timestamps of Parquet / ORC files that carry no zone are UTC (S3 records times in UTC).

Each object becomes a storage row exactly as the ``storage`` importer makes one (class from
the object's tags or the prefix rules, tier from the provider's class, governance flags); the
snapshot date is the manifest's creation date, so successive reports are successive snapshots
(the engine accrues each object's GB-months between them, from 00:00 UTC of each date). A
noncurrent version (charged like the current one: it is stored and billed) or a delete marker is
kept and flagged.

An object's path is ``s3://bucket/key`` or ``oss://bucket/key`` (``model.objpath.canonical``) by
the manifest's provider (``provider_scheme``): S3 names its ``destinationBucket`` by ARN
(``arn:aws:s3:::inv``, ``arn:aws-cn:s3:::``) and writes ``version`` 2016-11-30; OSS names the bare
bucket and writes ``version`` 2019-09-01. A manifest showing neither gives ``bucket/key``. Rules
match either form (their identity drops the scheme).
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
from trainledger.ingest.base import col as column
from trainledger.ingest.convert import stripped
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import content_key, mapping_key
from trainledger.ingest.storage import StorageImporter
from trainledger.ingest.text import sniff

FIELDS = {  # fileSchema name (case-folded, without ``_``) → storage importer column
    "bucket": "bucket",
    "key": "key",
    "size": "size_bytes",
    "lastmodifieddate": "last_modified",
    "storageclass": "storage_class",
}
# S3 Inventory's fields in the CSV spelling (API InventoryConfiguration, OptionalFields; the
# version fields of IncludedObjectVersions = All); Parquet and ORC name them in snake case.
FIELD_NAMES = {n.casefold(): n for n in (
    "Bucket", "Key", "VersionId", "IsLatest", "IsDeleteMarker", "Size", "LastModifiedDate", "ETag",
    "StorageClass", "IsMultipartUploaded", "ReplicationStatus", "EncryptionStatus",
    "ObjectLockRetainUntilDate", "ObjectLockMode", "ObjectLockLegalHoldStatus",
    "IntelligentTieringAccessTier", "BucketKeyStatus", "ChecksumAlgorithm", "ObjectAccessControlList",
    "ObjectOwner")}
FORMATS = ("CSV", "PARQUET", "ORC")


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


def provider_scheme(m: Mapping[str, Any]) -> str | None:
    """``s3`` or ``oss``: the provider whose inventory the manifest ``m`` is (module docstring)."""
    dest, version = str(m.get("destinationBucket") or ""), str(m.get("version") or "")
    if dest.startswith("arn:aws") or version == "2016-11-30":
        return "s3"
    if dest.startswith("acs:oss") or version == "2019-09-01":
        return "oss"
    return None


def field_name(name: str) -> str:
    """A data file's column in the CSV spelling (``last_modified_date`` → ``LastModifiedDate``)."""
    return FIELD_NAMES.get(name.replace("_", "").casefold(), name)


def _digests(path: Path) -> tuple[str, str]:
    """(sha256, md5) of a file, read once in chunks."""
    sha, md5 = hashlib.sha256(), hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            sha.update(chunk)
            md5.update(chunk)
    return sha.hexdigest(), md5.hexdigest()


def check_manifest_checksum(manifest: Path) -> None:
    """``manifest.checksum`` (beside the manifest, when downloaded) is the manifest's MD5."""
    side = manifest.with_name("manifest.checksum")
    if not side.is_file():
        return
    want = side.read_text(encoding="utf-8", errors="replace").strip().split()[0:1]
    got = _digests(manifest)[1]
    if [got] != [w.casefold() for w in want]:
        raise BadInput(f"manifest.checksum says {want[0] if want else '(empty)'}, the manifest's MD5 is"
                       f" {got}: the manifest was changed or cut short", path=str(manifest),
                       remedy="download manifest.json and manifest.checksum again")


def data_files(manifest: Path, m: Mapping[str, Any]) -> list[tuple[Path, str]]:
    """Each listed data file with its sha256, after checking its MD5 against ``MD5checksum``."""
    out = []
    for f in m["files"]:
        src = data_file(manifest, f["key"])
        sha, md5 = _digests(src)
        want = str(f.get("MD5checksum") or "").strip().casefold()
        if want and want != md5:
            raise BadInput(f"data file {src.name} (key {f['key']}) has MD5 {md5}, the manifest lists"
                           f" {want}: a partial or corrupted download", path=str(src),
                           remedy="download that data file again (or the whole inventory report)")
        out.append((src, sha))
    return out


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
    columns = (*StorageImporter.columns, column("scheme", "scheme", convert=stripped))  # the provider's, set by parse

    def identify(self, path: Path) -> bool | str:
        if sniff(path).container == "empty":
            return True  # nothing in it: a valid, empty import
        if path.suffix.lower() != ".json":
            return "it is not an inventory's manifest.json"  # check_file says what it looks like
        try:
            read_manifest(path)
        except BadInput as e:
            return Verdict(getattr(e, "detail", None) or "not an inventory manifest", e.remedy)  # no path, no remedy
        return True

    def _snapshot(self, manifest: Mapping[str, Any]) -> str:
        """The manifest's creation date (UTC): S3 writes ``creationTimestamp`` in milliseconds,
        OSS in seconds (``"1642994594"``, 2022-01-24); a value below 10^11 is seconds (10^11
        ms is 1973, 10^11 s is the year 5138)."""
        ts = manifest.get("creationTimestamp")
        try:
            n = int(ts)
            return datetime.fromtimestamp(n if n < 10**11 else n / 1000, UTC).date().isoformat()
        except (TypeError, ValueError, OverflowError, OSError):
            raise BadInput("the manifest has no creationTimestamp (epoch seconds or ms)",
                           remedy="give the manifest as delivered") from None

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if sniff(path).container == "empty":
            return reading_options(options, self.options_used), {}
        m = read_manifest(path)
        check_manifest_checksum(path)
        h = hashlib.sha256()
        for _src, sha in data_files(path, m):  # streamed; MD5s checked before any row is read
            h.update(bytes.fromhex(sha))
        day = {"snapshot_date": self._snapshot(m), "data_files": h.hexdigest()}
        return {**reading_options(options, self.options_used), **day}, day

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        if sniff(path).container == "empty":
            return
        m = read_manifest(path)
        day = self._snapshot(m)
        scheme = provider_scheme(m)
        schema = [s.strip() for s in str(m["fileSchema"]).split(",")]
        fmt = str(m.get("fileFormat", "CSV")).upper()
        if fmt not in FORMATS:
            raise BadInput(f"{fmt} inventory data files are not read", path=str(path),
                           remedy="configure the inventory to write CSV, Parquet or ORC")
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
                    col = FIELDS.get(name.replace("_", "").casefold())
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
                if scheme:
                    values["scheme"] = scheme  # storage normalise: path = canonical(bucket, key, scheme)
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
    if fmt in ("PARQUET", "ORC"):
        for batch in _batches(src, fmt):
            batch = _utc(batch)
            names = [field_name(n) for n in batch.schema.names]
            for d in batch.to_pylist():
                yield json.dumps(d, default=str, ensure_ascii=False), dict(
                    zip(names, d.values(), strict=True))
        return
    with open(src, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    names = [field_name(s) for s in schema]
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
            yield line.rstrip("\r\n"), dict(zip(names, fields, strict=True))


def _batches(src: Path, fmt: str) -> Iterator[Any]:
    """Record batches of a Parquet or ORC file, one row group / stripe at a time."""
    try:
        if fmt == "PARQUET":
            import pyarrow.parquet as pq

            yield from pq.ParquetFile(src).iter_batches(batch_size=8192)
            return
        import pyarrow.orc as orc

        f = orc.ORCFile(src)
        for i in range(f.nstripes):
            yield f.read_stripe(i)
    except (OSError, ValueError) as e:  # pyarrow.ArrowInvalid is a ValueError
        raise BadInput(f"not a readable {fmt.title()} file: {e}", path=str(src),
                       remedy="check the manifest's fileFormat, or download the data file again") from None


def _utc(batch: Any) -> Any:
    """Zone-less timestamps as UTC, in microseconds (Python datetimes)."""
    import pyarrow as pa

    cols, changed = [], False
    for field, col in zip(batch.schema, batch.columns, strict=True):
        if pa.types.is_timestamp(field.type):
            col = col.cast(pa.timestamp("us", tz=field.type.tz or "UTC"), safe=False)
            changed = True
        cols.append(col)
    return pa.RecordBatch.from_arrays(cols, names=batch.schema.names) if changed else batch
