"""The lake: immutable partitions, atomic writes, quarantine files, the import log."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from trainledger.errors import BadInput, NotFound
from trainledger.ingest.schemas import KIND_TABLES, TABLES
from trainledger.lake import Lake, PartitionExists

SHA_A, SHA_B = "a" * 64, "b" * 64


def _invoice_rows(n: int, sha: str) -> pa.Table:
    rows = [
        {
            "invoice_id": f"I{i}",
            "vendor": "v",
            "date": None,
            "amount": "1.00",
            "currency": "CNY",
            "stage": "delivery",
            "description": "",
            "batch": None,
            "source_sha256": sha,
            "row": i,
            "row_hash": f"h{i}",
            "flags": "[]",
        }
        for i in range(1, n + 1)
    ]
    import datetime as dt

    for r in rows:
        r["date"] = dt.date(2026, 1, 1)
    return pa.Table.from_pylist(rows, schema=TABLES["external_services"])


def test_read_without_partitions_is_empty_with_the_schema(lake):
    for table, schema in TABLES.items():
        t = lake.read(table)
        assert t.num_rows == 0 and t.schema == schema


def test_unknown_table_is_not_found(lake):
    with pytest.raises(NotFound):
        lake.read("nothing_here")


def test_write_then_read_all_partitions(lake):
    lake.write_partition("external_services", SHA_A, _invoice_rows(2, SHA_A))
    lake.write_partition("external_services", SHA_B, _invoice_rows(3, SHA_B))
    t = lake.read("external_services")
    assert t.num_rows == 5 and t.schema == TABLES["external_services"]
    assert sorted(set(t.column("source_sha256").to_pylist())) == [SHA_A, SHA_B]
    assert lake.partition_path("external_services", SHA_A).is_file()
    assert lake.has_source(SHA_A, "invoice") and not lake.has_source("c" * 64, "invoice")


def test_partitions_are_immutable(lake):
    path = lake.write_partition("external_services", SHA_A, _invoice_rows(2, SHA_A))
    before = path.read_bytes()
    with pytest.raises(PartitionExists):
        lake.write_partition("external_services", SHA_A, _invoice_rows(5, SHA_A))
    assert path.read_bytes() == before
    assert not list((lake.root / ".tmp").iterdir())


def test_a_failed_write_leaves_nothing_behind(lake):
    with pytest.raises(RuntimeError), lake.open_partition("external_services", SHA_A) as w:
        w.write(_invoice_rows(2, SHA_A))
        raise RuntimeError("crash mid-import")
    assert not lake.partition_path("external_services", SHA_A).exists()
    assert not list((lake.root / ".tmp").iterdir())
    assert lake.read("external_services").num_rows == 0


def test_empty_table_still_records_the_source(lake):
    lake.write_partition("external_services", SHA_A, _invoice_rows(0, SHA_A))
    assert lake.has_source(SHA_A, "invoice")
    assert lake.read("external_services").num_rows == 0


def test_unique_by_drops_repeats_keeping_the_first(lake):
    t = _invoice_rows(4, SHA_A)
    hashes = pa.array(["x", "y", "x", "y"])
    t = t.set_column(t.schema.get_field_index("row_hash"), "row_hash", hashes)
    with lake.open_partition("external_services", SHA_A) as w:
        w.write(t)
        committed = w.commit(unique_by="row_hash")
    assert (committed.rows, committed.duplicates) == (2, 2)
    assert lake.read("external_services").column("row").to_pylist() == [1, 2]


def test_unique_by_across_row_groups(lake, monkeypatch):
    import trainledger.lake as lake_module

    monkeypatch.setattr(lake_module, "ROW_GROUP", 2)
    t = _invoice_rows(6, SHA_A)
    hashes = pa.array(["a", "b", "c", "a", "d", "c"])
    t = t.set_column(t.schema.get_field_index("row_hash"), "row_hash", hashes)
    with lake.open_partition("external_services", SHA_A) as w:
        for batch in t.to_batches(max_chunksize=1):
            w.write(batch)
        committed = w.commit(unique_by="row_hash")
    assert (committed.rows, committed.duplicates) == (4, 2)
    assert lake.read("external_services").column("row").to_pylist() == [1, 2, 3, 5]
    assert not list((lake.root / ".tmp").iterdir())


def test_bad_names_are_refused(lake):
    with pytest.raises(ValueError):
        lake.write_partition("../etc", SHA_A, _invoice_rows(1, SHA_A))
    with pytest.raises(ValueError):
        lake.partition_path("jobs", "not-a-sha")
    with pytest.raises(BadInput):
        lake.has_source(SHA_A, "excel")


def test_quarantine_files(lake):
    recs = [{"file": "f.csv", "row": 3, "reason": "bad", "raw": "x,y"}]
    p1 = lake.write_quarantine("focus", SHA_A, recs)
    assert p1.name == f"{SHA_A}.jsonl"
    assert [json.loads(line) for line in p1.read_text().splitlines()] == recs
    assert lake.write_quarantine("focus", SHA_A, recs) == p1  # identical: reused
    p2 = lake.write_quarantine("focus", SHA_A, recs + recs)
    assert p2.name == f"{SHA_A}.2.jsonl" and p1.read_text().count("\n") == 1
    assert lake.quarantine("focus", SHA_A) == recs


def test_import_log_round_trip_and_torn_last_line(lake):
    lake.log_import({"kind": "focus", "sha256": SHA_A, "rows_read": 3})
    lake.log_import({"kind": "slurm", "sha256": SHA_B, "rows_read": 1})
    with open(lake.root / "imports.jsonl", "a") as f:
        f.write('{"kind": "to')  # a crash mid-append
    assert [r["kind"] for r in lake.imports()] == ["focus", "slurm"]


def test_every_kind_has_a_table():
    assert set(KIND_TABLES.values()) == set(TABLES)


def test_old_partitions_are_conformed_to_a_wider_schema(lake):
    narrow = _invoice_rows(1, SHA_A).drop_columns(["batch"])
    lake.write_partition(
        "external_services", SHA_A, narrow.append_column("batch", pa.nulls(1, pa.string()))
    )
    assert lake.read("external_services").column("batch").to_pylist() == [None]


def test_lake_root_is_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert Lake("lake").root == tmp_path / "lake"
