"""A currency is an ISO 4217 code, not any three letters (review finding 5); an amount with a
currency sign or thousands separators is quarantined with the reason and the fix (finding 12)."""

from __future__ import annotations

import pytest
from tests.ingest.ingest_helpers import run

from trainledger.i18n.patterns import translate
from trainledger.ingest.convert import ASCII_REMEDY, BadValue, currency, money_text
from trainledger.model.money import check_currency


@pytest.mark.parametrize("code", ["XYZ", "RMB", "ABC", "QQQ"])
def test_three_letters_are_not_a_currency(code):
    with pytest.raises(ValueError, match="not an ISO 4217"):
        check_currency(code)


@pytest.mark.parametrize("code", ["CNY", "usd", " EUR ", "JPY"])
def test_iso_codes_are_currencies(code):
    assert check_currency(code) == code.strip().upper()


def test_rmb_is_refused_with_cny_as_the_remedy():
    with pytest.raises(BadValue) as e:
        currency("RMB")
    assert "(it means CNY)" in str(e.value) and "write CNY instead of 'RMB'" in e.value.remedy
    assert translate(str(e.value), "zh-CN") == "币种 'RMB' 不是 ISO 4217 代码（它指的是 CNY）"
    with pytest.raises(BadValue) as e:
        currency("XYZ")
    assert "e.g. CNY or USD" in e.value.remedy and "means" not in str(e.value)


@pytest.mark.parametrize(
    ("text", "reason", "remedy"),
    [
        ("¥320.00", "has a currency sign (write 320.00)", "without the currency sign: 320.00"),
        ("-￥1,234.50", "has a currency sign (write -1234.50)", "without the currency sign: -1234.50"),
        ("1,234.50", "has thousands separators (write 1234.50)", "remove the thousands separators: write 1234.50"),
        ("12,345,678", "has thousands separators (write 12345678)", "write 12345678"),
        ("３２０.００", "has digits that are not ASCII 0-9", ASCII_REMEDY),
    ],
)
def test_amount_text_says_what_is_wrong(text, reason, remedy):
    with pytest.raises(BadValue) as e:
        money_text(text)
    assert reason in str(e.value) and remedy in e.value.remedy
    assert translate(str(e.value), "zh-CN") != str(e.value)  # catalogued
    assert translate(e.value.remedy, "zh-CN") != e.value.remedy


HEAD = ("账期,消费时间,账号ID,Owner账号ID,财务单元,产品,产品Code,计费项,实例ID,实例昵称,分拆项ID,分拆项名称,"
        "实例标签,地域,用量,用量单位,官网价,优惠金额,应付金额,币种\n")
ROW = ("2026-11,2026-11-10 {h}:00:00 - 2026-11-10 {e}:00:00,1,1,算法部,云服务器ECS-按量付费,ecs,GPU实例规格,"
       "i-h800-a1,h800-a1,h800-a1,h800-a1,,华北6,1,小时,400.00,80.00,{amount},{cur}\n")


def test_a_bill_row_in_rmb_is_quarantined_not_a_currency_of_its_own(lake, write):
    path = write("bill.csv", HEAD + ROW.format(h=10, e=11, amount="320.00", cur="CNY")
                 + ROW.format(h=11, e=12, amount="320.00", cur="RMB")
                 + ROW.format(h=12, e=13, amount="¥320.00", cur="CNY"))
    result = run("aliyun", path, lake)
    assert (result.accepted, result.quarantined) == (1, 2)
    assert set(lake.read("bill_lines").column("currency").to_pylist()) == {"CNY"}
    reasons = {q["row"]: (q["reason"], q.get("remedy", "")) for q in lake.quarantine("aliyun", result.sha256)}
    assert "'RMB' is not an ISO 4217 code (it means CNY)" in reasons[2][0]
    assert "write CNY" in reasons[2][1]
    assert "currency sign" in reasons[3][0] and "320.00" in reasons[3][1]


def test_a_focus_row_in_xyz_is_quarantined(lake, write):
    path = write("focus.csv", "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency,ResourceId\n"
                 "1.10,2026-11-01,2026-11-02,USD,vm-a\n2.20,2026-11-01,2026-11-02,XYZ,vm-b\n")
    result = run("focus", path, lake)
    assert (result.accepted, result.quarantined) == (1, 1)
    (q,) = lake.quarantine("focus", result.sha256)
    assert q["row"] == 2 and "'XYZ' is not an ISO 4217 code" in q["reason"]
