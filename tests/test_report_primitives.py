"""The batch sheet and the estimate report are drawn with the same primitives (report/primitives.py):
one Money, one range, one evidence badge read the same in both, and a change of rule there changes both."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from trainledger.estimate.engine import run
from trainledger.estimate.spec import build_spec, load_spec_file
from trainledger.i18n import registry
from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book
from trainledger.report import estimate_render, estimate_view, primitives, render

GOLDEN = Path(__file__).parent / "estimate" / "golden"


@pytest.fixture(scope="module")
def estimate() -> dict:
    spec = GOLDEN / "qlora_7b_4090.toml"
    return run(build_spec(load_spec_file(spec), where=spec.name), book=load_price_book(SAMPLE_PRICE_BOOK)).to_dict()


def _sheet() -> dict:
    money = [{"low": "1100.004", "expected": "1234.5", "high": "1400", "currency": "CNY"}]
    return {
        "batch": {"id": "b1", "name": "n", "project": "p1", "team": "t"},
        "key": {"goal": "g", "batch_id": "b1"},
        "totals_by_basis": [{"basis": "billed", "evidence": "contract", "cash": True, "low": "1.00",
                             "expected": "1.00", "high": "1.00", "currency": "CNY", "lines": 1}],
        "compute_by_state": [], "runs": [],
        "storage_by_class": [{"storage_class": "cache", "basis": "estimate", "objects": 1, "bytes": 1024,
                              "gib_months": "0", "cost": money, "findings": []}],
        "labor_by_phase": [], "external": [],
        "assumptions": [{"name": "a", "evidence": "assumed", "source": "s", "low": "0.5", "high": "2", "owner": "x"}],
        "conservation": {"by_currency": [], "rounding": "r"},
        "problems": [],
    }


def test_one_money_range_reads_the_same_through_the_primitive():
    f = render.Figures("en")
    item = {"low": "1100.004", "expected": "1234.5", "high": "1400", "currency": "CNY"}
    assert f.money([item], cash=False) == primitives.money_range("1100.004", "1234.5", "1400", "CNY") \
        == "1,234.50 CNY (1,100.00–1,400.00)"
    point = {"low": "5", "expected": "5", "high": "5", "currency": "USD"}
    assert f.money([point]) == primitives.money_range("5", "5", "5", "USD") == "5.00 USD"


def test_the_estimate_money_is_the_primitive_at_three_figures(estimate):
    cur = estimate["cost"]["currency"]
    rows = dict(estimate_view.estimate_view(estimate, "en")["result"])
    total = rows[estimate_view.t("cost_total", "en")]
    assert total == [primitives.money(estimate["cost"]["total"][k], cur, sig=3) for k in primitives.PCT]
    assert total == primitives.percentiles(estimate["cost"]["total"], lambda x: primitives.money(x, cur, sig=3))


def test_an_assumption_range_and_its_badge_are_the_same_primitives(estimate, monkeypatch):
    """Swap the primitives once: the sheet and the estimate, Markdown and HTML, all change with them."""
    monkeypatch.setattr(primitives, "evidence", lambda level, lang: f"«EV:{level}»")
    monkeypatch.setattr(primitives, "span", lambda low, high, figure=None, sep="–": "«SPAN»")
    sheet_md = render.to_markdown(_sheet(), "en")
    est_md = estimate_render.render_estimate(estimate, "md", "en")
    assert "«EV:contract»" in sheet_md and "«EV:assumed»" in sheet_md and "«EV:assumed»" in est_md
    assert "«SPAN»" in sheet_md and "«SPAN»" in est_md  # the sheet's and the estimate's drawer ranges
    assert "«EV:assumed»" in render.to_html(_sheet(), "en")  # the badge calls the same label
    assert "«EV:assumed»" in estimate_render.render_estimate(estimate, "html", "en")


def test_the_evidence_badge_is_one_html_element_in_both_pages(estimate):
    badge = primitives.badge("assumed", "zh-CN")
    assert str(badge) == '<span class="tag assumed">假设待确认</span>'
    assert str(badge) in render.to_html(_sheet(), "zh-CN")
    assert str(badge) in estimate_render.render_estimate(estimate, "html", "zh-CN")


def test_one_table_primitive(estimate, monkeypatch):
    calls = []
    real = primitives.md_table
    monkeypatch.setattr(primitives, "md_table", lambda h, r: calls.append(tuple(h)) or real(h, r))
    render.to_markdown(_sheet(), "en")
    sheet_calls = len(calls)
    estimate_render.render_estimate(estimate, "md", "en")
    assert sheet_calls >= 5 and len(calls) > sheet_calls + 2


def test_the_estimate_report_labels_are_one_registered_namespace():
    table = registry.table("report.estimate")
    assert registry.entry("report.estimate.title") == ("Training budget estimate", "训练预算估算")
    assert estimate_view.t("title", "zh-CN") == "训练预算估算"
    used = set()
    import re

    for mod in (estimate_view, estimate_render):
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_.]+)["']""", Path(mod.__file__).read_text(encoding="utf-8")))
    assert len(used) > 40 and not used - set(table), sorted(used - set(table))
    assert not any(k.startswith("label.") for k in registry.table("estimate"))  # moved, not copied


def test_estimate_json_writes_decimals_exactly():
    text = primitives.dumps({"a": Decimal("0.10000000000000000001"), "b": [1, "x"]})
    assert '"a": 0.10000000000000000001' in text
    with pytest.raises(TypeError):
        primitives.dumps({"x": object()})


@pytest.mark.parametrize(("value", "exact", "rounded"), [
    ("6.3756", "6.3756", "6.3756"),  # terminates: as written
    ("1.002222222222222222222222222", "451/450", "1.002222"),  # 3608 GPU-seconds / 3600
    ("2249.506666666666666666666665", "168713/75", "2249.506667"),  # a sum of quotients that drifted
    ("0.1428571428571428571428571429", "0.142857142857", "0.142857"),  # not whole ms: 12 places
    ("0E-11", "0.00000000000", "0.000000"),
    (None, None, None),
])
def test_exact_quantity_is_exact_and_short(value, exact, rounded):
    assert primitives.exact_quantity(value) == exact
    assert primitives.rounded_quantity(value) == rounded
    if exact and "/" in exact:
        assert abs(Fraction(exact) - Fraction(Decimal(value))) < Fraction(1, 10**20)


def test_units_read_in_the_language():
    assert primitives.unit("rounds", "zh-CN") == "轮"
    assert primitives.unit("gpu_hour/Mtoken", "zh-CN") == "卡时/百万 token"
    assert primitives.unit("CNY/gpu_hour", "zh-CN") == "CNY/卡时" and primitives.unit("rounds", "en") == "rounds"
