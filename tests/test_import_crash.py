"""A crash between the lake and the ledger: the re-run repairs the ledger's import record from the
lake's own log and partitions (the lake is the source of truth for what was accepted), and the
orphans a killed import leaves in the lake's temp area are cleaned by the next import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.demo import generate
from trainledger.lake import Lake
from trainledger.ledger import Ledger
from trainledger.service import Workspace

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(scope="module")
def sacct(tmp_path_factory):
    files = generate(tmp_path_factory.mktemp("demo"), seed=7)
    return files.slurm


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    return root


def jobs_in(sacct_path) -> int:
    lines = [ln for ln in Path(sacct_path).read_text(encoding="utf-8").splitlines()[1:] if ln.strip()]
    return len(lines)


def record(ws):
    with Workspace.open(ws) as wsp:
        (rec,) = wsp.ledger.imports()
        return rec, len(wsp.lake.read("jobs"))


def run_killed(ws, sacct, target: str) -> subprocess.CompletedProcess:
    """Run `trainledger import slurm` in a child process that SIGKILLs itself at ``target``."""
    module, _, attr = target.rpartition(".")
    owner, _, name = attr.partition(":")
    script = f"""
import os, signal, sys
import {module} as m
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
setattr(getattr(m, {owner!r}), {name!r}, die)
from trainledger.cli import main
sys.argv = ["trainledger", "--workspace", {str(ws)!r}, "import", "slurm", {str(sacct)!r}, "--tz", "UTC"]
main()
"""
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)


def test_killed_after_the_lake_published_the_rerun_repairs_the_ledger(ws, sacct):
    n = jobs_in(sacct)
    child = run_killed(ws, sacct, "trainledger.ledger.repo.Ledger:sync_import")
    assert child.returncode == -9, child.stderr
    with Workspace.open(ws) as wsp:
        assert wsp.ledger.imports() == []  # the ledger never heard of the import...
        assert len(wsp.lake.read("jobs")) == n  # ...the lake has every row
    out = CliRunner().invoke(cli, ["--workspace", str(ws), "import", "slurm", str(sacct), "--tz", "UTC"],
                             catch_exceptions=False).output
    assert f"0 accepted, {n} duplicate" in out  # this run added nothing, and says so...
    assert f"the lake already holds {n} accepted row(s)" in out  # ...and that the ledger was repaired
    rec, rows = record(ws)
    assert (rec.rows_read, rec.accepted, rec.duplicates, rec.quarantined) == (n, n, 0, 0)
    assert rows == n


def test_an_exception_in_the_ledger_write_is_repaired_the_same_way(ws, sacct, monkeypatch):
    n = jobs_in(sacct)

    def fail(self, rec, **kw):
        raise RuntimeError("ledger unavailable")

    with monkeypatch.context() as m:
        m.setattr(Ledger, "sync_import", fail)
        with Workspace.open(ws) as wsp, pytest.raises(RuntimeError):
            wsp.import_files("slurm", [sacct], options={"tz": "UTC"})
    with Workspace.open(ws) as wsp:
        wsp.import_files("slurm", [sacct], options={"tz": "UTC"})
        actions = [e["action"] for e in wsp.ledger.audit_log()]
    rec, rows = record(ws)
    assert (rec.accepted, rec.duplicates) == (n, 0) and rows == n
    assert actions.count("record_import") == 1


def test_a_partition_published_before_its_log_line_is_counted(ws, sacct, monkeypatch):
    n = jobs_in(sacct)
    with monkeypatch.context() as m:
        m.setattr(Lake, "log_import", lambda self, rec: (_ for _ in ()).throw(RuntimeError("killed")))
        with Workspace.open(ws) as wsp, pytest.raises(RuntimeError):
            wsp.import_files("slurm", [sacct], options={"tz": "UTC"})
    with Workspace.open(ws) as wsp:
        (result,) = wsp.import_files("slurm", [sacct], options={"tz": "UTC"})
    assert (result.accepted, result.duplicates) == (0, n)  # the rows were already in the lake
    rec, rows = record(ws)
    assert (rec.accepted, rec.duplicates) == (n, 0) and rows == n  # counted once, from the partition


def test_orphans_of_a_killed_import_are_cleaned_by_the_next(ws, sacct):
    n = jobs_in(sacct)
    child = run_killed(ws, sacct, "trainledger.lake.store.PartitionWriter:_publish")
    assert child.returncode == -9, child.stderr
    tmp = ws / "lake" / ".tmp"
    assert list(tmp.iterdir())  # the killed writer's temp files are left behind
    with Workspace.open(ws) as wsp:
        (result,) = wsp.import_files("slurm", [sacct], options={"tz": "UTC"})
    assert result.accepted == n  # nothing had been published: the re-run imports everything
    assert list(tmp.iterdir()) == []


def test_temp_files_of_a_live_writer_or_another_host_are_kept(tmp_path):
    lake = Lake(tmp_path / "lake")
    mine = lake.tmp_path("jobs-abc", ".parquet")  # this process: alive
    mine.write_bytes(b"x")
    other_host = mine.with_name("jobs-abc-h00000000-1-0123abcd.parquet")
    other_host.write_bytes(b"x")
    assert lake.clean_tmp() == 0
    assert mine.exists() and other_host.exists()
    os.utime(other_host, (0, 0))  # an hour old on a host we cannot ask: removed
    assert lake.clean_tmp() == 1 and not other_host.exists()
