"""The cross-batch report's days and months are the workspace zone's, and a bill row that states
its billing period (a Huawei 账期) is in that period's month (review 3 G22).

Hand-made bill (the reviewer's g22 case): 8 OBS rows of 账期 2026-12 at 2026-12-01 00:00–08:00
+08:00 (1.00 CNY each; in UTC 2026-11-30 16:00–24:00) and one row of 账期 2026-11 on 2026-11-30
20:00 +08:00 (2.00). By hand: December 8.00, November 2.00 — in UTC the old report had November
10.00 and December nothing."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import cross
from trainledger.service import Workspace

D = Decimal
HEADER = ("账期,企业项目,企业项目ID,账号,产品类型编码,产品类型,产品编码,产品ID,产品,计费模式,账单类型,使用开始时间,"
          "使用结束时间,资源ID,资源名称,资源标签,区域,官网价总金额,应付金额,使用量,使用量单位")
ROW = ("{month},训练平台,ep-001,acct-hw,hws.service.type.obs,对象存储服务,obs.standard,p-002,OBS 标准存储,按需,"
       "消费-使用,{start} GMT+08:00,{end} GMT+08:00,obs-ckpt,obs-ckpt,batch:llm-x,cn-north-4,{amount},{amount},"
       "100,GB")
CONFIG = """
[[projects]]
id = "llm"
name = "LLM"
goal = "ship"
owner = "alice"

[[batches]]
id = "llm-x"
project = "llm"
name = "X"
goal = "g"
data_snapshot = "d1"
data_processing_version = "p1"
model_version = "m1"
code_version = "c1"
config_version = "cf1"
team = "t"
owner = "alice"

[[rules]]
id = "bill-tag"
source = "focus"
field = "tags.batch"
match = "template"
"""


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def bill(path: Path) -> Path:
    rows = [ROW.format(month="2026-12", start=f"2026-12-01 {h:02d}:00:00", end=f"2026-12-01 {h + 1:02d}:00:00",
                       amount="1.00") for h in range(8)]
    rows.append(ROW.format(month="2026-11", start="2026-11-30 20:00:00", end="2026-11-30 21:00:00", amount="2.00"))
    path.write_bytes(("\n".join([HEADER, *rows]) + "\n").encode("gb18030"))
    return path


def make(root: Path, zone: str | None) -> Path:
    run("init", root, "--currency", "CNY")
    toml = root / "trainledger.toml"
    text = toml.read_text(encoding="utf-8").replace('timezone = "UTC"', 'timezone = "Asia/Shanghai"')  # sacct zone
    if zone:
        text = text.replace('price_book = ""', f'price_book = ""\ntimezone = "{zone}"')
    toml.write_text(text + CONFIG, encoding="utf-8")
    run("--workspace", root, "import", "huawei", bill(root / "huawei-dec.csv"))
    run("--workspace", root, "attribute")
    return root


@pytest.fixture(scope="module")
def beijing(tmp_path_factory) -> Path:
    return make(tmp_path_factory.mktemp("zone") / "bj", "Asia/Shanghai")


@pytest.fixture(scope="module")
def utc(tmp_path_factory) -> Path:
    return make(tmp_path_factory.mktemp("zone") / "utc", None)  # workspace.timezone unset: UTC


def spend(root: Path, *window: str) -> dict[str, Decimal]:
    args = ("--from", window[0], "--to", window[1]) if window else ()
    doc = json.loads(run("--workspace", root, "report", "--format", "json", *args))
    return {c["period"]: D(c["expected"]) for c in doc["spend"]}


def test_a_beijing_bill_of_december_is_reported_in_december(beijing):
    assert spend(beijing) == {"2026-11": D("2.00"), "2026-12": D("8.00")}
    assert spend(beijing, "2026-12", "2026-12") == {"2026-12": D("8.00")}
    assert spend(beijing, "2026-11", "2026-11") == {"2026-11": D("2.00")}
    # a window of days: the Beijing day 2026-12-01 holds the eight rows
    assert spend(beijing, "2026-12-01", "2026-12-01") == {"2026-12": D("8.00")}
    doc = json.loads(run("--workspace", beijing, "report", "--format", "json"))
    assert doc["scope"]["days"] == "Asia/Shanghai"
    assert [(b["first_day"], b["last_day"]) for b in doc["batches"]] == [("2026-11-30", "2026-12-01")]


def test_the_note_names_the_zone_in_both_languages(beijing):
    en = run("--workspace", beijing, "--lang", "en", "report")
    zh = run("--workspace", beijing, "--lang", "zh-CN", "report")
    assert "Days and months are Asia/Shanghai days and months" in en and "Days are UTC" not in en
    assert "日期与月份均按 Asia/Shanghai 时区" in zh


def test_the_billing_month_holds_in_a_utc_workspace_too(utc):
    """Days stay UTC (the eight rows are 2026-11-30 there), but the 账期 says December."""
    assert spend(utc) == {"2026-11": D("2.00"), "2026-12": D("8.00")}
    assert spend(utc, "2026-12", "2026-12") == {"2026-12": D("8.00")}
    doc = json.loads(run("--workspace", utc, "report", "--format", "json"))
    assert doc["scope"]["days"] == "UTC"
    assert [(b["first_day"], b["last_day"]) for b in doc["batches"]] == [("2026-11-30", "2026-11-30")]
    assert spend(utc, "2026-11-30", "2026-11-30") == {"2026-11": D("2.00"), "2026-12": D("8.00")}


def test_curve_days_are_local_days(beijing, utc):
    plan = {"plan": [{"basis": "billed", "currency": "CNY", "low": "5", "expected": "10", "high": "20"}], "eac": []}
    for root, want in ((beijing, [(date(2026, 11, 30), D("2.00")), (date(2026, 12, 1), D("10.00"))]),
                       (utc, [(date(2026, 11, 30), D("10.00"))])):
        with Workspace.open(root) as wsp:
            (curve,) = cross.curves(wsp, "llm-x", plan)
        assert [(p.day, p.cumulative) for p in curve.points] == want


def test_a_focus_billing_period_gives_the_month():
    from datetime import UTC, datetime, timedelta, timezone

    from trainledger.report.dating import billing_month

    bj = timezone(timedelta(hours=8))
    start, end = datetime(2026, 12, 1, tzinfo=bj), datetime(2027, 1, 1, tzinfo=bj)  # December in Beijing
    assert billing_month(start.astimezone(UTC), end.astimezone(UTC), "{}", UTC) == "2026-12"
    assert billing_month(start, end, None, bj) == "2026-12"
    assert billing_month(start, start + timedelta(days=7), None, UTC) is None  # a week is no billing month
    assert billing_month(None, None, '{"账期": "2026年3月"}', UTC) == "2026-03"
    assert billing_month(None, None, '{"BillPeriod": "2026-13"}', UTC) is None


def test_window_by_months_or_days():
    s = cross.Scope(start=date(2026, 12, 1), end=date(2026, 12, 31))
    assert s.monthly and not cross.Scope(start=date(2026, 12, 2)).monthly
    assert not cross.Scope(end=date(2026, 12, 30)).monthly
