"""Plan labor rates: an hourly price stays hourly (person-month = the price book's 168 h), the
workspace's [[labor_rates]] win as in ``estimate --workspace``, and ``decide``'s re-estimate needs
no price item the plan did not need."""

from __future__ import annotations

from decimal import Decimal

from trainledger.review import baseline, options
from trainledger.review.plan import Rng

BOOK = """
[[price]]
item = "gpu_hour:a100-40gb"
unit = "gpu_hour"
price = "4.1"
currency = "USD"
source = "test"
effective = 2026-01-01
evidence = "contract"

[[price]]
item = "labor:training_engineering"
unit = "person_hour"
price = "110"
low = "90"
high = "130"
currency = "USD"
source = "rate card"
effective = 2026-01-01
evidence = "assumed"
owner = "finance"

[[price]]
item = "labor:data_prep"
unit = "person_month"
price = "11760"
currency = "USD"
source = "rate card"
effective = 2026-01-01
evidence = "assumed"
owner = "finance"
"""

WS = """
[workspace]
currency = "USD"

[[labor_rates]]
role = "data_prep"
currency = "USD"
low = "60"
expected = "65"
high = "80"
source = "loaded rate"
evidence = "assumed"
owner = "finance: frank"
"""


def _values(tmp_path) -> dict:
    book = tmp_path / "prices.toml"
    book.write_text(BOOK, encoding="utf-8")
    return {"name": "t", "task": "full_finetune", "params": "8B", "tokens": "200M", "gpu": "a100-40gb",
            "gpus": 16, "rounds": "1..2..3", "currency": "USD", "price_book": str(book), "on": "2026-11-02",
            "samples": 500, "data": {"licensing": [0, 0, 0], "cleaning_person_months": [0, 0, 0],
                                     "labelled_items": [0, 0, 0], "eval_items": [0, 0, 0]},
            "labor": {"build": {"training_engineering": [0.02, 0.04, 0.08]},
                                      "run": {"training_engineering": [0.01, 0.02, 0.03],
                                              "data_prep": [0.02, 0.04, 0.06]}}}


def _plan(tmp_path, workspace=None, table=None):
    return baseline.from_values(_values(tmp_path), table or {}, where="test", sha="", batch_id="b1",
                                batch_max_rounds=3, author="t", reason="r", workspace=workspace)


def _line(plan, lid):
    return next(ln for ln in plan.lines if ln.id == lid)


def test_an_hourly_labor_price_stays_hourly_and_a_person_month_is_168_hours(tmp_path):
    plan = _plan(tmp_path)
    te = _line(plan, "labor:training_engineering")
    assert te.price == Rng(Decimal(90), Decimal(110), Decimal(130))  # was 94.5 / 115.5 / 136.5 (x 168 / 160)
    assert te.fixed["build"] == Rng(Decimal("3.36"), Decimal("6.72"), Decimal("13.44"))  # 0.04 pm x 168 h
    dp = _line(plan, "labor:data_prep")
    assert dp.price.expected == Decimal(70)  # 11,760 per person-month / 168 h
    # one labor money figure: the plan's build cost is what the estimator prices (0.04 pm x 168 h x 110)
    assert te.fixed["build"].expected * te.price.expected == Decimal("739.20")


def test_the_workspace_labor_rates_win_over_the_price_book(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "trainledger.toml").write_text(WS, encoding="utf-8")
    plan = _plan(tmp_path, workspace=str(ws))
    dp = _line(plan, "labor:data_prep")
    assert dp.price == Rng(Decimal(60), Decimal(65), Decimal(80))
    assert "[[labor_rates]]" in dp.price_meta["source"]
    assert _line(plan, "labor:training_engineering").price.expected == Decimal(110)  # not in the workspace


def test_decide_re_estimates_without_price_items_the_plan_never_needed(tmp_path):
    """The book has no labor:platform_support / business_eval / project_coordination (the estimator's
    build placeholders): the plan needs none, so neither does the shrink option's re-estimate."""
    plan = _plan(tmp_path)
    togo = Rng(Decimal(100), Decimal(200), Decimal(300))
    money, meta = options.reestimate(plan, dict(plan.source["inputs"]), {}, togo, workspace=None)
    internal = next(m for m in money if m["basis"] == "internal")
    # run labor only (build is one-time): (0.02 x 110 + 0.04 x 70) x 168 h per 200 Mtoken, x 200 Mtoken
    assert Decimal(internal["expected"]) == Decimal("840.00")
