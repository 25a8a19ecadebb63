"""Review 5 J1 by hand, through a workspace: an owned Ascend 910B cluster (sacct ``gres/npu:910b``).

Capacity asc-own: 2 nodes × 8 NPUs, 48 h, amortised: (1,600,000 / (5 × 8,760) + 5.6 kW × 0.75 +
3,000 / 730 + 240,000 / (8,760 × 2)) / 8 = (182.6484 + 4.2 + 4.1096 + 13.6986) / 8 → 7.3172 CNY
per card-hour (rounded to 4 places). Total 16 × 48 × 7.3172 = 5,619.6096. Jobs: 7001 16 NPUs × 12 h
= 192, 7002 two attempts × 8 × 4 h = 64, 7003 8 × 1.5 h = 12: 268 card-hours × 7.3172 = 1,961.0096
to batch b1; unheld 5,619.6096 − 1,961.0096 = 3,658.60. Before the fix the jobs held 0 GPUs and all
5,619.61 was unheld.
"""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .engine.factories import CONFIG

CAPACITY = """
[[capacity]]
id = "asc-own"
nodes = ["asc-node-01", "asc-node-02"]
gpus_per_node = 8
from = 2026-11-10T00:00:00+08:00
until = 2026-11-12T00:00:00+08:00
currency = "CNY"
source = "fixed-asset register FA-2026-07"
owner = "finance: zhao"
evidence = "assumed"
[capacity.amortized]
purchase_price_per_node = "1600000"
depreciation_years = 5
power_kw_per_node = "5.6"
power_price_per_kwh = "0.75"
hosting_per_node_month = "3000"
ops_staff_per_year = "240000"
"""
H = "Cluster|JobID|JobIDRaw|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|Elapsed|State|ExitCode|AllocTRES|NodeList|Restarts\n"  # noqa: E501
SACCT = H + "".join(
    f"asc|{j}|{j}|pt|llm|b1||chen|{s}|{s}|{s}|{e}|{el}|{st}|0:0|{tres}|{nodes}|{r}\n"
    for j, s, e, el, st, tres, nodes, r in [
        ("7001", "2026-11-10T08:00:00", "2026-11-10T20:00:00", "12:00:00", "COMPLETED",
         "billing=192,cpu=192,gres/npu:910b=16,mem=1500G,node=2", "asc-node-[01-02]", 0),
        ("7002", "2026-11-10T21:00:00", "2026-11-11T01:00:00", "04:00:00", "NODE_FAIL",
         "cpu=96,gres/npu:910b=8,node=1", "asc-node-01", 0),
        ("7002", "2026-11-11T02:00:00", "2026-11-11T06:00:00", "04:00:00", "COMPLETED",
         "cpu=96,gres/npu:910b=8,node=1", "asc-node-02", 1),
        ("7003", "2026-11-11T08:00:00", "2026-11-11T09:30:00", "01:30:00", "CANCELLED by 1005",
         "cpu=96,gres/npu:910b=8,node=1", "asc-node-01", 0),
    ]
)  # fmt: skip


def _cli(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r.output


def test_an_owned_ascend_cluster_charges_the_npu_hours_held(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(CAPACITY), encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    with Workspace.init(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "sacct.txt"], options={"tz": "Asia/Shanghai"})
    (cap,) = [c for c in json.loads(_cli("--workspace", root, "attribute", "--json")) if c.get("capacity")]
    assert (cap["capacity"], cap["basis"], cap["price_per_gpu_hour"]) == ("asc-own", "amortized", "7.3172")
    assert (cap["total"], cap["attributed"], cap["unheld"]) == ("5619.6096", "1961.0096", "3658.6000")
    assert Decimal(cap["attributed"]) + Decimal(cap["unheld"]) == Decimal(cap["total"])
    summary = json.loads(_cli("--workspace", root, "jobs", "--json"))
    assert summary["gpu_hours"]["total"] == "268.000000"
