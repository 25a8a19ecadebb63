"""Every answer is used: each guided answer, each flag and each spec key reaches the figure it names."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.cli.estimate import _TEXT_OPTS

BASE = ["--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800", "--gpus", "8"]
COMMON = ["--format", "json", "--samples", "2000", "--on", "2026-11-29"]


def run_cli(args, stdin=None) -> dict:
    r = CliRunner().invoke(cli, ["estimate", *args, *COMMON], input=stdin, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def at(d: dict, path: str):
    for part in path.split("."):
        d = d[part]
    return d


def row(d: dict, name_part: str) -> dict:
    rows = [a for a in d["assumptions"] if name_part in a["name"]]
    assert len(rows) == 1, [a["name"] for a in d["assumptions"]]
    return rows[0]


# ------------------------------------------------------------------ guided answers
def guided(answers: str) -> dict:
    return run_cli(["--guided"], stdin=answers)


def test_labelled_samples_answer_reaches_the_labelled_items():
    five = guided("y\n5000\ny\n7B\n50M\nh800\n")
    ten = guided("y\n10000\ny\n7B\n50M\nh800\n")
    r = row(five, "labelled items")
    assert r["value"] == "5000" and r["owner"] == "requester" and "guided answer" in r["source"]
    # no longer the placeholder (1,000-50,000, mode 10,000), nor named as one
    assert "labelled_items" not in " ".join(five["warnings"])
    # the labelling line is the answer x the same sampled price: twice the answer, twice the line
    lab5, lab10 = five["cost"]["data_lines"]["labelling"], ten["cost"]["data_lines"]["labelling"]
    for k in ("p10", "p50", "p90"):
        assert lab10[k] == pytest.approx(2 * lab5[k], rel=1e-6)


def test_labelled_items_in_the_spec_win_over_the_guided_answer(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text("[data]\nlabelled_items = [100, 200, 300]\n", encoding="utf-8")
    d = run_cli(["--guided", "--from", str(spec)], stdin="y\n5000\ny\n7B\n50M\nh800\n")
    r = row(d, "labelled items")
    assert (r["low"], r["high"]) == ("100", "300") and "spec [data]" in r["source"]


def test_weights_answer_reaches_the_task_and_compute():
    rag = guided("n\n0\ny\n")
    assert rag["task"] == "rag" and rag["cost"]["compute"]["p90"] == 0
    lora = guided("y\n5000\ny\n7B\n50M\nh800\n")
    assert lora["task"] == "lora" and lora["cost"]["compute"]["p50"] > 0


def test_labelled_answer_of_a_rag_is_its_evaluation_set():
    d = guided("n\n800\ny\n")
    assert row(d, "eval items")["value"] == "800"


def test_existing_model_answer_reaches_the_task():
    assert guided("y\n0\ny\ny\n7B\n1B\nh800\n")["task"] == "continued_pretrain"
    assert guided("y\n0\ny\nn\n7B\n1B\nh800\n")["task"] == "pretrain"


def test_rounds_answer_reaches_the_rounds():
    several = guided("y\n5000\ny\n7B\n50M\nh800\n")["rounds"]
    one = guided("y\n5000\nn\n7B\n50M\nh800\n")["rounds"]
    assert one["p50"] < several["p50"]
    assert one["p10"] >= 1.0


def test_size_answers_reach_the_flops():
    small = guided("y\n5000\ny\n7B\n50M\nh800\n")
    big = guided("y\n5000\ny\n13B\n100M\na100-80gb\n")
    assert small["flops"]["params"] == 7e9 and big["flops"]["params"] == 13e9
    assert big["flops"]["tokens"] == 1e8 and big["gpu"]["id"] == "a100-80gb"


# ------------------------------------------------------------------ flags
# flag -> (value, the figure it names). The base plan is BASE: a LoRA 7B on 8 H800.
FLAG_FIGURES = {
    "--task": ("full_finetune", "task"),
    "--params": ("13B", "flops.params"),
    "--active-params": ("3B", "flops.active_params"),
    "--tokens": ("100M", "flops.model"),
    "--gpu": ("a100-80gb", "gpu.id"),
    "--gpus": ("16", "gpus.count"),
    "--seq-len": ("2048", "flops.model"),
    "--micro-batch": ("2", "memory.activations_per_gpu_bytes"),
    "--zero-stage": ("1", "memory.training_strategy"),
    "--tp": ("2", "memory.training_strategy"),
    "--pp": ("2", "memory.training_strategy"),
    "--layers": ("40", "flops.model"),
    "--hidden": ("3584", "flops.model"),
    "--heads": ("64", "shape"),
    "--vocab": ("128000", "memory.activations_per_gpu_bytes"),
    "--lora-rank": ("64", "flops.model"),
    "--gpu-memory-gb": ("96", "gpu.memory_bytes"),
    "--peak-tflops": ("500", "gpu.peak_tflops"),
    "--price-item": ("gpu_hour:h100-80gb", "cost.compute.p50"),
    "--rounds": ("1", "rounds.p50"),
    "--currency": ("CNY", "cost.currency"),
    "--on": ("2026-06-01", "priced_on"),
    "--samples": ("3000", "monte_carlo.samples"),
    "--seed": ("7", "cost.total.p50"),
    "--name": ("mine", "name"),
    "--recompute": ("full", "flops.hardware"),
    "--offload": ("optimizer", "memory.training_strategy"),
    "--fsdp": ("hybrid", "memory.training_strategy"),
    "--precision": ("fp8", "mfu.p50"),
    "--optimizer": ("sgd", "memory.model_states_per_gpu_bytes"),
}
CUSTOM = ["--gpu-memory-gb", "80", "--peak-tflops", "989.4"]  # an accelerator outside the catalog: both


def figure(d: dict, path: str):
    if path == "shape":
        return row(d, "model shape")["value"]
    return at(d, path)


def test_every_text_option_is_in_the_table():
    assert {flag for flag, _ in _TEXT_OPTS} <= set(FLAG_FIGURES)


@pytest.mark.parametrize("flag", sorted(FLAG_FIGURES))
def test_every_flag_reaches_the_figure_it_names(flag):
    value, path = FLAG_FIGURES[flag]
    base_args = BASE + (CUSTOM if flag in CUSTOM else [])
    if flag in ("--on", "--samples"):
        common = [a for a in COMMON]
        i = common.index(flag)
        base = run_cli(base_args)
        common[i + 1] = value
        r = CliRunner().invoke(cli, ["estimate", *base_args, *common], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        changed = json.loads(r.stdout)
    else:
        base = run_cli(base_args)
        if flag in base_args:
            args = list(base_args)
            args[args.index(flag) + 1] = value
        else:
            args = base_args + [flag, value]
        changed = run_cli(args)
    assert figure(changed, path) != figure(base, path), f"{flag} {value} did not reach {path}"


def test_no_flash_attention_reaches_the_strategy():
    base = run_cli(BASE)
    d = run_cli([*BASE, "--no-flash-attention"])
    assert "no-flash-attention" in d["memory"]["training_strategy"]
    assert "no-flash-attention" not in base["memory"]["training_strategy"]
