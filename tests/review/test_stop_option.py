"""decide's stop option: the kept objects' storage for the retention horizon, priced by the price
book — also when the inventory-to-date estimate is 0 (objects written on the inventory day); always
with a currency; unknown (never 0) when a kept object has no price.

By hand: 500 GiB (200 + 200 + 100) of storage:standard at 0.023 USD per GiB-month x 3 months = 34.50 USD.
"""

from __future__ import annotations

import textwrap
from decimal import Decimal as D

from tests.engine.factories import CONFIG
from tests.review.helpers import compute_line, plan_of
from trainledger.review import options, service
from trainledger.service import Workspace

GIB = 1024 ** 3
INVENTORY = ("path,size_bytes,storage_class,tier,owner,purpose,retention_until,last_modified,snapshot_date,batch\n"
             + "".join(f"s3://ckpt/b1/{name},{gib * GIB},{cls},standard,anna,resume,2026-12-31,"
                       f"2026-11-10T10:20:00Z,2026-11-10,b1\n"
                       for name, gib, cls in (("s1", 200, "checkpoint"), ("s2", 200, "checkpoint"),
                                              ("final", 100, "candidate_model"))))
BOOK = """
[[price]]
item = "storage:standard"
unit = "gb_month"
price = "0.023"
currency = "USD"
source = "list price"
effective = 2026-01-01
"""
RULE = '\n[[rules]]\nid = "storage-batch"\nsource = "storage"\nfield = "batch"\nmatch = "template"\n'


def _ws(tmp_path, book=BOOK):
    root = tmp_path / "ws"
    root.mkdir()
    config = CONFIG.replace('[workspace]\ncurrency = "CNY"', '[workspace]\ncurrency = "USD"\nprice_book = "p.toml"')
    (root / "trainledger.toml").write_text(textwrap.dedent(config) + RULE, encoding="utf-8")
    (root / "p.toml").write_text(book, encoding="utf-8")
    (tmp_path / "inv.csv").write_text(INVENTORY, encoding="utf-8")
    with Workspace.init(root) as wsp:
        wsp.import_files("storage", [tmp_path / "inv.csv"])
        wsp.attribute()
    return root


def _stop(monthly, unpriced=(), currency="USD"):
    st = {"ac": [], "eac": [], "work": {"done": "0", "expected": "100", "known": True}}
    opts = options.options(plan_of(compute_line()), st, monthly, workspace=None, unpriced=list(unpriced),
                           currency=currency)
    return next(o for o in opts if o["action"] == "stop")


def test_objects_written_on_inventory_day_still_cost_their_retention(tmp_path):
    with Workspace.open(_ws(tmp_path)) as wsp:
        storage = [ln for ln in wsp.ledger.cost_lines("b1") if ln.category == "storage"]
        assert storage and all(ln.amount.expected == 0 for ln in storage)  # inventory-to-date: 0 GiB-months
        assets, monthly, unpriced = service.reusable_assets(wsp, "b1")
    assert monthly == {"USD": D("11.50")} and unpriced == []  # 500 GiB x 0.023
    assert {a["path"]: a["monthly_cost"] for a in assets}["s3://ckpt/b1/final"] == "2.30"
    plan = plan_of(compute_line())
    assert plan.retention_months == 3
    (row,) = _stop(monthly)["cost_to_go"]
    assert (row["currency"], row["expected"]) == ("USD", "34.50")


def test_an_unpriced_kept_object_makes_the_stop_cost_unknown_not_zero(tmp_path):
    with Workspace.open(_ws(tmp_path, book=BOOK.replace("storage:standard", "storage:cold"))) as wsp:
        _assets, monthly, unpriced = service.reusable_assets(wsp, "b1")
    assert monthly == {} and len(unpriced) == 3
    stop = _stop(monthly, unpriced)
    assert stop["cost_to_go"] == [] and "storage:<tier>" in stop["unknown_why"]["en"]
    assert "存储单价" in stop["unknown_why"]["zh-CN"]


def test_a_stop_that_keeps_nothing_costs_zero_in_the_workspace_currency():
    (row,) = _stop({})["cost_to_go"]
    assert (row["currency"], row["expected"]) == ("USD", "0.00")
