"""A batch sheet lists the workspace's unattributed bucket folded (review 7 L18): each reason's
largest items one by one, the rest of the reason in one row holding their exact sum. After the
1,000-row FOCUS sample (other teams' cloud spend, USD) is imported beside the demo, batch A's sheet
listed every one of its resources — 869 Control rows — in every format."""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.model.vocab import detail_label
from trainledger.report.sheet import SHEET_DETAILS, folded

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"
D = Decimal


def _items(reason, n, start=1000):
    return [{"reason": reason, "detail": f"bill row r{i}", "amount": f"{start - i}.25"} for i in range(n)]


def test_folding_keeps_the_largest_each_reason_and_the_rest_to_the_cent():
    items = [*_items("no_rule_matched", 30), *_items("job_without_batch", 3),
             {"reason": "no_rule_matched", "detail": "invoice INV-9", "amount": "1.00"}]
    rec = {"currency": "USD", "unattributed": "x", "unattributed_by_reason": items}
    (out,) = folded([rec])
    rows = out["unattributed_by_reason"]
    assert sum(D(r["amount"]) for r in rows) == sum(D(r["amount"]) for r in items)  # exact, not rounded
    by = Counter(r["reason"] for r in rows)
    assert by["job_without_batch"] == 3  # under the limit: untouched
    assert by["no_rule_matched"] == SHEET_DETAILS + 2  # the largest, the invoice, one folded row
    rest = next(r for r in rows if r.get("folded"))
    assert rest["folded"] == 30 - SHEET_DETAILS and rest["detail"] == f"+{30 - SHEET_DETAILS} more"
    assert D(rest["amount"]) == sum(D(x["amount"]) for x in items[SHEET_DETAILS:30])
    assert any(r["detail"] == "invoice INV-9" for r in rows)  # a vendor amount keeps its own row
    assert folded([{"currency": "CNY"}]) == [{"currency": "CNY"}]
    assert detail_label(rest["detail"], "zh-CN").startswith(f"另有 {30 - SHEET_DETAILS} 项")
    assert detail_label(rest["detail"], "en").startswith(f"{30 - SHEET_DETAILS} more items")


def test_a_batch_sheet_beside_a_company_bill_lists_the_bucket_folded_and_still_conserves(demo_copy, tmp_path):
    def run(*args):
        r = CliRunner().invoke(cli, ["--lang", "en", "--workspace", str(demo_copy), *map(str, args)],
                               catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return r.output

    run("import", "focus", SAMPLE)
    full = json.loads(run("attribute", "--json"))
    sheet = json.loads(run("sheet", "csa-sft-2026-11-a", "--format", "json"))
    for mine, whole in zip(sheet["conservation"]["by_currency"], full, strict=True):  # its conservation records
        assert mine["currency"] == whole["currency"]
        items, rows = whole["unattributed_by_reason"], mine["unattributed_by_reason"]
        assert sum(D(r["amount"]) for r in rows) == sum(D(x["amount"]) for x in items) == D(whole["unattributed"])
        assert max(Counter(r["reason"] for r in rows).values()) <= SHEET_DETAILS + 1 + \
            sum(1 for x in items if x["detail"].startswith("invoice "))
    usd = next(r for r in sheet["conservation"]["by_currency"] if r["currency"] == "USD")
    assert any(r.get("folded") for r in usd["unattributed_by_reason"])  # the sample's resources, folded
    md = run("sheet", "csa-sft-2026-11-a")
    rest = next(r for r in usd["unattributed_by_reason"] if r.get("folded"))
    assert f"{rest['folded']} more items \\(listed one by one in" in md  # Markdown-escaped parentheses
