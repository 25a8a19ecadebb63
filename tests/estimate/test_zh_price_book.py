"""The price book's texts in Chinese: ``source_zh`` beside ``source`` and ``note_zh`` beside
``note`` (TOML keys, CSV columns), folded into the English as ``i18n.core.Twin`` by pricebook.py.

The shipped sample book carries a reviewed Chinese source for each of its 39 entries; a zh-CN
estimate (md, html, json), compare, a batch sheet's drawer and a plan's price show it, the English
outputs stay byte-identical to the same book without the Chinese, and a user's own TOML or CSV
book with ``source_zh`` is shown the same way.
"""

from __future__ import annotations

import csv
import json
import re
import textwrap
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.estimate.helpers import ON, estimate
from tests.estimate.test_zh_shipped_sources import _html_drawer, _md_drawer, english_sentence
from trainledger.cli import cli
from trainledger.errors import ConfigError
from trainledger.estimate import pricing
from trainledger.i18n.core import Twin, localize
from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book
from trainledger.report.estimate_render import render_estimate

CJK = re.compile(r"[\u4e00-\u9fff]")
RAW = tomllib.loads(SAMPLE_PRICE_BOOK.read_text(encoding="utf-8"))
H800_EN = RAW["price"][5]["source"]
H800_ZH = RAW["price"][5]["source_zh"]
LORA = {"task": "lora", "params": "7B", "tokens": "50M", "gpu": "h800"}
# what a faithful translation keeps as written: prices, dates, arXiv ids, URLs, instance names, regions
KEPT = re.compile(
    r"\$[\d.,]+|\b\d{4}-\d{2}(?:-\d{2})?\b|arXiv:[\d.]+|\b[a-z][\w-]*(?:\.[a-z][\w-]*)+/[\w/.-]*"
    r"|\b[a-z]+\d[a-z]*\.\d*x?large\b|\bus-[a-z]+\d?(?:-\d)?\b"
)


def _what(row: dict) -> str:
    return row.get("item") or f"fx:{row['base']}/{row['quote']}"


def test_every_shipped_entry_has_a_reviewed_chinese_source():
    rows = RAW["price"] + RAW["fx"]
    assert len(rows) == 39
    for row in rows:
        zh = row.get("source_zh", "")
        assert zh.strip() and zh != row["source"] and CJK.search(zh), _what(row)
        assert english_sentence(zh) is None, (_what(row), english_sentence(zh))
        missing = [x for x in KEPT.findall(row["source"]) if x not in zh]
        assert missing == [], (_what(row), missing)
    notes = [row for row in rows if "note" in row]
    assert notes and all(CJK.search(r.get("note_zh", "")) and r["note_zh"] != r["note"] for r in notes)


def test_the_loader_folds_them_into_twins():
    book = load_price_book(SAMPLE_PRICE_BOOK)
    by_item = {r["item"]: r for r in RAW["price"]}
    assert len(book.entries) == len(by_item)
    for be in book.entries:
        row, src = by_item[be.entry.item], be.entry.source
        assert isinstance(src, Twin), be.entry.item
        assert str(src) == row["source"] and src.text("zh-CN") == row["source_zh"] and src.text("en") == row["source"]
        if "note" in row:
            assert isinstance(be.note, Twin) and be.note.zh == row["note_zh"] and be.note == row["note"]
    assert all(isinstance(r.source, Twin) and CJK.search(r.source.zh) for r in book.fx)
    converted = book.unit_price("gpu_hour:h100-80gb@aws-p5", "gpu_hour", ON, allow_stale=True)
    assert isinstance(converted.source, Twin)  # the unit conversion keeps the Chinese


@pytest.fixture(scope="module")
def plain_book(tmp_path_factory):
    """The sample book without its Chinese: what the English outputs were before it had any."""
    text = "\n".join(ln for ln in SAMPLE_PRICE_BOOK.read_text(encoding="utf-8").splitlines()
                     if not ln.startswith(("source_zh = ", "note_zh = ")))
    p = tmp_path_factory.mktemp("plain") / "sample_pricebook.toml"
    p.write_text(text, encoding="utf-8")
    return load_price_book(p)


def _as_sample(d: dict, plain_book) -> dict:
    return json.loads(render_estimate(d, "json").replace(plain_book.path, str(SAMPLE_PRICE_BOOK)))


def _drop_price_zh(d: dict) -> dict:
    out = json.loads(render_estimate(d, "json"))
    for a in out["assumptions"]:
        if a["name"].startswith(("price ", "FX ")):
            a.pop("source_zh", None)
    return out


@pytest.mark.parametrize("currency", ["USD", "CNY"])
def test_en_outputs_are_what_they_were_and_json_only_gains_source_zh(book, plain_book, currency, monkeypatch):
    d = estimate(book, samples=2000, currency=currency, **LORA).to_dict()
    monkeypatch.setattr(pricing, "SAMPLE_PRICE_BOOK", Path(plain_book.path))  # its warnings: the sample's
    before = _as_sample(estimate(plain_book, samples=2000, currency=currency, **LORA).to_dict(), plain_book)
    for fmt in ("md", "html"):
        assert render_estimate(d, fmt, "en") == render_estimate(before, fmt, "en"), fmt
    assert _drop_price_zh(d) == before
    gained = [a for a in d["assumptions"] if "source_zh" in a and a["name"].startswith(("price ", "FX "))]
    assert len(gained) >= 7 + (currency == "CNY")  # h800, 5 labor roles, label and review items (+ the FX rate)


def test_zh_estimate_shows_the_price_sources_in_chinese(book):
    d = estimate(book, samples=2000, currency="CNY", **LORA).to_dict()
    md, page = render_estimate(d, "md", "zh-CN"), render_estimate(d, "html", "zh-CN")
    priced = [r for r in _md_drawer(md) if r[0].startswith(("单价", "汇率"))]
    in_page = [r for r in _html_drawer(page) if r[0].startswith(("单价", "汇率"))]
    assert len(priced) >= 8 and [r[4] for r in priced] == [r[4] for r in in_page]
    for name, *_, source, _owner, _note in priced:
        assert CJK.search(source) and english_sentence(source) is None, (name, source)
    h800 = next(r for r in priced if r[0] == "单价 gpu_hour:h800")
    assert h800[4] == H800_ZH and "DeepSeek-V3 Technical Report" not in md
    row = next(a for a in d["assumptions"] if a["name"] == "price gpu_hour:h800")
    assert (row["source"], row["source_zh"]) == (H800_EN, H800_ZH)
    fx = next(a for a in d["assumptions"] if a["name"] == "FX USD/CNY")
    origin = f"{SAMPLE_PRICE_BOOK}, [[fx]] #1"
    assert fx["source"] == f"{RAW['fx'][0]['source']} ({origin})"
    assert fx["source_zh"] == f"{RAW['fx'][0]['source_zh']}（{origin}）"
    assert next(r for r in priced if r[0] == "汇率 USD/CNY")[4] == fx["source_zh"]


def test_the_cli_prints_them_in_each_format(tmp_path):
    args = ["estimate", "--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800", "--on", "2026-11-29",
            "--samples", "2000"]
    run = lambda *a: CliRunner().invoke(cli, [*a, *args])  # noqa: E731
    zh_md, en_md = run("--lang", "zh-CN").output, run().output
    assert H800_ZH.replace("_", "\\_") in zh_md.replace("\\(", "(").replace("\\)", ")")
    assert H800_EN.split(" (")[0] in en_md and H800_ZH not in en_md
    page = CliRunner().invoke(cli, ["--lang", "zh-CN", *args, "--format", "html"]).output
    assert "DeepSeek-V3 技术报告" in page and "DeepSeek-V3 Technical Report" not in page
    CliRunner().invoke(cli, [*args, "--format", "json", "-o", str(tmp_path / "e.json")])
    d = json.loads((tmp_path / "e.json").read_text(encoding="utf-8"))
    assert next(a for a in d["assumptions"] if a["name"] == "price gpu_hour:h800")["source_zh"] == H800_ZH


def _user_toml(tmp_path, extra: str = "") -> str:
    """The sample book as a user's own, its h800 price and its FX rate with the user's Chinese."""
    text = "\n".join(ln for ln in SAMPLE_PRICE_BOOK.read_text(encoding="utf-8").splitlines()
                     if not ln.startswith(("source_zh = ", "note_zh = ")))
    text = text.replace(f'source = "{H800_EN}"', 'source = "quote Q-7 from our broker"\n'
                        'source_zh = "经纪商报价单 Q-7"' + extra)
    text = text.replace('source = "PBOC / CFETS central parity USD/CNY on 2024-12-31"',
                        'source = "finance rate FR-12"\nsource_zh = "财务部汇率 FR-12"')
    p = tmp_path / "ours.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def _user_csv(tmp_path) -> str:
    cols = ["item", "unit", "price", "low", "high", "currency", "source", "source_zh", "effective", "expires",
            "evidence", "owner", "gpus_per_node", "note", "note_zh"]
    p = tmp_path / "ours.csv"
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, cols, extrasaction="ignore")
        w.writeheader()
        for row in RAW["price"]:
            row = {k: v for k, v in row.items() if not k.endswith("_zh")}
            if row["item"] == "gpu_hour:h800":
                row |= {"source": "quote Q-7 from our broker", "source_zh": "经纪商报价单 Q-7",
                        "note": "ask for the Q1 renewal", "note_zh": "一季度续约时再询价"}
            w.writerow(row)
        w.writerow({"item": "fx:USD/CNY", "unit": "each", "price": "7.1884", "currency": "CNY",
                    "source": "finance rate FR-12", "source_zh": "财务部汇率 FR-12", "effective": "2024-12-31",
                    "evidence": "assumed", "owner": "finance"})
    return str(p)


@pytest.mark.parametrize("kind", ["toml", "csv"])
def test_a_user_book_with_source_zh_is_shown_in_chinese(tmp_path, kind):
    path = _user_toml(tmp_path) if kind == "toml" else _user_csv(tmp_path)
    book = load_price_book(path)
    h800 = book.entry_for("gpu_hour:h800", ON, allow_stale=True)
    assert isinstance(h800.entry.source, Twin) and h800.entry.source.zh == "经纪商报价单 Q-7"
    if kind == "csv":
        assert isinstance(h800.note, Twin) and h800.note.zh == "一季度续约时再询价"
    labor = book.entry_for("labor:data_prep", ON, allow_stale=True).entry.source
    assert not isinstance(labor, Twin)  # no Chinese given: as written, in every language
    d = estimate(book, samples=2000, currency="CNY", **LORA).to_dict()
    zh = {r[0]: r[4] for r in _md_drawer(render_estimate(d, "md", "zh-CN"))}
    assert zh["单价 gpu_hour:h800"] == "经纪商报价单 Q-7"
    assert zh["汇率 USD/CNY"].startswith("财务部汇率 FR-12（")
    assert zh["单价 labor:data_prep"] == str(labor).replace("(", "\\(").replace(")", "\\)").replace("\\", "")
    en = render_estimate(d, "md", "en")
    assert "quote Q-7 from our broker" in en and "经纪商" not in en and "finance rate FR-12 \\(" in en
    row = next(a for a in d["assumptions"] if a["name"] == "price gpu_hour:h800")
    assert (row["source"], row["source_zh"]) == ("quote Q-7 from our broker", "经纪商报价单 Q-7")


def test_chinese_without_its_english_is_an_error_naming_the_entry(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(textwrap.dedent("""
        [[price]]
        item = "gpu_hour:h800"
        unit = "gpu_hour"
        price = 2
        currency = "USD"
        source = "quote Q-1"
        effective = 2026-01-01
        note_zh = "只有中文"
        """), encoding="utf-8")
    with pytest.raises(ConfigError) as exc:
        load_price_book(bad)
    assert str(bad) in exc.value.message and "[[price]] #1 (gpu_hour:h800)" in exc.value.message
    assert "note_zh is given without note" in exc.value.message
    zh = localize(exc.value.message, "zh-CN")
    assert "给出了 note_zh，却没有 note" in zh and str(bad) in zh
    assert "写上英文的 note" in localize(exc.value.remedy, "zh-CN")


def test_a_plan_s_price_keeps_the_chinese(book):
    from trainledger.review.baseline import price_meta

    pe = book.unit_price("gpu_hour:h800", "gpu_hour", ON, allow_stale=True)
    meta = price_meta(pe, "gpu_hour:h800", ON, "gpu_hour")
    assert (meta["source"], meta["source_zh"]) == (H800_EN, H800_ZH)
    assert type(meta["source"]) is str  # the plan's stored JSON: plain text, the Chinese beside it
    plain = pe.__class__(**{f: getattr(pe, f) for f in pe.__slots__} | {"source": "quote Q-1"})
    assert "source_zh" not in price_meta(plain, "gpu_hour:h800", ON, "gpu_hour")


def test_a_workbook_in_chinese_prints_the_chinese_source():
    from trainledger.report.xlsx import Book, source_text

    row = {"source": "quote Q-1", "source_zh": "报价单 Q-1"}
    assert source_text(Book("zh-CN"), row) == "报价单 Q-1"
    assert source_text(Book("en"), row) == source_text(Book(None), row) == "quote Q-1"
    assert source_text(Book("zh-CN"), {"source": "quote Q-1"}) == "quote Q-1"
