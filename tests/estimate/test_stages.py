"""The estimator as stages: the seed's order, one signature, failures as problem records."""

from __future__ import annotations

import inspect

import pytest
from click.testing import CliRunner

from tests.estimate.helpers import ON, estimate
from trainledger.cli import cli
from trainledger.errors import BadInput, NotFound
from trainledger.estimate import engine, stages
from trainledger.estimate.montecarlo import Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.spec import build_spec
from trainledger.pricebook import PriceBook

SEED_ORDER = ["task_type", "data", "memory", "throughput", "overhead", "prices", "rounds", "inference", "totals"]


def test_stages_follow_the_seed_order_with_one_signature():
    names = [fn.__name__.removesuffix("_stage") for fn, _ in stages.STAGES]
    assert names == SEED_ORDER
    for fn, _ in stages.STAGES:
        params = list(inspect.signature(fn).parameters)
        assert params == ["ctx", "f"], fn.__name__


def _ctx(book, **values):
    values.setdefault("samples", 2000)
    spec = build_spec({"task": "lora", "params": "7B", "tokens": "50M", "gpu": "h800", **values})
    return stages.Context(spec, Pricing(book, ON, "USD", collect_missing=True), Sampler(spec.samples, spec.seed), ON)


def test_a_failing_stage_is_a_problem_record_and_its_dependants_are_skipped(book):
    def broken_memory_stage(ctx, f):
        raise BadInput("no memory today", remedy="try tomorrow")

    broken_memory_stage.__name__ = "memory_stage"
    plan = [(broken_memory_stage if fn is stages.memory_stage else fn, needs) for fn, needs in stages.STAGES]
    out = stages.run_stages(_ctx(book), plan)
    by_stage = {p.stage: p for p in out.problems}
    assert by_stage["memory"].kind == "BadInput" and by_stage["memory"].remedy == "try tomorrow"
    # throughput needs the memory plan: skipped, not crashed; data and rounds still ran
    assert by_stage["throughput"].kind == "skipped" and "training" in by_stage["throughput"].message
    assert "data_total" in out.figures and "rounds" in out.figures
    assert "total" not in out.figures


def test_every_stage_adds_its_figures(book):
    out = stages.run_stages(_ctx(book))
    assert out.problems == ()
    for key in ("acc", "shape", "data_total", "training", "eff", "gpu_h", "compute_final", "rounds", "total"):
        assert key in out.figures


def _book_without(book, *items) -> PriceBook:
    entries = [be for be in book.entries if be.entry.item not in items]
    return PriceBook(book.path, entries, list(book.fx), book.currency)


def test_every_missing_price_item_is_listed_at_once(book):
    missing = ("gpu_hour:h800", "data:label_item", "labor:business_eval")
    thin = _book_without(book, *missing)
    with pytest.raises(engine.EstimateFailed) as err:
        estimate(thin, task="lora", params="7B", tokens="50M", gpu="h800")
    assert set(err.value.missing) == set(missing)
    for item in missing:
        assert item in str(err.value)
    assert "price book" in err.value.remedy


def test_one_missing_price_keeps_its_own_error(book):
    with pytest.raises(NotFound) as err:
        estimate(_book_without(book, "gpu_hour:h800"), task="lora", params="7B", tokens="50M", gpu="h800")
    assert "gpu_hour:h800" in str(err.value)


@pytest.mark.parametrize(
    ("option", "value", "remedy"),
    [
        ("--samples", "1", "--samples 100 or more"),
        ("--samples", "99", "--samples 100 or more"),
        ("--gpus", "0", "above 0"),
        ("--rounds", "0.5", "1 = the final run alone"),
        ("--rounds", "3..1", "low..mode..high"),
        ("--gpus", "1.5", "whole number"),
        ("--zero-stage", "5", "--zero-stage 0-3"),
    ],
)
def test_degenerate_options_are_refused_with_a_remedy(option, value, remedy):
    args = ["estimate", "--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800", option, value]
    r = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert r.exit_code == 2, r.output
    assert remedy in r.output


def test_samples_floor_is_checked_when_the_spec_is_built():
    with pytest.raises(BadInput, match="too few"):
        build_spec({"task": "rag", "samples": 10})
