"""Object-store inventories: S3 Inventory and OSS inventory reports by their manifest.json
(fields as the providers document them: sourceBucket, fileFormat, fileSchema, files[].key,
creationTimestamp), CSV (gzip, no header, URL-encoded S3 keys) or Parquet; tags and path rules
for owner / purpose / retention; successive reports are successive snapshots."""

from __future__ import annotations

import gzip
import hashlib
import json
from datetime import date

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.errors import WrongFileType
from trainledger.ingest import import_files

S3_SCHEMA = "Bucket, Key, Size, LastModifiedDate, ETag, StorageClass, IsLatest, IsDeleteMarker"
DAY1, DAY2 = 1793577600000, 1794182400000  # 2026-11-02, 2026-11-09 (ms)
RULES = [
    {"prefix": "llm-ckpt/runs/", "storage_class": "checkpoint", "owner": "alice",
     "purpose": "resume pretrain", "retention_days": 30},
    {"prefix": "llm-ckpt/raw/", "storage_class": "raw_data"},
]


def s3_report(tmp_path, day, lines, name="2026-11-02T01-00Z"):
    root = tmp_path / "inv" / "llm-ckpt" / "cfg1"
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / name).mkdir(exist_ok=True)
    data = root / "data" / f"{name}.csv.gz"
    data.write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    manifest = {
        "sourceBucket": "llm-ckpt", "destinationBucket": "arn:aws:s3:::inv",
        "version": "2016-11-30", "creationTimestamp": str(day), "fileFormat": "CSV",
        "fileSchema": S3_SCHEMA,
        "files": [{"key": f"inv/llm-ckpt/cfg1/data/{name}.csv.gz", "size": data.stat().st_size,
                   "MD5checksum": hashlib.md5(data.read_bytes()).hexdigest()}],
    }
    path = root / name / "manifest.json"
    path.write_text(json.dumps(manifest))
    return path


LINES = [
    '"llm-ckpt","runs/r1/step%3D1000/model.pt","107374182400","2026-11-01T10:00:00.000Z",'
    '"0cc175b9c0f1b6a831c399e269772661","STANDARD","true","false"\n',
    '"llm-ckpt","raw/shard-0001.tar","536870912000","2026-10-01T00:00:00.000Z",'
    '"92eb5ffee6ae2fec3ad71c777531578f","DEEP_ARCHIVE","true","false"\n',
    '"llm-ckpt","runs/r1/step%3D500/model.pt","107374182400","2026-10-30T10:00:00.000Z",'
    '"4a8a08f09d37b73795649038408b5f33","STANDARD","false","false"\n',
    '"llm-ckpt","tmp/x","","2026-11-01T10:00:00.000Z","","","true","true"\n',
    '"llm-ckpt","short-row","1"\n',
]


def test_s3_golden(lake, tmp_path):
    res = run("inventory", s3_report(tmp_path, DAY1, LINES), lake, storage_prefixes=RULES)
    check_golden("s3_inventory", snapshot(lake, "inventory", [res]))


def test_s3_rows(lake, tmp_path):
    res = run("inventory", s3_report(tmp_path, DAY1, LINES), lake, storage_prefixes=RULES)
    # tmp/x matches no rule (quarantined, not dropped); the short row does not fit the schema
    assert (res.rows_read, res.accepted, res.quarantined) == (5, 3, 2)
    rows = lake.read("storage_objects").to_pylist()
    ck = rows[0]
    assert ck["path"] == "s3://llm-ckpt/runs/r1/step=1000/model.pt"  # URL-encoded key decoded, S3 by its manifest
    assert (ck["storage_class"], ck["tier"], ck["owner"]) == ("checkpoint", "standard", "alice")
    assert ck["snapshot_date"] == date(2026, 11, 2) and ck["retention_until"] == date(2026, 12, 2)
    assert rows[1]["tier"] == "deep_archive" and "no_owner" in json.loads(rows[1]["flags"])
    assert any("noncurrent" in f for f in json.loads(rows[2]["flags"]))


def test_successive_reports_are_snapshots_and_a_copy_is_a_duplicate(lake, tmp_path):
    first = run("inventory", s3_report(tmp_path, DAY1, LINES[:2]), lake, storage_prefixes=RULES)
    again = run("inventory", s3_report(tmp_path, DAY1, LINES[:2]), lake, storage_prefixes=RULES)
    later = run("inventory", s3_report(tmp_path, DAY2, LINES[:2], name="2026-11-09T01-00Z"),
                lake, storage_prefixes=RULES)
    assert (first.accepted, again.duplicates, later.accepted) == (2, 2, 2)
    days = sorted({r["snapshot_date"] for r in lake.read("storage_objects").to_pylist()})
    assert days == [date(2026, 11, 2), date(2026, 11, 9)]


def test_oss_parquet_report(lake, tmp_path):
    d = tmp_path / "oss" / "bucket" / "inv1"
    (d / "data").mkdir(parents=True)
    pq.write_table(pa.table({
        "bucket": ["ds"], "key": ["processed/v3/part-0.parquet"], "size": [2 ** 30],
        "storage_class": ["IA"], "last_modified_date": ["2026-11-01T00:00:00Z"],
    }), d / "data" / "a.parquet")
    (d / "2026-11-02").mkdir()
    m = d / "2026-11-02" / "manifest.json"
    m.write_text(json.dumps({
        "creationTimestamp": DAY1, "destinationBucket": "inv", "fileFormat": "Parquet",
        "fileSchema": "Bucket, Key, Size, StorageClass, LastModifiedDate",
        "files": [{"key": "bucket/inv1/data/a.parquet", "size": 1,
                   "MD5checksum": hashlib.md5((d / "data" / "a.parquet").read_bytes()).hexdigest()}],
        "sourceBucket": "ds"}))
    res = run("inventory", m, lake,
              storage_prefixes=[{"prefix": "ds/processed/", "storage_class": "processed_data"}])
    row = lake.read("storage_objects").to_pylist()[0]
    assert res.accepted == 1 and row["tier"] == "infrequent" and row["size_bytes"] == 2 ** 30


def test_plain_listing_tags_give_owner_purpose_retention(lake, write):
    text = ("path,size_bytes,tags\n"
            'ckpt/r1/a.pt,100,"owner=bob;purpose=resume;retention_until=2027-01-31;class=checkpoint"\n'
            'ckpt/r1/b.pt,100,{"owner": "carol", "storage_class": "checkpoint"}\n')
    text = text.replace('{"owner": "carol", "storage_class": "checkpoint"}',
                        '"{""owner"": ""carol"", ""storage_class"": ""checkpoint""}"')
    res = run("storage", write("l.csv", text), lake, import_date="2026-11-02")
    rows = lake.read("storage_objects").to_pylist()
    assert res.accepted == 2
    assert (rows[0]["owner"], rows[0]["purpose"], rows[0]["storage_class"]) == (
        "bob", "resume", "checkpoint")
    assert rows[0]["retention_until"] == date(2027, 1, 31)
    assert rows[1]["owner"] == "carol" and "no_purpose" in json.loads(rows[1]["flags"])


def test_a_csv_is_not_a_manifest(lake, write):
    with pytest.raises(WrongFileType) as e:
        import_files("inventory", [write("l.csv", "path,size_bytes\na,1\n")], lake)
    assert "manifest.json" in str(e.value) and "import storage" in str(e.value).replace("`", "")


def test_successive_reports_give_gib_months_in_the_engine(lake, tmp_path):
    """Two weekly S3 reports of one 100 GiB checkpoint: the engine charges the 14 h from its write
    (11-01T10:00Z) to the first report's date (11-02, taken as 00:00 UTC) and then the 7 days
    between the reports."""
    import textwrap
    from decimal import Decimal

    from tests.engine.factories import CONFIG, T0, price_lookup

    from trainledger import workspace
    from trainledger.engine import Facts, attribute
    from trainledger.engine.assets import DAYS_PER_MONTH

    line = ('"llm-ckpt","runs/r1/model.pt","107374182400","2026-11-01T10:00:00.000Z",'
            '"0cc175b9c0f1b6a831c399e269772661","STANDARD","true","false"\n')
    run("inventory", s3_report(tmp_path, DAY1, [line]), lake, storage_prefixes=RULES)
    run("inventory", s3_report(tmp_path, DAY2, [line], name="2026-11-09T01-00Z"), lake,
        storage_prefixes=RULES)
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
