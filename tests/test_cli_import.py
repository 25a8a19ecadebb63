"""Bad input at the command line: counts, quarantine, one clear error, nothing stored changes."""

import json
from pathlib import Path

from click.testing import CliRunner

from trainledger.cli import cli

DATA = Path(__file__).resolve().parent / "data"
SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1|reason=planned_experiment|li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu=8,mem=500G,node=1|gpu-node-01|0
7002|sft|ml|b1|reason=fault_retry;cause=infra_fault|li|2026-11-02T11:00:00|2026-11-02T11:00:00|not-a-time|2026-11-02T12:00:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
"""


def cli_run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_import_counts_quarantine_and_idempotence(tmp_path):
    ws = tmp_path / "ws"
    assert cli_run("init", ws).exit_code == 0
    src = tmp_path / "sacct.txt"
    src.write_text(SACCT, encoding="utf-8")
    first = json.loads(cli_run("--workspace", ws, "import", "slurm", src, "--tz", "Asia/Shanghai", "--json").output)
    assert (first["accepted"], first["duplicates"], first["quarantined"]) == (1, 0, 1)
    qrows = [json.loads(x) for x in Path(first["quarantine_file"]).read_text(encoding="utf-8").splitlines()]
    assert qrows[0]["row"] == 2 and "not-a-time" in qrows[0]["raw"] and qrows[0]["reason"]
    lake_files = sorted(p.relative_to(ws) for p in (ws / "lake").rglob("*.parquet"))
    again = json.loads(cli_run("--workspace", ws, "import", "slurm", src, "--tz", "Asia/Shanghai", "--json").output)
    assert again["accepted"] == 0 and again["duplicates"] + again["quarantined"] == 2
    assert sorted(p.relative_to(ws) for p in (ws / "lake").rglob("*.parquet")) == lake_files


def test_wrong_file_type_is_one_clear_error_and_changes_nothing(tmp_path):
    ws = tmp_path / "ws"
    cli_run("init", ws)
    result = cli_run("--workspace", ws, "import", "slurm", DATA / "focus-sample-data" / "focus_sample.csv",
                     "--tz", "UTC")
    assert result.exit_code == 2
    assert "focus_sample.csv" in result.output and "FOCUS" in result.output
    assert not list((ws / "lake").rglob("*.parquet"))


def test_missing_workspace_says_how_to_make_one(tmp_path):
    result = cli_run("--workspace", tmp_path / "nowhere", "attribute")
    assert result.exit_code == 2 and "trainledger init" in result.output


def test_gb18030_timesheet_needs_and_takes_encoding(tmp_path):
    ws = tmp_path / "ws"
    cli_run("init", ws)
    src = tmp_path / "工时.csv"
    src.write_bytes("date,person,role,activity,phase,hours,batch\n"
                    "2026-11-03,张伟,data_prep,数据清洗与去重,build,6,\n".encode("gb18030"))
    refused = cli_run("--workspace", ws, "import", "timesheet", src)
    assert refused.exit_code == 2 and "--encoding gb18030" in refused.output
    ok = json.loads(cli_run("--workspace", ws, "import", "timesheet", src, "--encoding", "gb18030", "--json").output)
    assert ok["accepted"] == 1 and ok["quarantined"] == 0
