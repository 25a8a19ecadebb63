"""Small J11 items (review 5): the report command's errors in one language per line (docs/cli.md), and
the runs table's cost column not headed "billed" (an owned cluster's amortised cost is billed by nobody)."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.mark.parametrize("args", [["--project", "nope"], ["--from", "2026-12", "--to", "2026-11"],
                                  ["--format", "xlsx"], ["--from", "2026-13"]])
def test_report_errors_speak_one_language(demo_pristine, args):
    for lang, chinese in (("en", False), ("zh-CN", True)):
        r = CliRunner().invoke(cli, ["--workspace", str(demo_pristine), "--lang", lang, "report", *args])
        assert r.exit_code == 2, r.output
        said = [ln for ln in r.output.splitlines() if ln.strip() and not ln.startswith(("Usage:", "Try ", "用法"))]
        assert said, r.output
        assert all(bool(CJK.search(ln)) == chinese for ln in said), (lang, said)


def test_the_runs_cost_column_names_what_it_holds(demo_pristine):
    for lang, head, old in (("en", "cost (billed unless its basis is named)", "| billed | queued value |"),
                            ("zh-CN", "成本（未注明口径的为账单金额）", "| 账单金额 | 排队价值 |")):
        r = CliRunner().invoke(cli, ["--workspace", str(demo_pristine), "--lang", lang, "sheet",
                                     "csa-sft-2026-11-a"], catch_exceptions=False)
        assert head in r.output and old not in r.output
        html = CliRunner().invoke(cli, ["--workspace", str(demo_pristine), "--lang", lang, "sheet",
                                        "csa-sft-2026-11-a", "--format", "html"], catch_exceptions=False).output
        assert f"<th>{head}</th>" in html
