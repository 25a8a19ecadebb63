"""The focus importer: inline FOCUS rows, the real 1,000-row sample, the spec's scenarios."""

from __future__ import annotations

import csv
import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from ingest_helpers import DATA, check_golden, run, snapshot

from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files

SAMPLE = DATA / "focus-sample-data" / "focus_sample.csv"
SPEC = DATA / "focus-spec-examples"
MONEY = {
    "BilledCost": "billed_cost",
    "EffectiveCost": "effective_cost",
    "ListCost": "list_cost",
    "ContractedCost": "contracted_cost",
}
NULLS = ("", "NULL", "null")

BILL = (
    "BilledCost,EffectiveCost,ListCost,ContractedCost,BillingCurrency,ChargePeriodStart,"
    "ChargePeriodEnd,BillingPeriodStart,ChargeCategory,ChargeFrequency,ServiceCategory,"
    "ResourceId,SkuId,ConsumedQuantity,ConsumedUnit,Tags,x_GpuModel\n"
    # GPU usage with a tag whose key starts with a space
    "12.50000,11.00,13.00,11.00,USD,2026-11-02 00:00:00,2026-11-02 01:00:00,2026-11-01 00:00:00,"
    'Usage,Usage-Based,Compute,i-gpu-01,SKU-H800,1,Hours,"{""batch"": ""b-2026-07"", '
    '"" org"": ""ai""}",H800\n'
    # a credit: negative money is kept
    "-3.00,-3.00,-3.00,-3.00,USD,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,NULL,Credit,One-Time,"
    "Compute,NULL,NULL,NULL,NULL,NULL,\n"
    # non-conformant enumerations, a bad quantity, a repeated tag key: accepted and flagged
    "0.19200000000,0,0.192,NULL,USD,2026-11-02T00:00:00+08:00,2026-11-02T01:00:00+08:00,"
    '2026-11-01,Adjustment,Usage-based,AI and ML,vm-2,NULL,abc,Hours,"{""a"": 1, ""a"": 2}",\n'
    # money that is not a number: quarantined
    "twelve,1,1,1,USD,2026-11-02,2026-11-03,,Usage,Usage-Based,Compute,vm-3,,1,Hours,,\n"
    # a charge period that ends before it starts: quarantined
    "1.00,1.00,1.00,1.00,USD,2026-11-03,2026-11-02,,Usage,Usage-Based,Compute,vm-4,,1,Hours,,\n"
    # no currency on the row and none given: quarantined
    "1.00,1.00,1.00,1.00,,2026-11-02,2026-11-03,,Usage,Usage-Based,Compute,vm-5,,1,Hours,,\n"
    # the first row again: accepted (the file is the statement) and, like the first, flagged
    "12.50000,11.00,13.00,11.00,USD,2026-11-02 00:00:00,2026-11-02 01:00:00,2026-11-01 00:00:00,"
    'Usage,Usage-Based,Compute,i-gpu-01,SKU-H800,1,Hours,"{""batch"": ""b-2026-07"", '
    '"" org"": ""ai""}",H800\n'
    # tags that are not JSON: kept in extra and flagged; tiny money keeps its digits
    "0.0000008,0.0000008,0.0000008,0.0000008,USD,2026-11-02,2026-11-02,,Usage,Usage-Based,"
    "Storage,vol-1,,1E+3,GB,team=ml,\n"
)


def test_focus_golden(lake, write):
    result = run("focus", write("bill.csv", BILL), lake)
    assert (result.rows_read, result.accepted, result.duplicates, result.quarantined) == (
        8,
        5,
        0,
        3,
    )
    assert result.flagged == 4
    check_golden("focus_bill", snapshot(lake, "focus", [result]))
    flags = {r["row"]: json.loads(r["flags"]) for r in lake.read("bill_lines").to_pylist()}
    assert flags[1] == flags[7] == ["repeated_row_in_file"]


def test_currency_option_fills_only_missing_currencies(lake, write):
    result = run("focus", write("bill.csv", BILL), lake, currency="EUR")
    assert result.quarantined == 2
    currencies = Counter(lake.read("bill_lines").column("currency").to_pylist())
    assert currencies == {"USD": 5, "EUR": 1}


# -- the real sample: 1,000 rows of AWS, Microsoft and Oracle -------------------------------------


@pytest.fixture(scope="module")
def sample_rows() -> list[dict[str, str]]:
    with open(SAMPLE, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="module")
def sample_lake(tmp_path_factory):
    from trainledger.lake import Lake

    lake = Lake(tmp_path_factory.mktemp("sample") / "lake")
    result = run("focus", SAMPLE, lake)
    return lake, result


def test_sample_counts(sample_lake):
    _, result = sample_lake
    assert result.rows_read == 1000
    assert result.accepted + result.duplicates + result.quarantined == 1000
    assert (result.accepted, result.duplicates, result.quarantined) == (1000, 0, 0)


@pytest.mark.parametrize("column", sorted(MONEY))
def test_sample_totals_are_exact(sample_lake, sample_rows, column):
    lake, _ = sample_lake
    expected = sum((Decimal(r[column]) for r in sample_rows if r[column] not in NULLS), Decimal(0))
    got = lake.read("bill_lines").column(MONEY[column]).to_pylist()
    assert sum((Decimal(v) for v in got if v is not None), Decimal(0)) == expected
    assert sum(v is None for v in got) == sum(r[column] in NULLS for r in sample_rows)


def test_sample_rows_keep_their_money_row_by_row(sample_lake, sample_rows):
    lake, _ = sample_lake
    table = lake.read("bill_lines")
    by_row = dict(
        zip(table.column("row").to_pylist(), table.column("billed_cost").to_pylist(), strict=True)
    )
    for i, r in enumerate(sample_rows, 1):
        assert Decimal(by_row[i]) == Decimal(r["BilledCost"])


def test_sample_negative_rows_are_kept(sample_lake, sample_rows):
    lake, _ = sample_lake
    table = lake.read("bill_lines").to_pylist()
    negative_in = sum(Decimal(r["BilledCost"]) < 0 for r in sample_rows)
    assert negative_in > 0
    assert sum(Decimal(r["billed_cost"]) < 0 for r in table) == negative_in
    categories = Counter(r["charge_category"] for r in table)
    assert categories["Credit"] == 1 and categories["Adjustment"] == 2


def test_sample_tags_with_odd_keys_survive(sample_lake, sample_rows):
    lake, _ = sample_lake
    tags = dict(
        zip(
            lake.read("bill_lines").column("row").to_pylist(),
            lake.read("bill_lines").column("tags").to_pylist(),
            strict=True,
        )
    )
    odd = 0
    for i, r in enumerate(sample_rows, 1):
        expected = {} if r["Tags"] in NULLS else json.loads(r["Tags"])
        assert json.loads(tags[i]) == expected
        odd += any(k != k.strip() or ":" in k or " " in k for k in expected)
    assert odd > 0
    assert any(" org" in json.loads(t) for t in tags.values())


def test_sample_non_conformant_rows_are_flagged_not_dropped(sample_lake, sample_rows):
    lake, result = sample_lake
    rows = {r["row"]: r for r in lake.read("bill_lines").to_pylist()}
    odd = [i for i, r in enumerate(sample_rows, 1) if r["ChargeFrequency"] == "Usage-based"]
    assert len(odd) == 7
    for i in odd:
        assert "ChargeFrequency 'Usage-based' is not a FOCUS 1.0 value" in json.loads(
            rows[i]["flags"]
        )
    assert result.flagged == sum(r["flags"] != "[]" for r in rows.values()) == 7


def test_sample_as_parquet_gives_the_same_totals(tmp_path, lake, sample_rows):
    """The same bill exported as Parquet: decimals, timestamps and text, not strings only."""
    cols: dict[str, pa.Array] = {}
    for name in sample_rows[0]:
        values = [None if r[name] in NULLS else r[name] for r in sample_rows]
        if name in MONEY:
            cols[name] = pa.array(
                [None if v is None else Decimal(v) for v in values], pa.decimal128(38, 15)
            )
        elif name.endswith(("PeriodStart", "PeriodEnd")):
            cols[name] = pa.array(values).cast(pa.timestamp("s"))
        else:
            cols[name] = pa.array(values, pa.string())
    path = tmp_path / "focus_sample.parquet"
    pq.write_table(pa.table(cols), path)
    result = run("focus", path, lake)
    assert (result.rows_read, result.accepted) == (1000, 1000)
    table = lake.read("bill_lines")
    for column, lake_col in MONEY.items():
        expected = sum(
            (Decimal(r[column]) for r in sample_rows if r[column] not in NULLS), Decimal(0)
        )
        got = sum(
            (Decimal(v) for v in table.column(lake_col).to_pylist() if v is not None), Decimal(0)
        )
        assert got == expected


def test_parquet_float_money_is_flagged(tmp_path, lake):
    path = tmp_path / "floats.parquet"
    pq.write_table(
        pa.table(
            {
                "BilledCost": pa.array([0.1, 2.5]),
                "ChargePeriodStart": pa.array(["2026-01-01T00:00:00Z"] * 2),
                "ChargePeriodEnd": pa.array(["2026-01-01T01:00:00Z"] * 2),
                "BillingCurrency": pa.array(["USD", "USD"]),
            }
        ),
        path,
    )
    result = run("focus", path, lake)
    assert (result.accepted, result.flagged) == (2, 2)
    assert lake.read("bill_lines").column("billed_cost").to_pylist() == ["0.1", "2.5"]


# -- the FOCUS spec's illustrative scenarios (no BillingCurrency column) --------------------------

SPEC_FILES = sorted(p.name for p in SPEC.glob("*.csv"))
TWO_RESOURCES = (
    "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_2_resources.csv"
)
# Rows quarantined with --currency USD: purchase scenarios 2 and 3 have a ChargePeriodEnd of
# "2023-02-01T30:00:00Z" (hour 30), which is not a time. Every other row of every file is in.
SPEC_QUARANTINED = {
    "commitment_discount_purchase_scenario_2.csv": 1,
    "commitment_discount_purchase_scenario_3.csv": 1,
}


def _spec_rows(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f) if any(r.values())]


def _total(values) -> Decimal:
    return sum((Decimal(v) for v in values if v not in (None, *NULLS)), Decimal(0))


def test_spec_files_without_currency_are_refused_once_with_the_remedy(lake):
    """No BillingCurrency column at all: every row would be quarantined for the same reason, so
    the file is refused once (nothing written, no quarantine) with the remedy --currency."""
    assert len(SPEC_FILES) == 11
    for name in SPEC_FILES:
        with pytest.raises(BadInput) as e:
            run("focus", SPEC / name, lake)
        assert "no BillingCurrency column" in str(e.value) and "nothing was imported" in str(e.value)
        assert "--currency CODE" in e.value.remedy and e.value.path == str(SPEC / name)
    assert lake.read("bill_lines").num_rows == 0
    assert lake.imports() == [] and not list((lake.root / "quarantine").rglob("*.jsonl"))


@pytest.mark.parametrize("name", SPEC_FILES)
def test_spec_files_with_currency_conserve_every_cost(lake, name):
    """Every cost of every spec file is in the lake or, for the hour-30 rows, in quarantine —
    to the cent. Repeated rows are not dropped: the file's total is the bill."""
    path = SPEC / name
    rows = _spec_rows(path)
    result = run("focus", path, lake, currency="USD")
    held_back = SPEC_QUARANTINED.get(name, 0)
    assert (result.accepted, result.duplicates, result.quarantined) == (
        len(rows) - held_back,
        0,
        held_back,
    )
    table = lake.read("bill_lines")
    assert set(table.column("currency").to_pylist()) <= {"USD"}
    with open(path, newline="", encoding="utf-8") as f:
        header = next(csv.reader(f))
    quarantined = [
        dict(zip(header, next(csv.reader([q["raw"]])), strict=True))
        for q in lake.quarantine("focus", result.sha256)
    ]
    assert all("T30:" in q["ChargePeriodEnd"] for q in quarantined)
    for column, lake_col in MONEY.items():
        if column not in rows[0]:
            assert table.column(lake_col).null_count == table.num_rows
            continue
        file_total = _total(r[column] for r in rows)
        lake_total = _total(table.column(lake_col).to_pylist())
        assert lake_total + _total(q[column] for q in quarantined) == file_total
        if not held_back:
            assert lake_total == file_total


def test_spec_two_resources_keeps_both_identical_rows(lake):
    """Two byte-identical rows stand for two resources: both are money, both are flagged."""
    result = run("focus", SPEC / TWO_RESOURCES, lake, currency="USD")
    assert (result.rows_read, result.accepted, result.duplicates, result.flagged) == (3, 3, 0, 2)
    rows = lake.read("bill_lines").to_pylist()
    assert _total(r["effective_cost"] for r in rows) == Decimal("2.00")
    assert _total(r["billed_cost"] for r in rows) == Decimal("2.00")
    usage = [r for r in rows if r["charge_category"] == "Usage"]
    assert [r["row"] for r in usage] == [2, 3]
    assert usage[0]["row_hash"] == usage[1]["row_hash"]
    assert all(json.loads(r["flags"]) == ["repeated_row_in_file"] for r in usage)


def test_spec_amortisation_exact_answers(lake):
    """Usage scenario 3: 0.75 used + 0.25 unused of a 1.00 commitment hour, billed 0."""
    run("focus", SPEC / "commitment_discount_usage_scenario_3.csv", lake, currency="USD")
    rows = lake.read("bill_lines").to_pylist()
    assert sorted(r["effective_cost"] for r in rows) == ["0.25", "0.75"]
    assert {r["billed_cost"] for r in rows} == {"0.00"}
    assert {r["commitment_discount_status"] for r in rows} == {"Used", "Unused"}


def test_reimporting_with_currency_after_a_refused_attempt_works(lake):
    path = SPEC / "commitment_discount_usage_scenario_1.csv"
    with pytest.raises(BadInput):
        run("focus", path, lake)
    second = run("focus", path, lake, currency="USD")
    third = run("focus", path, lake, currency="USD")
    assert (second.accepted, third.accepted) == (1, 0)
    assert third.duplicates == third.rows_read == 1


# -- overlapping exports: a mid-month and a full-month bill of the same period -------------------


def _export(path: Path, rows: list[dict[str, str]], *, reverse: bool = False) -> Path:
    """Write ``rows`` as another tool would: every field quoted, CRLF, columns maybe reversed."""
    names = list(rows[0])[::-1] if reverse else list(rows[0])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, names, quoting=csv.QUOTE_ALL, lineterminator="\r\n")
        w.writeheader()
        w.writerows(rows)
    return path


def _sample_totals(rows: list[dict[str, str]]) -> dict[str, Decimal]:
    return {lake_col: _total(r[column] for r in rows) for column, lake_col in MONEY.items()}


def _lake_totals(lake) -> dict[str, Decimal]:
    table = lake.read("bill_lines")
    return {c: _total(table.column(c).to_pylist()) for c in MONEY.values()}


def test_overlapping_exports_accept_only_the_new_rows(lake, tmp_path, sample_rows):
    mid = _export(tmp_path / "mid-month.csv", sample_rows[:600], reverse=True)
    first = run("focus", mid, lake)
    assert (first.accepted, first.duplicates) == (600, 0)
    full = run("focus", SAMPLE, lake)  # the full month: the first 600 rows plus 400 new ones
    assert (full.rows_read, full.accepted, full.duplicates, full.quarantined) == (1000, 400, 600, 0)
    assert lake.read("bill_lines").num_rows == 1000
    assert _lake_totals(lake) == _sample_totals(sample_rows)
    new_rows = sorted(
        r["row"]
        for r in lake.read("bill_lines").to_pylist()
        if r["source_sha256"] == full.sha256
    )
    assert new_rows == list(range(601, 1001))
    # each file again: the fast path, nothing written
    for path, n in ((SAMPLE, 1000), (mid, 600)):
        again = run("focus", path, lake)
        assert (again.accepted, again.duplicates) == (0, n)
    assert _lake_totals(lake) == _sample_totals(sample_rows)


def test_an_export_wholly_inside_the_lake_writes_nothing(lake, tmp_path, sample_rows):
    run("focus", SAMPLE, lake)
    mid = run("focus", _export(tmp_path / "mid.csv", sample_rows[:600]), lake)
    assert (mid.rows_read, mid.accepted, mid.duplicates, mid.quarantined) == (600, 0, 600, 0)
    assert not lake.has_source(mid.sha256, "bill_lines")
    assert len(lake.partitions("bill_lines")) == 1
    assert lake.imports()[-1]["partition"] is None
    assert _lake_totals(lake) == _sample_totals(sample_rows)


OVERLAP_HEADER = "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ResourceId\n"
ROW_A = "1.10,2026-11-01,2026-11-02,USD,vm-a\n"
ROW_B = "2.20,2026-11-01,2026-11-02,USD,<placeholder>\n"
ROW_C = "4.40,2026-11-02,2026-11-03,USD,vm-c\n"


def test_overlap_counts_copies_of_repeated_rows(lake, write):
    """The first export holds B twice, the second three times (and C): B's third copy and C
    are new — after both imports the lake holds what the larger statement says."""
    first = run("focus", write("mid.csv", OVERLAP_HEADER + ROW_A + ROW_B + ROW_B), lake)
    assert (first.accepted, first.flagged) == (3, 2)
    second = run(
        "focus", write("full.csv", OVERLAP_HEADER + ROW_A + ROW_B + ROW_C + ROW_B + ROW_B), lake
    )
    assert (second.accepted, second.duplicates) == (2, 3)
    new = [r for r in lake.read("bill_lines").to_pylist() if r["source_sha256"] == second.sha256]
    assert [(r["row"], r["billed_cost"]) for r in new] == [(3, "4.40"), (5, "2.20")]
    assert json.loads(new[1]["flags"]) == ["repeated_row_in_file"]
    assert _total(lake.read("bill_lines").column("billed_cost").to_pylist()) == Decimal("12.10")
    # a third export with fewer copies adds nothing
    third = run("focus", write("part.csv", OVERLAP_HEADER + ROW_B + ROW_B), lake)
    assert (third.accepted, third.duplicates) == (0, 2)


def test_row_hash_ignores_how_the_row_was_written(lake, write):
    """Same values, other column order, quoting, NULL spelling, line ending: the same row."""
    run("focus", write("a.csv", OVERLAP_HEADER + ROW_A + "1,2026-11-05,2026-11-06,USD,\n"), lake)
    other = (
        'ResourceId,BillingCurrency,BilledCost,ChargePeriodEnd,ChargePeriodStart,x_New\r\n'
        '"vm-a","USD","1.10","2026-11-02","2026-11-01",\r\n'
        "NULL,USD,1,2026-11-06,2026-11-05,\r\n"
        "vm-a,USD,1.1,2026-11-02,2026-11-01,\r\n"  # 1.1 is 1.10: a second copy of row A
    )
    r = run("focus", write("b.csv", other), lake)
    assert (r.accepted, r.duplicates) == (1, 2)  # the lake held one copy of A, this file two
    (new,) = [x for x in lake.read("bill_lines").to_pylist() if x["source_sha256"] == r.sha256]
    assert (new["row"], new["billed_cost"]) == (3, "1.1")


def test_cross_file_check_reads_only_row_hash_columns(lake, tmp_path, sample_rows, monkeypatch):
    """The lake is never read whole during an import: only the row_hash column of each other
    partition."""
    from trainledger.lake import Lake

    run("focus", _export(tmp_path / "mid.csv", sample_rows[:600]), lake)
    read_columns: list[list[str] | None] = []
    real, real_group, real_init = pq.ParquetFile.read, pq.ParquetFile.read_row_group, pq.ParquetFile.__init__
    sources: dict[int, str] = {}

    def init(self, source, *a, **kw):
        sources[id(self)] = str(source)
        real_init(self, source, *a, **kw)

    def in_lake(self) -> bool:  # not the import's own partition, being written in .tmp
        return "/.tmp/" not in sources.get(id(self), "")

    def spy(self, columns=None, **kw):
        if in_lake(self):
            read_columns.append(columns)
        return real(self, columns=columns, **kw)

    def spy_group(self, i, columns=None, **kw):  # settling reads the keys a row group at a time
        if in_lake(self):
            read_columns.append(columns)
        return real_group(self, i, columns=columns, **kw)

    monkeypatch.setattr(pq.ParquetFile, "__init__", init)
    monkeypatch.setattr(pq.ParquetFile, "read", spy)
    monkeypatch.setattr(pq.ParquetFile, "read_row_group", spy_group)
    monkeypatch.setattr(Lake, "read", lambda *a, **k: pytest.fail("the whole table was read"))
    r = run("focus", SAMPLE, lake)
    assert (r.accepted, r.duplicates) == (400, 600)
    assert read_columns and all(c == ["row_hash"] for c in read_columns)


def test_a_jsonl_file_is_not_a_bill(lake, write):
    line = '{"ts": "2026-11-02T08:00:00+08:00", "run": "1001", "event": "start"}\n'
    with pytest.raises(WrongFileType) as e:
        import_files("focus", [write("progress.jsonl", line)], lake)
    assert "training progress JSONL" in str(e.value)
    assert "import progress" in (e.value.remedy or "")


def test_sacct_is_not_a_bill(lake, write):
    with pytest.raises(WrongFileType, match="sacct"):
        import_files("focus", [write("s.txt", "JobID|State\n1|RUNNING\n")], lake)


def test_nanosecond_timestamps_are_truncated_and_flagged(tmp_path, lake):
    ns = pa.timestamp("ns", tz="UTC")
    start = pa.array([1704067200000000000] * 2, ns)
    end = pa.array([1704070800000000000, 1704070800000000001], ns)
    path = tmp_path / "ns.parquet"
    pq.write_table(
        pa.table(
            {
                "BilledCost": ["1", "2"],
                "ChargePeriodStart": start,
                "ChargePeriodEnd": end,
                "BillingCurrency": ["USD"] * 2,
            }
        ),
        path,
    )
    result = run("focus", path, lake)
    assert (result.accepted, result.flagged) == (2, 1)
    rows = lake.read("bill_lines").to_pylist()
    assert json.loads(rows[1]["flags"]) == [
        "ChargePeriodEnd: nanoseconds truncated to microseconds"
    ]
    assert rows[0]["charge_period_end"] == rows[1]["charge_period_end"]
