"""Reading CSV-like files: unbalanced quotes, huge fields, empty files, `;` CSV, leftovers."""

from __future__ import annotations

import csv
import os
import time
from decimal import Decimal

import pytest
from ingest_helpers import DATA, run

from trainledger.ingest import KIND_TABLES, KINDS, import_files

SPEC = DATA / "focus-spec-examples"
TWO_RESOURCES = (
    "one_hundred_percent_utilization_with_commitment_discount_flexibility_with_2_resources.csv"
)
INVOICES = "invoice_id,vendor,date,amount,currency,stage,description\n"


def _total(values) -> Decimal:
    return sum((Decimal(v) for v in values if v not in (None, "", "null", "NULL")), Decimal(0))


def test_a_stray_quote_in_the_last_column_does_not_swallow_the_file(lake, write):
    """A real FOCUS spec file (no quotes anywhere) whose first row's last field starts with a
    stray quote: that row is quarantined, the two rows after it are read as rows."""
    original = SPEC / TWO_RESOURCES
    lines = original.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[1] = lines[1].replace(",Normalized Hour", ',"Normalized Hour')
    r = run("focus", write("stray.csv", "".join(lines)), lake, currency="USD")
    assert (r.rows_read, r.accepted, r.duplicates, r.quarantined) == (3, 2, 0, 1)
    (q,) = lake.quarantine("focus", r.sha256)
    assert (q["row"], q["line"]) == (1, 2) and "unbalanced quote" in q["reason"]
    assert q["raw"] == lines[1].rstrip("\n")
    rows = lake.read("bill_lines").to_pylist()
    assert [x["row"] for x in rows] == [2, 3]
    assert not any("\n" in x["extra"] for x in rows)  # no row went into another's field
    with open(original, newline="", encoding="utf-8") as f:
        file_rows = list(csv.DictReader(f))
    for column, lake_col in (("EffectiveCost", "effective_cost"), ("BilledCost", "billed_cost")):
        in_lake = _total(x[lake_col] for x in rows)
        assert in_lake + Decimal(file_rows[0][column]) == _total(x[column] for x in file_rows)


def test_a_stray_quote_before_a_real_multiline_field(lake, write):
    """The stray quote would close at the next quoted field's opening quote: the row is still
    quarantined alone, and the multi-line field after it is read as written."""
    text = INVOICES + (
        'I1,V,2026-01-01,1.00,CNY,ongoing,"oops\n'
        "I2,V,2026-01-02,2.00,CNY,ongoing,plain\n"
        'I3,V,2026-01-03,4.00,CNY,ongoing,"two\nlines"\n'
        "I4,V,2026-01-04,8.00,CNY,ongoing,\n"
    )
    r = run("invoice", write("inv.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (4, 3, 1)
    (q,) = lake.quarantine("invoice", r.sha256)
    assert (q["row"], q["line"]) == (1, 2) and "unbalanced quote" in q["reason"]
    rows = {x["invoice_id"]: x for x in lake.read("external_services").to_pylist()}
    assert sorted(rows) == ["I2", "I3", "I4"]
    assert rows["I3"]["description"] == "two\nlines" and rows["I4"]["row"] == 4


def test_a_field_going_on_after_its_closing_quote(lake, write):
    """`"15" monitor`: read leniently and flagged when that gives the header's number of
    fields (the money is real); quarantined when it does not."""
    text = INVOICES + (
        'I1,V,2026-01-01,1.00,CNY,ongoing,"15" monitor\n'
        'I2,V,2026-01-02,2.00,CNY,ongoing,"15" monitor,"x"y\n'
        "I3,V,2026-01-03,4.00,CNY,ongoing,\n"
    )
    r = run("invoice", write("inv.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined, r.flagged) == (3, 2, 1, 1)
    rows = lake.read("external_services").to_pylist()
    assert [(x["invoice_id"], x["description"]) for x in rows] == [("I1", "15 monitor"), ("I3", "")]
    assert "closing quote" in rows[0]["flags"]
    (q,) = lake.quarantine("invoice", r.sha256)
    assert q["row"] == 2 and "quote" in q["reason"] and '("")' in q["remedy"]


def test_a_field_over_128_kib_is_read(lake, write):
    tags = '"{""k"": ""' + "v" * 200_000 + '""}"'
    text = (
        "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,Tags\n"
        f"1.00,USD,2024-01-01,2024-01-02,{tags}\n2.00,USD,2024-01-01,2024-01-02,\n"
    )
    r = run("focus", write("big.csv", text), lake)
    assert (r.rows_read, r.accepted) == (2, 2)


def test_a_field_over_the_limit_is_one_quarantined_row(lake, write, monkeypatch):
    from trainledger.ingest import delimited

    monkeypatch.setattr(delimited, "FIELD_LIMIT", 1 << 10)
    old = csv.field_size_limit(1 << 10)
    try:
        text = INVOICES + f"I1,V,2026-01-01,1.00,CNY,ongoing,{'x' * 5000}\n"
        text += "I2,V,2026-01-02,2.00,CNY,ongoing,\n"
        r = run("invoice", write("inv.csv", text), lake)
    finally:
        csv.field_size_limit(old)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 1, 1)
    (q,) = lake.quarantine("invoice", r.sha256)
    assert "larger than" in q["reason"] and "quote" not in (q["remedy"] or "")


# kinds that read through a mapping
MAPPED = {"jobs": {"preset": "slurm-trace"}, "occupancy": {"preset": "philly"},
          "steps": {"preset": "alibaba-pai-2020"}, "nodes": {"preset": "openb-nodes"}}  # fmt: skip


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("content", ["", "\n", "\r\n\r\n"])
def test_an_empty_file_is_an_empty_import(kind, content, lake, write):
    """`sacct --noheader` on a quiet day: nothing to import is not an error."""
    opts = {"tz": "UTC", **MAPPED.get(kind, {})}
    if kind.startswith("mapped_"):  # a mapped kind needs its mapping, even for no rows
        opts["mapping"] = str(write("m.toml", f'table = "{KIND_TABLES[kind]}"\n'))
    r = run(kind, write(f"empty-{kind}.txt", content), lake, **opts)
    assert (r.rows_read, r.accepted, r.duplicates, r.quarantined) == (0, 0, 0, 0)
    assert r.quarantine_file is None
    assert not lake.has_source(r.sha256, KIND_TABLES[kind])
    assert lake.read(KIND_TABLES[kind]).num_rows == 0


def test_a_header_only_sacct_dump_is_an_empty_import(lake, write):
    r = run("slurm", write("s.txt", "JobID|Submit|Start|End|State|AllocTRES\n"), lake, tz="UTC")
    assert (r.rows_read, r.accepted) == (0, 0)


def test_semicolon_csv_from_excel_is_read(lake, write):
    text = "invoice_id;vendor;date;amount;currency;stage\r\nI1;V;2026-01-01;5,50;CNY;ongoing\r\n"
    text += "I2;V;2026-01-02;5.50;CNY;ongoing\r\n"
    r = run("invoice", write("inv.csv", text), lake)
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 1, 1)
    (q,) = lake.quarantine("invoice", r.sha256)
    assert "decimal comma" in q["reason"] and "5.50" in q["reason"]


def test_a_header_that_does_not_split_cleanly_on_semicolons_is_refused(lake, write):
    from trainledger.errors import WrongFileType

    with pytest.raises(WrongFileType, match="semicolon-separated"):
        import_files("invoice", [write("x.csv", "invoice_id;vendor;;amount\n1;2;;3\n")], lake)


def test_old_leftovers_in_tmp_are_removed_at_the_start_of_an_import(lake, write):
    tmp = lake.root / ".tmp"
    tmp.mkdir(parents=True)
    dead = tmp / "bill_lines-0123456789abcdef-999999999-deadbeef.parquet"
    fresh = tmp / "bill_lines-0123456789abcdef-999999998-cafebabe.parquet"
    live = tmp / f"q-focus-0123456789abcdef-{os.getpid()}-feedface.jsonl"
    for p in (dead, fresh, live):
        p.write_bytes(b"x")
    hours_ago = time.time() - 2 * 3600
    for p in (dead, live):
        os.utime(p, (hours_ago, hours_ago))
    run("focus", write("b.csv", "BilledCost,ChargePeriodStart,ChargePeriodEnd\n"), lake)
    assert not dead.exists()
    assert fresh.exists() and live.exists()  # recent, or its process is still running
