"""Data, labor, rounds and inference against hand-worked figures; renderers; the public API."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

import trainledger.estimate as est
from tests.estimate.helpers import estimate
from trainledger.errors import BadInput
from trainledger.pricebook import load_price_book
from trainledger.report.estimate_render import dumps, render_estimate

POINT_BOOK = """
currency = "USD"
[[price]]
item = "gpu_hour:a100-80gb"
unit = "gpu_hour"
price = 2
currency = "USD"
source = "quote Q-1"
effective = 2026-01-01
[[price]]
item = "labor:data_prep"
unit = "person_month"
price = 10000
currency = "USD"
source = "rate card"
effective = 2026-01-01
[[price]]
item = "labor:training_engineering"
unit = "person_hour"
price = 100
currency = "USD"
source = "rate card"
effective = 2026-01-01
[[price]]
item = "data:label_item"
unit = "item"
price = 2
currency = "USD"
source = "vendor quote"
effective = 2026-01-01
[[price]]
item = "data:review_item"
unit = "item"
price = 0.5
currency = "USD"
source = "vendor quote"
effective = 2026-01-01
"""

PLAN = dict(
    data={
        "licensing": 5000,
        "cleaning_person_months": 2,
        "labelled_items": 1000,
        "review_fraction": 0.2,
        "eval_items": 500,
    },
    labor={"build": {"training_engineering": 2}, "run": {"training_engineering": 1}},
    rounds="2",
)


@pytest.fixture()
def point_book(tmp_path):
    p = tmp_path / "point.toml"
    p.write_text(POINT_BOOK)
    return load_price_book(p)


def test_data_costs_hand_worked(point_book):
    d = estimate(point_book, task="rag", samples=1000, **PLAN).to_dict()
    # licensing 5,000 + cleaning 2 pm x 10,000 + labelling 1,000 x 2 + validation 1,000 x 0.2
    # x 0.5 + eval 500 x 2 = 5,000 + 20,000 + 2,000 + 100 + 1,000 = 28,100
    assert d["cost"]["data"] == {p: Decimal("28100.00") for p in ("p10", "p50", "p90")}
    assert d["cost"]["data_lines"]["validation"]["p50"] == Decimal("100.00")


def test_labor_build_once_run_per_round(point_book):
    d = estimate(point_book, task="rag", samples=1000, **PLAN).to_dict()
    # 1 person-month = 168 person-hours (price book convention) -> 16,800 per month;
    # build 2 x 16,800 + run 1 x 16,800 x 2 rounds = 67,200; one final round: 16,800
    assert d["cost"]["labor"]["p50"] == Decimal("67200.00")
    assert d["cost_final_run"]["labor"]["p50"] == Decimal("16800.00")


def test_compute_scales_with_rounds_and_final_run_is_separate(point_book):
    d = estimate(point_book, task="lora", params="7B", tokens="20M", gpu="a100-80gb", samples=5000, **PLAN).to_dict()
    final = d["cost_final_run"]["compute"]["p50"]
    assert d["cost"]["compute"]["p50"] == pytest.approx(2 * final, abs=Decimal("0.02"))
    total = d["cost"]["total"]["p50"]
    assert total > d["cost"]["compute"]["p50"] + d["cost"]["data"]["p50"]


def test_inference_api_mode_hand_worked(tmp_path):
    p = tmp_path / "api.toml"
    p.write_text(
        POINT_BOOK + '[[price]]\nitem = "inference:api"\nunit = "mtok"\nprice = 1\n'
        'currency = "USD"\nsource = "list"\neffective = 2026-01-01\n'
    )
    d = estimate(
        load_price_book(p),
        task="rag",
        samples=1000,
        data=PLAN["data"],
        labor=PLAN["labor"],
        inference={
            "mode": "api",
            "api_price_item": "inference:api",
            "requests_per_day": 1000,
            "tokens_per_request": 1000,
            "months": 12,
        },
    ).to_dict()
    # 1,000 x 1,000 tokens x 365/12 days = 30.4167M tokens/month x 1 USD per million
    assert d["inference"]["monthly"]["p50"] == Decimal("30.42")
    assert d["inference"]["total"]["p50"] == Decimal("365.00")


def test_spec_errors_are_clear(point_book):
    with pytest.raises(BadInput, match="unknown role 'chef'"):
        estimate(point_book, task="rag", labor={"build": {"chef": 1}})
    with pytest.raises(BadInput, match=r"\[data\]: unknown keys \['gpus'\]"):
        estimate(point_book, task="rag", data={"gpus": 1})
    with pytest.raises(BadInput, match="give \\[low, mode, high\\]"):
        estimate(point_book, task="rag", data={"eval_items": [1, 2]})


def test_json_writes_decimals_exactly():
    text = dumps({"a": Decimal("1234.50"), "b": [1, 2.5, None, "x"]})
    assert '"a": 1234.50' in text
    back = json.loads(text, parse_float=Decimal)
    assert back["a"] == Decimal("1234.50")


def test_html_escapes_names(book):
    d = estimate(book, task="rag", samples=1000, name="<script>alert(1)</script>").to_dict()
    html = render_estimate(d, "html", "en")
    assert "<script>alert" not in html and "&lt;script&gt;" in html
    md = render_estimate(d, "md", "zh-CN")
    assert "提示词加检索" in md and "RAG 不改动模型权重" in md


def test_public_api_is_sorted_and_complete():
    assert est.__all__ == sorted(est.__all__)
    for name in est.__all__:
        assert hasattr(est, name)


def test_header_names_the_largest_part_beside_the_task_types_typical_answer(book):
    """Review 5 J11: "Where the money usually goes: compute" above a table where compute is 5 % of the
    P50 — the header also says which part holds most of this estimate, with its share."""
    from trainledger.report.estimate_view import estimate_view

    d = estimate(book, task="pretrain", params="7B", tokens="100B", gpu="a100-80gb", gpus="64", samples=2000).to_dict()
    p50 = {k: d["cost"][k]["p50"] for k in ("compute", "data", "labor")}
    largest = max(p50, key=lambda k: p50[k])
    share = f"{p50[largest] / d['cost']['total']['p50']:.0%}"
    labels = {"compute": ("Compute", "算力"), "data": ("Data", "数据"), "labor": ("Labor", "人力")}[largest]
    head = dict(estimate_view(d, "en")["head"])
    assert head["Where the money usually goes for this task type"] == "compute, and overwhelmingly so"
    got = head["Largest part of this estimate (P50)"]
    assert got.startswith(labels[0]) and f"({share} of the P50 total)" in got
    zh = dict(estimate_view(d, "zh-CN")["head"])["本估算中最大的一项（P50）"]
    assert zh.startswith(labels[1]) and f"占 P50 合计的 {share}" in zh
