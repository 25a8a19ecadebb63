"""The Chinese cloud bill presets read the column names the vendors' own pages name.

Fixtures: tests/data/cn-bills/ — every header is cited in its SOURCE.txt (Alibaba FAQ 408467 and
the split-bill / bill-details guides, DescribeSplitItemBill's Items; Huawei's bill file formats and
bill field reference; Volcano Engine's ListBillDetail and its bill-revision notes). Values are
made up; the expected figures below are the files' own cells, mapped by hand.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from tests.ingest.ingest_helpers import run

from trainledger.ingest.mapfile import presets

DATA = Path(__file__).resolve().parents[1] / "data" / "cn-bills"
FINAL = "2026-12-10"  # after the month's finalisation: no provisional note


def _rows(lake):
    return lake.read("bill_lines").to_pylist()


def _flags(row) -> list[str]:
    return json.loads(row["flags"])


def test_aliyun_console_names_from_the_faq_and_guides(lake):
    res = run("aliyun", DATA / "aliyun_split_bill_documented.csv", lake, import_date=FINAL)
    assert (res.rows_read, res.accepted, res.quarantined) == (2, 2, 0)
    gpu, oss = _rows(lake)
    # 应付金额 → BilledCost, 官网价 → ListCost, 单价 → ListUnitPrice, 用量 → ConsumedQuantity
    assert (gpu["billed_cost"], gpu["list_cost"], gpu["list_unit_price"], gpu["consumed_quantity"]) == (
        "90720.00", "100800.00", "140.000000", "720")
    assert (gpu["resource_id"], gpu["service_category"], gpu["sub_account_name"]) == ("i-bp1gpu01", "Compute", "算法部")
    assert json.loads(gpu["tags"]) == {"batch": "b7"}
    assert oss["resource_id"] == "ckpt-bucket" and oss["service_category"] == "Storage"
    extra = json.loads(gpu["extra"])
    assert (extra["优惠金额"], extra["服务时长"]) == ("10080.00", "1")  # kept, not lost
    # 账期 alone: the Beijing month
    assert gpu["charge_period_start"].isoformat() == "2026-10-31T16:00:00+00:00"
    assert gpu["charge_period_end"].isoformat() == "2026-11-30T16:00:00+00:00"
    # no Item column in a console file: no charge category, and no row flagged for it
    assert gpu["charge_category"] is None and not any("ChargeCategory" in f for f in _flags(gpu))
    assert sum(Decimal(r["billed_cost"]) for r in (gpu, oss)) == Decimal("90842.88")


def test_aliyun_api_item_is_the_charge_category(lake):
    res = run("aliyun", DATA / "aliyun_split_bill_api.csv", lake, import_date=FINAL)
    assert (res.accepted, res.quarantined) == (2, 0)
    use, refund = _rows(lake)
    assert (use["charge_category"], refund["charge_category"]) == ("Usage", "Credit")
    assert (refund["billed_cost"], refund["list_cost"]) == ("-100.00", "-100.00")
    assert (use["list_unit_price"], use["pricing_unit"], use["consumed_unit"]) == ("140.000000", "元/小时", "小时")
    assert use["billing_account_id"] == "1234567890" and use["sub_account_id"] == "1234567890"
    assert use["charge_period_start"].isoformat() == "2026-11-01T16:00:00+00:00"  # SplitBillingDate, Beijing day
    assert not any("ChargeCategory" in f for r in (use, refund) for f in _flags(r))


def test_huawei_field_reference_names(lake):
    res = run("huawei", DATA / "huawei_resource_bill_documented.csv", lake, import_date="2020-09-10")
    assert (res.rows_read, res.accepted, res.quarantined) == (1, 1, 0)
    (row,) = _rows(lake)
    assert (row["billed_cost"], row["list_cost"], row["list_unit_price"], row["consumed_quantity"]) == (
        "49.50000000", "55.00000000", "55.00000000", "1")
    assert (row["charge_category"], row["service_category"], row["resource_id"]) == ("Usage", "Compute", "vm-gpu01")
    assert row["charge_period_start"].isoformat() == "2020-08-23T14:00:00+00:00"
    assert row["charge_period_end"].isoformat() == "2020-08-23T15:00:00+00:00"
    extra = json.loads(row["extra"])
    assert (extra["优惠金额"], extra["抹零金额"]) == ("5.49876544", "0.00123456")
    # the cited identity: 使用量 × 单价 − 优惠金额 − 抹零金额 = 应付金额
    assert Decimal(row["consumed_quantity"]) * Decimal(row["list_unit_price"]) - Decimal(extra["优惠金额"]) \
        - Decimal(extra["抹零金额"]) == Decimal(row["billed_cost"])
    assert not any("8 decimals" in f for f in _flags(row))  # 49.50000000 is whole cents


def test_volcengine_six_decimal_rows_are_flagged(lake):
    res = run("volcengine", DATA / "volcengine_bill_api.csv", lake, import_date="2023-09-10")
    assert (res.accepted, res.quarantined) == (2, 0)
    gpu, tos = _rows(lake)
    assert (gpu["billed_cost"], gpu["list_cost"], gpu["list_unit_price"]) == ("27.111111", "30.123456", "30.123456")
    assert (gpu["charge_category"], gpu["service_category"], gpu["resource_name"]) == ("Usage", "Compute", "ECS-fEaG")
    assert any("6 decimals" in f for f in _flags(gpu))
    assert not any("6 decimals" in f for f in _flags(tos))  # 2.00 is cents
    assert json.loads(gpu["extra"])["DiscountBillAmount"] == "27.111111"


def test_the_presets_no_longer_call_the_cited_names_unverified():
    p = presets()
    assert not {"应付金额", "官网价", "用量", "币种", "用量单位", "地域"} & set(p["aliyun-split-bill"].unverified)
    assert p["huawei-resource-bill"].unverified == ()  # 使用量单位 too: the OBS detail file's header
    assert {"应付金额", "原价"} <= set(p["volcengine-bill"].unverified)  # named, not listed as headers
