"""Review 4 H4, import side: dropping an import and importing the same file again brings it back
live with the drop kept in its history (imports list --json, imports show, the dashboard's
/imports), the import summary counts the flags of this import's live rows only, and the figures
after `attribute` are those before the drop (tests/data/rv3: the Huawei bill, every row flagged
provisional, 6 with the 8-decimal note)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
DATA = Path(__file__).resolve().parent / "data" / "rv3"
BILL = DATA / "huawei-bill.csv"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def listed(ws) -> dict:
    return {r["kind"]: r for r in json.loads(run("--workspace", ws, "imports", "list", "--json"))}


def billed(ws) -> dict:
    return {c["currency"]: (c["billed_total"], c["attributed"])
            for c in json.loads(run("--workspace", ws, "attribute", "--json"))}


@pytest.fixture(scope="module")
def cycle(tmp_path_factory):
    """The whole cycle, with what each step printed: import, attribute, drop, attribute, import
    again, attribute, drop again."""
    ws = tmp_path_factory.mktemp("dropcycle") / "ws"
    run("init", ws, "--currency", "CNY")
    toml = ws / "trainledger.toml"
    toml.write_text((toml.read_text() + (DATA / "ws2.toml.part").read_text())
                    .replace('timezone = "UTC"', 'timezone = "Asia/Shanghai"')
                    .replace('price_book = ""', 'price_book = "prices.toml"')
                    .replace('gpu_item = ""', 'gpu_item = "gpu_hour:a100-80gb"'))
    shutil.copy(DATA / "ws2-prices.toml", ws / "prices.toml")
    run("--workspace", ws, "import", "slurm", DATA / "sacct-hw.txt")
    out = {"first": run("--workspace", ws, "import", "huawei", BILL)}
    out["before"] = billed(ws)
    out["id"] = listed(ws)["huawei"]["id"]
    out["first_at"] = listed(ws)["huawei"]["imported_at"]
    run("--workspace", ws, "imports", "drop", out["id"], "--reason", "wrong month exported")
    out["dropped"] = billed(ws)
    out["again"] = run("--workspace", ws, "import", "huawei", BILL)
    out["again_zh"] = run("--workspace", ws, "--lang", "zh-CN", "import", "huawei", BILL)  # a re-read: no rows
    out["after"] = billed(ws)
    out["list"] = listed(ws)["huawei"]
    out["list_text"] = run("--workspace", ws, "imports", "list")
    out["show"] = run("--workspace", ws, "imports", "show", out["id"])
    out["show_zh"] = run("--workspace", ws, "--lang", "zh-CN", "imports", "show", out["id"])
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    client = TestClient(create_app(ws))
    out["page"] = {r["id"]: r for r in client.get("/imports?format=json").json()["imports"]}
    out["page_zh"] = client.get("/imports?lang=zh-CN").text
    run("--workspace", ws, "imports", "drop", out["id"], "--reason", "second drop")
    out["list2"] = listed(ws)["huawei"]
    return out


def test_the_summary_counts_only_this_imports_live_rows(cycle):
    for text in (cycle["first"], cycle["again"]):  # 15 rows, all provisional, 6 with the note: not 30 / 12
        assert "15 accepted, 0 duplicate, 0 quarantined, 15 accepted with flags" in text
        assert "  provisional bill: 15 row(s)\n" in text and "  evidence note: 6 row(s)\n" in text


def test_the_zh_summary_names_the_rules_in_chinese(cycle, tmp_path):
    run("init", tmp_path / "z", "--currency", "CNY")
    zh = run("--workspace", tmp_path / "z", "--lang", "zh-CN", "import", "huawei", BILL)
    assert "  暂估账单：15 行\n" in zh and "  账单证据说明：6 行\n" in zh and "provisional bill" not in zh


def test_figures_leave_with_the_drop_and_come_back_with_the_import(cycle):
    before, dropped, after = cycle["before"], cycle["dropped"], cycle["after"]
    assert after == before == {"CNY": ("2990.08074068", "1864.77209873")}  # not doubled: the dropped part stays out
    assert "CNY" not in dropped  # the bill was the workspace's only CNY money: gone with the drop


def test_the_record_is_live_again_and_keeps_its_drop(cycle):
    rec = cycle["list"]
    assert rec["id"] == cycle["id"] and rec["status"] == "live" and rec["dropped_at"] is None
    assert rec["imported_at"] == cycle["first_at"]  # the import's first time
    assert [e["event"] for e in rec["history"]] == ["imported", "dropped", "reimported"]
    (drop,) = rec["drops"]
    assert drop["reason"] == "wrong month exported" and drop["at"] and drop["by"]
    from datetime import datetime

    at = [datetime.fromisoformat(e["at"]).replace(microsecond=0) for e in rec["history"]]  # imports: to the second
    assert rec["reimported_at"] == rec["history"][2]["at"] and at[2] >= at[1] >= at[0]
    assert rec["history"][0]["at"] == cycle["first_at"]
    assert rec["accepted"] == 15 and rec["flagged"] == 15
    line = cycle["list_text"].split(cycle["id"] + "  huawei", 1)[1].splitlines()[1]
    assert line.strip().startswith("history (UTC): imported ") and "wrong month exported; imported again" in line
    assert "dropped " in cycle["show"] and "wrong month exported" in cycle["show"] and "[live]" in cycle["show"]
    assert "撤销：wrong month exported" in cycle["show_zh"] and "重新导入（恢复有效" in cycle["show_zh"]


def test_the_dashboard_says_so(cycle):
    rec = cycle["page"][cycle["id"]]
    assert rec["status"] == "live" and rec["reimported_at"] == cycle["list"]["reimported_at"]
    assert [d["reason"] for d in rec["earlier_drops"]] == ["wrong month exported"]
    assert "重新导入时间" in cycle["page_zh"] and "此前撤销于" in cycle["page_zh"]
    assert "wrong month exported" in cycle["page_zh"]


def test_a_second_drop_is_one_more_event_and_counts_its_own_rows(cycle):
    rec = cycle["list2"]
    assert rec["status"] == "dropped" and rec["drop_reason"] == "second drop"
    assert [e["event"] for e in rec["history"]] == ["imported", "dropped", "reimported", "dropped"]
    assert [d["reason"] for d in rec["earlier_drops"]] == ["wrong month exported"]
    assert rec["reimported_at"] is None and rec["accepted"] == 15 and rec["flagged"] == 15  # not 30
