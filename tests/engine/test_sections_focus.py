"""Sheet sections add up on the real FOCUS sample (tests/data/focus-sample-data): every billed line
of a batch is in a section — compute, storage, network, other services, external — and the
sections sum exactly to the batch's billed total. Before, rows that were neither compute nor
storage (networking, analytics, AI services…) had no section."""

import csv
import json
import textwrap
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from ..configs import ONE_BATCH

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "focus-sample-data" / "focus_sample.csv"
EVERYTHING = ONE_BATCH + """
[[rules]]
id = "all-usd"
source = "focus"
field = "currency"
match = "exact"
pattern = "USD"
batch = "b1"
"""


def test_the_real_sample_lands_in_sections_that_sum_to_the_bill(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(EVERYTHING))
    out = CliRunner().invoke(cli, ["--workspace", str(root), "import", "focus", str(SAMPLE), "--json"],
                             catch_exceptions=False)
    assert json.loads(out.output)["quarantined"] == 0
    with Workspace.open(root) as wsp:
        wsp.attribute()
        sheet = wsp.sheet("b1")
    with SAMPLE.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    total = sum(Decimal(r["BilledCost"]) for r in rows)
    by_cat = defaultdict(Decimal)
    for r in rows:
        cat = {"Compute": "compute", "Storage": "storage", "Networking": "network"}.get(r["ServiceCategory"],
                                                                                      "other_services")
        by_cat[cat] += Decimal(r["BilledCost"])
    (usd,) = sheet["sections"]
    assert Decimal(usd["total"]) == total and Decimal(usd["difference"]) == 0
    assert {x["section"]: Decimal(x["amount"]) for x in usd["sections"]} == {k: v for k, v in by_cat.items() if v}
    outside = by_cat["network"] + by_cat["other_services"]
    assert outside > 0 and sum(Decimal(i["amount"]) for i in usd["items"]) == outside  # listed, item by item
