"""The cross report's capacity rows are dated (engine/capacity_dating.py, report/dating.py): owned or
reserved capacity no job held, and held by jobs without a batch, fall in the window of their node-day
in the workspace zone, so a ``--from/--to`` window keeps exactly its share (before: undated, dropped).

By hand: the rate-card rack own-01 (8 GPUs at 20.00 CNY/GPU-h) from 2026-11-20 to 2026-12-06 UTC is
16 node-days of 3,840.00 = 61,440.00, all idle but job 503 (no batch), 8 GPUs 2026-11-30 20:00 →
12-01 04:00 UTC: 4 h on each side of the midnight = 640.00 + 640.00. In Asia/Shanghai each UTC day
starts at 08:00 of the same date, so November holds 11 node-days (42,240.00 = 41,600.00 unheld +
640.00 without a batch) and December 5 (19,200.00 = 18,560.00 + 640.00)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from decimal import Decimal

from click.testing import CliRunner

from tests.review.test_mixed_plan import mixed_workspace
from trainledger.cli import cli
from trainledger.service import Workspace

JOB_503 = ("503|unbatched|ml|no-such-batch||bob|2026-11-30T20:00:00|2026-11-30T20:00:00|2026-11-30T20:00:00|"
           "2026-12-01T04:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:a100=8,mem=500G,node=1|own-01|0\n")


def _report(root, *args) -> dict:
    r = CliRunner().invoke(cli, ["--workspace", str(root), "report", "--format", "json", *args],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _capacity(rep) -> dict[str, Decimal]:
    out: dict[str, Decimal] = {}
    for u in rep["unattributed"]:
        if u["basis"] == "rate_card":
            out[u["reason"]] = out.get(u["reason"], Decimal(0)) + Decimal(u["amount"])
    return out


def test_a_month_window_holds_each_months_idle_capacity(tmp_path):
    root = mixed_workspace(tmp_path, attributed=False)
    toml = root / "trainledger.toml"
    text = toml.read_text(encoding="utf-8").replace("from = 2026-11-10T10:00:00Z", "from = 2026-11-20T00:00:00Z") \
        .replace("until = 2026-11-10T14:00:00Z", "until = 2026-12-06T00:00:00Z") \
        .replace('price_book = "prices.toml"', 'price_book = "prices.toml"\ntimezone = "Asia/Shanghai"', 1)
    toml.write_text(text, encoding="utf-8")
    (tmp_path / "more.txt").write_text((tmp_path / "sacct.txt").read_text(encoding="utf-8").splitlines()[0] + "\n"
                                       + JOB_503, encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "more.txt"])
        wsp.attribute(as_of_time=datetime(2026, 12, 6, tzinfo=UTC))  # the whole period (the data ends 12-01)
        (rec,) = wsp.ledger.latest_attribution()["summary"]["conservation_capacity"]
    assert (Decimal(rec["total"]), Decimal(rec["unheld"]), Decimal(rec["job_without_batch"])) == (
        Decimal("61440"), Decimal("60160"), Decimal("1280"))  # the hand's figures, for the whole period

    whole = _capacity(_report(root))
    nov = _capacity(_report(root, "--from", "2026-11", "--to", "2026-11"))
    dec = _capacity(_report(root, "--from", "2026-12", "--to", "2026-12"))
    assert nov == {"capacity_unheld": Decimal("41600.00"), "job_without_batch": Decimal("640.00")}
    assert dec == {"capacity_unheld": Decimal("18560.00"), "job_without_batch": Decimal("640.00")}
    assert whole == {k: nov[k] + dec[k] for k in whole} == {
        "capacity_unheld": Decimal(rec["unheld"]), "job_without_batch": Decimal(rec["job_without_batch"])}
    assert all(u["period"] != "undated" for u in _report(root)["unattributed"] if u["basis"] == "rate_card")
    day = _capacity(_report(root, "--from", "2026-12-01", "--to", "2026-12-01"))  # a day window: one node-day
    assert day == {"capacity_unheld": Decimal("3200.00"), "job_without_batch": Decimal("640.00")}
