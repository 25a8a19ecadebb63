"""The review bridge in zh-CN names its lines in Chinese (算力, 人力：业务评测), not by the plan's ids
("compute —", "labor:business_eval —"); English keeps the ids as the plan file writes them."""

from __future__ import annotations

import re

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.demo.scenario import BATCH_B
from trainledger.review.texts import line_label


def _review(ws, lang: str) -> str:
    r = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", lang, "review", BATCH_B], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_line_label():
    assert line_label("compute", "zh-CN") == "算力"
    assert line_label("labor:business_eval", "zh-CN") == "人力：业务评测"
    assert line_label("unplanned:labor", "zh-CN") == "计划外：人力"
    assert line_label("my-own-line", "zh-CN") == "my-own-line"  # the user's own id: as written
    assert line_label("labor:business_eval", "en") == "labor:business_eval"


def test_the_bridge_and_lessons_speak_chinese(demo_dir):
    zh = _review(demo_dir, "zh-CN")
    assert "算力 — 效率差异按资源状态" in zh and "人力：业务评测 — " in zh
    assert not re.search(r"\b(compute|labor|storage)\b", zh), zh
    assert "GPU-h" not in zh and "卡时)" in zh
    assert "算力：有效训练 每百万 token 卡时" in zh  # a lesson's name
    en = _review(demo_dir, "en")
    assert "compute — efficiency by state" in en and "labor:business_eval — " in en and "GPU-h)" in en
