"""``trainledger jobs --cluster NAME``: the summary of one cluster's jobs (review 5 J11: Philly /
Helios / openb and sacct were mixed in one summary with no filter)."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

OPENB = Path(__file__).parent / "data" / "alibaba-openb-gpu-v2023" / "openb_pod_list_default.csv"
SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1||li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
"""


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_jobs_of_one_cluster(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    pods = tmp_path / "openb.csv"
    pods.write_text("".join(OPENB.read_text(encoding="utf-8").splitlines(keepends=True)[:41]), encoding="utf-8")
    assert invoke("--workspace", root, "import", "slurm", tmp_path / "sacct.txt").exit_code == 0
    assert invoke("--workspace", root, "import", "jobs", pods, "--preset", "alibaba-openb-2023").exit_code == 0
    every = json.loads(invoke("--workspace", root, "jobs", "--json").output)
    openb = json.loads(invoke("--workspace", root, "jobs", "--json", "--cluster", "openb").output)
    assert (every["jobs"], openb["jobs"]) == (41, 40)  # the sacct dump names no cluster
    assert Decimal(openb["gpu_hours"]["total"]) == Decimal("35111.980628")  # (trainledger jobs on the 40 alone)
    assert Decimal(openb["gpu_hours"]["total"]) + Decimal(16) == Decimal(every["gpu_hours"]["total"])  # + 8 × 2 h
    bad = invoke("--workspace", root, "jobs", "--cluster", "philly")
    assert bad.exit_code != 0 and "no imported job names cluster 'philly'" in bad.output
    assert "'openb'" in bad.output  # the remedy lists the clusters there are
    zh = invoke("--workspace", root, "--lang", "zh-CN", "jobs", "--cluster", "philly")
    assert "没有已导入的作业属于集群" in zh.output
