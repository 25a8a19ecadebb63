"""Issue 8 K8: one form for an object's path, whichever way a source names it.

An OSS inventory report exactly as Alibaba Cloud documents it (manifest.json: ``version``
2019-09-01, ``creationTimestamp`` in epoch *seconds* ``"1642994594"``, a bare ``destinationBucket``;
data: gzip CSV without a header, every field quoted, URL-encoded keys, classes ``Standard`` /
``IA``) is stored as ``oss://bucket/key`` and matched by rules written ``oss://bucket/…`` or
``bucket/…``; a listing with ``bucket`` and ``key`` columns matches a rule written with a scheme;
an attribution rule on a storage path and successive snapshots compare the same identities."""

from __future__ import annotations

import gzip
import hashlib
import json
from datetime import UTC, date, datetime

from tests.ingest.ingest_helpers import run

from trainledger.engine.assets import held_intervals
from trainledger.engine.rules import matcher
from trainledger.model.objpath import canonical, identity, under
from trainledger.workspace import Rule

OSS_SCHEMA = "Bucket, Key, Size, StorageClass, LastModifiedDate, ETag, IsMultipartUploaded, EncryptionStatus"
OSS_LINES = [
    '"train-ckpt","ckpt/run%201/step-100.pt","1073741824","Standard","2022-01-20T08:00:00.000Z",'
    '"5B3F5A2C9E1D4B7A8C6D0E1F2A3B4C5D","false","false"\n',
    '"train-ckpt","raw/shard-0001.tar","2147483648","IA","2021-12-25T10:30:00.000Z",'
    '"0CC175B9C0F1B6A831C399E269772661","true","false"\n',
]


def oss_report(tmp_path, lines=OSS_LINES, ts="1642994594"):
    """dest/prefix/<src bucket>/<inventory id>/{YYYY-MM-DDTHH-MMZ/manifest.json, data/<uuid>.csv.gz}."""
    root = tmp_path / "destbucket" / "inv" / "train-ckpt" / "daily"
    (root / "data").mkdir(parents=True)
    (root / "2022-01-24T03-23Z").mkdir()
    data = root / "data" / "a1574226-b5e5-40ee-91df-356845777c04.csv.gz"
    data.write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
    manifest = {
        "creationTimestamp": ts, "destinationBucket": "destbucket", "fileFormat": "CSV",
        "fileSchema": OSS_SCHEMA,
        "files": [{"MD5checksum": hashlib.md5(data.read_bytes()).hexdigest().upper(),
                   "key": f"inv/train-ckpt/daily/data/{data.name}", "size": data.stat().st_size}],
        "sourceBucket": "train-ckpt", "version": "2019-09-01",
    }
    path = root / "2022-01-24T03-23Z" / "manifest.json"
    path.write_text(json.dumps(manifest, indent=4))
    return path


def test_an_oss_inventory_is_stored_as_oss_uris_and_matched_by_rules_either_way(lake, tmp_path):
    rules = [{"prefix": "oss://train-ckpt/ckpt/", "storage_class": "checkpoint", "owner": "li.na"},
             {"prefix": "train-ckpt/raw/", "storage_class": "raw_data"}]
    res = run("inventory", oss_report(tmp_path), lake, storage_prefixes=rules)
    assert (res.rows_read, res.accepted, res.quarantined) == (2, 2, 0)
    rows = {r["path"]: r for r in lake.read("storage_objects").to_pylist()}
    assert sorted(rows) == ["oss://train-ckpt/ckpt/run 1/step-100.pt", "oss://train-ckpt/raw/shard-0001.tar"]
    ck, raw = rows["oss://train-ckpt/ckpt/run 1/step-100.pt"], rows["oss://train-ckpt/raw/shard-0001.tar"]
    assert (ck["storage_class"], ck["tier"], ck["owner"]) == ("checkpoint", "standard", "li.na")
    assert (raw["storage_class"], raw["tier"]) == ("raw_data", "infrequent")
    # OSS's creationTimestamp is in seconds: 1642994594 is 2022-01-24 03:23 UTC (not 1970-01-20)
    assert ck["snapshot_date"] == raw["snapshot_date"] == date(2022, 1, 24)


def test_an_s3_style_timestamp_in_ms_still_reads(lake, tmp_path):
    run("inventory", oss_report(tmp_path, ts="1642994594000"), lake,
        storage_prefixes=[["train-ckpt/", "checkpoint"]])
    assert {r["snapshot_date"] for r in lake.read("storage_objects").to_pylist()} == {date(2022, 1, 24)}


def test_a_bucket_key_listing_matches_a_schemed_rule_and_a_uri_listing_a_bare_one(lake, tmp_path):
    listing = tmp_path / "listing.csv"
    listing.write_text("bucket,key,size,snapshot_date\n"
                       "train-ckpt,ckpt/a.pt,10,2026-11-30\n"
                       "train-logs,run-a/log.txt,5,2026-11-30\n")
    uris = tmp_path / "uris.csv"
    uris.write_text("path,size_bytes,snapshot_date\nOSS://train-ckpt/ckpt/b.pt,20,2026-11-30\n"
                    "s3a://train-logs/run-b/log.txt,7,2026-11-30\n")
    rules = [["oss://train-ckpt/ckpt/", "checkpoint"], ["train-logs/", "log"]]
    for f in (listing, uris):
        res = run("storage", f, lake, storage_prefixes=rules)
        assert (res.accepted, res.quarantined) == (2, 0), res
    got = sorted((r["path"], r["storage_class"]) for r in lake.read("storage_objects").to_pylist())
    assert got == [("oss://train-ckpt/ckpt/b.pt", "checkpoint"), ("s3://train-logs/run-b/log.txt", "log"),
                   ("train-ckpt/ckpt/a.pt", "checkpoint"), ("train-logs/run-a/log.txt", "log")]


def test_the_longest_rule_wins_whatever_its_scheme(lake, tmp_path):
    listing = tmp_path / "listing.csv"
    listing.write_text("bucket,key,size,snapshot_date\nb,ckpt/final/w.pt,10,2026-11-30\n")
    # by the identity's length: b/ckpt/fin (10) is longer than oss://b/ckpt/ (b/ckpt/, 7)
    run("storage", listing, lake, storage_prefixes=[["oss://b/ckpt/", "checkpoint"],
                                                     ["b/ckpt/fin", "final_artifact"]])
    assert lake.read("storage_objects").to_pylist()[0]["storage_class"] == "final_artifact"


def test_an_attribution_rule_on_a_storage_path_matches_either_form():
    m = matcher([Rule("ck", "storage", "path", "prefix", "oss://train-ckpt/b1/", "b1"),
                 Rule("one", "storage", "path", "exact", "train-ckpt/b2/final.pt", "b2")], ["b1", "b2"])
    assert m.match("storage", {"path": "train-ckpt/b1/step-1.pt"}) == ("b1", "ck")
    assert m.match("storage", {"path": "oss://train-ckpt/b2/final.pt"}) == ("b2", "one")
    assert m.match("storage", {"path": "train-ckpt/b3/x"})[0] is None


def test_two_snapshots_of_one_object_named_two_ways_are_one_object():
    """The second snapshot pays from the first, not again from the object's write."""
    def row(n, path, snap):
        return {"source_sha256": "s", "row": n, "path": path, "snapshot_date": snap,
                "last_modified": datetime(2026, 10, 1, tzinfo=UTC)}

    held = held_intervals([row(1, "train-ckpt/x.pt", date(2026, 11, 1)),
                           row(2, "oss://train-ckpt/x.pt", date(2026, 12, 1))], date(2026, 12, 31))
    assert held[("s", 1)][0] == datetime(2026, 10, 1, tzinfo=UTC)
    assert held[("s", 2)][0] == datetime(2026, 11, 1, tzinfo=UTC)


def test_the_canonical_form():
    assert canonical(bucket="b", key="k/x", scheme="oss") == "oss://b/k/x"
    assert canonical(bucket="b", key="k/x") == "b/k/x"
    assert canonical("S3N://b/k") == "s3://b/k" and canonical(" oss://b/k ") == "oss://b/k"
    assert canonical(bucket="b", key="oss://b/k") == "oss://b/k"  # a key that is already a URI
    assert identity("oss://b/k") == identity("b/k") == identity("/b/k") == "b/k"
    assert under("s3://b/ckpt/x", "b/ckpt/") and under("b/ckpt/x", "oss://b/ckpt/") and not under("b/c", "b/ckpt/")
