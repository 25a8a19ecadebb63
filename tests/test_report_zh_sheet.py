"""The demo's zh-CN batch sheet reads in Chinese (review2 F12): no double-escaped Markdown in the plan
section's tables, no English words of the renderer's own in the plan / alerts / unknowns sections
and the unattributed bucket, and alert amounts with thousands separators like every other amount.
Identifiers (a node name, a job id, the plan's own gate id) stay as written."""

from __future__ import annotations

import html as _html
import re

import pytest

from trainledger.report.render import render
from trainledger.service import Workspace

BATCH = "csa-sft-2026-11-a"
ENGLISH = ["关口 half 已到", "loss（", "compute：", "storage：", "labor:", "Mtoken", "node gpu-node", "job 48139",
           "实际 80523.30"]


@pytest.fixture(scope="module")
def sheet(tmp_path_factory):
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("zh-sheet")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    with Workspace.open(root) as wsp:
        return wsp.sheet(BATCH)


def _plain(md: str) -> str:
    """What a Markdown reader sees: each backslash escape resolved once."""
    return re.sub(r"\\(.)", r"\1", md)


def test_the_zh_markdown_sheet_has_no_english_fragments_nor_double_escapes(sheet):
    md = render(sheet, "md", "zh-CN")
    assert "\\\\" not in md, [ln for ln in md.splitlines() if "\\\\" in ln][:3]
    seen = _plain(md)
    for frag in ENGLISH:
        assert frag not in seen, (frag, [ln for ln in seen.splitlines() if frag in ln][:2])
    # what they became
    for frag in ("内部人力(机会成本) CNY：实际 15,880.00",
                 "账单现金 CNY：实际 80,523.30 已达计划预期 44,555.00", "工作量 +25,251.28 CNY",
                 "关口「half」已到", "损失（计划工作量的 1.0000）", "算力：有效训练", "存储：留存 GiB·月",
                 "人力：业务评测", "已完成有效工作量: 26,382.17 / 16,423.00 百万 token", "节点 gpu-node-04",
                 "作业 48139"):
        assert frag in seen, frag


def test_the_zh_html_sheet_too(sheet):
    text = _html.unescape(re.sub(r"<[^>]+>", " ", render(sheet, "html", "zh-CN")))
    for frag in ("关口 half 已到", "loss（", "Mtoken", "node gpu-node", "job 48139", "实际 80523.30"):
        assert frag not in text, frag
    assert "百万 token" in text and "节点 gpu-node-04" in text and "损失（" in text


def test_the_english_sheet_keeps_its_words(sheet):
    md = _plain(render(sheet, "md", "en"))
    for frag in ("gate half reached", "loss at 1.0000 of planned work", "Mtoken", "node gpu-node-04", "job 48139",
                 "actual 80,523.30"):
        assert frag in md, frag
