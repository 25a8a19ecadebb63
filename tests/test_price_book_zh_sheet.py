"""A workspace price book's ``source_zh`` reaches the batch sheet: the assumptions drawer (md, html)
and the stale-price problem print it in a zh-CN sheet, the English sheet prints the English, and
the JSON keeps ``source`` as written with ``source_zh`` beside it."""

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

from .test_service_prices import price_book, workspace

BOOK = (price_book("gpu_hour", "36", "gb_month", "0.12")
        .replace('source = "quote Q-1"', 'source = "quote Q-1"\nsource_zh = "报价单 Q-1"')
        .replace('source = "list price"\neffective = 2026-01-01',  # stale on the inventory's day
                 'source = "list price"\nsource_zh = "存储标价"\neffective = 2026-01-01\nexpires = 2026-06-30'))


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("zh-book")
    with workspace(tmp, BOOK) as wsp:
        wsp.attribute()
    return tmp / "ws"


def sheet(ws, lang: str, fmt: str) -> str:
    result = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", lang, "sheet", "b1", "--format", fmt])
    assert result.exit_code == 0, result.output
    return result.output


def _drawer(md: str, heading: str) -> dict[str, list[str]]:
    tail = md.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [ln.strip("|").split(" | ") for ln in tail.splitlines() if ln.startswith("| ")]
    return {r[0].strip(): [c.strip() for c in r] for r in rows}


def test_the_zh_sheet_prints_the_book_s_chinese(ws):
    md = sheet(ws, "zh-CN", "md")
    drawer = _drawer(md, "假设抽屉")
    assert drawer["排队卡时的价值（机会成本，非现金）"][3] == "报价单 Q-1"
    assert drawer["存储单价 storage:standard"][3] == "存储标价"
    assert "请更新价格表（存储标价）" in md  # the stale-price problem, in the book's Chinese
    assert "quote Q-1" not in md and "list price" not in md
    page = sheet(ws, "zh-CN", "html")
    assert "<td>报价单 Q-1</td>" in page and "<td>存储标价</td>" in page and "quote Q-1" not in page


def test_the_en_sheet_and_the_json_keep_the_english(ws):
    md = sheet(ws, "en", "md")
    drawer = _drawer(md, "Assumptions drawer")
    assert drawer["storage price storage:standard"][3] == "list price"
    assert "update the price book \\(list price\\)" in md
    assert "报价单" not in md and "存储标价" not in md and "报价单" not in sheet(ws, "en", "html")
    d = json.loads(sheet(ws, "en", "json"))
    rows = {a["name"]: a for a in d["assumptions"]}
    storage = rows["storage price storage:standard"]
    assert (storage["source"], storage["source_zh"]) == ("list price", "存储标价")
    queued = next(a for n, a in rows.items() if n.startswith("value of a queued GPU-hour"))
    assert (queued["source"], queued["source_zh"]) == ("quote Q-1", "报价单 Q-1")
    stale = next(p for p in d["problems"] if p["kind"] == "stale_price")
    assert stale["message"].endswith("update the price book (list price)")
    assert stale["message_zh"].endswith("请更新价格表（存储标价）")
    assert stale["detail"]["source"] == "list price" and stale["detail"]["source_zh"] == "存储标价"
