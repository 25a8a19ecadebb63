"""An internal alert's text, read by a role that may not see one person's labor cost, has its money
masked and its quantities kept (review 5 J11: "work done restricted of planned 598.60 Mtoken" while the
same output said "useful work done: 82 / 598.6000 Mtoken").

The texts are made as review/status.py makes them (``texts.both``), marked as the status page marks
them (``access.mark_plan``) and resolved for an engineer and for finance (model/restricted.py).
"""

from __future__ import annotations

from decimal import Decimal

from trainledger.model.restricted import resolve
from trainledger.report.plan_access import mark_plan
from trainledger.report.text_mask import masked
from trainledger.review.status import MONEY_PARTS
from trainledger.review.texts import TEXT, Term, both


def _status(text: dict, driver: dict, kind: str = "labor_cost_person") -> dict:
    return {"labor_kind": kind, "alerts": [{"key": "eac_high:internal:CNY", "kind": "eac_high", "basis": "internal",
                                            "currency": "CNY", "value": "24954.15", "plan": "17190.84",
                                            "bound": "17190.84", "text": text, "driver": driver}]}


def test_the_engineer_reads_the_work_done_and_not_the_money_finance_reads_both():
    text = both("alert_eac", basis=Term("internal"), currency="CNY", value=Decimal("24954.15"),
                plan=Decimal("17190.84"))
    driver = both("drv_volume", amount="-6,077.62 CNY", share="-72%", wa=Decimal("82.00"), wp=Decimal("598.60"))
    st = _status(text, driver)
    eng, seen = resolve(mark_plan(st), "engineer")
    a = eng["alerts"][0]
    assert a["driver"]["en"] == "volume restricted CNY (-72% of plan): work done 82.00 of planned 598.60 Mtoken"
    assert a["driver"]["zh-CN"] == "工作量 受限 CNY（占计划 -72%）：已完成 82.00 / 计划 598.60 百万 token"
    assert a["text"]["en"] == "internal CNY: EAC high restricted above plan high restricted"
    assert "24,954.15" not in a["text"]["zh-CN"] and "17,190.84" not in a["text"]["zh-CN"]
    assert "受限" in a["text"]["zh-CN"]
    assert a["value"] == a["plan"] == a["bound"] == "restricted"
    assert seen.withheld["labor_cost_person"] >= 7
    fin, fseen = resolve(mark_plan(st), "finance")
    assert fin["alerts"][0]["driver"] == driver and fin["alerts"][0]["text"] == text
    assert not fseen.withheld
    several, _ = resolve(mark_plan(_status(text, driver, "labor_cost_phase")), "engineer")
    assert several["alerts"][0]["driver"] == driver  # a phase total is the engineer's to see


def test_a_price_driver_masks_both_prices_and_keeps_the_share():
    d = both("drv_price", amount="+120.00 CNY", share="+9%", pa=Decimal("417.3100"), pp=Decimal("400"),
             unit=Term("hour"))
    en = masked(d["en"], "en")
    assert "417.31" not in en and "400" not in en and "120.00" not in en
    assert en.startswith("price restricted CNY (+9% of plan): paid restricted per ")
    assert masked(d["zh-CN"], "zh-CN").count("受限") == 3


def test_a_one_time_quantity_and_a_rate_per_mtoken_stay():
    fixed = both("drv_eff_fixed", amount="-11,437.53 CNY", share="-67%", state=Term("build"), unit=Term("hour"),
                 qty=Decimal("0.00"), plan=Decimal("16.80"))["en"]
    assert masked(fixed, "en") == fixed.replace("-11,437.53", "restricted")
    assert masked(fixed, "en").endswith("against a one-time plan of 16.80")
    rate = both("drv_eff_rate", amount="-14,510.44 CNY", share="-37%", state=Term("run"), unit=Term("hour"),
                rate=Decimal("0.0004"), plan=Decimal("0.0008"))["zh-CN"]
    assert masked(rate, "zh-CN") == rate.replace("-14,510.44", "受限")


def test_a_note_after_the_text_and_an_unknown_text_mask_every_figure():
    text = both("alert_spend", basis=Term("internal"), currency="CNY", value=Decimal("1007.00"), bound=50,
                plan=Decimal("2013.98"))["en"]
    assert masked(text, "en") == "internal CNY: actual restricted reached 50 % of plan expected restricted"
    assert masked(text + " — restated 88.10", "en").endswith("— restated restricted")  # closed, not open
    assert masked("efficiency -1,360.80 over 12 runs", "en") == "efficiency restricted over restricted runs"


def test_every_alert_and_driver_template_names_its_money_parts():
    templates = {k for k in TEXT if k.startswith(("alert_", "drv_"))}
    assert set(MONEY_PARTS) == templates  # a new template is classified before it can be shown
    for key, money in MONEY_PARTS.items():
        for part in money:
            assert "{" + part + "}" in TEXT[key][0] and "{" + part + "}" in TEXT[key][1], (key, part)
