"""The command line's own lines in zh-CN: import summary and quarantine reasons, attribute, audit,
quarantine (with the code and Chinese beside the stored English in JSON), a command's error."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

SRC = Path(__file__).resolve().parents[2] / "docs" / "first-hour" / "slurm-cloud"


def run(*args, code=0):
    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="trainledger")
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def ws(tmp_path):
    ws = tmp_path / "ws"
    run("init", ws, "--currency", "CNY")
    shutil.copy(SRC / "trainledger.toml", ws / "trainledger.toml")
    bill = tmp_path / "bill.csv"
    lines = (SRC / "bill.csv").read_text(encoding="utf-8").splitlines()
    bill.write_text("\n".join([*lines, lines[1].replace("288.00", "abc", 1)]) + "\n",
                    encoding="utf-8")
    return ws, bill


def test_import_attribute_and_quarantine_speak_chinese(ws):
    ws, bill = ws
    out = run("--workspace", ws, "--lang", "zh-CN", "import", "focus", bill)
    assert "接收" in out and "隔离 1 行" in out and "accepted" not in out
    reason_line = next(ln for ln in out.splitlines() if ln.startswith("  ! 第"))
    assert "BilledCost" in reason_line and "not a number" not in reason_line and "不是数字" in reason_line
    run("--workspace", ws, "import", "slurm", SRC / "sacct.txt")
    out = run("--workspace", ws, "attribute", "--lang", "zh-CN")
    assert "条成本行" in out and "账单" in out and "已归属" in out and "cost lines" not in out
    assert "未归属桶" in out and "作业未匹配批次" in out  # the reason's label, not job_without_batch

    text = run("--workspace", ws, "quarantine", "--lang", "zh-CN")
    assert "隔离" in text and "第 " in text and "not a number" not in text
    rows = json.loads(run("--workspace", ws, "quarantine", "--json"))
    (row,) = [r for r in rows if r["status"] == "quarantined"]
    assert "not a number" in row["reason"]  # the stored English stays as it was
    assert row["reason_code"] == "ingest.base.text" and "不是数字" in row["reason_zh"]

    audit = run("--workspace", ws, "audit", "--lang", "zh-CN")
    assert "条审计记录" in audit and "哈希链完整" in audit and "账本数字与哈希链一致" in audit

    en = run("--workspace", ws, "attribute")
    assert "cost lines from" in en and "条成本行" not in en


def test_the_workspace_language_is_the_default(ws):
    ws, _bill = ws
    cfg = ws / "trainledger.toml"
    text = cfg.read_text(encoding="utf-8")
    assert 'language = "en"' in text
    cfg.write_text(text.replace('language = "en"', 'language = "zh-CN"', 1), encoding="utf-8")
    out = run("--workspace", ws, "sheet", "no-such-batch", code=2)
    assert out.startswith("错误：") and "解决办法" in out
    out = run("--workspace", ws, "--lang", "en", "sheet", "no-such-batch", code=2)
    assert out.startswith("error: ") and "remedy" in out


def test_a_flagged_row_shows_labels_never_codes():
    from trainledger.cli.output import reason_text

    row = {"reason": "no_owner, no_purpose", "notes": ["no_owner", "no_purpose"]}
    assert reason_text(row, "en") == "no owner; no purpose"
    assert reason_text(row, "zh-CN") == "无负责人；无用途说明"
    assert reason_text({"reason": "Elapsed: not a number: 'x'"}, "zh-CN") == "Elapsed：不是数字：'x'"
