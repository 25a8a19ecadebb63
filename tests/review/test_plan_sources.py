"""A plan from the estimate's own options (flags) is the plan from the same spec file."""

from __future__ import annotations

import json
import tomllib

from tests.review.test_loop import js, run
from trainledger.demo.plans import SPEC_A
from trainledger.demo.scenario import BATCH_B

# SPEC_A's top level as `estimate` flags (its [data] and [labor] tables have no flags: left out here)
FLAGS = ["--task", "full_finetune", "--params", "7B", "--tokens", "5.5G", "--gpu", "h800", "--gpus", "16",
         "--rounds", "2..3..4", "--currency", "CNY", "--on", "2026-11-02", "--samples", "4000",
         "--name", "csa-sft-2026-11-a"]


def _spec_without_tables(ws):
    """SPEC_A with only its top-level keys and [plan] (what the flags can say), as a file; and its
    [plan] table alone, as a --plan-toml file."""
    doc = tomllib.loads(SPEC_A)
    top = [ln for ln in SPEC_A.split("\n[data]")[0].splitlines() if not ln.startswith("price_book")]
    plan_part = SPEC_A[SPEC_A.index("\n[plan]\n") + 1:]
    spec = ws / "plans" / "flat.toml"
    spec.write_text("\n".join(top) + '\nprice_book = "plan-prices.toml"\n\n' + plan_part, encoding="utf-8")
    table = ws / "plans" / "plan-table.toml"
    table.write_text(plan_part, encoding="utf-8")
    # without a [data] table the estimator prices its default data work in USD: the book needs a rate
    book = ws / "plans" / "plan-prices.toml"
    book.write_text(book.read_text(encoding="utf-8") + '\n[[fx]]\nbase = "USD"\nquote = "CNY"\nrate = 7.1\n'
                    'date = 2026-11-01\nsource = "test rate"\n', encoding="utf-8")
    assert doc["plan"]["max_rounds"] == 16
    return spec, table


def _figures(plan: dict) -> list[dict]:
    """A plan line's figures: everything but the evidence text, which names where it was read."""
    return [{k: v for k, v in ln.items() if k != "evidence"} for ln in plan["lines"]]


def test_the_same_estimate_by_flags_and_by_spec_gives_the_same_plan_lines(ws):
    spec, table = _spec_without_tables(ws)
    book = ws / "plans" / "plan-prices.toml"
    by_file = js(ws, "plan", BATCH_B, "--from-estimate", spec, "--reason", "spec file")
    by_flags = js(ws, "plan", BATCH_B, *FLAGS, "--price-book", book, "--plan-toml", table,
                  "--reason", "the same, by flags")
    assert by_file["version"] + 1 == by_flags["version"]
    assert _figures(by_flags) == _figures(by_file) and len(by_file["lines"]) == 3  # compute, rework labor, storage
    for k in ("work", "max_rounds", "bounds", "gates", "rules", "assumptions", "totals"):
        assert by_flags[k] == by_file[k], k
    assert by_flags["source"]["spec"].startswith("options + ") and by_flags["source"]["inputs"]["params"] == "7B"
    # a flag overrides the spec file, as `estimate --from` does; --max-rounds overrides the table
    fewer = js(ws, "plan", BATCH_B, "--from-estimate", spec, "--rounds", "1..1.5..2", "--max-rounds", "6",
               "--reason", "fewer rounds")
    assert fewer["max_rounds"] == 6
    assert float(fewer["work"]["expected"]) < float(by_file["work"]["expected"])
    assert "max rounds: 6" in run(ws, "plan", BATCH_B, "--show", "--lang", "en").output
    assert "最大试验轮数: 6" in run(ws, "plan", BATCH_B, "--show", "--lang", "zh-CN").output


def test_flags_and_plan_options_are_checked(ws):
    r = run(ws, "plan", BATCH_B, "--show", "--max-rounds", "3", ok=False)
    assert r.exit_code == 2 and "--max-rounds" in r.output
    r = run(ws, "plan", BATCH_B, "--task", "lora", "--params", "7B", "--gpu", "h800", "--reason", "x", ok=False)
    assert r.exit_code == 2 and "tokens" in r.output  # a plan needs its volume driver
    bad = ws / "bad-plan.toml"
    bad.write_text("[plan]\nmax_round = 3\n", encoding="utf-8")
    r = run(ws, "plan", BATCH_B, *FLAGS, "--price-book", ws / "plans" / "plan-prices.toml", "--plan-toml", bad,
            "--reason", "x", ok=False)
    assert r.exit_code == 2 and "max_round" in r.output and "bad-plan.toml" in r.output
    assert json.loads(run(ws, "plan", "list", "--json").output)  # nothing broke the existing plans
