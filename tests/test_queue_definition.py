"""One queue definition: Start − Eligible, Start − Submit only where Eligible is absent — in the engine's
queued cost and in ``trainledger jobs`` alike (docs/concepts.md)."""

import json
from decimal import Decimal

from click.testing import CliRunner

from tests.configs import ONE_BATCH
from trainledger import service
from trainledger.cli import cli
from trainledger.model import Basis

HEADER = "JobID|JobName|Account|WCKey|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList\n"
# job 1 was held 30 min for a dependency (Submit 00:00, Eligible 00:30) and queued 10 min; job 2 has no
# Eligible recorded: its queue counts from Submit (20 min).
SACCT = HEADER + (
    "1|a|acc|b1|u|2026-11-02T00:00:00|2026-11-02T00:30:00|2026-11-02T00:40:00|2026-11-02T01:40:00|COMPLETED|0:0"
    "|gres/gpu=4,node=1|n1\n"
    "2|b|acc|b1|u|2026-11-02T02:00:00|Unknown|2026-11-02T02:20:00|2026-11-02T03:20:00|COMPLETED|0:0"
    "|gres/gpu=2,node=1|n1\n")


def run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], prog_name="trainledger")


def test_jobs_and_the_engine_count_queueing_the_same_way(tmp_path):
    root = tmp_path / "ws"
    assert run("init", root).exit_code == 0
    cfg = root / "trainledger.toml"
    cfg.write_text(cfg.read_text(encoding="utf-8") + ONE_BATCH, encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    assert run("--workspace", root, "import", "slurm", tmp_path / "sacct.txt").exit_code == 0
    res = run("--workspace", root, "jobs", "--json")
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert got["queue_definition"] == "start_minus_eligible_else_submit"
    assert got["queue_from"] == {"eligible": 1, "submit": 1}
    assert got["queue_seconds"]["count"] == 2 and got["queue_seconds"]["mean"] == (600 + 1200) / 2
    with service.Workspace.open(root) as wsp:
        result = wsp.attribute()
    queued = {ln.run_id: ln.quantity for ln in result.lines if ln.basis is Basis.QUEUED}
    # the same waits, in GPU-hours: 4 GPUs × 10 min and 2 GPUs × 20 min
    assert queued == {"1": Decimal(4) * 600 / 3600, "2": Decimal(2) * 1200 / 3600}
