"""``export focus-allocation`` writes the origin charge's columns back as the bill wrote them: a
NULL Tags stays NULL (an empty CSV cell, a Parquet null), not the ``{}`` the lake's ``tags``
column holds for it; a written ``{}`` stays ``{}``; a Tags that is no JSON object comes back as
its text. Re-read from the exported file, and imported again as a FOCUS bill."""

import csv
import json
import textwrap

import pyarrow.parquet as pq
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.lake import Lake
from trainledger.service import Workspace

from ..configs import ONE_BATCH

RULE = ONE_BATCH + """
[[rules]]
id = "all-usd"
source = "focus"
field = "currency"
match = "exact"
pattern = "USD"
batch = "b1"
"""
HEAD = "BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ResourceId,Tags\n"
# row: the origin's Tags cell → what the export's Tags must be (None: NULL)
ROWS = [
    ('1.50,1.50,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,r1,NULL\n', None),
    ('2.50,2.50,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,r2,\n', None),
    ('3.50,3.50,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,r3,{}\n', "{}"),
    ('4.50,4.50,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,r4,"{""team"":""a""}"\n', '{"team":"a"}'),
    ('5.50,5.50,USD,2026-11-01T00:00:00Z,2026-11-01T01:00:00Z,Usage,r5,not-json\n', "not-json"),
]


def _workspace(tmp_path, bill):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(RULE))
    for args in (["import", "focus", str(bill)], ["attribute"]):
        res = CliRunner().invoke(cli, ["--workspace", str(root), *args], catch_exceptions=False)
        assert res.exit_code == 0, res.output
    return root


def _export(root, fmt):
    out = root / f"alloc.{fmt}"
    res = CliRunner().invoke(cli, ["--workspace", str(root), "export", "focus-allocation", "--out", str(out),
                                   "--format", fmt], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return out


def test_the_export_keeps_a_null_origin_tags_null(tmp_path):
    bill = tmp_path / "bill.csv"
    bill.write_text(HEAD + "".join(r for r, _ in ROWS), encoding="utf-8")
    root = _workspace(tmp_path, bill)
    lake_tags = {r["resource_id"]: (r["tags"], json.loads(r["extra"]))
                 for r in Lake(root / "lake").read("bill_lines").to_pylist()}
    assert lake_tags["r1"] == ("{}", {"Tags": None}) and lake_tags["r3"] == ("{}", {})  # NULL ≠ {} in the lake

    out = _export(root, "csv")
    with out.open(encoding="utf-8", newline="") as f:
        text = f.read()
    rows = list(csv.DictReader(text.splitlines()))
    got = {r["ResourceId"]: r["Tags"] for r in rows}
    assert got == {f"r{i}": (want or "") for i, (_, want) in enumerate(ROWS, start=1)}
    assert all(r["ChargeClass"] == "" for r in rows)  # any other NULL column: an empty cell too

    parquet = {r["ResourceId"]: r["Tags"] for r in pq.read_table(_export(root, "parquet")).to_pylist()}
    assert parquet == {f"r{i}": want for i, (_, want) in enumerate(ROWS, start=1)}

    # the export is a FOCUS bill: imported again, a NULL Tags is NULL again (and {} is {})
    again = Lake(tmp_path / "again")
    from trainledger.ingest import import_files

    (res,) = import_files("focus", [out], again)
    assert res.quarantined == 0 and res.accepted == len(ROWS)
    back = {r["resource_id"]: json.loads(r["extra"]).get("Tags", "absent")
            for r in again.read("bill_lines").to_pylist()}
    assert back["r1"] is None and back["r2"] is None and back["r3"] == "absent" and back["r4"] == "absent"
    assert back["r5"] == "not-json"


def test_the_typed_parquet_export_imports_again_as_a_focus_bill(tmp_path):
    """Review 6 K15: the Parquet export's money is decimal128 and its times UTC timestamps; a FOCUS
    reader (trainledger's own) takes it back with the same amounts."""
    from decimal import Decimal

    import pyarrow as pa

    bill = tmp_path / "bill.csv"
    bill.write_text(HEAD + "".join(r for r, _ in ROWS), encoding="utf-8")
    root = _workspace(tmp_path, bill)
    out = _export(root, "parquet")
    schema = pq.read_schema(out)
    assert pa.types.is_decimal(schema.field("BilledCost").type)
    assert pa.types.is_timestamp(schema.field("ChargePeriodStart").type)
    from trainledger.ingest import import_files

    again = Lake(tmp_path / "again")
    (res,) = import_files("focus", [out], again)
    assert res.quarantined == 0 and res.accepted == len(ROWS)
    got = sorted(Decimal(r["billed_cost"]) for r in again.read("bill_lines").to_pylist())
    assert got == [Decimal("1.50"), Decimal("2.50"), Decimal("3.50"), Decimal("4.50"), Decimal("5.50")]
