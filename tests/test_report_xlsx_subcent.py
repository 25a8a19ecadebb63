"""A batch whose cash is a real cloud bill's sub-cent rows (the FOCUS sample's Elastic Load Balancing rows
carry 11 decimals: 0.0000160599 USD): the workbook's Summary check compares both sides at the minor unit, so
it stores exactly 0 (review 8, R8-7: ``ROUND(H2,2)-E2`` stored −0.0000170952, shown "-0.00", and a reader's
``=I2=0`` said the check failed)."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import openpyxl
from click.testing import CliRunner

from tests.xlsx_eval import Evaluator
from trainledger.cli import cli

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"
BATCH = "csa-sft-2026-11-a"
RULE = f'''
[[rules]]
id = "focus-app"
source = "focus"
field = "tags.application"
match = "exact"
pattern = "BrightLensMatrix"
batch = "{BATCH}"
'''


def run(ws, *args) -> str:
    r = CliRunner().invoke(cli, ["--lang", "en", "--workspace", str(ws), *map(str, args)], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def test_the_summary_check_is_zero_on_sub_cent_cash(demo_copy, tmp_path):
    with (demo_copy / "trainledger.toml").open("a", encoding="utf-8") as f:
        f.write(RULE)
    run(demo_copy, "import", "focus", SAMPLE)
    run(demo_copy, "attribute")
    out = tmp_path / "a.xlsx"
    run(demo_copy, "sheet", BATCH, "--format", "xlsx", "--out", out)
    ws = openpyxl.load_workbook(out)["Summary"]
    stored = openpyxl.load_workbook(out, data_only=True)["Summary"]
    ev = Evaluator(openpyxl.load_workbook(out))
    usd = [r for r in range(2, ws.max_row + 1) if ws.cell(r, 3).value == "USD" and ws.cell(r, 9).data_type == "f"]
    assert usd, "the sample's tagged rows are batch A's USD cash"
    exact = [Decimal(str(stored.cell(r, 5).value)) for r in usd]
    assert any(x != x.quantize(Decimal("0.01")) for x in exact)  # a total below the cent: the case at hand
    checks = [r for r in range(2, ws.max_row + 1) if ws.cell(r, 9).data_type == "f"]
    for r in checks:
        assert Decimal(str(stored.cell(r, 9).value)) == 0, (r, ws.cell(r, 9).value, stored.cell(r, 9).value)
        assert ev.value("Summary", f"I{r}") == 0, r
