"""Storage texts that say which side lacks what (review: "not split (no GB-month quantity to
compare)" for a bill row of 500 GB-Mo; a service name listed as a storage class)."""

from __future__ import annotations

import textwrap
from datetime import date

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.storage_reconcile import view
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.report.i18n import storage_class
from trainledger.report.sheet import storage_class_of
from trainledger.report.storage_section import rows, st

from .test_storage_reconcile import CONFIG, bill, obj, price_lookup

A = {"storage_prefix": "oss://ckpt/a/", "batch": "b1"}


def _group(tmp_path, bills, objects):
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    r = attribute(Facts(bill_lines=bills, storage_objects=objects), workspace.load(tmp_path), price_lookup,
                  date(2026, 12, 1))
    (g,) = [g for g in view(r.storage_reconciliation)["groups"] if g["month"] == "2026-11"]
    return g


def test_bill_has_gb_months_inventory_holds_none(tmp_path):
    # the object was written on its inventory day: held 0 days, 0 GiB-months, estimate 0.00
    g = _group(tmp_path, (bill(1, 11, "12.00", tags=A, qty="100", unit="GB-Mo"),),
               (obj(1, "oss://ckpt/a/x.pt", 100, "standard", "2026-11-30T00:00:00", "b1"),))
    assert g["match"] == "matched" and g["estimate_gib_months"] == "0.0000"
    assert g["parts"] == [{"kind": "not_split_no_inventory_quantity", "amount": "12.00"}]
    text = rows({"groups": [g], "scope": "workspace"}, "en")[0][9]
    assert "the bill has GB-months; the inventory holds none" in text and text.endswith("12.00")
    assert "库存清单当月没有可比的持有量" in rows({"groups": [g], "scope": "workspace"}, "zh-CN")[0][9]


def test_inventory_has_gib_months_bill_has_no_quantity(tmp_path):
    """review3 G20: a storage usage row without a GiB-month quantity (Huawei OBS 使用量 100 GB) is not
    "other charges (requests, retrieval, credits)" beside a large opposite "not split": the whole
    difference is one part that says the bill cannot split it."""
    g = _group(tmp_path, (bill(1, 11, "12.00", tags=A, qty="100", unit="GB"),),  # GB, not GB-months
               (obj(1, "oss://ckpt/a/x.pt", 100, "standard", "2026-11-01T00:00:00", "b1"),))
    assert g["parts"] == [{"kind": "not_split_no_bill_quantity", "amount": g["difference"]}], g["parts"]
    assert g["difference"] != "0.00"
    text = rows({"groups": [g], "scope": "workspace"}, "en")[0][9]
    assert "cannot split: the bill rows carry no GiB-month quantity" in text and "other charges" not in text
    assert "无法拆分：账单行没有 GiB·月用量" in rows({"groups": [g], "scope": "workspace"}, "zh-CN")[0][9]
    assert "requests" not in st("not_split_no_bill_quantity", "en")


def _line(detail, kind):
    return CostLine(category="storage", basis=Basis.BILLED, evidence=Evidence.CONTRACT,
                    amount=AmountRange(1, 1, 1, "USD"), provenance=Provenance("6" * 64, 1, "r", kind), detail=detail,
                    batch_id="b1")


def test_a_service_name_is_not_a_storage_class():
    assert storage_class_of(_line("Amazon Simple Storage Service", "focus")) == "unknown"
    assert storage_class_of(_line("Object Storage Service", "focus")) == "unknown"
    assert storage_class_of(_line("STANDARD", "focus")) == "unknown"  # a tier: how, not what for
    assert storage_class_of(_line("Checkpoint", "focus")) == "checkpoint"  # a tag naming a class
    assert storage_class_of(_line("checkpoint", "storage")) == "checkpoint"  # inventory: the importer checked it
    assert storage_class("unknown", "en").startswith("unknown") and storage_class("unknown", "zh-CN").startswith("未知")
