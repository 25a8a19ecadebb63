"""The lake: immutable partitions, atomic writes, quarantine files, the import log."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from trainledger.errors import BadInput, NotFound
from trainledger.ingest import KIND_TABLES
from trainledger.lake import Committed, Lake, PartitionExists, Settle
from trainledger.lake.schemas import TABLES

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
    assert lake.has_source(SHA_A, "external_services") and not lake.has_source("c" * 64, "external_services")


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
    assert lake.has_source(SHA_A, "external_services")
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
    import trainledger.lake.store as lake_module

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


# -- settling a partition against the lake: cross-file duplicates, repeats, conflicts ---------------


def _with(t: pa.Table, column: str, values: list) -> pa.Table:
    i = t.schema.get_field_index(column)
    return t.set_column(i, t.schema.field(i), pa.array(values, t.schema.field(i).type))


def _rows(hashes: list[str], sha: str, *, ids: list[str] | None = None, flags=None) -> pa.Table:
    t = _with(_invoice_rows(len(hashes), sha), "row_hash", hashes)
    if ids is not None:
        t = _with(t, "invoice_id", ids)
    if flags is not None:
        t = _with(t, "flags", flags)
    return t


def _settle(lake, sha: str, t: pa.Table, settle: Settle | None = None, batch: int | None = None):
    with lake.open_partition("external_services", sha) as w:
        for b in t.to_batches(max_chunksize=batch) if batch else [t]:
            w.write(b)
        return w.commit(settle=settle or Settle())


def _flag_lists(lake, sha: str) -> list[tuple[int, list[str]]]:
    t = pq.read_table(lake.partition_path("external_services", sha))
    return [(r["row"], json.loads(r["flags"])) for r in t.to_pylist()]


SHA_C = "c" * 64


def test_settle_drops_what_other_partitions_hold_and_flags_repeats(lake):
    lake.write_partition("external_services", SHA_A, _rows(["x", "y"], SHA_A))
    committed = _settle(
        lake, SHA_B, _rows(["x", "z", "z", "y", "w"], SHA_B, flags=["[]", '["a"]', "[]", "[]", "[]"])
    )
    assert (committed.rows, committed.duplicates) == (3, 2)
    assert _flag_lists(lake, SHA_B) == [
        (2, ["a", "repeated_row_in_file"]),
        (3, ["repeated_row_in_file"]),
        (5, []),
    ]


def test_settle_counts_copies(lake):
    """The lake holds x twice: of a new file's three x, the third is new."""
    lake.write_partition("external_services", SHA_A, _rows(["x", "v"], SHA_A))
    lake.write_partition("external_services", SHA_B, _rows(["x", "u"], SHA_B))
    committed = _settle(lake, SHA_C, _rows(["x", "q", "x", "x", "q"], SHA_C))
    assert (committed.rows, committed.duplicates) == (3, 2)
    assert [r for r, _ in _flag_lists(lake, SHA_C)] == [2, 4, 5]
    assert all(f == ["repeated_row_in_file"] for _, f in _flag_lists(lake, SHA_C))


def test_settle_across_row_groups_keeps_order(lake, monkeypatch):
    import trainledger.lake.store as lake_module

    monkeypatch.setattr(lake_module, "ROW_GROUP", 2)
    lake.write_partition("external_services", SHA_A, _rows(["b", "e"], SHA_A))
    committed = _settle(lake, SHA_B, _rows(list("abcdeafg"), SHA_B), batch=1)
    assert (committed.rows, committed.duplicates) == (6, 2)
    assert _flag_lists(lake, SHA_B) == [
        (1, ["repeated_row_in_file"]),
        (3, []),
        (4, []),
        (6, ["repeated_row_in_file"]),
        (7, []),
        (8, []),
    ]
    assert not list((lake.root / ".tmp").iterdir())


def test_settle_with_every_row_held_publishes_nothing(lake):
    lake.write_partition("external_services", SHA_A, _rows(["x", "y"], SHA_A))
    committed = _settle(lake, SHA_B, _rows(["y", "x"], SHA_B))
    assert committed == Committed(None, 0, 2)
    assert not lake.has_source(SHA_B, "external_services")
    assert not list((lake.root / ".tmp").iterdir())


def test_settle_without_anything_to_do_leaves_rows_as_written(lake):
    lake.write_partition("external_services", SHA_A, _rows(["x"], SHA_A))
    committed = _settle(lake, SHA_B, _rows(["p", "q"], SHA_B))
    assert (committed.rows, committed.duplicates) == (2, 0)
    assert _flag_lists(lake, SHA_B) == [(1, []), (2, [])]


def test_settle_flags_conflicting_keys_here_and_in_the_lake(lake):
    reuse = Settle(conflicts=(("invoice_id", "invoice_id_reused"),))
    lake.write_partition(
        "external_services", SHA_A, _rows(["h1", "h2"], SHA_A, ids=["I1", "I2"])
    )
    committed = _settle(
        lake,
        SHA_B,
        # I1 again with its old content: a duplicate; I1 with new content: reused (lake);
        # I3 twice with two contents: reused (file); I4 twice, same content: a repeat only
        _rows(["h1", "h9", "h3", "h4", "h5", "h5"], SHA_B, ids=["I1", "I1", "I3", "I3", "I4", "I4"]),
        reuse,
    )
    assert (committed.rows, committed.duplicates) == (5, 1)
    assert _flag_lists(lake, SHA_B) == [
        (2, ["invoice_id_reused"]),
        (3, ["invoice_id_reused"]),
        (4, ["invoice_id_reused"]),
        (5, ["repeated_row_in_file"]),
        (6, ["repeated_row_in_file"]),
    ]


def test_rank_counts_earlier_equal_hashes():
    import pyarrow as pa

    from trainledger.ingest.keyset import KeySet, codes

    keys = [h * 32 for h in "3133" "01"]
    assert KeySet(codes(pa.array(keys))).rank.tolist() == [0, 0, 1, 2, 0, 1]


# -- concurrency, import order, the log -------------------------------------------------------------

OVERLAP_HEAD = "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ResourceId\n"


def _bill(n: int) -> str:
    return OVERLAP_HEAD + "".join(
        f"1.00,USD,2024-01-01T00:00:00Z,2024-01-02T00:00:00Z,r{i}\n" for i in range(n)
    )


def _import_slowly(path: str, root: str, barrier, delay: float) -> None:
    """In a child process: import ``path``, with a slow disk between settling and publishing."""
    import time

    import trainledger.lake.store as lake_module
    from trainledger.ingest import import_files

    publish = lake_module._link_into_place

    def slow(tmp, final):
        time.sleep(delay)
        return publish(tmp, final)

    lake_module._link_into_place = slow
    barrier.wait()
    import_files("focus", [path], Lake(root))


@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")  # Python >= 3.12, threads
def test_concurrent_imports_of_overlapping_exports_count_each_row_once(lake, write):
    import multiprocessing
    from decimal import Decimal

    mid, full = write("mid.csv", _bill(500)), write("full.csv", _bill(550))
    mp = multiprocessing.get_context("fork")
    barrier = mp.Barrier(2)
    procs = [
        mp.Process(target=_import_slowly, args=(str(p), str(lake.root), barrier, 0.3))
        for p in (mid, full)
    ]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert [p.exitcode for p in procs] == [0, 0]
    total = sum(Decimal(x) for x in lake.read("bill_lines").column("billed_cost").to_pylist())
    assert total == Decimal("550.00")
    log = {r["path"]: r for r in lake.imports()}
    assert sum(r["accepted"] for r in log.values()) == 550
    assert sum(r["duplicates"] for r in log.values()) == 500


@pytest.mark.filterwarnings("ignore:.*fork.*:DeprecationWarning")
def test_lock_is_reentrant_and_exclusive_across_processes(lake):
    import multiprocessing

    with lake.lock("jobs"), lake.lock("jobs"):
        mp = multiprocessing.get_context("fork")
        child = mp.Process(target=_try_lock, args=(str(lake.root),))
        child.start()
        child.join(10)
        assert child.exitcode == 3  # the child could not take the lock while we hold it
    child = mp.Process(target=_try_lock, args=(str(lake.root),))
    child.start()
    child.join(10)
    assert child.exitcode == 0


def _try_lock(root: str) -> None:
    import fcntl
    import os

    fd = os.open(os.path.join(root, "jobs", ".lock"), os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os._exit(3)
    os._exit(0)


def test_read_returns_partitions_in_import_order(lake, write):
    from trainledger.ingest import import_files

    head = "invoice_id,vendor,date,amount,currency,stage\n"
    files = [write(f"i{n}.csv", head + f"I{n},V,2026-01-01,1.00,CNY,ongoing\n") for n in range(6)]
    results = [import_files("invoice", [p], lake)[0] for p in files]
    assert sorted(r.sha256 for r in results) != [r.sha256 for r in results]  # not hash order
    assert lake.read("external_services").column("invoice_id").to_pylist() == [
        f"I{n}" for n in range(6)
    ]


def test_a_torn_last_log_line_and_the_next_append(lake, write):
    from trainledger.ingest import import_files

    head = "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd\n"
    a = write("a.csv", head + "1,USD,2024-01-01,2024-01-02\n")
    b = write("b.csv", head + "2,USD,2024-01-01,2024-01-02\n")
    import_files("focus", [a], lake)
    log = lake.root / "imports.jsonl"
    log.write_bytes(log.read_bytes()[:-40])  # power lost mid-append
    assert lake.imports() == [] and lake.log_damage == [1]
    import_files("focus", [b], lake)  # its line starts on a line of its own
    assert [r["path"] for r in lake.imports()] == [str(b)] and lake.log_damage == [1]
    (again,) = import_files("focus", [a], lake)  # the lost record: read again, still a duplicate
    assert (again.accepted, again.duplicates) == (0, 1)
    assert lake.read("bill_lines").num_rows == 2


def test_a_short_write_to_the_log_is_completed(lake, monkeypatch):
    import os

    real = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real(fd, bytes(data[:7])))
    lake.log_import({"kind": "focus", "sha256": SHA_A, "note": "x" * 100})
    lake.log_import({"kind": "slurm", "sha256": SHA_B})
    assert [r["kind"] for r in lake.imports()] == ["focus", "slurm"]


def test_partitions_record_their_row_hash_scheme(lake):
    from trainledger.ingest.keys import DEFAULT_VERSION, ROW_HASH_VERSION, hashing
    from trainledger.lake.settle import partition_meta

    path = lake.write_partition("external_services", SHA_A, _invoice_rows(1, SHA_A))
    assert partition_meta(pq.read_schema(path))["row_hash"] == DEFAULT_VERSION == 2
    with hashing(ROW_HASH_VERSION):  # the version in force is the one recorded
        path = lake.write_partition("external_services", SHA_B, _invoice_rows(1, SHA_B))
    assert partition_meta(pq.read_schema(path))["row_hash"] == 3
    assert lake.read("external_services").schema.metadata is None


def test_a_partition_from_before_the_row_hash_scheme_stops_the_settle(lake):
    old = lake.partition_path("external_services", SHA_A)
    old.parent.mkdir(parents=True)
    pq.write_table(_invoice_rows(1, SHA_A), old)  # no trainledger metadata
    with pytest.raises(BadInput, match="earlier trainledger") as e:
        _settle(lake, SHA_B, _rows(["x"], SHA_B))
    assert "new workspace" in (e.value.remedy or "")
