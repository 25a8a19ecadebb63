"""A file's import identity (content + the options that shape its rows), re-imports, canonical
row hashes across formats, and a file that changes while it is imported."""

from __future__ import annotations

import csv
import datetime as dt
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from ingest_helpers import DATA, run

from trainledger.errors import BadInput
from trainledger.ingest import import_files

SAMPLE = DATA / "focus-sample-data" / "focus_sample.csv"
MONEY = {
    "BilledCost": "billed_cost",
    "EffectiveCost": "effective_cost",
    "ListCost": "list_cost",
    "ContractedCost": "contracted_cost",
}
NULLS = ("", "NULL", "null")
MIXED = (
    "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd\n"
    "10.00,USD,2024-01-01T00:00:00Z,2024-01-02T00:00:00Z\n"
    "5.00,,2024-01-01T00:00:00Z,2024-01-02T00:00:00Z\n"
)


def _total(values) -> Decimal:
    return sum((Decimal(v) for v in values if v not in (None, *NULLS)), Decimal(0))


def _lake_total(lake, column: str = "billed_cost") -> Decimal:
    return _total(lake.read("bill_lines").column(column).to_pylist())


def test_currency_fix_after_a_partial_quarantine(lake, write):
    """Re-import with the same options: the fast path reports the quarantined row as
    quarantined, not as a duplicate. With --currency the row goes in, once."""
    path = write("bill.csv", MIXED)
    first = run("focus", path, lake)
    assert (first.accepted, first.duplicates, first.quarantined) == (1, 0, 1)
    same = run("focus", path, lake)
    assert (same.accepted, same.duplicates, same.quarantined) == (0, 1, 1)
    assert same.quarantine_file == first.quarantine_file
    fixed = run("focus", path, lake, currency="USD")
    assert (fixed.rows_read, fixed.accepted, fixed.duplicates, fixed.quarantined) == (2, 1, 1, 0)
    assert _lake_total(lake) == Decimal("15.00")
    again = run("focus", path, lake, currency="USD")
    assert (again.accepted, again.duplicates, again.quarantined) == (0, 2, 0)
    eur = run("focus", path, lake, currency="EUR")  # other options: read again, nothing new
    assert (eur.accepted, eur.duplicates, eur.quarantined) == (0, 2, 0)
    assert _lake_total(lake) == Decimal("15.00")
    parts = sorted(p.name for p in lake.partitions("bill_lines"))
    assert parts == ["part-0.parquet", "part-1.parquet"]


def test_an_other_encoding_never_counts_a_row_twice(lake, write):
    """Read as latin-1 the GB18030 bytes decode (to mojibake) and go in; read again with the
    right encoding the rows have other hashes, but they are the same rows of the same file."""
    data = (
        "invoice_id,vendor,date,amount,currency,stage\nI1,供应商,2026-01-01,5.00,CNY,ongoing\n"
    ).encode("gb18030")
    path = write("inv.csv", data)
    first = run("invoice", path, lake, encoding="latin-1")
    second = run("invoice", path, lake, encoding="gb18030")
    assert (first.accepted, second.accepted, second.duplicates) == (1, 0, 1)
    assert lake.read("external_services").num_rows == 1


def test_an_undated_listing_imported_again_next_month_is_a_new_snapshot(lake, write):
    listing = "path,size_bytes,storage_class,owner,purpose\nckpt/a.pt,1073741824,checkpoint,al,tr\n"
    jan = write("inv_2024-01.csv", listing)
    feb = write("inv_2024-02.csv", listing)  # nothing changed in the bucket: the same bytes
    a = run("storage", jan, lake, import_date="2024-01-31")
    b = run("storage", feb, lake, import_date="2024-02-29")
    assert a.sha256 == b.sha256 and (a.accepted, b.accepted, b.duplicates) == (1, 1, 0)
    again = run("storage", feb, lake, import_date="2024-02-29")
    assert (again.accepted, again.duplicates) == (0, 1)
    rows = lake.read("storage_objects").to_pylist()
    assert [(r["path"], str(r["snapshot_date"])) for r in rows] == [
        ("ckpt/a.pt", "2024-01-31"),
        ("ckpt/a.pt", "2024-02-29"),
    ]


def test_a_prefix_rule_added_later_lets_quarantined_objects_in(lake, write):
    listing = "path,size_bytes,owner,purpose,snapshot_date\nckpt/a.pt,1,al,tr,2024-01-31\n"
    listing += "cache/b.bin,2,al,tr,2024-01-31\n"
    path = write("inv.csv", listing)
    first = run("storage", path, lake, storage_prefixes=[("ckpt/", "checkpoint")])
    rules = [("ckpt/", "checkpoint"), ("cache/", "cache")]
    second = run("storage", path, lake, storage_prefixes=rules)
    assert (first.accepted, first.quarantined) == (1, 1)
    assert (second.accepted, second.duplicates, second.quarantined) == (1, 1, 0)
    assert lake.read("storage_objects").num_rows == 2


@pytest.fixture(scope="module")
def sample_rows() -> list[dict[str, str]]:
    with open(SAMPLE, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _typed_parquet(path, rows: list[dict[str, str]]):
    """The bill as a typed Parquet export: decimal money, timestamp periods, text otherwise."""
    cols: dict[str, pa.Array] = {}
    for name in rows[0]:
        values = [None if r[name] in NULLS else r[name] for r in rows]
        if name in MONEY:
            cols[name] = pa.array(
                [None if v is None else Decimal(v) for v in values], pa.decimal128(38, 12)
            )
        elif name.endswith(("PeriodStart", "PeriodEnd")):
            naive = pa.array(values).cast(pa.timestamp("us"))
            cols[name] = pc.assume_timezone(naive, "UTC")
        elif name == "Id":
            cols[name] = pa.array([None if v is None else int(v) for v in values], pa.int64())
        else:
            cols[name] = pa.array(values, pa.string())
    pq.write_table(pa.table(cols), path)
    return path


def test_mid_month_csv_then_full_month_typed_parquet(lake, tmp_path, sample_rows):
    mid = tmp_path / "mid.csv"
    with open(mid, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, list(sample_rows[0]), lineterminator="\r\n")
        w.writeheader()
        w.writerows(sample_rows[:600])
    first = run("focus", mid, lake)
    full = run("focus", _typed_parquet(tmp_path / "full.parquet", sample_rows), lake)
    assert (first.accepted, full.rows_read, full.accepted, full.duplicates) == (600, 1000, 400, 600)
    for column, lake_col in MONEY.items():
        assert _lake_total(lake, lake_col) == _total(r[column] for r in sample_rows)


def test_money_spelled_with_another_scale_is_the_same_row(lake, write):
    head = "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd\n"
    run("focus", write("a.csv", head + "1.10,USD,2024-01-01 00:00:00,2024-01-02 00:00:00\n"), lake)
    again = head + "1.1,usd,2024-01-01T00:00:00Z,2024-01-02T00:00:00+00:00\n"
    r = run("focus", write("b.csv", again), lake)
    assert (r.accepted, r.duplicates) == (0, 1)


def test_a_file_that_changes_during_the_import_is_refused(lake, write, monkeypatch):
    import trainledger.ingest.run as run_module

    head = "JobID|Submit|Start|End|State|AllocTRES\n"
    job = "{n}|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T01:00:00|COMPLETED|gres/gpu=8\n"
    path = write("growing.txt", head + job.format(n=1))
    real = run_module.sha256_file

    def hash_then_the_writer_appends(p):
        digest = real(p)
        with open(p, "a") as f:
            f.write(job.format(n=2))
        monkeypatch.setattr(run_module, "sha256_file", real)
        return digest

    monkeypatch.setattr(run_module, "sha256_file", hash_then_the_writer_appends)
    with pytest.raises(BadInput, match="changed while it was being imported"):
        import_files("slurm", [path], lake, options={"tz": "UTC"})
    assert lake.read("jobs").num_rows == 0
    assert not list(lake.root.rglob("*.jsonl"))  # no quarantine, no log line
    r = run("slurm", path, lake, tz="UTC")  # once the writer is done, it imports
    assert r.accepted == 2


def test_a_parquet_file_that_changes_during_the_import_is_refused(lake, tmp_path, monkeypatch):
    import trainledger.ingest.run as run_module

    path = tmp_path / "bill.parquet"
    t = {"BilledCost": ["1"], "BillingCurrency": ["USD"], "ChargePeriodStart": ["2024-01-01"]}
    pq.write_table(pa.table({**t, "ChargePeriodEnd": ["2024-01-02"]}), path)
    real, calls = run_module.sha256_file, []

    def second_hash_differs(p):
        calls.append(p)
        return real(p) if len(calls) == 1 else "0" * 64

    monkeypatch.setattr(run_module, "sha256_file", second_hash_differs)
    with pytest.raises(BadInput, match="changed"):
        import_files("focus", [path], lake)
    assert lake.read("bill_lines").num_rows == 0


def test_bigquery_utc_timestamps(lake, write):
    text = (
        "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ServiceName\n"
        "12.34,USD,2024-01-01 00:00:00 UTC,2024-01-01 01:00:00 UTC,Compute Engine\n"
    )
    r = run("focus", write("gcp.csv", text), lake)
    assert (r.accepted, r.quarantined) == (1, 0)
    (row,) = lake.read("bill_lines").to_pylist()
    assert row["charge_period_start"] == dt.datetime(2024, 1, 1, tzinfo=dt.UTC)
    assert row["charge_period_end"] == dt.datetime(2024, 1, 1, 1, tzinfo=dt.UTC)
