"""``trainledger jobs`` on a hand-worked ``sacct --parsable2 --duplicates`` dump: a requeued, a
node-failed and a preempted job, each attempt its own allocation. ``by_final_state`` puts every
attempt under its *job's* final state; ``by_attempt_state`` under its *own* end state.

    job  attempt  state       GPUs  held          GPU-hours
    500  1        REQUEUED    8     10:00-11:00   8
    500  2        COMPLETED   8     11:10-13:10   16     (500.batch: a step, not an attempt)
    501  1        NODE_FAIL   4     10:00-10:30   2
    501  2        FAILED      4     11:00-12:00   4
    502  1        COMPLETED   2     10:00-11:30   3
    503  1        PREEMPTED   1     10:00-10:15   0.25
    503  2        COMPLETED   1     10:20-10:50   0.5
                                                  33.75

by the job's final state: COMPLETED 8 + 16 + 3 + 0.25 + 0.5 = 27.75, FAILED 2 + 4 = 6;
by each attempt's own state: COMPLETED 16 + 3 + 0.5 = 19.5, REQUEUED 8, FAILED 4, NODE_FAIL 2,
PREEMPTED 0.25.
"""

from __future__ import annotations

import json
from decimal import Decimal

from click.testing import CliRunner

from trainledger.analysis.jobs import job_summary
from trainledger.cli import cli
from trainledger.ingest import import_files
from trainledger.lake import Lake

HEAD = ("JobID|JobIDRaw|JobName|Account|User|Submit|Eligible|Start|End|Elapsed|State|ExitCode|AllocTRES|NodeList|"
        "Restarts")
D = "2026-11-10T"
ROWS = [
    f"500|500|pt|ml|zhang|{D}09:50:00|{D}09:50:00|{D}10:00:00|{D}11:00:00|01:00:00|REQUEUED|0:0|cpu=64,gres/gpu:h800=8|a1|0",
    f"500|500|pt|ml|zhang|{D}11:00:00|{D}11:00:00|{D}11:10:00|{D}13:10:00|02:00:00|COMPLETED|0:0|cpu=64,gres/gpu:h800=8|a2|1",
    f"500.batch|500.batch|batch|ml||{D}11:10:00|{D}11:10:00|{D}11:10:00|{D}13:10:00|02:00:00|COMPLETED|0:0|"
    "cpu=64,gres/gpu:h800=8|a2|1",
    f"501|501|ft|ml|li|{D}10:00:00|{D}10:00:00|{D}10:00:00|{D}10:30:00|00:30:00|NODE_FAIL|0:0|cpu=16,gres/gpu:h800=4|a3|0",
    f"501|501|ft|ml|li|{D}10:30:00|{D}10:30:00|{D}11:00:00|{D}12:00:00|01:00:00|FAILED|1:0|cpu=16,gres/gpu:h800=4|a4|1",
    f"502|502|ev|ml|li|{D}10:00:00|{D}10:00:00|{D}10:00:00|{D}11:30:00|01:30:00|COMPLETED|0:0|cpu=8,gres/gpu:h800=2|a5|0",
    f"503|503|sm|ml|wu|{D}10:00:00|{D}10:00:00|{D}10:00:00|{D}10:15:00|00:15:00|PREEMPTED|0:0|cpu=4,gres/gpu:h800=1|a6|0",
    f"503|503|sm|ml|wu|{D}10:15:00|{D}10:15:00|{D}10:20:00|{D}10:50:00|00:30:00|COMPLETED|0:0|cpu=4,gres/gpu:h800=1|a6|1",
]
FINAL = {"COMPLETED": "27.750000", "FAILED": "6.000000"}
OWN = {"COMPLETED": "19.500000", "FAILED": "4.000000", "NODE_FAIL": "2.000000", "PREEMPTED": "0.250000",
       "REQUEUED": "8.000000"}


def _dump(tmp_path):
    path = tmp_path / "sacct-D.txt"
    path.write_text(HEAD + "\n" + "\n".join(ROWS) + "\n", encoding="utf-8")
    return path


def test_each_attempt_under_its_jobs_final_state_and_under_its_own(tmp_path):
    lake = Lake(tmp_path / "lake")
    (r,) = import_files("slurm", [_dump(tmp_path)], lake, options={"tz": "Asia/Shanghai"})
    assert (r.rows_read, r.accepted) == (8, 8)
    s = job_summary(lake)
    assert (s.jobs, s.attempts, s.never_started, s.open_attempts) == (4, 7, 0, 0)
    assert s.gpu_hours == Decimal("33.750000")
    assert {k: str(v) for k, v in s.gpu_hours_by_final_state} == FINAL
    assert {k: str(v) for k, v in s.gpu_hours_by_attempt_state} == OWN
    for split in (s.gpu_hours_by_final_state, s.gpu_hours_by_attempt_state):
        assert sum(v for _, v in split) == s.gpu_hours


def test_jobs_json_and_text_say_both(tmp_path):
    runner = CliRunner()
    ws = str(tmp_path / "ws")
    assert runner.invoke(cli, ["init", ws]).exit_code == 0
    res = runner.invoke(cli, ["--workspace", ws, "import", "slurm", str(_dump(tmp_path)), "--tz", "Asia/Shanghai"])
    assert res.exit_code == 0, res.output
    got = json.loads(runner.invoke(cli, ["--workspace", ws, "jobs", "--json"]).output)["gpu_hours"]
    assert (got["total"], got["by_final_state"], got["by_attempt_state"]) == ("33.750000", FINAL, OWN)
    text = runner.invoke(cli, ["--workspace", ws, "jobs"]).output
    assert "by the job's final state COMPLETED: 27.750000" in text
    assert "by each attempt's own end state (requeued, preempted, failed attempts apart) REQUEUED: 8.000000" in text
    zh = runner.invoke(cli, ["--workspace", ws, "jobs", "--lang", "zh-CN"]).output
    assert "按作业最终状态 FAILED: 6.000000" in zh and "按每次尝试自身的结束状态" in zh
