"""``import steps`` (PAI preset, a mapping) and the barrier-waiting analysis."""

from __future__ import annotations

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import DATA, check_golden, run, snapshot

from trainledger.analysis.stragglers import barrier_wait
from trainledger.cli import cli
from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files

PAI = DATA / "alibaba-pai-gpu-v2020"
# worker 1 is the straggler of iteration 1; iteration 2 misses worker 2: incomplete
STEPS = (
    ",worker,gpu,time,batch_time_norm\n"
    "0,0,25,1,400\n1,1,25,1,1000\n2,2,25,1,600\n"
    "3,0,25,2,500\n4,1,25,2,500\n"
    "5,0,25,3,800\n6,1,25,3,800\n7,2,25,3,800\n"
    "8,x,25,4,-3\n"  # a negative time: quarantined
)


def independent_share(path) -> tuple[float, int, int]:
    """The barrier-waiting share as the data implies it, computed with pandas alone."""
    d = pd.read_csv(path, index_col=0)
    n = d.worker.nunique()
    g = d.groupby("time").batch_time_norm.agg(["max", "sum", "count"])
    full = g[g["count"] == n]
    return float(((n * full["max"]) - full["sum"]).sum() / (n * full["max"]).sum()), len(full), len(g) - len(full)


@pytest.mark.parametrize("number", [1, 2, 3, 4])
def test_pai_jobs_waiting_share_matches_pandas(lake, number):
    path = PAI / f"job_{number}_norm.csv"
    r = run("steps", path, lake, preset="alibaba-pai-2020", set=[f"job=job_{number}"])
    assert r.accepted == r.rows_read == len(pd.read_csv(path))
    (s,) = barrier_wait(lake)
    share, complete, incomplete = independent_share(path)
    assert (s.job, s.workers, s.unit) == (f"job_{number}", 10, "normalised")
    assert (s.complete, s.incomplete) == (complete, incomplete)
    assert s.share == pytest.approx(share, abs=1e-6)


def test_inline_steps_golden(lake, write):
    path = write("job.csv", STEPS)
    r = run("steps", path, lake, preset="alibaba-pai-2020", set=["job=j"])
    assert (r.rows_read, r.accepted, r.quarantined) == (9, 8, 1)
    snap = snapshot(lake, "steps", [r])
    check_golden("worker_steps", snap)
    assert snap["quarantine"][0]["raw"] == "8,x,25,4,-3" and "must be >= 0" in snap["quarantine"][0]["reason"]
    (s,) = barrier_wait(lake)
    # worker x appears only in the quarantined row: 3 workers; iteration 2 is incomplete
    assert (s.workers, s.complete, s.incomplete) == (3, 2, 1)
    # iteration 1: waits 600 + 0 + 400 of 3 × 1000; iteration 3: none of 3 × 800
    assert (s.waiting, s.worker_time) == (1000.0, 5400.0)
    assert s.share == pytest.approx(1000 / 5400, abs=1e-6)
    assert s.slowest[0] == ("1", 2)


def test_unnamed_jobs_are_kept_apart_and_copies_are_duplicates(lake, write):
    a = run("steps", write("a.csv", STEPS), lake, preset="alibaba-pai-2020")
    copy = run("steps", write("b.csv", STEPS), lake, preset="alibaba-pai-2020")
    other = run("steps", write("c.csv", STEPS.replace("800\n", "801\n")), lake, preset="alibaba-pai-2020")
    assert (a.accepted, copy.duplicates, other.accepted) == (8, 8, 8)
    assert [s.job for s in barrier_wait(lake)] == sorted([f"sha256:{a.sha256[:12]}", f"sha256:{other.sha256[:12]}"])
    named = run("steps", write("d.csv", STEPS), lake, preset="alibaba-pai-2020", set=["job=j2"])
    assert named.accepted == 8  # the same file said of a named job is another statement


def test_wrong_files(lake, write):
    with pytest.raises(WrongFileType, match="this looks like a FOCUS bill"):
        import_files("steps", [DATA / "focus-sample-data" / "focus_sample.csv"], lake,
                     options={"preset": "alibaba-pai-2020"})  # fmt: skip
    with pytest.raises(BadInput, match="no worker, gpu, time, batch_time_norm column"):
        import_files("steps", [PAI / "coefficient_variation.csv"], lake, options={"preset": "alibaba-pai-2020"})


def test_cli_steps(tmp_path):
    runner = CliRunner()
    ws = tmp_path / "ws"
    assert runner.invoke(cli, ["init", str(ws)]).exit_code == 0
    res = runner.invoke(cli, ["--workspace", str(ws), "import", "steps", str(PAI / "job_1_norm.csv"),
                              "--preset", "alibaba-pai-2020", "--set", "job=job_1", "--json"])  # fmt: skip
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["--workspace", str(ws), "steps", "--json"])
    assert res.exit_code == 0 and '"waiting_share": 0.099856' in res.output
    res = runner.invoke(cli, ["--workspace", str(ws), "steps", "--lang", "zh-CN"])
    assert "同步屏障" in res.output and "9.99%" in res.output


HEADERS = {
    ("steps", "alibaba-pai-2020"): ",worker,gpu,time,batch_time_norm",
    ("occupancy", "helios"): "time,total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num",
    ("occupancy", "philly"): "time,active,total",
    ("jobs", "slurm-trace"): "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,"
    "duration,queue",
}
CELLS = st.sampled_from(["", "0", "7", "-1", "1.5", "x", "2020-05-01 00:00:00", "2020-05-01 00:01:00", '"', "a,b",
                         "1e3", "NaN", "None", "COMPLETED"])  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(which=st.sampled_from(sorted(HEADERS)), rows=st.lists(st.lists(CELLS, min_size=1, max_size=13), max_size=5))
def test_fuzzed_mapped_rows_keep_the_books(tmp_path_factory, which, rows):
    from trainledger.analysis.jobs import job_summary
    from trainledger.analysis.occupancy import occupancy_summary
    from trainledger.lake import Lake

    kind, preset = which
    path = tmp_path_factory.mktemp("f") / "t.csv"
    path.write_text(HEADERS[which] + "\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    lake = Lake(tmp_path_factory.mktemp("lake"))
    options = {"preset": preset, "tz": "UTC", "set": ["job=j"] if kind == "steps" else []}
    (r,) = import_files(kind, [path], lake, options=options)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    job_summary(lake), occupancy_summary(lake), barrier_wait(lake)
