"""Storage bill rows reconciled against the inventory estimate — worked by hand.

Price book (CNY per GiB-month, a month = 730 h = 30.41666… days): standard 0.10 / 0.12 / 0.15,
infrequent 0.08. One inventory snapshot, 2026-11-30:

    object               GiB  tier        written     batch  days held
    oss://ckpt/a/x.pt    100  standard    2026-11-01  b1     Nov 29
    oss://ckpt/b/y.pt     50  standard    2026-10-17  b2     Oct 15, Nov 29
    oss://raw/r.tar      200  infrequent  2026-11-15  —      Nov 15

GiB-months = GiB × days × 24 / 730: x.pt 95.3425 (Nov) → 11.44 CNY; y.pt 24.6575 (Oct) → 2.96 and
47.6712 (Nov) → 5.72 (8.679452 in all, split 15 : 29 by days); r.tar 98.6301 → 7.89.

Storage bill rows (FOCUS, CNY):

    R1  prefix ckpt/a/ batch b1  Nov  100 GB-Mo   12.00
    R2  prefix ckpt/a/ batch b1  Nov  10000 Requests 0.37   (no GB-month quantity: other charges)
    R3  prefix ckpt/b/ batch b2  Nov   50 GB-Mo    6.50   (0.13 per GB-Mo: a price difference)
    R4  prefix ckpt/b/ batch b2  Oct   25 GB-Mo    3.00
    R5  arn:aws:s3:::old-logs    Nov               3.10   (a bucket the inventory does not list)

Groups: Oct ckpt/b 3.00 vs 2.96 → 0.04 = volume (25 − 24.6575) × 0.12 = 0.04, price 0.00;
Nov ckpt/a 12.37 vs 11.44 → 0.93 = other 0.37 + volume (100 − 95.3425) × 0.12 = 0.56 + price 0.00;
Nov ckpt/b 6.50 vs 5.72 → 0.78 = volume (50 − 47.6712) × 0.12 = 0.28 + price 0.50 (= 50 × 0.01);
Nov raw: not billed −7.89; Nov old-logs: unmatched bill row 3.10.
Totals: billed 24.97, estimate 28.01, difference −3.04 (matched 1.75, not billed −7.89, unmatched 3.10).
"""

from __future__ import annotations

import json
import textwrap
from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.storage_reconcile import location_of, view
from trainledger.model import PriceEntry

from .factories import BATCH_B2

CONFIG = """
[workspace]
currency = "CNY"
[cluster]
gpus_per_node = 8
gpu_item = "gpu_hour:h800"
[[projects]]
id = "p1"
goal = "a goal"
[[batches]]
id = "b1"
project = "p1"
goal = "g"
data_snapshot = "ds1"
data_processing_version = "v1"
model_version = "m1"
code_version = "c1"
config_version = "cfg1"
team = "t"
""" + BATCH_B2 + """[[rules]]
id = "tag"
source = "focus"
field = "tags.batch"
match = "template"
[[rules]]
id = "storage-batch"
source = "storage"
field = "batch"
match = "template"
"""
PRICES = {"storage:standard": ("0.10", "0.12", "0.15"), "storage:infrequent": ("0.07", "0.08", "0.10")}
GIB = 2**30


def price_lookup(item, on, unit="gb_month"):
    if item in PRICES and unit == "gb_month":
        lo, ex, hi = (Decimal(x) for x in PRICES[item])
        return PriceEntry(item=item, unit="gb_month", price=ex, low=lo, high=hi, currency="CNY",
                          source="list", effective=date(2026, 1, 1), evidence="contract")
    return None


def obj(row, path, gib, tier, written, batch):
    return {"path": path, "size_bytes": gib * GIB, "storage_class": "checkpoint", "tier": tier,
            "owner": "o", "purpose": "p", "retention_until": None, "review_at": date(2027, 1, 1),
            "last_modified": datetime.fromisoformat(written).replace(tzinfo=UTC),
            "snapshot_date": date(2026, 11, 30), "batch": batch, "flags": "[]",
            "source_sha256": "5" * 64, "row": row}


def bill(row, month, amount, *, tags=None, resource=None, qty=None, unit=None):
    start = datetime(2026, month, 1, tzinfo=UTC)
    end = datetime(2026 + (month == 12), month % 12 + 1, 1, tzinfo=UTC)
    return {"billed_cost": amount, "effective_cost": amount, "list_cost": amount, "contracted_cost": None,
            "currency": "CNY", "charge_period_start": start, "charge_period_end": end,
            "charge_category": "Usage", "resource_id": resource, "resource_name": None,
            "service_category": "Storage", "service_name": "Object Storage Service",
            "commitment_discount_status": None, "tags": json.dumps(tags or {}),
            "consumed_quantity": qty, "consumed_unit": unit, "pricing_quantity": qty, "pricing_unit": unit,
            "source_sha256": "6" * 64, "row": row}


OBJECTS = (
    obj(1, "oss://ckpt/a/x.pt", 100, "standard", "2026-11-01T00:00:00", "b1"),
    obj(2, "oss://ckpt/b/y.pt", 50, "standard", "2026-10-17T00:00:00", "b2"),
    obj(3, "oss://raw/r.tar", 200, "infrequent", "2026-11-15T00:00:00", None),
)
A = {"storage_prefix": "oss://ckpt/a/", "batch": "b1"}
B = {"storage_prefix": "oss://ckpt/b/", "batch": "b2"}
BILLS = (
    bill(1, 11, "12.00", tags=A, qty="100", unit="GB-Mo"),
    bill(2, 11, "0.37", tags=A, qty="10000", unit="Requests"),
    bill(3, 11, "6.50", tags=B, qty="50", unit="GB-Mo"),
    bill(4, 10, "3.00", tags=B, qty="25", unit="GB-Mo"),
    bill(5, 11, "3.10", resource="arn:aws:s3:::old-logs"),
)


@pytest.fixture
def result(tmp_path):
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    facts = Facts(bill_lines=BILLS, storage_objects=OBJECTS)
    return attribute(facts, workspace.load(tmp_path), price_lookup, date(2026, 12, 1))


def _brief(g):
    return (g["month"], g["location"], g["match"], g["billed"], g["estimate"]["expected"], g["difference"],
            {p["kind"]: p["amount"] for p in g["parts"]})


def test_workspace_reconciliation_worked_by_hand(result):
    v = view(result.storage_reconciliation)
    assert [_brief(g) for g in v["groups"]] == [
        ("2026-10", "ckpt/b", "matched", "3.00", "2.96", "0.04", {"volume": "0.04", "price": "0.00"}),
        ("2026-11", "ckpt/a", "matched", "12.37", "11.44", "0.93",
         {"other_charges": "0.37", "volume": "0.56", "price": "0.00"}),
        ("2026-11", "ckpt/b", "matched", "6.50", "5.72", "0.78", {"volume": "0.28", "price": "0.50"}),
        ("2026-11", "raw", "inventory_only", "0", "7.89", "-7.89", {"not_billed": "-7.89"}),
        ("2026-11", None, "bill_only", "3.10", "0.00", "3.10", {"unmatched_bill_rows": "3.10"}),
    ]
    (cny,) = v["by_currency"]
    assert (cny["billed"], cny["estimate"]["expected"], cny["difference"]) == ("24.97", "28.01", "-3.04")
    assert cny["by_match"] == {"bill_only": "3.10", "inventory_only": "-7.89", "matched": "1.75"}
    # low 9.53 + 2.47 + 4.77 + 6.90 (infrequent low 0.07); high 14.30 + 3.70 + 7.15 + 9.86
    assert cny["estimate"]["low"] == "23.67" and cny["estimate"]["high"] == "35.01"
    (u,) = v["unmatched_bill_rows"]
    assert (u["row"], u["reason"], u["resource"]) == (5, "names_no_inventory_location", "arn:aws:s3:::old-logs")


def test_every_group_adds_up_as_shown(result):
    v = view(result.storage_reconciliation)
    for g in v["groups"]:
        assert Decimal(g["billed"]) - Decimal(g["estimate"]["expected"]) == Decimal(g["difference"])
        assert sum(Decimal(p["amount"]) for p in g["parts"]) == Decimal(g["difference"])
    (cny,) = v["by_currency"]
    assert sum(Decimal(g["difference"]) for g in v["groups"]) == Decimal(cny["difference"])
    bills = sum(Decimal(b["billed_cost"]) for b in BILLS)
    assert Decimal(cny["billed"]) == bills  # every storage bill row is in exactly one group


def test_estimate_side_is_the_storage_lines(result):
    """The pieces spread over months add up to the storage lines (before rounding; to 20 places:
    Decimal's 28 significant digits make the order of a long sum show in the last digit)."""
    lines = [ln for ln in result.lines if ln.category == "storage" and str(ln.basis) == "estimate"]
    cells = result.storage_reconciliation["cells"]
    e = Decimal("1e-20")
    for key, of_line in (("estimate", lambda ln: ln.amount.expected), ("estimate_low", lambda ln: ln.amount.low),
                         ("estimate_gib_months", lambda ln: ln.quantity)):
        assert sum(Decimal(c[key]) for c in cells).quantize(e) == sum(map(of_line, lines)).quantize(e)
    assert Decimal(view(result.storage_reconciliation)["by_currency"][0]["estimate"]["expected"]) == \
        sum(ln.amount.expected for ln in lines).quantize(Decimal("0.01"))  # 28.01 either way


def test_batch_views(result):
    b1 = view(result.storage_reconciliation, "b1")
    assert [_brief(g)[:6] for g in b1["groups"]] == [("2026-11", "ckpt/a", "matched", "12.37", "11.44", "0.93")]
    assert (b1["groups"][0]["batch_billed"], b1["groups"][0]["batch_estimate"]) == ("12.37", "11.44")
    b2 = view(result.storage_reconciliation, "b2")
    assert [(g["month"], g["difference"]) for g in b2["groups"]] == [("2026-10", "0.04"), ("2026-11", "0.78")]
    assert b2["by_currency"][0]["difference"] == "0.82" and b2["unmatched_bill_rows"] == []


def test_a_shared_bucket_billed_to_no_batch_is_shown_whole_with_the_batch_share(tmp_path):
    """One untagged bill row for the bucket: each batch's sheet shows the bucket's bill and estimate
    (matched, not "not billed") and its own objects' share of the estimate."""
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    bills = (bill(1, 11, "20.00", resource="ckpt", qty="150", unit="GB-Mo"),)
    r = attribute(Facts(bill_lines=bills, storage_objects=OBJECTS[:2]), workspace.load(tmp_path), price_lookup,
                  date(2026, 12, 1))
    (g,) = [g for g in view(r.storage_reconciliation, "b1")["groups"]]
    assert (g["match"], g["billed"], g["estimate"]["expected"], g["difference"]) == (
        "matched", "20.00", "17.16", "2.84")
    assert (g["batch_billed"], g["batch_estimate"]) == ("0", "11.44")  # 11.44 + 5.72 = 17.16
    b2 = view(r.storage_reconciliation, "b2")
    assert [(g["month"], g["match"], g["batch_estimate"]) for g in b2["groups"]] == [
        ("2026-10", "inventory_only", "2.96"), ("2026-11", "matched", "5.72")]


def test_no_storage_bill_rows_no_groups(tmp_path):
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    r = attribute(Facts(storage_objects=OBJECTS), workspace.load(tmp_path), price_lookup, date(2026, 12, 1))
    v = view(r.storage_reconciliation)
    assert v["groups"] == [] and v["storage_bill_rows"] == 0


@pytest.mark.parametrize(("value", "loc"), [
    ("arn:aws:s3:::bkt", "bkt"), ("arn:aws:s3:::bkt/pre/", "bkt/pre"), ("acs:oss:cn-hangzhou:123:bkt", "bkt"),
    ("oss://bkt/pre/", "bkt/pre"), ("s3://bkt", "bkt"), ("bkt", "bkt"), ("", None), (None, None)])
def test_location_of(value, loc):
    assert location_of(value) == loc


def test_an_object_belongs_to_the_longest_location_billed(tmp_path):
    """One bill row for the bucket, one for a prefix in it: x.pt goes to the prefix, y.pt to the bucket."""
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    bills = (bill(1, 11, "12.00", tags={"storage_prefix": "oss://ckpt/a/"}, qty="100", unit="GB-Mo"),
             bill(2, 11, "6.00", resource="acs:oss:cn-hangzhou:1:ckpt", qty="50", unit="GB-Mo"))
    r = attribute(Facts(bill_lines=bills, storage_objects=OBJECTS[:2]), workspace.load(tmp_path), price_lookup,
                  date(2026, 12, 1))
    nov = [(g["location"], g["objects"], g["estimate"]["expected"]) for g in view(r.storage_reconciliation)["groups"]
           if g["month"] == "2026-11"]
    assert nov == [("ckpt", 1, "5.72"), ("ckpt/a", 1, "11.44")]
