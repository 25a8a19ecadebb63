"""S3 Inventory reports in ORC (and Parquet, CSV) by their manifest.json, with MD5 checks.

Written by the test with pyarrow, in the layout and field names AWS documents:
* manifest location and ``manifest.checksum`` (the MD5 of manifest.json):
  https://docs.aws.amazon.com/AmazonS3/latest/userguide/storage-inventory-location.md
  (``destination-prefix/source-bucket/config-ID/YYYY-MM-DDTHH-MMZ/manifest.json``, data files in
  ``.../config-ID/data/``; ``files[]`` = {``key``, ``size``, ``MD5checksum``}; ``fileFormat`` CSV,
  Parquet or ORC; for ORC the ``fileSchema`` is ``struct<bucket:string,key:string,...>``);
* fields: https://docs.aws.amazon.com/AmazonS3/latest/API/API_InventoryConfiguration.html
  (OptionalFields Size, LastModifiedDate, StorageClass, ETag, ...; VersionId, IsLatest and the
  delete marker when IncludedObjectVersions = All). Columnar files name them in snake case.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import textwrap
from datetime import UTC, date, datetime
from decimal import Decimal

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest
from tests.ingest.ingest_helpers import run

from trainledger.errors import BadInput

DAY1, DAY2 = 1793577600000, 1794182400000  # 2026-11-02, 2026-11-09 (ms)
RULES = [{"prefix": "llm-ckpt/runs/", "storage_class": "checkpoint", "owner": "alice",
          "purpose": "resume pretrain", "retention_days": 30}]
ORC_SCHEMA = ("struct<bucket:string,key:string,version_id:string,is_latest:boolean,"
              "is_delete_marker:boolean,size:bigint,last_modified_date:timestamp,e_tag:string,"
              "storage_class:string>")
OBJECTS = [  # bucket, key, version, latest, delete marker, size, modified, etag, class
    ("llm-ckpt", "runs/r1/step=1000/model.pt", "v2", True, False, 100 * 2**30,
     datetime(2026, 11, 1, 10), "0cc175b9c0f1b6a831c399e269772661", "STANDARD"),
    ("llm-ckpt", "runs/r1/step=500/model.pt", "v1", False, False, 50 * 2**30,
     datetime(2026, 10, 30, 10), "4a8a08f09d37b73795649038408b5f33", "STANDARD_IA"),
    ("llm-ckpt", "runs/r1/tmp.bin", "v3", True, True, None, datetime(2026, 11, 1, 12), None, None),
]
NAMES = ("bucket", "key", "version_id", "is_latest", "is_delete_marker", "size",
         "last_modified_date", "e_tag", "storage_class")


def _table(objects) -> pa.Table:
    cols = list(zip(*objects, strict=True))
    types = (pa.string(), pa.string(), pa.string(), pa.bool_(), pa.bool_(), pa.int64(),
             pa.timestamp("ms"), pa.string(), pa.string())
    return pa.table({n: pa.array(c, t) for n, c, t in zip(NAMES, cols, types, strict=True)})


def report(tmp_path, fmt: str, day: int, objects=OBJECTS, stamp="2026-11-02T01-00Z",
           parts: int = 1):
    """An S3 Inventory report as delivered: data files in data/, the manifest in <stamp>/."""
    root = tmp_path / "inv" / "llm-ckpt" / "cfg1"
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / stamp).mkdir(exist_ok=True)
    files = []
    for i in range(parts):
        chunk = objects[i::parts]
        ext = {"ORC": "orc", "Parquet": "parquet", "CSV": "csv.gz"}[fmt]
        data = root / "data" / f"{stamp}-{i}.{ext}"
        if fmt == "ORC":
            orc.write_table(_table(chunk), data)
        elif fmt == "Parquet":
            pq.write_table(_table(chunk), data)
        else:
            lines = "".join(",".join(f'"{"" if v is None else _csv(v)}"' for v in o) + "\n"
                            for o in chunk)
            data.write_bytes(gzip.compress(lines.encode(), mtime=0))
        files.append({"key": f"inv/llm-ckpt/cfg1/data/{data.name}", "size": data.stat().st_size,
                      "MD5checksum": hashlib.md5(data.read_bytes()).hexdigest()})
    schema = {"ORC": ORC_SCHEMA, "Parquet": "message s3.inventory { required binary bucket (UTF8); }",
              "CSV": "Bucket, Key, VersionId, IsLatest, IsDeleteMarker, Size, LastModifiedDate,"
                     " ETag, StorageClass"}[fmt]
    manifest = {"sourceBucket": "llm-ckpt", "destinationBucket": "arn:aws:s3:::inv",
                "version": "2016-11-30", "creationTimestamp": str(day), "fileFormat": fmt,
                "fileSchema": schema, "files": files}
    path = root / stamp / "manifest.json"
    path.write_text(json.dumps(manifest, indent=2))
    (root / stamp / "manifest.checksum").write_text(hashlib.md5(path.read_bytes()).hexdigest() + "\n")
    return path


def _csv(v) -> str:
    if isinstance(v, datetime):
        return v.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    if isinstance(v, bool):
        return str(v).lower()
    return str(v).replace("=", "%3D")


@pytest.mark.parametrize("fmt", ["ORC", "Parquet", "CSV"])
def test_every_format_gives_the_same_objects(lake, tmp_path, fmt):
    res = run("inventory", report(tmp_path, fmt, DAY1, parts=2), lake, storage_prefixes=RULES)
    # the delete marker has no size: kept as 0 bytes and flagged, never dropped
    assert (res.rows_read, res.accepted, res.quarantined) == (3, 3, 0)
    rows = {r["path"]: r for r in lake.read("storage_objects").to_pylist()}
    ck = rows["s3://llm-ckpt/runs/r1/step=1000/model.pt"]
    assert (ck["size_bytes"], ck["storage_class"], ck["tier"], ck["owner"]) == (
        100 * 2**30, "checkpoint", "standard", "alice")
    assert ck["last_modified"] == datetime(2026, 11, 1, 10, tzinfo=UTC)  # zone-less ORC time: UTC
    assert ck["snapshot_date"] == date(2026, 11, 2) and ck["retention_until"] == date(2026, 12, 2)
    assert not any("no offset" in f for f in json.loads(ck["flags"]))
    old = rows["s3://llm-ckpt/runs/r1/step=500/model.pt"]
    assert old["tier"] == "infrequent" and any("noncurrent" in f for f in json.loads(old["flags"]))
    marker = rows["s3://llm-ckpt/runs/r1/tmp.bin"]
    assert marker["size_bytes"] == 0 and any("delete marker" in f for f in json.loads(marker["flags"]))


def test_orc_and_csv_reports_of_the_same_objects_are_equal_rows(lake, tmp_path):
    run("inventory", report(tmp_path / "a", "ORC", DAY1), lake, storage_prefixes=RULES)
    a = sorted((r["path"], r["size_bytes"], r["tier"], r["last_modified"])
               for r in lake.read("storage_objects").to_pylist())
    from trainledger.lake import Lake

    other = Lake(tmp_path / "lake2")
    run("inventory", report(tmp_path / "b", "CSV", DAY1), other, storage_prefixes=RULES)
    b = sorted((r["path"], r["size_bytes"], r["tier"], r["last_modified"])
               for r in other.read("storage_objects").to_pylist())
    assert a == b and len(a) == 3


def test_a_data_file_whose_md5_differs_stops_the_import_naming_it(lake, tmp_path):
    m = report(tmp_path, "ORC", DAY1, parts=2)
    data = m.parent.parent / "data" / "2026-11-02T01-00Z-1.orc"
    data.write_bytes(data.read_bytes()[:-7])  # a download cut short
    with pytest.raises(BadInput) as e:
        run("inventory", m, lake, storage_prefixes=RULES)
    assert "2026-11-02T01-00Z-1.orc" in str(e.value) and "MD5" in str(e.value)
    assert "download" in (e.value.remedy or "")
    assert lake.read("storage_objects").num_rows == 0  # nothing written, not even file 0's rows


def test_a_changed_manifest_fails_its_checksum(lake, tmp_path):
    m = report(tmp_path, "ORC", DAY1)
    m.write_text(m.read_text().replace('"version"', '"Version"'))
    with pytest.raises(BadInput) as e:
        run("inventory", m, lake, storage_prefixes=RULES)
    assert "manifest.checksum" in str(e.value)


def test_a_file_that_is_not_orc_is_a_clear_error(lake, tmp_path):
    m = report(tmp_path, "ORC", DAY1)
    data = m.parent.parent / "data" / "2026-11-02T01-00Z-0.orc"
    data.write_bytes(b"not an orc file at all")
    manifest = json.loads(m.read_text())
    manifest["files"][0]["MD5checksum"] = hashlib.md5(data.read_bytes()).hexdigest()
    m.write_text(json.dumps(manifest))
    (m.parent / "manifest.checksum").unlink()
    with pytest.raises(BadInput) as e:
        run("inventory", m, lake, storage_prefixes=RULES)
    assert "Orc" in str(e.value) and "2026-11-02T01-00Z-0.orc" in str(e.value.path)


@pytest.mark.parametrize("fmt", ["ORC", "Parquet"])
def test_successive_columnar_reports_give_gib_months(lake, tmp_path, fmt):
    """Two weekly reports of one 100 GiB checkpoint written 2026-11-01 10:00Z: the engine charges
    the 14 h before the first report (its date 11-02 is 00:00 UTC) and the 7 days between the
    reports."""
    from tests.engine.factories import CONFIG, T0, price_lookup

    from trainledger import workspace
    from trainledger.engine import Facts, attribute
    from trainledger.engine.assets import DAYS_PER_MONTH

    one = OBJECTS[:1]
    run("inventory", report(tmp_path, fmt, DAY1, one), lake, storage_prefixes=RULES)
    run("inventory", report(tmp_path, fmt, DAY2, one, stamp="2026-11-09T01-00Z"), lake,
        storage_prefixes=RULES)
    again = run("inventory", report(tmp_path, fmt, DAY2, one, stamp="2026-11-09T01-00Z"), lake,
                storage_prefixes=RULES)
    assert again.duplicates == 1  # the same report twice is one snapshot
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    facts = Facts(storage_objects=tuple(lake.read("storage_objects").to_pylist()))
    result = attribute(facts, workspace.load(root), price_lookup, T0.date())
    qty = sorted(ln.quantity for ln in result.lines if ln.category == "storage")
    assert [q.quantize(Decimal("0.000001")) for q in qty] == [
        Decimal("1.917808"),  # 100 GiB × 14 h / 730 h
        Decimal("23.013699")]  # 100 GiB × 168 h / 730 h
    assert qty[1] == 100 * Decimal(7) / DAYS_PER_MONTH
