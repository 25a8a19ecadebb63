"""Columns line up in zh-CN as in English: a Chinese character takes two terminal columns, so the
command line pads by display width (cli/output.py ``width`` / ``pad``). Checked on the demo's own
output — ``attribute``'s unattributed bucket (basis, then reason), ``status``'s GPU-hours by state,
``demo``'s totals — and the unheld capacity's reason says something of its own in Chinese, not its
basis's words again."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.cli.output import pad, width
from trainledger.model.vocab import Basis, label, reason_label

A = "csa-sft-2026-11-a"


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    root = tmp_path_factory.mktemp("zhcols") / "ws"
    out = run("--lang", "zh-CN", "demo", "--dir", root)
    return root, out


def test_width_counts_a_chinese_character_as_two_columns():
    assert width("billed") == 6 and width("账单现金") == 8 and width("内部人力(机会成本)") == 18
    assert width("（示例）") == 8 and width("e\u0301") == 1  # full-width brackets two; a combining accent none
    assert pad("账单现金", 10) == "账单现金  " and pad("ab", 5, ">") == "   ab"
    assert pad("无作业占用的容量", 4) == "无作业占用的容量"  # wider than the column: kept whole
    assert width(pad("无作业占用的容量", 20)) == width(pad("billed", 20)) == 20


def test_the_unheld_capacitys_reason_is_not_its_basis_again():
    basis, reason = label(Basis.CAPACITY_UNHELD, "zh-CN"), reason_label("capacity_unheld", "zh-CN")
    assert basis == "无作业占用的容量" and reason != basis and "空闲" in reason
    assert reason_label("job_without_batch", "zh-CN") == label("job_without_batch", "zh-CN")
    assert reason_label("capacity_unheld", "en") == "capacity unheld"


def _display_column(line: str, part: str) -> int:
    return width(line[:line.index(part)])


def test_the_bucket_reasons_line_up_after_the_basis_in_chinese(demo):
    root, _ = demo
    out = run("--workspace", root, "--lang", "zh-CN", "attribute")
    bases = sorted({label(b, "zh-CN") for b in Basis}, key=len, reverse=True)
    rows = []
    for line in out.splitlines():
        m = re.match(r"^ {4}\s*[\d,.]+ [A-Z]{3}  (\S+) +(\S.*)$", line)
        if m and m.group(1) in bases:
            rows.append((line, m.group(1), m.group(2)))
    said = {b for _l, b, _r in rows}
    assert {"无作业占用的容量", "账单现金"} <= said, out  # two bases of different widths
    assert len({_display_column(line, reason) for line, _b, reason in rows}) == 1, out
    unheld = next(r for _l, b, r in rows if b == "无作业占用的容量")
    assert unheld.startswith(reason_label("capacity_unheld", "zh-CN"))


def test_status_hours_by_state_and_the_demo_totals_line_up(demo):
    root, demo_out = demo
    out = run("--workspace", root, "status", A, "--lang", "zh-CN")
    head = out.index("按资源状态的卡时")
    rows = [ln for ln in out[head:].splitlines()[1:] if ln.startswith("    ") and "已完成工作对应计划" in ln]
    assert len(rows) >= 2 and len({width(ln) - width(ln.lstrip()) for ln in rows}) == 1
    # the measured states the plan's overhead stands for, listed under it (indented, no plan columns)
    parts = [ln for ln in out[head:].splitlines()[1:] if ln.startswith("      ") and not ln.startswith("       ")
             and re.match(r"^\s+\S+\s+[\d,.]+$", ln)]
    assert len(parts) >= 3, out
    ends = {width(re.match(r"^(\s+\S+\s+[\d,.]+)", ln).group(1)) for ln in rows + parts}  # the hours right-aligned
    assert len(ends) == 1, rows
    totals = [ln for ln in demo_out.splitlines() if re.match(r"^ {4}\S", ln) and re.search(r" [A-Z]{3}$", ln)]
    assert len(totals) >= 3 and len({width(ln) for ln in totals}) == 1, totals  # basis, evidence, range, currency
