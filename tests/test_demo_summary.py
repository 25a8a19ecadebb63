"""What ``trainledger demo`` prints of each batch is the local user's (admin's) figures: the totals by
basis as the batch sheet has them, never "restricted" (review 8, R8-6: batch b's contract lines read
"restricted" because the summary printed the sheet's masked figures)."""

import json

from click.testing import CliRunner

from trainledger import fmt
from trainledger.cli import cli


def test_the_demo_prints_every_batch_total_unmasked(demo_pristine):
    out = (demo_pristine.parent / "demo-output.txt").read_text(encoding="utf-8")
    assert "restricted" not in out
    for batch in ("csa-sft-2026-11-a", "csa-sft-2026-11-b"):
        r = CliRunner().invoke(cli, ["--workspace", str(demo_pristine), "sheet", batch, "--format", "json"],
                               catch_exceptions=False)
        block = out.split(f"  {batch}  (", 1)[1].split("\n\n", 1)[0]
        for tot in json.loads(r.stdout)["totals_by_basis"]:
            figure = f"{fmt.amount(tot['expected'], tot['currency'], exact=tot['cash'])}"
            assert any(figure in ln and ln.rstrip().endswith(tot["currency"]) for ln in block.splitlines()), (
                batch, tot)
    assert "3,400.00 USD" in out
