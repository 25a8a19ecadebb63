"""Inside a workspace `estimate` prices with the workspace's own book: its price book, currency,
dated FX and labor rates; every missing price item is listed at once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

BOOK = """currency = "CNY"

[[price]]
item = "gpu_hour:h800"
unit = "card_day"
price = 240
low = 192
high = 288
currency = "CNY"
source = "contract C-9, card-day rate"
effective = 2026-01-01
evidence = "contract"

[[price]]
item = "data:label_item"
unit = "item"
price = 3
low = 2
high = 5
currency = "CNY"
source = "vendor quote Q-3"
effective = 2026-01-01
evidence = "contract"

[[price]]
item = "data:review_item"
unit = "item"
price = 1
low = 0.5
high = 2
currency = "USD"
source = "vendor quote Q-4 (in USD)"
effective = 2026-01-01
evidence = "contract"

[[fx]]
base = "USD"
quote = "CNY"
rate = 7.0
date = 2026-06-30
source = "treasury rate 2026-06-30"
evidence = "contract"
"""

CONFIG = """[workspace]
name = "ws"
currency = "CNY"
price_book = "prices.toml"

[[labor_rates]]
role = "training_engineering"
currency = "CNY"
low = "300"
expected = "380"
high = "450"
source = "finance rate card FY2026"
evidence = "contract"

[[labor_rates]]
role = "data_prep"
currency = "CNY"
low = "200"
expected = "250"
high = "300"
source = "finance rate card FY2026"
evidence = "contract"

[[labor_rates]]
role = "business_eval"
currency = "USD"
low = "30"
expected = "40"
high = "50"
source = "vendor staff in USD"
evidence = "contract"
"""

PLAN = """task = "lora"
params = "7B"
tokens = "50M"
gpu = "h800"
gpus = 1
[data]
licensing = 0
cleaning_person_months = [0.5, 1, 2]
labelled_items = [4000, 5000, 6000]
review_fraction = [0.1, 0.2, 0.3]
eval_items = [500, 800, 1000]
[labor.build]
training_engineering = [0.5, 1, 2]
business_eval = [0.5, 1, 1.5]
[labor.run]
training_engineering = [0.1, 0.2, 0.4]
"""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    (tmp_path / "trainledger.toml").write_text(CONFIG, encoding="utf-8")
    (tmp_path / "prices.toml").write_text(BOOK, encoding="utf-8")
    (tmp_path / "plan.toml").write_text(PLAN, encoding="utf-8")
    return tmp_path


def run(ws: Path, *args: str):
    return CliRunner().invoke(
        cli,
        [
            "--workspace",
            str(ws),
            "estimate",
            "--from",
            str(ws / "plan.toml"),
            "--format",
            "json",
            "--samples",
            "2000",
            "--on",
            "2026-11-29",
            *args,
        ],
        catch_exceptions=False,
    )


def row(d: dict, name: str) -> dict:
    return next(a for a in d["assumptions"] if a["name"] == name)


def test_the_workspace_book_currency_fx_and_labor_rates_are_used(ws):
    r = run(ws)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["price_book"] == str((ws / "prices.toml").resolve()) and d["cost"]["currency"] == "CNY"
    # the contract's card-day rate, normalised to GPU-hours: 240 / 24 = 10 CNY
    gpu = row(d, "price gpu_hour:h800")
    assert (gpu["low"], gpu["high"]) == ("8", "12") and gpu["evidence"] == "contract"
    # labor from [[labor_rates]]: 300-450 CNY/hour x 168 h per person-month
    te = row(d, "price labor:training_engineering")
    assert (te["low"], te["high"]) == ("50400", "75600") and "rate card" in te["source"]
    # a USD rate converted with the book's dated FX (7.0): 30-50 USD/h x 168 x 7
    be = row(d, "price labor:business_eval")
    assert (be["low"], be["high"]) == ("35280", "58800")
    assert row(d, "price data:review_item")["high"] == "14"  # 2 USD x 7.0
    assert any("own book" in n for n in d["notes"])
    assert not d["known_vs_placeholder"]["placeholder_lines"]


def test_flags_win_over_the_workspace(ws):
    r = run(ws, "--currency", "USD")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["cost"]["currency"] == "USD"
    assert row(d, "price labor:training_engineering")["high"] == str(round(75600 / 7.0, 1)).rstrip("0").rstrip(".")


def test_every_missing_price_item_is_listed_at_once(ws):
    (ws / "plan.toml").write_text(
        PLAN.replace("[labor.run]", "[labor.run]\nplatform_support = [0.1, 0.2, 0.3]").replace(
            "[labor.build]", "[labor.build]\nproject_coordination = [0.2, 0.5, 1]"
        ),
        encoding="utf-8",
    )
    book = (ws / "prices.toml").read_text(encoding="utf-8")
    (ws / "prices.toml").write_text(
        book.replace('item = "data:label_item"', 'item = "data:label_item_old"'), encoding="utf-8"
    )
    r = run(ws)
    assert r.exit_code == 2
    for item in ("data:label_item", "labor:platform_support", "labor:project_coordination"):
        assert item in r.output
    assert "3 price item(s) missing" in r.output and "remedy" in r.output


def test_outside_a_workspace_the_sample_book_is_used(tmp_path):
    (tmp_path / "plan.toml").write_text(PLAN, encoding="utf-8")
    r = run(tmp_path)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["price_book"].endswith("sample_pricebook.toml") and d["cost"]["currency"] == "USD"


def test_an_unreadable_workspace_says_which_book_priced_the_estimate(tmp_path):
    (tmp_path / "trainledger.toml").write_text("this is = = not toml\n", encoding="utf-8")
    (tmp_path / "plan.toml").write_text(PLAN, encoding="utf-8")
    r = run(tmp_path)
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    w = [x for x in d["warnings"] if "configuration of workspace" in x]
    assert len(w) == 1 and "ConfigError" in w[0] and "sample_pricebook.toml" in w[0]
