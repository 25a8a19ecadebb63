"""``import jobs`` through mappings, and ``trainledger jobs``, on real and inline job tables."""

from __future__ import annotations

import json
from decimal import Decimal

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ingest_helpers import DATA, check_golden, run, snapshot

from trainledger.analysis.hours import split_hours
from trainledger.analysis.jobs import job_summary
from trainledger.engine.rules import matcher
from trainledger.engine.runs import latest_job_rows
from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.workspace import Rule

OPENB = DATA / "alibaba-openb-gpu-v2023" / "openb_pod_list_default.csv"

# The Helios cluster_log.csv / Acme trace_*.csv schema (HeliosData README): times are local text,
# duration = end - start and queue = start - submit in seconds, as the trace's authors derived them.
HELIOS = (
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
    # a finished 8-GPU job on one node
    "4312489,uKgS2,vc6YE,8,48,1,COMPLETED,2020-05-01 00:00:07,2020-05-01 00:01:07,"
    "2020-05-01 02:01:07,7200,60\n"
    # a two-node job that failed after half an hour
    "4312490,uKgS2,vc6YE,16,96,2,FAILED,2020-05-01 00:10:00,2020-05-01 00:30:00,"
    "2020-05-01 01:00:00,1800,1200\n"
    # cancelled while pending: never started, waited ten minutes
    "4312491,u9Lzz,vcvlY,4,24,1,CANCELLED,2020-05-01 01:00:00,,2020-05-01 01:10:00,0,\n"
    # a CPU job
    "4312492,u9Lzz,vcvlY,0,8,1,COMPLETED,2020-05-01 01:00:00,2020-05-01 01:00:00,"
    "2020-05-01 01:05:00,300,0\n"
    # a timeout whose derived duration disagrees with its times: kept, flagged
    "4312493,uKgS2,vc6YE,1,6,1,TIMEOUT,2020-05-01 02:00:00,2020-05-01 02:00:30,"
    "2020-05-01 03:00:30,3000,30\n"
    # ends before it starts: quarantined
    "4312494,uKgS2,vc6YE,1,6,1,FAILED,2020-05-01 03:00:00,2020-05-01 03:30:00,"
    "2020-05-01 03:00:00,0,1800\n"
    # a GPU count that is not a number: quarantined
    "4312495,uKgS2,vc6YE,two,6,1,FAILED,2020-05-01 03:00:00,2020-05-01 03:30:00,"
    "2020-05-01 04:00:00,1800,1800\n"
)


def test_openb_preset_reproduces_the_raw_csv(lake):
    """The figures of ``trainledger jobs`` on the openb pod list, computed again with pandas."""
    result = run("jobs", OPENB, lake, preset="alibaba-openb-2023")
    assert (result.rows_read, result.accepted, result.quarantined) == (8152, 8152, 0)
    got = job_summary(lake).as_json()

    raw = pd.read_csv(OPENB)
    ran = raw[raw.scheduled_time.notna()]
    queue = ran.scheduled_time - ran.creation_time
    share = ran.num_gpu * ran.gpu_milli / 1000  # gpu_milli: thousandths of each GPU held
    held = share * (ran.deletion_time - ran.scheduled_time) / 3600
    whole = ran.num_gpu * (ran.deletion_time - ran.scheduled_time) / 3600
    state = {"Succeeded": "COMPLETED", "Failed": "FAILED", "Running": "RUNNING"}
    assert got["jobs"] == got["attempts"] == raw.name.nunique() == 8152
    assert got["never_started"] == int(raw.scheduled_time.isna().sum()) == 897
    q = got["queue_seconds"]
    assert q["count"] == len(ran)
    assert q["mean"] == pytest.approx(queue.mean(), abs=1e-3)
    for p in (50, 90, 99):
        assert q[f"p{p}"] == pytest.approx(queue.quantile(p / 100), abs=1e-3)
    waited = raw[raw.scheduled_time.isna()]
    assert got["never_started_wait_seconds"]["mean"] == pytest.approx(
        (waited.deletion_time - waited.creation_time).mean(), abs=1e-3
    )
    hours = got["gpu_hours"]
    assert float(hours["total"]) == pytest.approx(held.sum(), abs=1e-6)
    by_phase = held.groupby(ran.pod_phase).sum()
    assert {k: float(v) for k, v in hours["by_final_state"].items()} == pytest.approx(
        {state[k]: v for k, v in by_phase.items()}, abs=1e-6
    )
    assert sum(Decimal(v) for v in hours["by_final_state"].values()) == Decimal(hours["total"])
    assert float(hours["whole_gpu_total"]) == pytest.approx(whole.sum(), abs=1e-6)
    # counting a shared GPU as whole overstates this trace's GPU time by about 16 %
    assert 0.15 < whole.sum() / held.sum() - 1 < 0.17


def test_openb_rows(lake):
    run("jobs", OPENB, lake, preset="alibaba-openb-2023")
    rows = {r["job_id"]: r for r in lake.read("jobs").to_pylist()}
    half = rows["openb-pod-0001"]  # 1 GPU at 460 milli, created and scheduled at 427061 s
    assert (half["gpus"], half["gpu_share"], half["state"]) == (1, "0.46", "RUNNING")
    assert half["start"].timestamp() == half["submit"].timestamp() == 427061
    assert json.loads(half["tags"]) == {"qos": "LS"}
    assert json.loads(half["extra"]) == {"cpu_milli": "6000", "memory_mib": "12288", "source_state": "Running"}
    pending = next(r for r in rows.values() if r["start"] is None)
    assert pending["state"] == "PENDING" and pending["end"] > pending["submit"]
    eight = rows["openb-pod-0017"]
    assert (eight["gpus"], eight["gpu_share"], eight["state"]) == (8, "8", "COMPLETED")


def test_same_content_under_another_name_is_a_duplicate(lake, write):
    text = OPENB.read_text(encoding="utf-8").splitlines(keepends=True)
    small = "".join(text[:30])
    first = run("jobs", write("a.csv", small), lake, preset="alibaba-openb-2023")
    again = run("jobs", write("a.csv", small), lake, preset="alibaba-openb-2023")
    other = run("jobs", write("copy.csv", small), lake, preset="alibaba-openb-2023")
    assert (first.accepted, again.duplicates, other.accepted, other.duplicates) == (29, 29, 0, 29)
    # an overlapping later export: only its new rows go in
    more = run("jobs", write("more.csv", "".join(text[:1] + text[20:40])), lake, preset="alibaba-openb-2023")
    assert (more.accepted, more.duplicates) == (10, 10)
    assert lake.read("jobs").num_rows == 39


def test_slurm_trace_golden(lake, write):
    path = write("cluster_log.csv", HELIOS)
    result = run("jobs", path, lake, preset="slurm-trace", tz="Asia/Shanghai")
    assert (result.rows_read, result.accepted, result.quarantined) == (7, 5, 2)
    snap = snapshot(lake, "jobs", [result])
    check_golden("jobs_slurm_trace", snap)
    q = {x["row"]: x for x in snap["quarantine"]}
    assert set(q) == {6, 7} and q[6]["file"] == "cluster_log.csv"
    assert "before start" in q[6]["reason"] and q[6]["raw"].startswith("4312494,")
    assert "gpu_num" in q[7]["reason"] and ",two," in q[7]["raw"]
    rows = {r["job_id"]: r for r in snap["rows"]}
    assert rows["4312489"]["start"] == "2020-04-30T16:01:07+00:00"  # 08:01:07 in Shanghai
    assert rows["4312491"]["start"] is None and rows["4312491"]["state"] == "CANCELLED"
    assert rows["4312493"]["flags"] == ["duration 3000s differs from end - start (3600s)"]


def test_slurm_trace_summary_uses_the_traces_definitions(lake, write):
    """Helios and Acme define GPU time as gpu_num × duration and queueing as start − submit,
    split by final state (helios_cluster_summary.csv, acmetrace cluster_summary.csv: the
    complete / cancel / fail GPU-time columns). Those files summarise the full traces, which are
    not in the repository: the definitions are checked here, on the inline trace, with pandas."""
    path = write("cluster_log.csv", HELIOS)
    run("jobs", path, lake, preset="slurm-trace", tz="Asia/Shanghai")
    got = job_summary(lake)
    raw = pd.read_csv(path).iloc[:5]  # the rows that were accepted
    raw = raw.assign(gpu_num=raw.gpu_num.astype(int))
    ran = raw[raw.start_time.notna()]
    end = pd.to_datetime(ran.end_time)
    start = pd.to_datetime(ran.start_time)
    gpu_seconds = ran.gpu_num * (end - start).dt.total_seconds()
    assert float(got.gpu_hours) == pytest.approx(gpu_seconds.sum() / 3600, abs=1e-6)
    by_state = (gpu_seconds.groupby(ran.state).sum() / 3600).to_dict()
    assert {k: float(v) for k, v in got.gpu_hours_by_final_state} == pytest.approx(by_state)
    assert got.queue_seconds.mean == pytest.approx(ran.queue.mean())
    header = pd.read_csv(DATA / "helios" / "helios_cluster_summary.csv").columns
    assert {"complete_gpu_time", "cancel_gpu_time", "fail_gpu_time"} <= set(header)
    assert (got.jobs, got.never_started, got.never_started_wait_seconds.mean) == (5, 1, 600.0)


def test_mapped_jobs_feed_the_engine_path(lake, write):
    path = write("cluster_log.csv", HELIOS)
    run("jobs", path, lake, preset="slurm-trace", tz="UTC")
    rows = lake.read("jobs").to_pylist()
    rule = Rule(id="vc6", source="slurm", field="tags.vc", match="exact", pattern="vc6YE", batch="b1")
    m = matcher([rule], ["b1"])
    matched = {r["job_id"]: m.match("slurm", r)[0] for r in rows}
    assert matched == {"4312489": "b1", "4312490": "b1", "4312491": None, "4312492": None, "4312493": "b1"}
    assert len(latest_job_rows(rows)) == job_summary(lake).attempts == 5


ATTEMPTS_MAPPING = """
name = "attempts"
table = "jobs"
[time]
format = "iso"
tz = "UTC"
[columns]
job_id = "id"
start = "started"
end = "ended"
submit = "submitted"
state = "status"
gpu_share = "gpus"
[states]
ok = "COMPLETED"
requeued = "REQUEUED"
"""


def test_attempts_settle_as_the_engine_settles(lake, write):
    mapping = write("m.toml", ATTEMPTS_MAPPING)
    first = write(
        "a.csv",
        "id,submitted,started,ended,status,gpus\n"
        "7,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,,running,2\n"  # seen running
        "8,2026-01-01T00:00:00Z,,,pending,0.5\n",  # seen pending
    )
    later = write(
        "b.csv",
        "id,submitted,started,ended,status,gpus\n"
        "7,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,2026-01-01T02:00:00Z,requeued,2\n"
        "7,2026-01-01T02:00:00Z,2026-01-01T02:30:00Z,2026-01-01T03:30:00Z,ok,2\n"
        "8,2026-01-01T00:00:00Z,2026-01-01T00:15:00Z,2026-01-01T00:45:00Z,ok,0.5\n",
    )
    run("jobs", first, lake, mapping=str(mapping))
    r = run("jobs", later, lake, mapping=str(mapping))
    assert r.accepted == 3
    s = job_summary(lake)
    rows = lake.read("jobs").to_pylist()
    assert len(latest_job_rows(rows)) == s.attempts == 3
    assert (s.jobs, s.never_started, s.open_attempts) == (2, 0, 0)
    # job 7: 2 GPUs × (1 h + 1 h), final state COMPLETED; job 8: 0.5 GPU × 0.5 h
    assert s.gpu_hours == Decimal("4.250000")
    assert dict(s.gpu_hours_by_final_state) == {"COMPLETED": Decimal("4.250000")}
    assert s.queue_seconds.count == 3 and s.queue_seconds.mean == pytest.approx((3600 + 1800 + 900) / 3)
    flags = {(x["job_id"], x["state"]): json.loads(x["flags"]) for x in rows}
    assert flags[("7", "RUNNING")] == ["state 'running' is not in the mapping's state vocabulary (columns.state.map)"]


def test_wrong_kind_gets_one_clear_error(lake):
    with pytest.raises(WrongFileType, match="this looks like a FOCUS bill") as e:
        import_files("jobs", [DATA / "focus-sample-data" / "focus_sample.csv"], lake,
                     options={"preset": "alibaba-openb-2023"})  # fmt: skip
    assert "trainledger import focus" in e.value.remedy


def test_a_table_of_another_layout_names_the_preset_that_fits(lake, write):
    path = write("log.csv", HELIOS)
    with pytest.raises(BadInput, match="not the layout of preset alibaba-openb-2023") as e:
        import_files("jobs", [path], lake, options={"preset": "alibaba-openb-2023"})
    assert "--preset slurm-trace" in e.value.remedy
    assert lake.read("jobs").num_rows == 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "needs a mapping"),
        ({"preset": "nope"}, "no preset 'nope'"),
        ({"preset": "slurm-trace", "mapping": "x.toml"}, "not both"),
        ({"preset": "slurm-trace"}, "needs their time zone"),
    ],
)
def test_mapping_options_are_checked(lake, write, options, message):
    path = write("log.csv", HELIOS)
    with pytest.raises(BadInput, match=message):
        import_files("jobs", [path], lake, options=options)


def test_bad_mappings(lake, write):
    path = write("log.csv", HELIOS)
    for text, message in [
        ("[columns]\nid = 'job_id'\n", "jobs has no field 'id'"),
        ("[time]\nunit = 's'\n[columns]\njob_id = 'job_id'\nstart='start_time'\n", "numbers need an origin"),
        ("[columns]\njob_id = 'job_id'\nstart='start_time'\n", "needs their time zone"),  # ISO by default
        ("colums = 1\n", "colums: unknown key — did you mean columns?"),
        ("table = 'occupancy'\n[columns]\nts='x'\n", "fills table occupancy, but `import jobs` fills jobs"),
    ]:
        m = write("m.toml", text)
        with pytest.raises(BadInput, match=message):
            import_files("jobs", [path], lake, options={"mapping": str(m)})


def test_split_hours_parts_add_up():
    total, parts = split_hours({"a": Decimal(1), "b": Decimal(1), "c": Decimal(1)})
    assert total == Decimal("0.000833") and sum(parts.values()) == total


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(st.text(st.characters(blacklist_categories=["Cs"]), max_size=40), max_size=6))
def test_fuzzed_rows_keep_the_books(tmp_path_factory, rows):
    header = OPENB.read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path_factory.mktemp("f") / "pods.csv"
    path.write_text(header + "\n" + "\n".join(rows) + "\n", encoding="utf-8")
    lake = Lake(tmp_path_factory.mktemp("lake"))
    try:
        (r,) = import_files("jobs", [path], lake, options={"preset": "alibaba-openb-2023"})
    except BadInput:
        return
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    assert job_summary(lake).attempts <= r.accepted


def test_philly_runtimes_are_no_job_table(lake):
    """One column of runtimes (no id, times, GPUs or state): no preset reads it, and the error
    says what the file has."""
    with pytest.raises(BadInput, match="header runtime") as e:
        import_files("jobs", [DATA / "philly" / "philly_runtime.csv"], lake,
                     options={"preset": "slurm-trace", "tz": "UTC"})  # fmt: skip
    assert "--mapping" in e.value.remedy


def test_cli_import_jobs_and_summary(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli

    runner = CliRunner()
    ws = str(tmp_path / "ws")
    assert runner.invoke(cli, ["init", ws]).exit_code == 0
    res = runner.invoke(cli, ["--workspace", ws, "import", "jobs", str(OPENB), "--preset", "alibaba-openb-2023",
                              "--json"])  # fmt: skip
    assert res.exit_code == 0 and json.loads(res.output)["accepted"] == 8152
    res = runner.invoke(cli, ["--workspace", ws, "jobs", "--json"])
    got = json.loads(res.output)
    assert (got["jobs"], got["never_started"], got["gpu_hours"]["total"]) == (8152, 897, "51470.674158")
    res = runner.invoke(cli, ["--workspace", ws, "jobs", "--lang", "zh-CN"])
    assert "从未启动: 897" in res.output and "卡时" in res.output
    res = runner.invoke(cli, ["--workspace", ws, "import", "jobs", str(OPENB)])
    assert res.exit_code == 2 and "--preset NAME" in res.output
    log = tmp_path / "cluster_log.csv"
    log.write_text(HELIOS, encoding="utf-8")
    res = runner.invoke(cli, ["--workspace", ws, "import", "jobs", str(log), "--preset", "slurm-trace"])
    assert res.exit_code == 0 and "without an offset read as UTC" in res.output  # the workspace default
    assert "5 accepted" in res.output and "2 quarantined" in res.output


def test_acme_trace_without_vc_reads_through_slurm_trace(lake, write):
    """Acme's trace_seren.csv has no vc column: a mapped column outside the preset's signature
    may be absent (its field is null), the signature's may not."""
    lines = HELIOS.splitlines(keepends=True)[:3]
    acme = "".join(",".join(c for i, c in enumerate(ln.rstrip("\n").split(",")) if i != 2) + "\n" for ln in lines)
    r = run("jobs", write("trace_seren.csv", acme), lake, preset="slurm-trace", tz="Asia/Shanghai")
    assert r.accepted == 2
    assert [json.loads(x["tags"]) for x in lake.read("jobs").to_pylist()] == [{}, {}]
    no_state = "".join(",".join(c for i, c in enumerate(ln.rstrip("\n").split(",")) if i != 6) + "\n" for ln in lines)
    with pytest.raises(BadInput, match="no state column"):
        import_files("jobs", [write("x.csv", no_state)], lake, options={"preset": "slurm-trace", "tz": "UTC"})
