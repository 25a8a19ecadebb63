"""Re-reading a file with other options (a corrected --tz): never a silent "0 accepted"; --replace
and `imports drop` + re-import always leave the rows live under the new options, whatever was
tried before (the reviewer's replace_loses_jobs sequence)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1||li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
7002|sft|ml|b1||li|2026-11-02T11:00:00|2026-11-02T11:00:00|2026-11-02T11:05:00|2026-11-02T12:00:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
7003|ev|ml|b1||li|2026-11-02T13:00:00|2026-11-02T13:00:00|2026-11-02T13:05:00|2026-11-02T14:00:00|FAILED|1:0|gres/gpu=1,node=1|gpu-node-02|0
"""


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    return root, tmp_path / "sacct.txt"


def imports(root):
    (imp,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    assert imp["rows_read"] == imp["accepted"] + imp["duplicates"] + imp["quarantined"]
    return imp


def counts(out):
    line = next(x for x in out.splitlines() if " accepted, " in x)
    acc, dup, q = (int(part.strip().split()[0]) for part in line.split(": ", 1)[1].split(",")[:3])
    assert acc + dup + q == 3, line
    return acc, dup


def starts(root):
    with Workspace.open(root) as wsp:
        return sorted(str(t) for t in wsp.lake.read("jobs").column("start").to_pylist())


def jobs(root):
    return json.loads(run("--workspace", root, "jobs", "--json"))["jobs"]


def test_a_new_tz_on_rows_already_in_says_how_to_replace(ws):
    root, src = ws
    assert counts(run("--workspace", root, "import", "slurm", src)) == (3, 0)
    utc = starts(root)
    out = run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin")
    assert counts(out) == (0, 3)
    ident = imports(root)["id"]
    assert (f"3 row(s) of this file are already in the lake from import {ident}, read with --tz UTC"
            in out)
    assert f"`trainledger --workspace {root} import slurm {src} --tz Europe/Berlin --replace {ident}`" in out
    assert "(repaired from" not in out
    zh = run("--workspace", root, "--lang", "zh-CN", "import", "slurm", src, "--tz", "Europe/Berlin")
    assert "已由导入" in zh and f"--replace {ident}" in zh
    as_json = json.loads(run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin", "--json"))
    (notice,) = as_json["notices"]
    assert notice["notice"] == "reread" and f"--replace {ident}" in notice["text"]
    assert starts(root) == utc  # nothing changed yet

    # the exact sequence of the finding: the new zone tried first, then --replace
    out = run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin", "--replace", ident,
              "--reason", "wrong tz")
    assert counts(out) == (3, 0)
    imp = imports(root)
    assert (imp["status"], imp["accepted"], imp["options"]["tz"]) == ("live", 3, "Europe/Berlin")
    berlin = starts(root)
    assert len(berlin) == 3 and berlin != utc
    assert jobs(root) == 3


def test_drop_then_reimport_after_trying_the_new_zone_reads_the_rows(ws):
    root, src = ws
    run("--workspace", root, "import", "slurm", src)
    assert counts(run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin")) == (0, 3)
    ident = imports(root)["id"]
    run("--workspace", root, "imports", "drop", ident, "--reason", "wrong tz")
    assert jobs(root) == 0
    out = run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin")
    assert counts(out) == (3, 0)  # not the "same options, nothing to read" shortcut
    assert imports(root)["accepted"] == 3 and jobs(root) == 3
    # and a plain repeat now is the shortcut, saying nothing was repaired
    out = run("--workspace", root, "import", "slurm", src, "--tz", "Europe/Berlin")
    assert counts(out) == (0, 3)
    assert "already holds 3 accepted row(s)" in out and "(repaired from" not in out
    assert imports(root)["accepted"] == 3 and jobs(root) == 3


STEPS = ",worker,gpu,time,batch_time_norm\n0,0,75,1,300\n1,1,75,1,500\n"


def test_steps_without_a_job_name_say_so_with_the_remedy(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "steps.csv"
    src.write_text(STEPS, encoding="utf-8")
    out = run("--workspace", root, "import", "steps", src, "--preset", "alibaba-pai-2020")
    ident = imports(root)["id"]
    assert f"no --set job= given: these steps name their job sha256:{ident}" in out
    command = (f"trainledger --workspace {root} import steps {src} --preset alibaba-pai-2020 --set job=JOB"
               f" --replace {ident}")
    assert f"`{command}`" in out
    zh = run("--workspace", root, "--lang", "zh-CN", "import", "steps", src, "--preset", "alibaba-pai-2020",
             "--set", "job=other")  # another statement of the same file: its own import, its rows named
    assert "未给出 --set job=" not in zh and "接收 2 行" in zh and ident not in zh
    out = run("--workspace", root, "import", "steps", src, "--preset", "alibaba-pai-2020", "--set", "job=j1",
              "--replace", ident, "--reason", "name the job")
    assert "2 accepted" in out and "sha256:" not in out  # the drop took the unnamed import only
    with Workspace.open(root) as wsp:
        jobs = set(wsp.lake.read("worker_steps").column("job").to_pylist())
    assert jobs == {"j1", "other"}


def test_repaired_is_said_only_when_the_ledger_was_behind(ws):
    """A crash between the lake and the ledger: the lake has the rows, the ledger no record. The
    next plain import repairs the record and says so; the one after it has nothing to repair."""
    from trainledger.ingest import import_files

    root, src = ws
    with Workspace.open(root) as wsp:  # the lake written, the ledger not (as a crash leaves it)
        import_files("slurm", [src], wsp.lake, options={"tz": "UTC"})
        assert wsp.ledger.imports() == []
    out = run("--workspace", root, "import", "slurm", src, "--tz", "UTC")
    assert counts(out) == (0, 3) and "(repaired from the lake's log)" in out
    out = run("--workspace", root, "import", "slurm", src, "--tz", "UTC")
    assert counts(out) == (0, 3) and "already holds 3 accepted row(s)" in out and "(repaired from" not in out
