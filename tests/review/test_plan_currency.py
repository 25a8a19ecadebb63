"""A plan is in the workspace's currency (review finding 3): a CNY workspace without a price book
is not planned in USD from the shipped sample book; the workspace's own book is used; the
stale-price warning never asks to edit a file inside the installed package. And the plan / decide
output items of finding 12 (an English remedy in English output, "not priced" for None)."""

from __future__ import annotations

import json
from datetime import date

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.estimate import pricing
from trainledger.estimate.messages import Msg
from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book
from trainledger.service import Workspace

PLAN = ["--task", "pretrain", "--params", "1B", "--tokens", "100M", "--gpu", "h800", "--on", "2026-11-02"]
BATCH = """
[[projects]]
id = "llm"
name = "LLM"
goal = "g"
owner = "zhang"

[[batches]]
id = "llm-a"
project = "llm"
name = "A"
goal = "loss < 2"
data_snapshot = "d1"
data_processing_version = "p1"
model_version = "m1"
code_version = "git:abc"
config_version = "c1"
team = "ml"
owner = "zhang"
task_type = "pretrain"
max_rounds = 4
"""
def _cny_book() -> str:
    """The sample book with every price restated in CNY, h800 at 40.00: a workspace's own book."""
    text = SAMPLE_PRICE_BOOK.read_text(encoding="utf-8").replace('currency = "USD"', 'currency = "CNY"')
    old = 'item = "gpu_hour:h800"\nunit = "gpu_hour"\nprice = 2.00\nlow = 1.50\nhigh = 3.00\n'
    assert old in text
    return text.replace(old, 'item = "gpu_hour:h800"\nunit = "gpu_hour"\nprice = 40.00\nlow = 36.00\nhigh = 48.00\n')


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def _ws(tmp_path, currency="CNY"):
    root = tmp_path / "ws"
    Workspace.init(root, currency=currency).close()
    cfg = root / "trainledger.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + BATCH, encoding="utf-8")
    return root


def test_a_cny_workspace_without_a_price_book_is_not_planned_in_usd(tmp_path):
    root = _ws(tmp_path)
    out = invoke("--workspace", root, "--lang", "en", "plan", "llm-a", *PLAN)
    assert out.exit_code != 0
    assert "priced in USD from the shipped sample price book; the workspace's currency is CNY" in out.output
    assert "workspace.price_book" in out.output and "sample_pricebook.toml" not in out.output
    zh = invoke("--workspace", root, "--lang", "zh-CN", "plan", "llm-a", *PLAN)
    assert "示例价目表以 USD 定价；而工作区的币种是 CNY" in zh.output
    assert invoke("--workspace", root, "plan", "list", "--json").output.strip() == "[]"  # nothing stored


def test_the_workspace_price_book_prices_the_plan_in_its_currency(tmp_path):
    root = _ws(tmp_path)
    (root / "prices.toml").write_text(_cny_book(), encoding="utf-8")
    cfg = root / "trainledger.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('price_book = ""', 'price_book = "prices.toml"'),
                   encoding="utf-8")
    out = invoke("--workspace", root, "plan", "llm-a", *PLAN, "--json")
    assert out.exit_code == 0, out.output
    plan = json.loads(out.output)
    assert {t["currency"] for t in plan["totals"]} == {"CNY"}
    compute = next(ln for ln in plan["lines"] if ln["id"] == "compute")
    assert compute["price"]["expected"] == "40.00" and compute["currency"] == "CNY"


def test_a_usd_workspace_still_plans_from_the_sample_book(tmp_path):
    root = _ws(tmp_path, currency="USD")
    out = invoke("--workspace", root, "plan", "llm-a", *PLAN, "--json")
    assert out.exit_code == 0, out.output
    assert {t["currency"] for t in json.loads(out.output)["totals"]} == {"USD"}


def test_stale_sample_prices_name_no_file_inside_the_package():
    p = pricing.Pricing(load_price_book(SAMPLE_PRICE_BOOK), date(2030, 1, 1), "USD")
    p.stale_items = {"gpu_hour:h800": Msg("price.stale_item", item="gpu_hour:h800", why="expired")}
    (w,) = p.summary_warnings()
    assert w.id == "warn.stale_sample_prices"
    for lang in ("en", "zh-CN"):
        shown = w.text(lang)
        assert str(SAMPLE_PRICE_BOOK) not in shown and "workspace.price_book" in shown and "--price-book" in shown


def test_plan_without_a_source_has_an_english_remedy_in_english(tmp_path):
    root = _ws(tmp_path)
    out = invoke("--workspace", root, "--lang", "en", "plan", "llm-a")
    assert out.exit_code != 0
    assert f"trainledger --workspace {root} plan llm-a --show" in out.output
    assert not any("\u4e00" <= c <= "\u9fff" for c in out.output), out.output
    zh = invoke("--workspace", root, "--lang", "zh-CN", "plan", "llm-a")
    assert f"例如 `trainledger --workspace {root} plan llm-a" in zh.output


def test_decide_says_not_priced_for_an_unpriced_asset():
    from trainledger.cli.plan_cmds import _monthly

    assert _monthly({"monthly_cost": None, "currency": "CNY"}, "en").startswith("not priced")
    assert _monthly({"monthly_cost": None, "currency": "CNY"}, "zh-CN").startswith("未定价")
    assert _monthly({"monthly_cost": "3.20", "currency": "CNY"}, "en") == "3.20 CNY"
