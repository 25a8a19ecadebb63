"""``sacct --parsable2 --duplicates`` with steps, requeues and every end state. Field names,
state words (``CANCELLED by UID``), step ids (``.batch``, ``.extern``, ``.0``), ``Planned``
(time pending, ``[DD-]HH:MM:SS``) and typed TRES (``gres/gpu:a100=8``) as the sacct man page
describes them; values made up."""

from __future__ import annotations

import json
from datetime import timedelta

from ingest_helpers import check_golden, run, snapshot

from trainledger.engine.runs import latest_job_rows

FMT = (
    "JobID|JobIDRaw|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|Planned|"
    "Elapsed|State|ExitCode|Reason|AllocTRES|NodeList|Restarts\n"
)
GPU8 = "billing=64,cpu=64,gres/gpu:a100=8,gres/gpu=8,mem=900G,node=1"


def row(job, name, state, start, end, *, submit="2026-11-02T07:00:00", planned="01:00:00",
        elapsed="02:00:00", exit_code="0:0", reason="None", tres=GPU8, nodes="gpu01",
        restarts=0, comment="batch=b7", wckey="b7"):
    raw = job.split(".")[0]
    return (f"{job}|{raw}|{name}|llm|{wckey}|{comment}|alice|{submit}|{submit}|{start}|{end}|"
            f"{planned}|{elapsed}|{state}|{exit_code}|{reason}|{tres}|{nodes}|{restarts}\n")


SACCT = FMT + "".join([
    # job 2001 ran, its node failed, Slurm requeued it, the second allocation completed
    row("2001", "pretrain", "NODE_FAIL", "2026-11-02T08:00:00", "2026-11-02T09:30:00",
        exit_code="0:0", elapsed="01:30:00"),
    row("2001.batch", "batch", "CANCELLED", "2026-11-02T08:00:00", "2026-11-02T09:30:00",
        comment="", wckey="", tres="cpu=64,gres/gpu:a100=8,mem=900G,node=1"),
    row("2001.extern", "extern", "COMPLETED", "2026-11-02T08:00:00", "2026-11-02T09:30:00",
        comment="", wckey="", tres="billing=64,cpu=64,gres/gpu:a100=8,mem=900G,node=1"),
    row("2001.0", "python", "FAILED", "2026-11-02T08:00:01", "2026-11-02T09:30:00",
        exit_code="1:0", comment="", wckey="", tres="cpu=64,gres/gpu:a100=8,mem=900G,node=1"),
    row("2001", "pretrain", "COMPLETED", "2026-11-02T09:45:00", "2026-11-02T11:45:00",
        submit="2026-11-02T09:31:00", planned="00:14:00", restarts=1),
    row("2001.batch", "batch", "COMPLETED", "2026-11-02T09:45:00", "2026-11-02T11:45:00",
        submit="2026-11-02T09:31:00", comment="", wckey="", restarts=1,
        tres="cpu=64,gres/gpu:a100=8,mem=900G,node=1"),
    # job 2002 preempted and requeued by the scheduler: first record REQUEUED
    row("2002", "sft", "REQUEUED", "2026-11-02T08:00:00", "2026-11-02T08:20:00",
        elapsed="00:20:00"),
    row("2002", "sft", "PREEMPTED", "2026-11-02T08:40:00", "2026-11-02T09:00:00",
        submit="2026-11-02T08:20:00", elapsed="00:20:00", restarts=1),
    # every other end state, one job each
    row("2003", "cancelled", "CANCELLED by 1234", "2026-11-02T08:00:00", "2026-11-02T08:05:00",
        elapsed="00:05:00", exit_code="0:15"),
    row("2004", "never-ran", "CANCELLED by 0", "None", "2026-11-02T07:30:00", planned="00:30:00",
        elapsed="00:00:00", reason="Priority", tres="", nodes="None assigned"),
    row("2005", "slow", "TIMEOUT", "2026-11-02T08:00:00", "2026-11-02T10:00:00"),
    row("2006", "oom", "OUT_OF_MEMORY", "2026-11-02T08:00:00", "2026-11-02T08:10:00",
        exit_code="0:125", elapsed="00:10:00"),
    row("2007", "boot", "BOOT_FAIL", "2026-11-02T08:00:00", "2026-11-02T08:00:00",
        elapsed="00:00:00", exit_code="0:0"),
    row("2008", "late", "DEADLINE", "None", "2026-11-02T12:00:00", reason="DeadLine",
        tres="", nodes="None assigned", elapsed="00:00:00"),
    row("2009", "bug", "FAILED", "2026-11-02T08:00:00", "2026-11-02T08:01:00",
        exit_code="1:0", elapsed="00:01:00"),
    row("2010", "done", "COMPLETED", "2026-11-02T08:00:00", "2026-11-02T10:00:00"),
    row("2011", "waiting", "PENDING", "Unknown", "Unknown", planned="04:00:00",
        reason="Resources", tres="", nodes="None assigned", elapsed="00:00:00"),
])


def test_golden(lake, write):
    res = run("slurm", write("sacct_duplicates.txt", SACCT), lake, tz="Asia/Shanghai")
    assert (res.rows_read, res.accepted, res.quarantined) == (17, 17, 0)
    check_golden("slurm_duplicates", snapshot(lake, "slurm", [res]))


def test_attempts_steps_and_states(lake, write):
    run("slurm", write("s.txt", SACCT), lake, tz="UTC")
    rows = lake.read("jobs").to_pylist()
    by = [(r["job_id"], json.loads(r["extra"]).get("attempt"), r["is_step"]) for r in rows]
    assert by[:8] == [
        ("2001", 1, False), ("2001.batch", 1, True), ("2001.extern", 1, True),
        ("2001.0", 1, True), ("2001", 2, False), ("2001.batch", 2, True),
        ("2002", 1, False), ("2002", 2, False),
    ]
    states = [r["state"] for r in rows if not r["is_step"]]
    assert states == ["NODE_FAIL", "COMPLETED", "REQUEUED", "PREEMPTED", "CANCELLED", "CANCELLED",
                      "TIMEOUT", "OUT_OF_MEMORY", "BOOT_FAIL", "DEADLINE", "FAILED", "COMPLETED",
                      "PENDING"]
    extra = {r["job_id"]: json.loads(r["extra"]) for r in rows if not r["is_step"]}
    assert extra["2003"]["cancelled_by"] == "1234" and extra["2004"]["cancelled_by"] == "0"
    assert extra["2004"]["Reason"] == "Priority" and extra["2004"]["Planned"] == "00:30:00"
    assert rows[0]["gpus"] == 8 and rows[0]["gpu_type"] == "a100"
    assert all(not json.loads(r["flags"]) for r in rows)
    never = next(r for r in rows if r["job_id"] == "2004")
    assert never["start"] is None and never["gpus"] == 0 and never["nodes"] == ""


def test_steps_do_not_double_count_gpu_time(lake, write):
    """The engine keeps one row per allocation: both attempts of 2001, no step rows."""
    run("slurm", write("s.txt", SACCT), lake, tz="UTC")
    kept = latest_job_rows(lake.read("jobs").to_pylist())
    jobs = [r["job_id"] for r in kept]
    assert jobs.count("2001") == 2 and not any("." in j for j in jobs)
    hours = sum(
        (r["end"] - r["start"]) / timedelta(hours=1) * r["gpus"]
        for r in kept if r["job_id"] == "2001"
    )
    assert hours == 8 * 1.5 + 8 * 2  # 28 GPU-hours: 12 lost to the node failure, 16 to finish


def test_an_untyped_allocation_takes_its_steps_gpu_type(lake, write):
    text = FMT + "".join([
        row("3001", "sft", "COMPLETED", "2026-11-02T08:00:00", "2026-11-02T10:00:00",
            tres="cpu=64,gres/gpu=8,node=1"),
        row("3001.batch", "batch", "COMPLETED", "2026-11-02T08:00:00", "2026-11-02T10:00:00",
            comment="", wckey="", tres="cpu=64,gres/gpu:h800=8,node=1"),
        row("3002", "sft", "COMPLETED", "2026-11-02T08:00:00", "2026-11-02T10:00:00",
            tres="cpu=64,gres/gpu=8,node=1"),
    ])
    run("slurm", write("s.txt", text), lake, tz="UTC")
    rows = lake.read("jobs").to_pylist()
    assert [r["job_id"] for r in rows] == ["3001", "3001.batch", "3002"]  # order kept
    assert (rows[0]["gpu_type"], rows[2]["gpu_type"]) == ("h800", None)
    assert any("from the job's steps" in f for f in json.loads(rows[0]["flags"]))
