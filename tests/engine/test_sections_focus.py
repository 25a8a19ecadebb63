"""Sheet sections add up on the real FOCUS sample (tests/data/focus-sample-data): every billed line
of a batch is in a section — compute, storage, network, other services, external — and the
sections sum exactly to the batch's billed total. Before, rows that were neither compute nor
storage (networking, analytics, AI services…) had no section."""

import csv
import json
import textwrap
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from ..configs import ONE_BATCH

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "focus-sample-data" / "focus_sample.csv"
EVERYTHING = ONE_BATCH + """
[[rules]]
id = "all-usd"
source = "focus"
field = "currency"
match = "exact"
pattern = "USD"
batch = "b1"
"""


def test_the_real_sample_lands_in_sections_that_sum_to_the_bill(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(EVERYTHING))
    out = CliRunner().invoke(cli, ["--workspace", str(root), "import", "focus", str(SAMPLE), "--json"],
                             catch_exceptions=False)
    assert json.loads(out.output)["quarantined"] == 0
    with Workspace.open(root) as wsp:
        wsp.attribute()
        sheet = wsp.sheet("b1")
    with SAMPLE.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    total = sum(Decimal(r["BilledCost"]) for r in rows)
    by_cat = defaultdict(Decimal)
    for r in rows:
        cat = {"Compute": "compute", "Storage": "storage", "Networking": "network"}.get(r["ServiceCategory"],
                                                                                      "other_services")
        by_cat[cat] += Decimal(r["BilledCost"])
    (usd,) = sheet["sections"]
    assert Decimal(usd["total"]) == total and Decimal(usd["difference"]) == 0
    assert {x["section"]: Decimal(x["amount"]) for x in usd["sections"]} == {k: v for k, v in by_cat.items() if v}
    outside = by_cat["network"] + by_cat["other_services"]
    assert outside > 0 and sum(Decimal(i["amount"]) for i in usd["items"]) == outside  # listed, item by item


def _export(root, fmt="csv"):
    out = root / f"alloc.{fmt}"
    res = CliRunner().invoke(cli, ["--workspace", str(root), "export", "focus-allocation", "--out", str(out),
                                   "--format", fmt], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    if fmt == "csv":
        with out.open(encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))
    import pyarrow.parquet as pq

    return pq.read_table(out).to_pylist()


SUMMABLE = ("ListCost", "ContractedCost", "ConsumedQuantity", "PricingQuantity")


def _check_export(rows, origin_rows):
    per = defaultdict(lambda: {"billed": Decimal(0), "effective": Decimal(0), "ratio": Decimal(0),
                               **{c: [] for c in SUMMABLE}})
    for r in rows:
        p = per[str(r["x_SourceRow"])]
        p["billed"] += Decimal(r["BilledCost"])
        p["effective"] += Decimal(r["EffectiveCost"])
        for c in SUMMABLE:
            p[c].append(r.get(c))
        (el,) = json.loads(r["AllocatedMethodDetails"])["Elements"]
        p["ratio"] += Decimal(el["AllocatedRatio"])
    assert len(per) == len(origin_rows)
    for i, o in enumerate(origin_rows, start=1):
        p = per[str(i)]
        assert p["ratio"] == 1  # exactly
        assert p["billed"] == Decimal(o["BilledCost"]) and p["effective"] == Decimal(o["EffectiveCost"])
        for c in SUMMABLE:  # review 4 H6: a summable metric is split, never repeated on every allocated row
            if (o.get(c) or "").upper() in ("", "NULL"):
                assert all(v in (None, "") for v in p[c]), (i, c, p[c])
            else:
                assert sum(Decimal(v) for v in p[c]) == Decimal(o[c]), (i, c, p[c], o[c])


def _typed(rows):
    """A Parquet export's FOCUS types (review 6 K15): Decimal money and quantities, UTC times, an integer row."""
    from datetime import datetime

    for r in rows:
        assert isinstance(r["BilledCost"], Decimal) and isinstance(r["x_OriginBilledCost"], Decimal)
        assert isinstance(r["x_SourceRow"], int)
        assert isinstance(r["ChargePeriodStart"], datetime) and r["ChargePeriodStart"].utcoffset().total_seconds() == 0


def test_the_focus_allocation_export_keeps_every_origin_charge(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(EVERYTHING))
    CliRunner().invoke(cli, ["--workspace", str(root), "import", "focus", str(SAMPLE)], catch_exceptions=False)
    CliRunner().invoke(cli, ["--workspace", str(root), "attribute"], catch_exceptions=False)
    with SAMPLE.open(encoding="utf-8", newline="") as f:
        origin = list(csv.DictReader(f))
    for fmt in ("csv", "parquet"):
        rows = _export(root, fmt)
        _check_export(rows, origin)
        for r in rows:  # a zero charge has no lines to follow: it says so
            zero = Decimal(r["x_OriginBilledCost"]) == 0 and Decimal(r["x_OriginEffectiveCost"]) == 0
            assert r["AllocatedResourceId"] == ("unattributed:zero_amount" if zero else "b1")
        assert json.loads(rows[0]["AllocatedTags"])["data_snapshot"] == "d"  # the batch's attribution key
        # review 3 G15: "state" holds a compute state only — a service name the rule attributed is "detail"
        from trainledger.model import ComputeState

        tags = [json.loads(r["AllocatedTags"]) for r in rows]
        assert all(t["state"] in {c.value for c in ComputeState} for t in tags if "state" in t)
        assert any(t.get("detail") == "Amazon Elastic Compute Cloud" for t in tags)
        if fmt == "parquet":
            _typed(rows)
        by_row = {str(r["x_SourceRow"]): r for r in rows}
        for i, o in enumerate(origin, start=1):  # the origin as the source wrote it (the CSV: scale and all)
            got = by_row[str(i)]["x_OriginBilledCost"]
            assert got == o["BilledCost"] if fmt == "csv" else got == Decimal(o["BilledCost"]), (i, o["BilledCost"])
        if fmt == "parquet":
            continue
        # money in plain decimal text, never 8.0000E-7 or 0E-11 (review finding 2)
        for r in rows:
            (el,) = json.loads(r["AllocatedMethodDetails"])["Elements"]
            for text in (r["BilledCost"], r["EffectiveCost"], r["x_OriginBilledCost"], r["x_OriginEffectiveCost"],
                         el["AllocatedRatio"], el["UsageQuantity"]):
                assert "E" not in text.upper(), (r["x_SourceRow"], text)


def test_the_export_with_commitments_splits_effective_cost_by_its_own_view(tmp_path):
    spec = Path(__file__).resolve().parents[1] / "data" / "focus-spec-examples"
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(ONE_BATCH + '[[rules]]\nid = "vm"\nsource = "focus"\nfield = "resource_id"\n'
                                'match = "regex"\npattern = "^<my-(resource|large-vm|medium-vm)-id>$"\nbatch = "b1"\n'))
    name = "commitment_discount_usage_scenario_3.csv"
    CliRunner().invoke(cli, ["--workspace", str(root), "import", "focus", str(spec / name), "--currency", "USD"],
                       catch_exceptions=False)
    CliRunner().invoke(cli, ["--workspace", str(root), "attribute"], catch_exceptions=False)
    with (spec / name).open(encoding="utf-8", newline="") as f:
        origin = list(csv.DictReader(f))
    rows = _export(root)
    _check_export(rows, origin)
    assert any(r["AllocatedResourceId"] == "unattributed:reserved_unused" for r in rows)
