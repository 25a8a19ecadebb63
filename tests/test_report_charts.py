"""The sheet's inline SVG charts and balance view (report/charts.py, report/balance.py): bars proportional
to their numbers, a bridge that ends on the actual, no chart holding two bases, every charted number
also on the page as text (en and zh-CN), and data labels escaped."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import balance, charts
from trainledger.report.render import to_html

NS = "{http://www.w3.org/2000/svg}"
BATCH = "csa-sft-2026-11-a"


@pytest.fixture(scope="module")
def demo_sheets(tmp_path_factory) -> dict[str, dict]:
    root = tmp_path_factory.mktemp("demo")
    r = CliRunner().invoke(cli, ["demo", "--dir", str(root)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return {b: json.loads((root / "reports" / f"{b}.json").read_text(encoding="utf-8"))
            for b in ("csa-sft-2026-11-a", "csa-sft-2026-11-b")}


def _svg(chart: dict) -> ET.Element:
    return ET.fromstring(str(chart["svg"]))  # well-formed XML, or this raises


def _bars(chart: dict, cls: str = "bar") -> list[ET.Element]:
    return [e for e in _svg(chart).iter(f"{NS}rect") if cls in e.get("class", "").split()]


def test_bar_widths_are_proportional_to_the_values():
    rows = [{"label": "a", "value": "10", "text": "10"}, {"label": "b", "value": "2.5", "text": "2.5"},
            {"label": "c", "value": "7.25", "text": "7.25"}]
    svg = ET.fromstring(str(charts.hbars("x", "t", rows)))
    rects = list(svg.iter(f"{NS}rect"))
    widths = [float(r.get("width")) for r in rects]
    assert widths[0] == charts.SCALE  # the longest bar fills the scale
    for r, w in zip(rows, widths, strict=True):
        assert w / widths[0] == pytest.approx(float(Decimal(r["value"]) / Decimal("10")), abs=0.0001)
        assert Decimal(r["value"]) == Decimal(rects[rows.index(r)].get("data-value"))


def test_compute_chart_in_lifecycle_order_with_hours_proportional(demo_sheets):
    s = demo_sheets[BATCH]
    c = charts.compute_hours(s, "en")
    rects = _bars(c)
    rows = [r for r in s["compute_by_state"] if Decimal(r["gpu_hours"] or 0) > 0]  # not credits, tags
    values = [Decimal(e.get("data-value")) for e in rects]
    assert sorted(values) == sorted(Decimal(r["gpu_hours"]) for r in rows)
    top = max(values)
    for e, val in zip(rects, values, strict=True):
        assert float(e.get("width")) == pytest.approx(float(val / top) * charts.SCALE, abs=0.01)
    labels = [row[0] for row in c["rows"]]
    assert labels.index("effective · billed") > labels.index("setup · billed")  # lifecycle, not alphabet
    assert labels[0] == "queued"  # a state that is its own basis is named once
    assert [str(c["svg"]) for c in charts.sheet_charts(s, "en")] == \
        [str(c["svg"]) for c in charts.sheet_charts(json.loads(json.dumps(s)), "en")]  # deterministic


def test_no_cost_chart_holds_two_bases(demo_sheets):
    for s in demo_sheets.values():
        cs = charts.cost_by_basis(s, "en")
        keys = {(r["basis"], r["currency"]) for r in s["totals_by_basis"]}
        assert {(c["basis"], c["currency"]) for c in cs} == keys and len(cs) == len(keys)
        for c in cs:
            mine = [r for r in s["totals_by_basis"] if (r["basis"], r["currency"]) == (c["basis"], c["currency"])]
            bars = sorted(Decimal(e.get("data-value")) for e in _bars(c))
            assert bars == sorted(Decimal(r["expected"]) for r in mine)  # only this basis' figures
            top = max([Decimal(r["high"]) for r in mine] + bars)
            if top:
                for e in _bars(c):
                    assert float(e.get("width")) == pytest.approx(
                        float(Decimal(e.get("data-value")) / top) * charts.SCALE, abs=0.01)


def test_variance_bridge_ends_on_the_actual(demo_sheets):
    s = demo_sheets[BATCH]
    bridges = charts.variance_bridge(s, "en")
    rows = {(v["basis"], v["currency"]): v for v in s["plan_vs_actual"]["variance"]}
    assert {(b["basis"], b["currency"]) for b in bridges} == set(rows)
    for b in bridges:
        v = rows[(b["basis"], b["currency"])]
        steps = _svg(b).findall(f"{NS}rect")
        assert Decimal(steps[0].get("data-value")) == Decimal(v["plan"])
        assert Decimal(steps[-1].get("data-value")) == Decimal(v["actual"])  # the last bar is the actual
        deltas = [e for e in steps if "delta" in e.get("class")]
        assert Decimal(deltas[-1].get("data-to")) == Decimal(v["actual"])  # ...and the steps reach it
        # heights proportional to |value|, one scale per chart (to the 0.01 px the SVG is written at)
        big = max(steps, key=lambda e: abs(float(e.get("data-value"))))
        scale = float(big.get("height")) / abs(float(big.get("data-value")))
        for e in steps:
            assert float(e.get("height")) == pytest.approx(abs(float(e.get("data-value"))) * scale, abs=0.011)


def test_bridge_shows_a_residual_when_the_parts_do_not_add():
    s = {"plan_vs_actual": {"variance": [{"basis": "billed", "currency": "CNY", "plan": "100", "actual": "130",
                                          "price": "10", "volume": "5", "efficiency": "0", "rework": "5"}]}}
    (b,) = charts.variance_bridge(s, "en")
    steps = _svg(b).findall(f"{NS}rect")
    assert [e.get("data-value") for e in steps] == ["100", "10", "5", "0", "5", "10", "130"]
    assert b["rows"][5][0] == "unexplained"


def test_chart_labels_are_escaped():
    evil = '<script>alert(1)</script>"&'
    s = {"compute_by_state": [{"state": evil, "basis": "billed", "gpu_hours": "3", "amounts": []}],
         "totals_by_basis": [{"basis": "billed", "evidence": evil, "low": "1", "expected": "1", "high": "1",
                              "currency": "CNY"}]}
    for c in charts.sheet_charts(s, "en"):
        svg = str(c["svg"])
        assert "<script" not in svg and "&lt;script&gt;" in svg
        texts = ["".join(e.itertext()) for e in _svg(c).iter(f"{NS}text")]
        assert any(evil in x for x in texts)  # the text as it was, not markup
    html = to_html({**_minimal(), **s}, "en")
    assert "<script>alert" not in html


def _minimal() -> dict:
    return {"batch": {"id": "b", "name": "n", "project": "p", "team": "t"}, "key": {"goal": "g"},
            "runs": [], "storage_by_class": [], "labor_by_phase": [], "external": [], "assumptions": [],
            "conservation": {"by_currency": [], "rounding": "r"}}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_demo_sheet_html_has_the_charts_with_their_numbers_as_text(demo_sheets, lang):
    s = demo_sheets[BATCH]
    html = to_html(s, lang)
    figs = re.findall(r'<figure class="chart" id="fig-([^"]+)".*?</figure>', html, flags=re.S)
    ids = [c["id"] for c in charts.sheet_charts(s, lang)]
    assert figs == ids and len(ids) >= 5
    assert ("各资源状态的卡时" if lang == "zh-CN" else "GPU-hours by compute state") in html
    for fid in ids:
        fig = re.search(rf'<figure class="chart" id="fig-{re.escape(fid)}".*?</figure>', html, flags=re.S).group(0)
        svg, caption = fig.split("<figcaption>")
        assert "<svg" in svg and "<table" in caption
    bridge = re.search(r'id="fig-chart-bridge-billed-CNY".*?</figure>', html, flags=re.S).group(0)
    caption = bridge.split("<figcaption>")[1]
    # volume / efficiency: A's useful work is 26,382.17 Mtoken (a-r07's 1,677.72 after resuming a-r03 count):
    # volume 25,251.28. Rework is only the retry chains' failure (review/chains.py): a-r03's lost progress
    # and hang, a-r01 whole, the reruns' setup; a-r07's and a-r02's new training (5,530.64 at 36.00 per
    # GPU-hour) is effective work and a-r03's lost/hang and a-r01 (1,990.64) left efficiency: efficiency
    # 8,370.21 + 3,540.00 = 11,910.21, rework 2,805.75 − 3,540.00 = −734.25
    for part in ("44,555.00", "-458.94", "25,251.28", "11,910.21",
                 "-734.25", "80,523.30"):
        assert part in caption, part  # every step of the bridge as text
    hours = re.search(r'id="fig-chart-compute-hours".*?</figure>', html, flags=re.S).group(0)
    eff = next(r for r in s["compute_by_state"] if r["state"] == "effective")
    assert f"{Decimal(eff['gpu_hours']).quantize(Decimal('0.01')):,}" in hours.split("<figcaption>")[1]


def test_balance_left_and_right_from_the_sheet(demo_sheets):
    s = demo_sheets[BATCH]
    b = balance.build(s)
    billed = next(r for r in b["left"]["compute"] if r["basis"] == "billed")
    assert Decimal(billed["gpu_hours"]) == sum(Decimal(r["gpu_hours"] or 0) for r in s["compute_by_state"]
                                               if r["basis"] == "billed")
    assert Decimal(billed["expected"]) == sum(Decimal(r["amounts"][0]["expected"]) for r in s["compute_by_state"]
                                              if r["basis"] == "billed")
    assert Decimal(b["left"]["labor"][0]["hours"]) == sum(Decimal(p["hours"]) for p in s["labor_by_phase"])
    right = b["right"]
    assert right["assets"]["count"] == len(s["plan_vs_actual"]["reusable_assets"])
    assert Decimal(right["assets"]["monthly"][0]["amount"]) == sum(
        Decimal(a["monthly_cost"]) for a in s["plan_vs_actual"]["reusable_assets"])
    lessons = right["lessons"]["cost"]
    assert [(x["basis"], x["currency"]) for x in lessons] == [("billed", "CNY")]
    # what the failures cost (a-r01 84.56 + a-r03 2,096.00), not the progress a-r03's checkpoint kept
    assert Decimal(lessons[0]["amount"]) == sum(Decimal(c["failure_cost"][0]["amount"])
                                                for c in s["retry_chains"]) == Decimal("2180.56")


def test_sensitivity_reads_the_ranges_on_the_sheet(demo_sheets):
    s = demo_sheets[BATCH]
    rows = {r["name"]: r for r in balance.sensitivity(s)}
    q = next(r for r in s["totals_by_basis"] if r["basis"] == "queued")
    (m,) = rows["value of a queued GPU-hour (opportunity, not cash)"]["moves"]
    assert Decimal(m["low"]) == Decimal(q["low"]) - Decimal(q["expected"]) < 0
    assert Decimal(m["high"]) == Decimal(q["high"]) - Decimal(q["expected"]) > 0
    te = [c for p in s["labor_by_phase"] for r in p["roles"] if r["role"] == "training_engineering" for c in r["cost"]]
    (m,) = rows["labor rate: training_engineering"]["moves"]
    assert m["basis"] == "internal"
    assert Decimal(m["high"]) == sum(Decimal(c["high"]) - Decimal(c["expected"]) for c in te)
    assert rows["compute-state boundaries"]["moves"] is None  # not modelled, said so
    assert rows["storage prices (all tiers together)"]["joint"] is True


@pytest.mark.parametrize("lang,words", [("en", ["Resource consumption", "Delivery investment", "not modelled",
                                                "money moves at high"]),
                                        ("zh-CN", ["资源消耗", "交付投入", "未建模", "取高值时金额变动", "天平"])])
def test_balance_view_on_the_page(demo_sheets, lang, words):
    html = to_html(demo_sheets[BATCH], lang)
    for w in words:
        assert w in html, w
    assert html.count('id="sensitivity"') == 1 and 'id="balance-left"' in html and 'id="balance-right"' in html
    plain = to_html(demo_sheets["csa-sft-2026-11-b"], lang)
    assert 'id="balance-view"' in plain
