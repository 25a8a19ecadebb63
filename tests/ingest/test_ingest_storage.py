"""The storage importer: inventory rows, prefix rules, governance flags."""

from __future__ import annotations

import json

import pytest
from ingest_helpers import check_golden, run, snapshot

from trainledger.errors import BadInput
from trainledger.ingest import import_files

INVENTORY = (
    "bucket,key,size_bytes,storage_class,tier,owner,purpose,retention_until,review_at,"
    "last_modified,snapshot_date,batch\n"
    "ml-data,raw/corpus-v3/part-0001.parquet,1073741824,raw_data,standard,alice,pretrain corpus,"
    "2027-12-31,,2026-10-01T08:00:00Z,2026-11-01,\n"
    "ml-data,ckpt/b-2026-07/step-1000/model.pt,53687091200,,infrequent,bob,resume point,,"
    "2026-12-01,2026-11-02T10:00:00+08:00,2026-11-01,b-2026-07\n"
    # no class: the longest prefix rule decides; no owner, purpose or dates: flagged
    "ml-data,ckpt/b-2026-07/step-2000/model.pt,53687091200,,,,,,,,2026-11-01,b-2026-07\n"
    "ml-data,cache/tokenized/shard-1.bin,1000,,,frank,tokenizer cache,,2026-11-15,,2026-11-01,\n"
    # no class and no rule: quarantined
    "ml-data,tmp/scratch.bin,1000,,,carol,scratch,2026-11-30,,,2026-11-01,\n"
    # an S3 storage class is not a trainledger class; a prefix rule covers it: flagged
    "ml-data,eval/b-2026-07/results.json,2048,STANDARD,,dave,eval,,2026-12-01,,2026-11-01,"
    "b-2026-07\n"
    # a negative size: quarantined
    "ml-data,raw/corpus-v3/part-0002.parquet,-5,raw_data,,alice,corpus,2027-12-31,,,2026-11-01,\n"
    # an impossible retention date is flagged; no snapshot date → the import date
    "ml-data,logs/run.log,12,Log,,erin,logs,2026-13-01,,,,\n"
)
PREFIXES = [
    ("ml-data/ckpt/", "checkpoint"),
    ("ml-data/ckpt/b-2026-07/step-2000/", "final_artifact"),
    ("ml-data/cache/", "cache"),
    ("ml-data/eval/", "eval_result"),
]


def test_storage_golden(lake, write):
    result = run(
        "storage",
        write("inventory.csv", INVENTORY),
        lake,
        storage_prefixes=PREFIXES,
        import_date="2026-11-05",
    )
    assert (result.rows_read, result.accepted, result.quarantined) == (8, 6, 2)
    check_golden("storage_inventory", snapshot(lake, "storage", [result]))


def test_missing_owner_and_retention_are_accepted_and_flagged(lake, write):
    run("storage", write("inventory.csv", INVENTORY), lake, storage_prefixes=PREFIXES)
    rows = {r["path"]: r for r in lake.read("storage_objects").to_pylist()}
    flags = json.loads(rows["ml-data/ckpt/b-2026-07/step-2000/model.pt"]["flags"])
    assert {"no_owner", "no_purpose", "no_retention_or_review_date"} <= set(flags)
    assert rows["ml-data/ckpt/b-2026-07/step-2000/model.pt"]["storage_class"] == "final_artifact"


def test_path_column_and_size_alias(lake, write):
    text = "path,size\n/mnt/ckpt/a.pt,10\n"
    result = run(
        "storage", write("ls.csv", text), lake, storage_prefixes=[("/mnt/ckpt/", "checkpoint")]
    )
    assert result.accepted == 1
    (row,) = lake.read("storage_objects").to_pylist()
    assert (row["path"], row["size_bytes"], row["tier"]) == ("/mnt/ckpt/a.pt", 10, "standard")


def test_bad_prefix_rule_is_refused(lake, write):
    with pytest.raises(BadInput, match="prefix rule"):
        import_files(
            "storage",
            [write("ls.csv", "path,size\na,1\n")],
            lake,
            options={"storage_prefixes": [("a", "hot_tier")]},
        )


LISTING = (
    "path,size_bytes,storage_class,owner,purpose,review_at\n"
    "ml-data/ckpt/a.pt,10,checkpoint,bob,resume,2026-12-01\n"
    "ml-data/ckpt/b.pt,20,checkpoint,bob,resume,2026-12-01\n"
)


def test_an_undated_listing_on_another_day_is_a_new_snapshot(lake, write):
    """Without a snapshot_date column a row is a statement about the import date: the same
    listing a month later is a new snapshot, not a duplicate — but the same day it is."""
    nov = run("storage", write("nov.csv", LISTING), lake, import_date="2026-11-01")
    dec = run("storage", write("dec.csv", LISTING + "\n"), lake, import_date="2026-12-01")
    assert (nov.accepted, dec.accepted, dec.duplicates) == (2, 2, 0)
    again = run("storage", write("dec2.csv", LISTING + "\n\n"), lake, import_date="2026-12-01")
    assert (again.accepted, again.duplicates) == (0, 2)
    dates = sorted(str(d) for d in lake.read("storage_objects").column("snapshot_date").to_pylist())
    assert dates == ["2026-11-01", "2026-11-01", "2026-12-01", "2026-12-01"]


def test_a_dated_listing_is_the_same_snapshot_whatever_the_import_date(lake, write):
    dated = LISTING.replace("review_at\n", "review_at,snapshot_date\n").replace(
        "2026-12-01\n", "2026-12-01,2026-11-01\n"
    )
    run("storage", write("a.csv", dated), lake, import_date="2026-11-01")
    later = run("storage", write("b.csv", dated + "\n"), lake, import_date="2026-12-24")
    assert (later.accepted, later.duplicates) == (0, 2)


@pytest.mark.parametrize(
    ("given", "tier"),
    [
        ("STANDARD", "standard"),
        ("INTELLIGENT_TIERING", "standard"),
        ("STANDARD_IA", "infrequent"),
        ("ONEZONE_IA", "infrequent"),
        ("GLACIER_IR", "archive"),
        ("GLACIER", "cold_archive"),
        ("DEEP_ARCHIVE", "deep_archive"),
        ("Standard", "standard"),
        ("IA", "infrequent"),
        ("Archive", "archive"),
        ("ColdArchive", "cold_archive"),
        ("DeepColdArchive", "deep_archive"),
    ],
)
def test_a_provider_storage_class_is_the_tier(lake, write, given, tier):
    text = (
        "bucket,key,size,last_modified_date,storage_class,owner,purpose,review_at\n"
        f"my-bucket,ckpt/run1/a.pt,5368709120,2024-01-01T00:00:00.000Z,{given},al,tr,2024-06-01\n"
    )
    prefixes = [("my-bucket/ckpt/", "checkpoint")]
    r = run("storage", write("s3.csv", text), lake, storage_prefixes=prefixes)
    assert (r.accepted, r.flagged) == (1, 0)
    (row,) = lake.read("storage_objects").to_pylist()
    assert (row["storage_class"], row["tier"]) == ("checkpoint", tier)
    assert row["last_modified"] is not None


def test_a_provider_class_without_a_prefix_rule_is_accepted_as_unknown_saying_so(lake, write):
    """Review 4 H10: an inventory's bytes and tier are known without a rule, what the object is for
    is not — the row is accepted (priced by its tier) with the class ``unknown`` and a flag, not
    quarantined; a value that is neither a class nor a provider class still is."""
    text = "path,size,storage_class\nb/k,1,DEEP_ARCHIVE\nb/j,2,Bogus\n"
    r = run("storage", write("s3.csv", text), lake)
    assert (r.accepted, r.quarantined, r.flagged) == (1, 1, 1)
    (row,) = lake.read("storage_objects").to_pylist()
    assert (row["path"], row["storage_class"], row["tier"]) == ("b/k", "unknown", "deep_archive")
    assert ("storage_class 'DEEP_ARCHIVE' is the provider's class (tier deep_archive): what the object is for is"
            " unknown, no prefix rule matches") in json.loads(row["flags"])
    (q,) = lake.quarantine("storage", r.sha256)
    assert "'Bogus' is not one of" in q["reason"] and "prefix rule" in q["remedy"]


def test_a_headerless_s3_inventory_is_refused_with_the_header_to_add(lake, write):
    from trainledger.errors import WrongFileType

    line = '"my-bucket","ckpt/run1/step100.pt","1048576","2024-01-01T00:00:00.000Z","abc","STANDARD"\n'
    with pytest.raises(WrongFileType) as e:
        import_files("storage", [write("s3inv.csv", line)], lake)
    assert "no header line" in str(e.value)
    assert "bucket,key,size,last_modified_date,e_tag,storage_class" in (e.value.remedy or "")
