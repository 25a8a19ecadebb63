"""`attribute` groups the unattributed bucket by reason: a count, the few largest items and how to
list all (review finding 11: 518 lines, one per resource, on the 1,000-row FOCUS sample)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.cli.ledger_cmds import BUCKET_SHOWN
from trainledger.service import Workspace

from .configs import ONE_BATCH

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"
RULE = """
[[rules]]
id = "tagged"
source = "focus"
field = "tags.Application"
match = "exact"
pattern = "BrightPathMatrix"
batch = "b1"
"""


def run(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def test_the_bucket_is_grouped_by_reason_with_a_count_and_the_largest(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(ONE_BATCH + RULE)
    part = tmp_path / "focus-400.csv"  # the sample's first 400 rows: enough resources, a faster test
    with SAMPLE.open(encoding="utf-8", newline="") as f:
        part.write_text("".join(f.readline() for _ in range(401)), encoding="utf-8")
    run("--workspace", root, "import", "focus", part)
    (usd, *_rest) = json.loads(run("--workspace", root, "attribute", "--json"))
    items = [i for i in usd["unattributed_by_reason"] if i["reason"] == "no_rule_matched"]
    assert len(items) > 50  # the sample has hundreds of untagged resources
    out = run("--workspace", root, "--lang", "en", "attribute")
    lines = out.splitlines()
    assert len(lines) < 30, out
    head = next(ln for ln in lines if "billed" in ln and "no_rule_matched" in ln)
    assert f"— {len(items):,} items, the largest:" in head
    total = sum(Decimal(i["amount"]) for i in items)
    assert Decimal(head.split()[0].rstrip("†").replace(",", "")) == total
    at = lines.index(head)
    largest = sorted(items, key=lambda i: -abs(Decimal(i["amount"])))[:BUCKET_SHOWN]
    for ln, item in zip(lines[at + 1:at + 1 + BUCKET_SHOWN], largest, strict=True):
        assert item["detail"] in ln
    assert f"… {len(items) - BUCKET_SHOWN:,} more" in lines[at + 1 + BUCKET_SHOWN]
    assert f"every item: `trainledger --workspace {root} attribute --json`" in out
    zh = run("--workspace", root, "--lang", "zh-CN", "attribute")
    assert f"共 {len(items):,} 项" in zh and f"全部条目：`trainledger --workspace {root} attribute --json`" in zh
