"""CLI behaviour the review asked for: guided rounds, FlashAttention, compare's inputs and resale."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

COMMON = ["--format", "json", "--samples", "20000", "--on", "2025-03-01"]


def invoke(args, **kw):
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kw)


def _json(args, **kw) -> dict:
    r = invoke(args, **kw)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _rounds_row(d: dict) -> dict:
    return next(a for a in d["assumptions"] if a["name"] == "experiment rounds (final-run equivalents)")


# ---------------------------------------------------------------- 4. guided mode honours the rounds answer


@pytest.mark.parametrize(
    ("answers", "task_args"),
    [
        ("n\n0\ny\n", ["--task", "rag"]),
        (
            "y\n0\ny\nn\n7B\n1T\nh100-80gb\n",
            ["--task", "pretrain", "--params", "7B", "--tokens", "1T", "--gpu", "h100-80gb"],
        ),
    ],
    ids=["rag", "pretrain"],
)
def test_guided_several_rounds_is_the_tasks_sourced_prior_labelled_as_the_answer(answers, task_args):
    guided = _json(["estimate", "--guided", *COMMON], input=answers)
    plain = _json(["estimate", *task_args, *COMMON])
    assert guided["rounds"] == plain["rounds"]  # several rounds: yes -> the task's prior itself
    assert guided["cost"]["labor"] == plain["cost"]["labor"]
    row = _rounds_row(guided)
    assert row["source"].startswith("guided answer (several rounds: yes)") and "(--rounds)" not in row["source"]
    assert _rounds_row(plain)["source"] in row["source"]  # built from the task's sourced prior
    assert row["source_zh"].startswith("引导问答的回答")


def test_guided_one_round_scales_the_prior_down():
    several = _json(["estimate", "--guided", *COMMON], input="n\n0\ny\n")
    one = _json(["estimate", "--guided", *COMMON], input="n\n0\nn\n")
    assert one["rounds"]["p10"] >= 1 and one["rounds"]["p90"] < several["rounds"]["p90"]
    assert one["rounds"]["p50"] < several["rounds"]["p50"]
    assert _rounds_row(one)["source"].startswith("guided answer (several rounds: no)")


def test_explicit_rounds_win_over_the_guided_answer():
    d = _json(["estimate", "--guided", "--rounds", "2", *COMMON], input="n\n0\ny\n")
    assert d["rounds"] == {"p10": 2, "p50": 2, "p90": 2}
    assert _rounds_row(d)["source"] == "requester (--rounds)"


# ---------------------------------------------------------------- 8. FlashAttention explicit, and switchable

PRE = ["estimate", "--task", "pretrain", "--params", "7B", "--tokens", "1T", "--gpu", "a100-80gb", "--gpus", "64"]


def test_recompute_none_equals_selective_with_flash_attention_and_says_so():
    none = _json([*PRE, "--recompute", "none", *COMMON])
    sel = _json([*PRE, "--recompute", "selective", *COMMON])
    assert none["memory"]["activations_per_gpu_bytes"] == sel["memory"]["activations_per_gpu_bytes"]
    assert none["flops"]["hardware"] == sel["flops"]["hardware"]
    assert "flash-attention" in none["memory"]["training_strategy"] and "flash-attention" in none["memory"]["why"]
    row = next(a for a in none["assumptions"] if a["name"] == "attention kernel")
    assert row["value"].startswith("FlashAttention") and "2205.14135" in row["source"]


def test_no_flash_attention_reaches_the_korthikanti_attention_term():
    fa = _json([*PRE, "--recompute", "none", *COMMON])
    eager = _json([*PRE, "--recompute", "none", "--no-flash-attention", *COMMON])
    sel = _json([*PRE, "--recompute", "selective", "--no-flash-attention", *COMMON])

    # 5*a*s/h per layer on top of 34: s=4096, h=4096, 32 heads -> 34 + 160 = 194 (x5.7 before the
    # fp32 logits, which both carry); the costed layout splits them over its tensor parallelism
    def tp(d):
        m = re.search(r"\+tp(\d+)", d["memory"]["training_strategy"])
        return int(m.group(1)) if m else 1

    assert tp(eager) > tp(fa)  # the s x s scores need more tensor parallelism to fit
    ratio = (tp(eager) * eager["memory"]["activations_per_gpu_bytes"]) / (
        tp(fa) * fa["memory"]["activations_per_gpu_bytes"]
    )
    assert 5.0 < ratio < 194 / 34
    assert sel["memory"]["activations_per_gpu_bytes"] == fa["memory"]["activations_per_gpu_bytes"]
    assert eager["flops"]["hardware"] == eager["flops"]["model"] < fa["flops"]["hardware"]
    assert "no-flash-attention" in eager["memory"]["training_strategy"]
    row = next(a for a in eager["assumptions"] if a["name"] == "attention kernel")
    assert row["value"].startswith("standard attention") and "--no-flash-attention" in row["source"]


# ---------------------------------------------------------------- 10. rag: wallclock_days is zeros


def test_rag_wallclock_days_are_zeros_not_null():
    d = _json(["estimate", "--task", "rag", *COMMON])
    assert d["wallclock_days"] == {"p10": 0, "p50": 0, "p90": 0}
    assert d["memory"]["least_gpu_plan"] is None and d["memory"]["per_gpu_bytes"] == 0


# ---------------------------------------------------------------- 6-7. compare: resale by horizon, whole numbers

CMP = ["compare", "--gpu", "h100-80gb", "--gpus", "64", *COMMON]


def _own(years: int) -> dict:
    d = _json([*CMP, "--years", str(years)])
    return next(o for o in d["options"] if o["name"] == "own")


def test_resale_value_falls_with_the_horizon_to_a_floor():
    resale = {y: -float(_own(y)["lines"]["exit_resale"]["p50"]) for y in (1, 3, 5, 10, 20)}
    purchase = float(_own(1)["lines"]["purchase"]["p50"])
    assert resale[1] > resale[3] > resale[5] > resale[10] > 0
    assert resale[10] == pytest.approx(resale[20], rel=1e-9)  # past every useful life: the floor only
    assert resale[20] < 0.15 * purchase and resale[1] < purchase
    d = _json([*CMP, "--years", "3"])
    assert "falls with the horizon" in d["basis"]
    names = {a["name"] for a in d["assumptions"]}
    assert {"server useful life (straight-line)", "resale floor (share of capex)"} <= names
    life = next(a for a in d["assumptions"] if a["name"] == "server useful life (straight-line)")
    assert life["evidence"] == "assumed" and life["owner"] == "procurement" and "10-K" in life["source"]


@pytest.mark.parametrize(("flag", "value"), [("--gpus", "8.9"), ("--years", "2.9"), ("--gpus", "1.5")])
def test_compare_refuses_fractional_counts_like_estimate(flag, value):
    args = ["compare", "--gpu", "h100-80gb", "--gpus", "8", "--years", "3", "--samples", "2000"]
    args[args.index(flag) + 1] = value
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 2 and "must be a whole number" in r.stderr and value in r.stderr
