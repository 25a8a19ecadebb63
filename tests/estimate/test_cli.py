"""The CLI through click's CliRunner: contract JSON, both languages, errors as exit code 2."""

from __future__ import annotations

import json

from click.testing import CliRunner

from trainledger.cli import cli

BASE = [
    "estimate",
    "--task",
    "pretrain",
    "--params",
    "70e9",
    "--tokens",
    "2e12",
    "--gpu",
    "a100-80gb",
    "--gpus",
    "2048",
    "--seq-len",
    "4096",
    "--micro-batch",
    "1",
    "--samples",
    "5000",
    "--on",
    "2026-11-29",
]


def invoke(args, **kw):
    return CliRunner().invoke(cli, args, catch_exceptions=False, **kw)


def test_estimate_json_contract(tmp_path):
    r = invoke(
        [
            "--workspace",
            str(tmp_path),
            *BASE,
            "--zero-stage",
            "3",
            "--recompute",
            "selective",
            "--format",
            "json",
        ]
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["task"] == "pretrain" and d["gpu"]["id"] == "a100-80gb"
    assert d["memory"]["strategy"].startswith("zero3") and d["memory"]["min_gpus"] >= 1
    for k in ("effective_gpu_hours", "gpu_hours", "wallclock_days"):
        assert d[k]["p10"] <= d[k]["p50"] <= d[k]["p90"]
    assert {"currency", "compute", "data", "labor", "total"} <= set(d["cost"])
    assert d["assumptions"] and "warning:" in r.stderr


def test_estimate_markdown_both_languages():
    en = invoke([*BASE, "--format", "md"]).stdout
    zh = invoke([*BASE, "--format", "md", "--lang", "zh-CN"]).stdout
    assert "## Assumptions drawer" in en and "Effective GPU-hours" in en
    assert "## 假设抽屉" in zh and "有效卡时" in zh and "从零预训练" in zh


def test_estimate_html(tmp_path):
    out = tmp_path / "e.html"
    r = invoke([*BASE, "--format", "html", "--lang", "zh-CN", "-o", str(out)])
    assert r.exit_code == 0
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!doctype html>") and "假设抽屉" in html and 'lang="zh-CN"' in html


def test_spec_file_and_overrides(tmp_path):
    spec = tmp_path / "s.toml"
    spec.write_text(
        'task = "lora"\nparams = "7B"\ntokens = "20M"\ngpu = "a100-80gb"\n'
        "samples = 2000\n[labor.build]\ntraining_engineering = [1, 2, 3]\n"
    )
    r = invoke(["estimate", "--from", str(spec), "--gpu", "h100-80gb", "--format", "json"])
    d = json.loads(r.stdout)
    assert d["task"] == "lora" and d["gpu"]["id"] == "h100-80gb"
    assert "build:training_engineering" in d["cost"]["labor_lines"]


def test_unknown_accelerator_exits_2():
    r = CliRunner().invoke(
        cli,
        ["estimate", "--task", "pretrain", "--params", "7B", "--tokens", "1T", "--gpu", "z9000"],
    )
    assert r.exit_code == 2 and "unknown accelerator" in r.stderr and "remedy" in r.stderr


def test_price_book_unit_mismatch_exits_2(tmp_path):
    pb = tmp_path / "pb.toml"
    pb.write_text(
        '[[price]]\nitem = "gpu_hour:a100-80gb"\nunit = "gb_month"\nprice = 1\n'
        'currency = "USD"\nsource = "x"\neffective = 2025-01-01\n'
    )
    r = CliRunner().invoke(cli, [*BASE, "--price-book", str(pb)])
    assert r.exit_code == 2 and "pb.toml" in r.stderr and "mismatch" in r.stderr


def test_guided_mode_classifies_and_routes_rag():
    r = invoke(["estimate", "--guided", "--format", "json", "--samples", "1000"], input="n\n0\nn\n")
    assert r.exit_code == 0, r.output
    assert "Task type: rag" in r.stderr and "prompting plus retrieval" in r.stderr
    d = json.loads(r.stdout)
    assert d["task"] == "rag" and d["cost"]["compute"]["p90"] == 0


def test_guided_mode_asks_for_missing_inputs():
    r = invoke(
        ["estimate", "--guided", "--format", "json", "--samples", "1000"],
        input="y\n20000\ny\n7B\n30M\na100-80gb\n",
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["task"] == "lora"


def test_compare_json():
    r = invoke(
        [
            "compare",
            "--gpu",
            "h100-80gb",
            "--gpus",
            "256",
            "--years",
            "3",
            "--utilisation",
            "0.4..0.6..0.8",
            "--external-per-year",
            "4e6..5e6..7e6",
            "--samples",
            "5000",
            "--on",
            "2026-11-29",
            "--format",
            "json",
        ]
    )
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    names = [o["name"] for o in d["options"]]
    assert names == ["on_demand", "reserved", "own", "platform", "external_service"]
    assert d["options"][4]["lines"]["vendor"]["p50"] > 3 * 4_000_000
    for o in d["options"]:
        assert o["total"]["p10"] <= o["total"]["p50"] <= o["total"]["p90"]
    own = d["options"][2]
    assert own["lines"]["exit_resale"]["p50"] < 0 and own["lines"]["power"]["p50"] > 0


def test_compare_own_unavailable_without_capex_price():
    r = invoke(["compare", "--gpu", "l40s", "--gpus", "8", "--samples", "2000", "--format", "md"])
    assert r.exit_code == 0 and "not available" in r.stdout
