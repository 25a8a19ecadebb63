"""The balance view in every rendering of the sheet (review 5 D3): the JSON view model's ``balance``
(so the dashboard's batch JSON too), the HTML's, the Markdown's section in en and zh-CN — one view
model, the same numbers in each."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger import fmt
from trainledger.cli import cli
from trainledger.report import balance
from trainledger.report.balance_section import drawer_unit

BATCH = "csa-sft-2026-11-a"


def _cli(*args) -> str:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def outputs(demo_pristine):
    ws = ("--workspace", demo_pristine)
    out = {"json": json.loads(_cli(*ws, "sheet", BATCH, "--format", "json"))}
    for lang in ("en", "zh-CN"):
        for f in ("md", "html"):
            out[f"{f} {lang}"] = _cli(*ws, "sheet", BATCH, "--format", f, "--lang", lang)
    return out


def _row(html: str, part: str, basis: str | None = None) -> str:
    attr = f'data-part="{part}"' + (f' data-basis="{basis}"' if basis else "")
    m = re.search(rf"<tr {attr}>(.*?)</tr>", html, flags=re.S)
    assert m, (part, basis)
    return re.sub(r"<[^>]+>", " ", m.group(1))


def _money(r: dict) -> str:
    exp = fmt.amount(r["expected"], r["currency"])
    return exp if r["low"] == r["high"] else f"{exp} {r['currency']} ({fmt.amount(r['low'], r['currency'])}"


def test_the_json_sheet_carries_the_balance_built_from_its_own_figures(outputs):
    s = outputs["json"]
    assert list(s)[list(s).index("plan_vs_actual") + 1] == "balance"
    rebuilt = balance.build({k: x for k, x in s.items() if k != "balance"})
    assert s["balance"] == json.loads(json.dumps(rebuilt))  # the sheet's own figures, nothing else
    left = s["balance"]["left"]
    billed = next(r for r in left["compute"] if r["basis"] == "billed")
    # by hand (the demo's compute by state, billed): 2,249.5066 GPU-h for 80,523.30 CNY, 36.00 CNY/GPU-h but the
    # tagged resource (74.96) and the credit (-533.90) that hold no GPU-hours
    assert Decimal(billed["gpu_hours"]) == Decimal("2249.5066")
    assert Decimal(billed["expected"]) == Decimal("80523.30")
    priced = sum(Decimal(r["amounts"][0]["expected"]) for r in s["compute_by_state"]
                 if r["basis"] == "billed" and r.get("price_per_gpu_hour"))
    assert priced + Decimal("74.96") - Decimal("533.90") == Decimal("80523.30")
    sens = {r["name"]: r for r in s["balance"]["sensitivity"]}
    (m,) = sens["labor rate: training_engineering"]["moves"]  # 26 h at 300 / 380 / 450 CNY/h
    assert (Decimal(m["low"]), Decimal(m["high"])) == (26 * Decimal(300 - 380), 26 * Decimal(450 - 380))


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_html_shows_the_json_balance(outputs, lang):
    bl, html = outputs["json"]["balance"], outputs[f"html {lang}"]
    for r in bl["left"]["compute"]:
        row = _row(html, "compute", r["basis"])
        assert fmt.quantity(r["gpu_hours"]) in row and _money(r) in row, (r, row)
    for part, key in (("storage", "gib_months"), ("labor", "hours")):
        for r in bl["left"][part]:
            row = _row(html, part, r["basis"])
            assert fmt.quantity(r[key]) in row and _money(r) in row, (r, row)
    for r in bl["right"]["earned_value"]:
        assert _money(r) in _row(html, "earned_value", r["basis"])
    assert fmt.amount(bl["right"]["assets"]["monthly"][0]["amount"], "CNY") in _row(html, "assets")
    assert fmt.amount(bl["right"]["lessons"]["cost"][0]["amount"], "CNY") in _row(html, "lessons")
    drawer = re.search(r'<table id="sensitivity">.*?</table>', html, flags=re.S).group(0)
    for a in bl["sensitivity"]:
        for m in a["moves"] or []:
            assert fmt.amount(m["low"], m["currency"]) in drawer and fmt.amount(m["high"], m["currency"]) in drawer


@pytest.mark.parametrize("lang,words", [
    ("en", ["## Balance: resource consumption against delivery investment", "### Resource consumption",
            "### Delivery investment", "### Assumptions drawer: sensitivity of the balance", "not modelled"]),
    ("zh-CN", ["## 天平：资源消耗与交付投入", "### 资源消耗", "### 交付投入", "### 假设抽屉：天平的敏感度", "未建模",
               "CNY/卡时", "CNY/GB·月（GB = 2^30 字节）"])])
def test_the_markdown_has_the_balance_section_with_the_json_numbers(outputs, lang, words):
    md, bl = outputs[f"md {lang}"], outputs["json"]["balance"]
    section = md[md.index(words[0]):md.index("\n## ", md.index(words[0]) + 3)]
    for w in words:
        assert w in section, w
    for part in ("compute", "storage", "labor"):
        for r in bl["left"][part]:
            assert _money(r) in section, r
    for r in bl["right"]["earned_value"]:
        assert _money(r) in section, r
    moves = [m for a in bl["sensitivity"] for m in a["moves"] or []]
    assert len(moves) >= 7
    for m in moves:
        low = fmt.amount(m["low"], m["currency"])
        assert f"| {low} {m['currency']} |" in section, m  # a negative move keeps its sign
        assert f"| +{fmt.amount(m['high'], m['currency'])} {m['currency']} |" in section, m
    if lang == "zh-CN":  # the drawer's units as the rest of the zh-CN sheet prints them, never the codes
        assert "gpu_hour" not in md[md.index("## 假设抽屉\n"):] and "gb_month" not in md


def test_drawer_units():
    assert drawer_unit("CNY/gb_month (GB = 2^30 bytes)", "zh-CN") == "CNY/GB·月（GB = 2^30 字节）"
    assert drawer_unit("CNY/hour", "zh-CN") == "CNY/工时"
    assert drawer_unit("CNY/gpu_hour", "en") == "CNY/gpu_hour"
    assert drawer_unit(None, "zh-CN") == ""


def test_one_precision_per_price_column(outputs):
    """Review 5 J11: "7.32 CNY" above "7.3172 CNY" in one column; now every row at the places the most
    precise needs, in Markdown and HTML."""
    from trainledger.report.render import price_column, to_html, to_markdown

    assert price_column([("7.32", "CNY"), ("7.3172", "CNY"), None, ("36", "CNY"), ("1234.5", "USD")]) == \
        ["7.3200 CNY", "7.3172 CNY", "—", "36.0000 CNY", "1,234.50 USD"]
    s = json.loads(json.dumps(outputs["json"]))
    priced = [r for r in s["compute_by_state"] if r.get("price_per_gpu_hour")]
    priced[0]["price_per_gpu_hour"]["amount"] = "7.3172"
    md = to_markdown(s, "en")
    table = md[md.index("## Compute"):md.index("\n## ", md.index("## Compute") + 3)]
    assert "| 7.3172 CNY |" in table and table.count("| 36.0000 CNY |") == len(priced) - 1
    assert "| 36.00 CNY |" not in table
    html = to_html(s, "zh-CN")
    compute = re.search(r'<table id="compute">.*?</table>', html, flags=re.S).group(0)
    assert compute.count(">36.0000 CNY<") == len(priced) - 1 and ">7.3172 CNY<" in compute
    plain = outputs["md en"]  # the demo itself: every price 36.00, at the minor unit
    assert "| 36.00 CNY |" in plain
