"""The cost sheet's figures and order as a finance reader sees them, in every format: lifecycle order
from model/vocab.py, no exponent, separators in md / html only, rounding gaps and extra precision
told."""

from __future__ import annotations

import json
import re
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.model.vocab import COMPUTE_STATE_ORDER, StorageClass
from trainledger.report.render import render, to_html, to_json, to_markdown

SCIENTIFIC = re.compile(r"\d[eE][+-]?\d")
SHOWN = [x for x in COMPUTE_STATE_ORDER  # the states the sheet below holds (capacity no job held and
         if x not in ("reserved_unused", "capacity_unheld", "credit", "adjustment", "tax",  # money-only rows: none)
                      "prior_period_correction", "straggler_wait")]  # (no worker step times: test_cli_gpu_share.py)


def m(expected, low=None, high=None, cur="CNY"):
    return [{"expected": expected, "low": low or expected, "high": high or expected, "currency": cur}]


def sheet() -> dict:
    # states and classes deliberately alphabetical, as the sheet builder sorts them
    states = sorted(["queued", "setup", "data_stall", "effective", "checkpoint", "hang", "lost_progress",
                     "preemption_recovery", "allocated_idle", "unclassified", "tagged_resource"])
    compute = [{"state": s, "basis": "queued" if s == "queued" else "billed", "gpu_hours": "1.0049",
                "amounts": m("0E-11" if s == "hang" else "1234.5")} for s in states]
    storage = [{"storage_class": c, "basis": "estimate", "objects": 1, "bytes": 2 * 1024**3, "gib_months": "0.5",
                "cost": m("0.01"), "findings": []} for c in sorted(x.value for x in StorageClass)]
    return {
        "batch": {"id": "b1", "name": "n", "project": "p1", "team": "t"},
        "key": {"goal": "g", "batch_id": "b1"},
        "totals_by_basis": [
            {"basis": "estimate", "evidence": "measured", "cash": False, "low": "0.08", "expected": "0.08",
             "high": "0.08", "currency": "CNY", "lines": 9},
            {"basis": "billed", "evidence": "contract", "cash": True, "low": "2.0150E-7", "expected": "12345.5",
             "high": "12345.5", "currency": "CNY", "lines": 10},
        ],
        "compute_by_state": compute,
        "compute_efficiency": [{"currency": "CNY", "billed": "12345.5", "effective": "1234.5",
                                "other_states": "11111", "gpu_hours": "10.049", "effective_gpu_hours": "1.0049",
                                "effective_share": "0.1"}],
        "runs": [], "storage_by_class": storage,
        "labor_by_phase": [{"phase": p, "hours": "1", "cost": m("1"), "roles": []} for p in ("run", "build")],
        "external": [],
        "assumptions": [{"name": "a", "evidence": "assumed", "low": "2.0150E-7", "high": "3E-7", "source": "s",
                         "owner": "o"}],
        "conservation": {"by_currency": [{"currency": "CNY", "billed_total": "1234567.891",
                                          "attributed": "1234567.891", "unattributed": "0E-11",
                                          "difference": "0E-11"}], "rounding": "r"},
        "problems": [],
    }


def positions(text: str, words: list[str]) -> list[int]:
    return [text.index(w) for w in words]


def test_compute_states_storage_classes_and_bases_follow_the_seed_order_in_every_format():
    s = sheet()
    md, html, js = to_markdown(s, "en"), to_html(s, "en"), json.loads(to_json(s))
    assert [r["state"] for r in js["compute_by_state"]] == SHOWN
    assert [r["storage_class"] for r in js["storage_by_class"]] == [c.value for c in StorageClass]
    assert [r["basis"] for r in js["totals_by_basis"]] == ["billed", "estimate"]
    assert [p["phase"] for p in js["labor_by_phase"]] == ["build", "run"]
    compute_md = md.split("## Compute by state")[1].split("###")[0]
    labels = [s.replace("_", " ") for s in SHOWN]
    rows = [line.split(" | ")[0].lstrip("| ") for line in compute_md.splitlines() if line.startswith("| ")][1:]
    assert rows == labels
    states_html = re.findall(r'data-state="([a-z_]+)"', html)
    assert states_html == SHOWN
    zh = to_markdown(s, "zh-CN")
    assert positions(zh, ["排队未分配 |", "环境准备", "数据等待", "有效训练 |", "检查点保存", "无进度信号"]) == \
        sorted(positions(zh, ["排队未分配 |", "环境准备", "数据等待", "有效训练 |", "检查点保存", "无进度信号"]))
    assert s["compute_by_state"][0]["state"] == "allocated_idle"  # the caller's sheet is not reordered


def test_no_renderer_prints_scientific_notation_and_json_has_no_separators():
    s = sheet()
    for lang in ("en", "zh-CN"):
        for fmt in ("md", "html"):
            text = render(s, fmt, lang)
            figures = re.sub(r"<style>.*?</style>", "", text, flags=re.S)
            assert not SCIENTIFIC.search(figures), SCIENTIFIC.search(figures)
            assert "1,234,567.891†" in text and "12,345.50" in text and "0.0000002015†" in text
    md = to_markdown(s, "en")
    assert "| hang | billed | 1.00 | 0.00 CNY |" in md
    assert "the source carries more precision than the currency's minor unit" in md
    assert "来源数据的精度高于该币种的最小单位" in to_markdown(s, "zh-CN")
    assert "0.0000002015–0.0000003" in md  # assumption range as written, no exponent
    assert '"1234567.891"' in to_json(s) and "1,234" not in to_json(s)


def test_rounded_rows_that_do_not_add_up_are_explained():
    md = to_markdown(sheet(), "en")
    # ten billed states of 1.0049 h each show 1.00, adding to 10.00; their total 10.049 shows 10.05
    assert "the rows add to 10.00 GPU-hours, the total is 10.05 GPU-hours; the difference of -0.05" in md
    # nine storage rows of 0.01 add to 0.09; the estimate total says 0.08
    assert "Storage by class · estimate:" in md and "the rows add to 0.09 CNY, the total is 0.08 CNY" in md
    html = to_html(sheet(), "zh-CN")
    assert html.count('class="muted figure-note"') == 3  # hours, storage, and the † note


def test_a_gap_beyond_rounding_is_not_called_rounding():
    s = sheet()
    s["totals_by_basis"][0]["expected"] = "5.00"  # rows add to 0.09: that is not rounding
    assert "Storage by class · estimate" not in to_markdown(s, "en")


@settings(max_examples=25)
@given(st.lists(st.tuples(st.integers(0, 1), st.lists(st.integers(0, 9), min_size=1, max_size=18),
                          st.integers(-25, 8)).map(lambda t: str(Decimal((t[0], tuple(t[1]), t[2])))),
                min_size=6, max_size=6))
def test_any_decimal_text_the_sheet_carries_renders_without_an_exponent(values):
    a, b, c, d, e, f = values  # str(Decimal) spells these 0E-11, 2.015E-7, 1.5E+9 …
    s = sheet()
    s["totals_by_basis"][1].update(expected=a, low=b, high=c)
    s["compute_by_state"][0].update(gpu_hours=d, amounts=m(e, f, a))
    s["storage_by_class"][0].update(gib_months=f, cost=m(b))
    s["conservation"]["by_currency"][0].update(billed_total=c, difference=d)
    for text in (to_markdown(s, "en"), re.sub(r"<style>.*?</style>", "", to_html(s, "zh-CN"), flags=re.S)):
        assert not SCIENTIFIC.search(text), SCIENTIFIC.search(text)


def test_problems_of_one_kind_are_grouped_on_the_sheet_with_all_of_them_in_json():
    s = sheet()
    s["problems"] = [{"kind": "job_without_batch", "message": f"job {i} matched no slurm rule",
                     "detail": {"job_id": i}} for i in range(50)]
    s["problems"].append({"kind": "stale_price", "message": "one stale price"})
    md = to_markdown(s, "en")
    assert "- **job without a batch** × 50" in md and md.count("matched no slurm rule") == 3
    assert "… and 47 more: every one is in the JSON sheet (--format json)" in md
    assert "- **stale price**: one stale price" in md  # no detail to render from: the engine's message
    assert "另有 47 条" in to_markdown(s, "zh-CN")
    html = to_html(s, "en")
    assert html.count("matched no slurm rule") == 3 and "× 50" in html
    assert len(json.loads(to_json(s))["problems"]) == 51


def test_a_price_per_gpu_hour_is_shown_at_the_minor_unit_in_md_and_html():
    # review: "36 CNY" per GPU-hour (an owned capacity rate and a compute state's implied price)
    s = sheet()
    s["compute_by_state"][0]["price_per_gpu_hour"] = {"amount": "36.0000", "currency": "CNY"}
    s["conservation"]["capacity"] = [{"capacity": "h800-reserved", "basis": "rate_card", "price_per_gpu_hour": "36",
                                      "total": "1440.00", "attributed": "1160.00", "unheld": "280.00",
                                      "difference": "0.00", "currency": "CNY"}]
    md, html = to_markdown(s, "en"), to_html(s, "en")
    assert "| 36.00 CNY |" in md and "| rate card | 36.00 |" in md and " 36 CNY" not in md
    assert '<td class="num">36.00 CNY</td>' in html and '<td class="num">36.00</td>' in html
