"""The whole estimate: contract fields, properties, honesty rules."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.estimate.helpers import estimate
from trainledger.errors import BadInput, NotFound
from trainledger.estimate.quantities import parse_count, parse_range

PCT = ("p10", "p50", "p90")


def ordered(d: dict) -> bool:
    return d["p10"] <= d["p50"] <= d["p90"]


def test_contract_fields(book):
    d = estimate(
        book,
        task="pretrain",
        params="70e9",
        tokens="2e12",
        gpu="a100-80gb",
        gpus=2048,
        seq_len=4096,
        micro_batch=1,
    ).to_dict()
    assert d["task"] == "pretrain"
    assert set(d["gpu"]) >= {"id", "memory_bytes", "peak_tflops"}
    assert d["gpu"]["memory_bytes"] == 80 * 2**30 and d["gpu"]["peak_tflops"] == 312
    assert set(d["memory"]) >= {
        "per_gpu_bytes",
        "model_states_per_gpu_bytes",
        "activations_per_gpu_bytes",
        "min_gpus",
        "strategy",
        "dominant_term",
    }
    for k in ("effective_gpu_hours", "gpu_hours", "wallclock_days"):
        assert ordered(d[k])
    assert d["gpu_hours"]["p50"] > d["effective_gpu_hours"]["p50"]
    cost = d["cost"]
    assert cost["currency"] == "USD"
    for k in ("compute", "data", "labor", "total"):
        assert ordered(cost[k]) and all(isinstance(cost[k][p], Decimal) for p in PCT)
        assert all(cost[k][p] == cost[k][p].quantize(Decimal("0.01")) for p in PCT)
    assert ordered(d["cost_final_run"]["total"])
    assert d["cost_final_run"]["compute"]["p50"] < cost["compute"]["p50"]  # rounds > 1
    for a in d["assumptions"]:
        assert {"name", "evidence", "source"} <= set(a)
        assert "value" in a or {"low", "high"} <= set(a)
        if a["evidence"] == "assumed":
            assert a["owner"]


def test_numbers_accept_suffixes():
    assert parse_count("7B") == parse_count("7e9") == 7e9
    assert parse_count("2T") == 2e12 and parse_count("500M") == 5e8 and parse_count("1.5k") == 1500
    assert parse_range("1..3", "r") == (1, 2, 3) and parse_range("2", "r") == (2, 2, 2)
    for bad in ("-1", "seven", "1e400", "0"):
        with pytest.raises(BadInput):
            parse_count(bad)


@settings(max_examples=15, deadline=None)
@given(tokens=st.floats(1e9, 1e13), more=st.floats(1.0, 10.0))
def test_more_tokens_never_cost_less(book, tokens, more):
    kw = dict(task="pretrain", params="1B", gpu="a100-80gb", gpus=64, samples=2000)
    a = estimate(book, tokens=tokens, **kw).to_dict()
    b = estimate(book, tokens=tokens * more, **kw).to_dict()
    for k in ("compute", "total"):
        assert all(b["cost"][k][p] >= a["cost"][k][p] for p in PCT)
    assert all(b["gpu_hours"][p] >= a["gpu_hours"][p] for p in PCT)


@settings(max_examples=15, deadline=None)
@given(gpus=st.integers(3, 512), extra=st.integers(1, 512))  # 70B needs 18 x 80 GB (18 bytes/param)
def test_more_gpus_never_raise_memory_per_gpu_under_zero3_end_to_end(book, gpus, extra):
    # whole nodes: every tp of the search (1/2/4/8) divides both counts, so the layout is the same;
    # an odd count may only be held by tp 1 (whole replicas), with more activation memory per GPU
    gpus, extra = 8 * gpus, 8 * extra
    kw = dict(task="pretrain", params="70B", tokens="1T", gpu="a100-80gb", zero_stage=3, samples=200)
    a = estimate(book, gpus=gpus, **kw).to_dict()["memory"]["per_gpu_bytes"]
    b = estimate(book, gpus=gpus + extra, **kw).to_dict()["memory"]["per_gpu_bytes"]
    assert b <= a


@settings(max_examples=10, deadline=None)
@given(
    task=st.sampled_from(["pretrain", "continued_pretrain", "full_finetune", "lora", "qlora", "rag"]),
    params=st.sampled_from(["1B", "7B", "70B"]),
    tokens=st.sampled_from(["10M", "1B", "1T"]),
)
def test_every_range_is_ordered(book, task, params, tokens):
    d = estimate(book, task=task, params=params, tokens=tokens, gpu="h100-80gb", samples=1000).to_dict()
    for k in ("effective_gpu_hours", "gpu_hours", "programme_gpu_hours"):
        assert ordered(d[k])
    for block in (d["cost"], d["cost_final_run"]):
        for k, v in block.items():
            if isinstance(v, dict) and "p50" in v:
                assert ordered(v), k


def test_rag_has_no_training_compute_and_routes(book):
    d = estimate(book, task="rag").to_dict()
    assert d["effective_gpu_hours"] == {"p10": 0, "p50": 0, "p90": 0}
    assert d["cost"]["compute"]["p90"] == 0
    assert d["cost"]["data"]["p50"] > 0 and d["cost"]["labor"]["p50"] > 0
    assert any("no training compute" in n for n in d["notes"])


def test_inference_is_separate_and_never_added(book):
    kw = dict(task="lora", params="7B", tokens="20M", gpu="a100-80gb")
    without = estimate(book, **kw).to_dict()
    with_inf = estimate(
        book,
        inference={"requests_per_day": [1000, 2000, 4000], "tokens_per_request": [500, 800, 1500]},
        **kw,
    ).to_dict()
    assert with_inf["cost"]["total"] == without["cost"]["total"]
    assert with_inf["inference"]["separate_from_training"] is True
    assert with_inf["inference"]["total"]["p50"] > 0 and without["inference"] is None


def test_implausible_pretraining_warns_but_finetuning_on_few_tokens_does_not(book):
    pre = estimate(book, task="pretrain", params="7B", tokens="1B", gpu="a100-80gb")
    assert any("implausible" in w for w in pre.warnings)
    ft = estimate(book, task="lora", params="7B", tokens="1M", gpu="a100-80gb")
    assert not any("implausible" in w for w in ft.warnings)


def test_stale_prices_are_flagged(book):
    e = estimate(book, task="pretrain", params="7B", tokens="1T", gpu="h100-80gb")
    assert any("stale price" in w and "gpu_hour:h100-80gb" in w for w in e.warnings)
    row = next(a for a in e.assumptions if a.name == "price gpu_hour:h100-80gb")
    assert "STALE" in row.note


def test_report_currency_converts_with_a_listed_dated_rate(book):
    usd = estimate(book, task="lora", params="7B", tokens="20M", gpu="a100-80gb").to_dict()
    cny = estimate(book, task="lora", params="7B", tokens="20M", gpu="a100-80gb", currency="CNY").to_dict()
    assert cny["cost"]["currency"] == "CNY"
    ratio = cny["cost"]["total"]["p50"] / usd["cost"]["total"]["p50"]
    assert ratio == pytest.approx(Decimal("7.1884"), rel=Decimal("1e-6"))
    fx = next(a for a in cny["assumptions"] if a["name"] == "FX USD/CNY")
    assert fx["value"] == "7.1884" and "2024-12-31" in fx["note"]


def test_workspace_history_calibrates_the_overhead(book):
    from tests.estimate.helpers import ON
    from trainledger.estimate.engine import run
    from trainledger.estimate.spec import build_spec

    spec = build_spec(dict(task="pretrain", params="7B", tokens="1T", gpu="a100-80gb", samples=5000))
    e = run(
        spec,
        book=book,
        on=ON,
        history_ratios=[1.3, 1.4, 1.35, 1.5, 1.45],
        history_note="calibrated from 5 batches",
    )
    row = next(a for a in e.assumptions if a.name.startswith("overhead factor"))
    assert row.evidence == "measured" and row.low == "1.3" and row.high == "1.5"
    assert 1.3 <= e.overhead.p10 <= e.overhead.p90 <= 1.5


def test_bad_inputs_are_clear(book):
    with pytest.raises(NotFound, match="unknown accelerator"):
        estimate(book, task="pretrain", params="7B", tokens="1T", gpu="z9000")
    with pytest.raises(BadInput, match="needs --params and --tokens"):
        estimate(book, task="pretrain", gpu="a100-80gb")
    with pytest.raises(BadInput, match="exceed total parameters"):
        estimate(book, task="pretrain", params="7B", active_params="8B", tokens="1T", gpu="a100-80gb")
    with pytest.raises(BadInput, match="no FP8"):
        estimate(book, task="pretrain", params="7B", tokens="1T", gpu="a100-80gb", precision="fp8")
    with pytest.raises(NotFound, match="no price for 'gpu_hour:nope'"):
        estimate(
            book,
            task="pretrain",
            params="7B",
            tokens="1T",
            gpu="a100-80gb",
            price_item="gpu_hour:nope",
        )


def test_custom_accelerator_with_its_own_price(book):
    e = estimate(
        book,
        task="lora",
        params="7B",
        tokens="10M",
        gpu_memory_gb=48,
        peak_tflops=150,
        price_item="gpu_hour:a6000",
    )
    d = e.to_dict()
    assert d["gpu"]["memory_bytes"] == 48 * 2**30 and d["gpu"]["peak_tflops"] == 150
    assert any(a["name"].startswith("MFU (other") for a in d["assumptions"])


def test_custom_accelerator_without_a_price_uses_a_visible_proxy(book):
    e = estimate(book, task="pretrain", params="7B", tokens="100B", gpu_memory_gb=48, peak_tflops=150)
    assert any("nearest catalog accelerator a6000" in w for w in e.warnings)
    row = next(a for a in e.assumptions if a.name == "price gpu_hour (proxy: a6000)")
    assert row.evidence == "assumed" and row.owner == "procurement"
