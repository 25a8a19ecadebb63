"""FOCUS 1.1 - 1.3 columns: service / host provider, capacity reservations, split allocation,
corrections of an earlier period, credits, literal NULL and odd tag keys; per-rule report.
Column names and allowed values are those of the FOCUS specification (1.3)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.ingest.focus import validation_report

HEADER = (
    "BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,BilledCost,"
    "EffectiveCost,ListCost,ContractedCost,BillingCurrency,ChargeCategory,ChargeClass,"
    "ChargeDescription,CommitmentDiscountId,CommitmentDiscountStatus,CapacityReservationId,"
    "CapacityReservationStatus,ServiceProviderName,HostProviderName,ProviderName,ResourceId,"
    "ServiceCategory,AllocatedMethodId,AllocatedResourceId,AllocatedResourceName,AllocatedTags,Tags"
)
ROWS = [
    # a GPU node on a capacity reservation, split by the provider onto two pods (1.3)
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-02T00:00:00Z",
     "2026-11-02T01:00:00Z", "30.00", "30.00", "40.00", "30.00", "USD", "Usage", "NULL",
     "gpu node, pod a", "NULL", "NULL", "cr-1", "Used", "Acme Neo", "Big Cloud", "Acme",
     "node-1", "Compute", "by-gpu-share", "pod-a", "trainer-a", '{"batch": "b7"}',
     '{"team": "nlp", "user:Cost Center": "ML 01", "": "empty key"}'],
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-02T00:00:00Z",
     "2026-11-02T01:00:00Z", "10.00", "10.00", "NULL", "10.00", "USD", "Usage", "NULL",
     "gpu node, pod b", "NULL", "NULL", "cr-1", "Used", "Acme Neo", "Big Cloud", "Acme",
     "node-1", "Compute", "NULL", "pod-b", "NULL", '{"team": "cv"}', '{"team": "nlp"}'],
    # the unused part of the reservation, and an unused commitment on a Purchase row
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-02T00:00:00Z",
     "2026-11-02T01:00:00Z", "5.00", "5.00", "5.00", "5.00", "USD", "Usage", "NULL",
     "unused reservation", "NULL", "NULL", "cr-1", "Idle", "Acme Neo", "NULL", "NULL",
     "node-1", "Compute", "NULL", "NULL", "NULL", "NULL", "NULL"],
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-01T00:00:00Z",
     "2026-12-01T00:00:00Z", "100.00", "0", "100.00", "100.00", "USD", "Purchase", "NULL",
     "commitment", "cd-9", "Unused", "NULL", "NULL", "Acme Neo", "NULL", "NULL", "NULL",
     "Compute", "NULL", "NULL", "NULL", "NULL", "NULL"],
    # a credit, and a correction of October charged in November
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-11-03T00:00:00Z",
     "2026-11-04T00:00:00Z", "-12.50", "-12.50", "0", "-12.50", "USD", "Credit", "NULL",
     "service credit", "NULL", "NULL", "NULL", "Used", "Acme Neo", "NULL", "NULL", "node-1",
     "Compute", "NULL", "NULL", "NULL", "NULL", "NULL"],
    ["2026-11-01T00:00:00Z", "2026-12-01T00:00:00Z", "2026-10-30T00:00:00Z",
     "2026-10-31T00:00:00Z", "-3.25", "-3.25", "-3.25", "-3.25", "USD", "Adjustment",
     "Correction", "rerated October usage", "NULL", "NULL", "NULL", "NULL", "Acme Neo", "NULL",
     "NULL", "node-1", "Compute", "NULL", "NULL", "NULL", "NULL", "NULL"],
]


def _csv() -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(HEADER.split(","))
    w.writerows(ROWS)
    return buf.getvalue()


def test_golden(lake, write):
    res = run("focus", write("focus13.csv", _csv()), lake)
    check_golden("focus_1_3", snapshot(lake, "focus", [res]))


def test_later_columns(lake, write):
    res = run("focus", write("f.csv", _csv()), lake)
    assert (res.rows_read, res.accepted, res.quarantined) == (6, 6, 0)  # money is never refused
    rows = lake.read("bill_lines").to_pylist()
    flags = [json.loads(r["flags"]) for r in rows]
    extra = [json.loads(r["extra"]) for r in rows]
    assert rows[0]["provider"] == "Acme Neo"  # ServiceProviderName before ProviderName
    assert extra[0]["HostProviderName"] == "Big Cloud" and extra[0]["ProviderName"] == "Acme"
    # odd keys are kept exactly; allocated tags join the origin charge's
    assert json.loads(rows[0]["tags"]) == {
        "team": "nlp", "user:Cost Center": "ML 01", "": "empty key", "batch": "b7"}
    assert json.loads(rows[1]["tags"]) == {"team": "cv"}
    assert any("overrides" in f for f in flags[1])
    assert any(f.startswith("AllocatedMethodId is null") for f in flags[1])
    assert rows[1]["list_cost"] is None and any("ListCost is null" in f for f in flags[1])
    assert any("CapacityReservationStatus 'Idle'" in f for f in flags[2])
    assert any("CommitmentDiscountStatus is set on a Purchase row" in f for f in flags[3])
    assert any("CapacityReservationStatus is set but" in f for f in flags[4])
    assert any(f.startswith("correction: ") and "2026-10-30" in f for f in flags[5])
    assert not flags[0]
    assert sum(Decimal(r["billed_cost"]) for r in rows) == Decimal("129.25")


def test_validation_report_per_rule(lake, write):
    run("focus", write("f.csv", _csv()), lake)
    report = validation_report(lake.read("bill_lines").column("flags").to_pylist())
    assert report == {
        "allocated tags": {"AllocatedTags": 1},
        "allocated charges name their method": {"AllocatedMethodId": 1},
        "not null": {"ListCost": 1},
        "allowed values": {"CapacityReservationStatus": 1},
        "commitment discount columns agree": {"CommitmentDiscountStatus": 1},
        "capacity reservation columns agree": {"CapacityReservationStatus": 1},
        "correction": {"ChargeClass": 1},
    }


def test_parquet_reads_like_csv_and_is_a_duplicate(lake, write, tmp_path):
    run("focus", write("f.csv", _csv()), lake)
    table = pa.Table.from_pylist(
        [{h: (None if v == "NULL" else v) for h, v in zip(HEADER.split(","), r, strict=True)}
         for r in ROWS]
    )
    path = tmp_path / "f.parquet"
    pq.write_table(table, path)
    res = run("focus", path, lake)
    assert (res.accepted, res.duplicates) == (0, 6)


def test_cli_prints_problems_per_rule(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli

    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(ws)]).exit_code == 0
    (tmp_path / "f.csv").write_text(_csv(), encoding="utf-8")
    out = runner.invoke(cli, ["--workspace", str(ws), "import", "focus", str(tmp_path / "f.csv")],
                        catch_exceptions=False).output
    assert "5 accepted with flags" in out
    assert "  allowed values: CapacityReservationStatus in 1 row(s)" in out
    assert "  correction: ChargeClass in 1 row(s)" in out
