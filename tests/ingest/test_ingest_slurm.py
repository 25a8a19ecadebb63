"""The slurm importer on sacct text written the way sacct writes it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st
from ingest_helpers import check_golden, run, snapshot

from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest import import_files
from trainledger.ingest.slurm import compress_hostlist, expand_hostlist, gpus_of, parse_tres

HEADER = (
    "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|"
    "AllocTRES|NodeList|Restarts\n"
)
SACCT = HEADER + (
    # a finished 8-node job with generic and typed GPU counts, tags in Comment
    "1001|pretrain-7b|llm|b-2026-07|batch=b-2026-07;run=r1;reason=planned_experiment|alice|"
    "2026-11-02T07:55:00|2026-11-02T07:55:00|2026-11-02T08:00:00|2026-11-02T20:00:00|COMPLETED|"
    "0:0|billing=1024,cpu=1024,gres/gpu:h800=64,gres/gpu=64,mem=8000G,node=8|gpu[01-08]|0\n"
    # its batch step (sacct without -X)
    "1001.batch|batch|llm||||2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|"
    "2026-11-02T20:00:00|COMPLETED|0:0|cpu=128,gres/gpu:h800=8,mem=1000G,node=1|gpu01|0\n"
    # cancelled while pending: never started, no nodes, comma-separated tags
    "1002|sft-lora|llm|b-2026-07|batch=b-2026-07,run=r2,reason=fault_retry,cause=infra_fault,"
    "retry_of=1001|bob|2026-11-02T21:00:00|2026-11-02T21:00:00|Unknown|Unknown|"
    "CANCELLED by 1234|0:0||None assigned|0\n"
    # typed gres only, two node groups, restarted twice, free-text comment with a bad tag
    "1003|eval|eval||quick eval; reason=bad_luck|carol|2026-11-03T01:00:00|2026-11-03T01:00:00|"
    "2026-11-03T01:10:00|2026-11-03T03:40:30|NODE_FAIL|1:0|cpu=16,gres/gpu:a100=2,mem=200G,"
    "node=2|dgx-a[7,9],login-1|2\n"
    # ends before it starts: quarantined
    "1004|debug|llm||no tags here|alice|2026-11-03T04:00:00|2026-11-03T04:00:00|"
    "2026-11-03T04:30:00|2026-11-03T04:00:00|FAILED|1:0|cpu=8,gres/gpu=1|gpu02|0\n"
    # a GPU count that is not a number: quarantined
    "1005|bad-tres|llm||||2026-11-03T05:00:00|2026-11-03T05:00:00|2026-11-03T05:00:00|Unknown|"
    "RUNNING|0:0|cpu=8,gres/gpu=x|gpu03|0\n"
    # a JobName with a '|' in it breaks the row: quarantined, not guessed
    "1006|a|b|llm||||2026-11-03T06:00:00|2026-11-03T06:00:00|2026-11-03T06:00:00|Unknown|"
    "RUNNING|0:0|cpu=8|gpu04|0\n"
    # the first row again (a dump that overlapped itself): accepted and flagged, like the first
    # (the engine keeps one record per job id)
    "1001|pretrain-7b|llm|b-2026-07|batch=b-2026-07;run=r1;reason=planned_experiment|alice|"
    "2026-11-02T07:55:00|2026-11-02T07:55:00|2026-11-02T08:00:00|2026-11-02T20:00:00|COMPLETED|"
    "0:0|billing=1024,cpu=1024,gres/gpu:h800=64,gres/gpu=64,mem=8000G,node=8|gpu[01-08]|0\n"
)


def test_sacct_golden(lake, write):
    path = write("sacct.txt", SACCT)
    result = run("slurm", path, lake, tz="Asia/Shanghai")
    assert (result.rows_read, result.accepted, result.duplicates, result.quarantined) == (
        8,
        5,
        0,
        3,
    )
    repeated = [
        r["row"]
        for r in lake.read("jobs").to_pylist()
        if "repeated_row_in_file" in json.loads(r["flags"])
    ]
    assert repeated == [1, 8]
    check_golden("slurm_sacct", snapshot(lake, "slurm", [result]))


def test_times_are_converted_from_the_cluster_zone_to_utc(lake, write):
    run("slurm", write("sacct.txt", SACCT), lake, tz="Asia/Shanghai")
    rows = {r["job_id"]: r for r in lake.read("jobs").to_pylist()}
    assert rows["1001"]["start"] == datetime(2026, 11, 2, 0, 0, tzinfo=UTC)  # 08:00 +08:00
    assert rows["1001"]["end"] == datetime(2026, 11, 2, 12, 0, tzinfo=UTC)
    assert rows["1002"]["start"] is None and rows["1002"]["end"] is None  # Unknown
    assert rows["1002"]["state"] == "CANCELLED"
    assert rows["1001.batch"]["is_step"] and not rows["1001"]["is_step"]
    assert (rows["1001"]["gpus"], rows["1001"]["gpu_type"]) == (64, "h800")
    assert (rows["1003"]["gpus"], rows["1003"]["gpu_type"]) == (2, "a100")
    assert rows["1003"]["nodes"] == "dgx-a7,dgx-a9,login-1"
    assert rows["1001"]["nodes"] == ",".join(f"gpu{i:02d}" for i in range(1, 9))
    assert rows["1003"]["restarts"] == 2


def test_same_file_in_another_zone_gives_other_instants(tmp_path, write):
    from trainledger.lake import Lake

    a, b = Lake(tmp_path / "a"), Lake(tmp_path / "b")
    path = write("sacct.txt", SACCT)
    run("slurm", path, a, tz="Asia/Shanghai")
    run("slurm", path, b, tz="UTC")
    sa = a.read("jobs").column("start").to_pylist()[0]
    sb = b.read("jobs").column("start").to_pylist()[0]
    assert sb - sa == (sb - sa).__class__(hours=8)


def test_quarantine_names_row_and_reason(lake, write):
    result = run("slurm", write("sacct.txt", SACCT), lake, tz="Asia/Shanghai")
    rows = {q["row"]: q for q in lake.quarantine("slurm", result.sha256)}
    assert set(rows) == {5, 6, 7}
    assert "End" in rows[5]["reason"] and "before Start" in rows[5]["reason"]
    assert "gres/gpu" in rows[6]["reason"]
    assert rows[7]["reason"] == "has 16 fields, the header has 15"
    assert rows[7]["raw"].startswith("1006|a|b|llm")
    assert all(q["file"] == str(write("sacct.txt", SACCT)) for q in rows.values())


def test_a_short_row_is_called_cut_short_not_a_pipe_in_a_field(lake, write):
    text = SACCT + "6010|short|a\n" + "1007|cut|llm||||2026-11-03T06:00:00|2026-11-03T06:00"  # truncated
    result = run("slurm", write("short.txt", text), lake, tz="UTC")
    rows = {q["raw"].split("|")[0]: q for q in lake.quarantine("slurm", result.sha256)}
    assert rows["1006"]["remedy"].startswith("a field (JobName or Comment?) contains '|'")  # 16 fields: too many
    for job in ("6010", "1007"):
        assert rows[job]["reason"].endswith("fields, the header has 15")
        assert "cut short" in rows[job]["remedy"] and "contains '|'" not in rows[job]["remedy"]
        assert "run sacct again (--parsable2" in rows[job]["remedy"]


def test_tz_is_required(lake, write):
    with pytest.raises(BadInput) as e:
        import_files("slurm", [write("sacct.txt", SACCT)], lake)
    assert "--tz" in (e.value.remedy or "")
    assert not lake.root.exists() or not list(lake.root.rglob("*.parquet"))


def test_unknown_tz_is_refused(lake, write):
    with pytest.raises(BadInput, match="unknown time zone"):
        import_files("slurm", [write("s.txt", SACCT)], lake, options={"tz": "Mars/Olympus"})


def test_parsable_with_trailing_pipes_and_reordered_columns(lake, write):
    text = (
        "State|End|Start|Submit|AllocTRES|JobID|Partition|\n"
        "COMPLETED|2026-01-01T02:00:00|2026-01-01T01:00:00|2026-01-01T00:00:00|gres/gpu=4|77|gpu|\n"
    )
    result = run("slurm", write("sacct.txt", text), lake, tz="UTC")
    assert result.accepted == 1
    (row,) = lake.read("jobs").to_pylist()
    assert (row["job_id"], row["gpus"], row["gpu_type"], row["user"]) == ("77", 4, None, "")


def test_missing_required_column_stops_the_file(lake, write):
    text = "JobID|State|Start|End\n1|COMPLETED|2026-01-01T00:00:00|2026-01-01T01:00:00\n"
    with pytest.raises(BadInput, match="Submit") as e:
        import_files("slurm", [write("sacct.txt", text)], lake, options={"tz": "UTC"})
    assert "--format=" in (e.value.remedy or "")


def test_a_focus_bill_is_not_sacct(lake, write):
    bill = (
        "BilledCost,ChargePeriodStart,ChargePeriodEnd,BillingCurrency\n"
        "1.00,2024-01-01,2024-01-02,USD\n"
    )
    with pytest.raises(WrongFileType) as e:
        import_files("slurm", [write("bill.csv", bill)], lake, options={"tz": "UTC"})
    assert "FOCUS" in str(e.value) and "import focus" in (e.value.remedy or "")


def test_dst_ambiguous_time_is_flagged(lake, write):
    text = HEADER + (
        "5|x|a||||2026-11-01T01:30:00|2026-11-01T01:30:00|2026-11-01T01:30:00|"
        "2026-11-01T03:00:00|COMPLETED|0:0|gres/gpu=1|n1|0\n"
    )
    run("slurm", write("dst.txt", text), lake, tz="America/New_York")
    (row,) = lake.read("jobs").to_pylist()
    assert any("ambiguous" in f for f in __import__("json").loads(row["flags"]))
    assert row["start"] == datetime(2026, 11, 1, 5, 30, tzinfo=UTC)  # the first 01:30 (EDT)


# -- fields -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hosts"),
    [
        ("gpu[01-03,07]", ["gpu01", "gpu02", "gpu03", "gpu07"]),
        ("n[8-10]", ["n8", "n9", "n10"]),
        ("r[1-2]n[01-02]", ["r1n01", "r1n02", "r2n01", "r2n02"]),
        ("a1,b[2-3]-ib,c", ["a1", "b2-ib", "b3-ib", "c"]),
        ("None assigned", []),
        ("", []),
    ],
)
def test_expand_hostlist(text, hosts):
    assert expand_hostlist(text) == hosts


@pytest.mark.parametrize("bad", ["gpu[01-", "gpu]1[", "gpu[3-1]", "gpu[a-b]", "a,,b", "x[[1]]"])
def test_bad_hostlists_are_refused(bad):
    with pytest.raises(ValueError):
        expand_hostlist(bad)


hostnames = st.builds(
    lambda prefix, num, width: prefix + (str(num).zfill(width) if num is not None else ""),
    st.sampled_from(["gpu", "dgx-a", "n", "node-", "x"]),
    st.one_of(st.none(), st.integers(0, 120)),
    st.integers(1, 3),
)


@given(st.lists(hostnames, max_size=40))
def test_hostlist_round_trip(hosts):
    text = compress_hostlist(hosts)
    assert expand_hostlist(text) == hosts
    assert len(text) <= len(",".join(hosts)) + 2


def test_compress_makes_ranges():
    hosts = ["gpu01", "gpu02", "gpu03", "gpu07", "login1"]
    assert compress_hostlist(hosts) == "gpu[01-03,07],login1"


def test_alloc_tres_gpu_counts():
    assert gpus_of(parse_tres("cpu=8,gres/gpu:h800=8,mem=1T")) == (8, "h800", [])
    assert gpus_of(parse_tres("gres/gpu=8,gres/gpu:h800=8")) == (8, "h800", [])
    assert gpus_of(parse_tres("gres/gpu:a100=2,gres/gpu:h800=4")) == (6, "a100,h800", [])
    assert gpus_of(parse_tres("cpu=8,mem=1T")) == (0, None, [])
    count, _, notes = gpus_of(parse_tres("gres/gpu=8,gres/gpu:h800=4"))
    assert count == 8 and notes
    with pytest.raises(ValueError):
        parse_tres("cpu")


# -- clusters, requeues, other columns, the hour DST repeats -----------------------------------------


def test_cluster_job_id_raw_and_other_columns_are_kept(lake, write):
    """`sacct -M a,b`: two clusters reuse job id 1000 — both rows are stored with their
    cluster; columns trainledger does not model are kept in extra."""
    text = (
        "Cluster|JobID|JobIDRaw|Partition|Submit|Start|End|State|AllocTRES|NodeList\n"
        "a|1000|1000|gpu|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T10:00:00|COMPLETED|"
        "gres/gpu=8|a1\n"
        "b|1000|1000|h800|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T02:00:00|COMPLETED|"
        "gres/gpu=8|b1\n"
        "b|7_3|1042||2024-01-01T00:00:00|Unknown|Unknown|PENDING||\n"
    )
    result = run("slurm", write("sacct.txt", text), lake, tz="UTC")
    assert (result.accepted, result.flagged) == (3, 0)
    rows = lake.read("jobs").to_pylist()
    assert [(r["cluster"], r["job_id"], r["job_id_raw"]) for r in rows] == [
        ("a", "1000", "1000"),
        ("b", "1000", "1000"),
        ("b", "7_3", "1042"),
    ]
    assert [json.loads(r["extra"]) for r in rows] == [
        {"Partition": "gpu", "attempt": 1},
        {"Partition": "h800", "attempt": 1},  # another cluster's job 1000: its own first attempt
        {"attempt": 1},
    ]


def test_without_cluster_columns_they_are_empty(lake, write):
    run("slurm", write("sacct.txt", SACCT), lake, tz="UTC")
    rows = lake.read("jobs").to_pylist()
    assert {(r["cluster"], r["job_id_raw"]) for r in rows} == {("", "")}


DST_HEADER = "JobID|JobName|Submit|Start|End|Elapsed|State|AllocTRES|NodeList\n"
DST_ROWS = (
    # 01:50 EDT to 01:10 EST: 20 minutes across the fall-back
    "500|crossfallback|2024-11-03T01:40:00|2024-11-03T01:50:00|2024-11-03T01:10:00|00:20:00|"
    "COMPLETED|cpu=8,gres/gpu=8|n1\n"
    # 00:10 EDT to 01:05 EST: Elapsed says the second 01:05
    "501|long|2024-11-03T00:00:00|2024-11-03T00:10:00|2024-11-03T01:05:00|01:55:00|COMPLETED|"
    "cpu=8,gres/gpu=8|n1\n"
)


def test_dst_fall_back_uses_elapsed(lake, write):
    r = run("slurm", write("dst.txt", DST_HEADER + DST_ROWS), lake, tz="America/New_York")
    assert (r.rows_read, r.accepted, r.quarantined) == (2, 2, 0)
    rows = {x["job_id"]: x for x in lake.read("jobs").to_pylist()}
    assert rows["500"]["start"] == datetime(2024, 11, 3, 5, 50, tzinfo=UTC)
    assert rows["500"]["end"] == datetime(2024, 11, 3, 6, 10, tzinfo=UTC)
    assert rows["501"]["end"] - rows["501"]["start"] == timedelta(hours=1, minutes=55)
    notes = json.loads(rows["501"]["flags"])
    assert any("End" in n and "second occurrence" in n and "Elapsed" in n for n in notes)


def test_dst_fall_back_without_elapsed_tries_the_second_occurrence(lake, write):
    header = DST_HEADER.replace("Elapsed|", "")
    rows = "".join(
        "|".join(f for i, f in enumerate(line.split("|")) if i != 5) + "\n"
        for line in DST_ROWS.splitlines()
    )
    r = run("slurm", write("dst.txt", header + rows), lake, tz="America/New_York")
    assert (r.accepted, r.quarantined) == (2, 0)
    got = {x["job_id"]: x for x in lake.read("jobs").to_pylist()}
    assert got["500"]["end"] - got["500"]["start"] == timedelta(minutes=20)
    # without Elapsed nothing says which 01:05 ended job 501: the first, and flagged
    assert got["501"]["end"] == datetime(2024, 11, 3, 5, 5, tzinfo=UTC)
    assert any("ambiguous" in n for n in json.loads(got["501"]["flags"]))


def test_elapsed_formats():
    from trainledger.ingest.slurm import elapsed

    assert elapsed("00:20:00") == timedelta(minutes=20)
    assert elapsed("1-02:03:04") == timedelta(days=1, hours=2, minutes=3, seconds=4)
    assert elapsed("12:34") == timedelta(minutes=12, seconds=34)
    assert elapsed("INVALID") is None and elapsed(None) is None


@pytest.mark.parametrize("tz, meant", [("CST", "Asia/Shanghai or America/Chicago"), ("cst", "Asia/Shanghai"),
                                       ("北京时间", "Asia/Shanghai"), ("IST", "Asia/Kolkata")])
def test_an_abbreviation_is_refused_with_the_zones_it_may_mean_never_utc(lake, write, tz, meant):
    """Review 7 L11: `--tz CST` was answered "did you mean UCT?" — UTC, eight hours off China Standard Time."""
    with pytest.raises(BadInput) as e:
        import_files("slurm", [write("s.txt", SACCT)], lake, options={"tz": tz})
    assert meant in str(e.value) and "UCT" not in str(e.value) and "abbreviation" in str(e.value)
    assert not lake.root.exists() or not list(lake.root.rglob("*.parquet"))
