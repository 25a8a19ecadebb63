"""The story's invariants, read back from the generated files as a user's tools would see them."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from trainledger.model.vocab import FailureCause, LaborPhase, LaborRole, RunReason, StorageClass

from .conftest import parse_local

PERIOD = (datetime(2026, 11, 2, tzinfo=UTC), datetime(2026, 11, 23, tzinfo=UTC))


def expand(nodelist: str) -> list[str]:
    if nodelist in ("", "None assigned"):
        return []
    m = re.fullmatch(r"(.*)\[(.*)\]", nodelist)
    if not m:
        return nodelist.split(",")
    out = []
    for part in m.group(2).split(","):
        lo, _, hi = part.partition("-")
        for n in range(int(lo), int(hi or lo) + 1):
            out.append(f"{m.group(1)}{n:0{len(lo)}d}")
    return out


def tags(job: dict[str, str]) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in job["Comment"].split(";") if kv)


def window(job: dict[str, str]) -> tuple[datetime, datetime]:
    start, end = parse_local(job["Start"]), parse_local(job["End"])
    assert start is not None and end is not None, job["JobID"]
    return start, end


def events_by_run(parsed) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = defaultdict(list)
    for e in parsed.progress:
        out[e["run"]].append(e)
    return out


def ts(e: dict) -> datetime:
    return datetime.fromisoformat(e["ts"])


# --- runs and reasons ----------------------------------------------------------------------------

def test_at_least_fourteen_runs_over_two_batches(demo):
    batches = {b["id"] for b in demo.config["batches"]}
    assert len(batches) == 2
    runs = demo.batch_jobs
    assert len(runs) >= 14
    assert {j["WCKey"] for j in runs} == batches


def test_every_reason_and_the_four_causes_are_tagged(demo):
    reasons = {tags(j).get("reason") for j in demo.batch_jobs} - {None}
    assert reasons == {r.value for r in RunReason} - {RunReason.UNRECORDED.value}
    causes = {tags(j).get("cause") for j in demo.batch_jobs} - {None}
    assert {"infra_fault", "config_error", "data_quality", "exploration"} <= causes
    assert causes <= {c.value for c in FailureCause}


def test_tags_are_well_formed_and_agree_with_wckey(demo):
    by_id = {j["JobID"]: j for j in demo.jobs}
    runs = []
    for j in demo.batch_jobs:
        t = tags(j)
        if not t:
            continue
        assert t["batch"] == j["WCKey"]
        runs.append(t["run"])
        if "retry_of" in t:
            failed = by_id[t["retry_of"]]
            assert t["reason"] == "fault_retry" and "cause" in t
            assert failed["State"] in ("FAILED", "NODE_FAIL", "PREEMPTED")
            assert parse_local(j["Submit"]) > parse_local(failed["End"])
    assert len(runs) == len(set(runs))


def test_one_run_has_a_wckey_but_no_comment(demo):
    untagged = [j for j in demo.batch_jobs if not j["Comment"]]
    assert len(untagged) == 1
    # and a job outside the project carries neither (it must stay unattributed)
    assert [j for j in demo.jobs if not j["WCKey"]][0]["Account"] == "platform"


def test_states_cover_the_failure_modes(demo):
    states = {j["State"].split()[0] for j in demo.jobs}
    assert {"COMPLETED", "FAILED", "NODE_FAIL", "PREEMPTED", "TIMEOUT", "CANCELLED",
            "PENDING"} <= states
    failed = [j for j in demo.jobs if j["State"] == "FAILED"]
    assert [j["ExitCode"] for j in failed] == ["1:0"]
    start, end = window(failed[0])
    assert end - start < timedelta(minutes=15)  # died in setup
    retries = {tags(j)["retry_of"]: tags(j)["cause"] for j in demo.jobs if "retry_of" in tags(j)}
    by_state = {j["State"]: j["JobID"] for j in demo.jobs}
    assert retries[by_state["FAILED"]] == "config_error"
    assert retries[by_state["NODE_FAIL"]] == "infra_fault"
    assert retries[by_state["PREEMPTED"]] == "infra_fault"
    assert any(j["State"].startswith("CANCELLED by ") for j in demo.jobs)


def test_a_job_that_never_started(demo):
    never = [j for j in demo.jobs if j["Start"] == "Unknown"]
    assert len(never) == 1
    j = never[0]
    assert j["State"] == "PENDING" and j["End"] == "Unknown" and j["NodeList"] == "None assigned"
    assert not [s for s in demo.sacct if s["JobID"].startswith(j["JobID"] + ".")]


def test_step_rows_as_sacct_without_x(demo):
    steps = defaultdict(list)
    for r in demo.sacct:
        if "." in r["JobID"]:
            steps[r["JobID"].split(".")[0]].append(r)
    for j in demo.jobs:
        if j["Start"] == "Unknown":
            continue
        names = {s["JobID"].split(".")[1] for s in steps[j["JobID"]]}
        assert {"batch", "extern"} <= names, j["JobID"]
        start, end = window(j)
        for s in steps[j["JobID"]]:
            s_start, s_end = window(s)
            assert start <= s_start <= s_end <= end
    assert any(r["JobID"].endswith(".0") for r in demo.sacct)


def test_multi_node_jobs(demo):
    big = [j for j in demo.jobs if "gres/gpu:h800=16" in j["AllocTRES"]]
    assert len(big) >= 3
    for j in big:
        assert j["NodeList"].startswith("gpu-node-[") and len(expand(j["NodeList"])) == 2
        assert "node=2" in j["AllocTRES"]


def test_times_are_consistent_and_inside_the_rental(any_seed):
    waits = []
    for j in any_seed.jobs:
        submit, eligible = parse_local(j["Submit"]), parse_local(j["Eligible"])
        if j["Start"] == "Unknown":
            continue
        start, end = window(j)
        assert submit <= eligible <= start < end, j["JobID"]
        assert PERIOD[0] <= start and end <= PERIOD[1]
        waits.append(start - submit)
    assert min(waits) < timedelta(minutes=5)
    assert max(waits) >= timedelta(hours=2)


def test_no_node_runs_two_jobs_at_once(any_seed):
    per_node = defaultdict(list)
    for j in any_seed.jobs:
        if j["Start"] != "Unknown":
            for node in expand(j["NodeList"]):
                per_node[node].append((*window(j), j["JobID"]))
    assert sorted(per_node) == ["gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04"]
    for allocations in per_node.values():
        allocations.sort()
        for (_, end, a), (start, _, b) in zip(allocations, allocations[1:], strict=False):
            assert end <= start, (a, b)


def gpus(job: dict[str, str]) -> int:
    m = re.search(r"gres/gpu:h800=(\d+)", job["AllocTRES"])
    return int(m.group(1)) if m else 0


def test_no_node_ever_holds_more_than_its_eight_gpus(any_seed):
    changes = defaultdict(list)  # node → (time, +/- GPUs on that node)
    for j in any_seed.jobs:
        if j["Start"] == "Unknown":
            continue
        nodes = expand(j["NodeList"])
        per_node = gpus(j) // len(nodes)
        assert per_node * len(nodes) == gpus(j) and per_node > 0, j["JobID"]
        start, end = window(j)
        for node in nodes:
            changes[node] += [(start, per_node), (end, -per_node)]
    for node, deltas in changes.items():
        held = 0
        for when, delta in sorted(deltas, key=lambda d: (d[0], d[1])):  # releases first
            held += delta
            assert 0 <= held <= 8, (node, when, held)


def test_jobs_hold_most_but_not_all_of_the_rented_gpu_hours(any_seed):
    rented = 4 * 8 * (PERIOD[1] - PERIOD[0]).total_seconds()
    held = 0.0
    for j in any_seed.jobs:
        if j["Start"] != "Unknown":
            start, end = window(j)
            held += gpus(j) * (end - start).total_seconds()
    assert 0.55 <= held / rented <= 0.75, held / rented


def test_the_idle_remainder_is_visible(demo):
    """Some nights and weekends stay idle: the wait for the data fix, the last weekend."""
    busy = defaultdict(list)
    for j in demo.jobs:
        if j["Start"] != "Unknown":
            for node in expand(j["NodeList"]):
                busy[node].append(window(j))
    for node, spans in busy.items():
        spans.sort()
        gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:], strict=False)]
        assert max(gaps) >= timedelta(hours=48), node  # the weekend waiting for the data fix
        assert PERIOD[1] - spans[-1][1] >= timedelta(hours=24), node  # the rental's last weekend


# --- progress ------------------------------------------------------------------------------------

def test_progress_lies_inside_each_allocation(any_seed):
    jobs = {j["JobID"]: j for j in any_seed.jobs}
    for run, events in events_by_run(any_seed).items():
        start, end = window(jobs[run])
        for e in events:
            assert e["ts"].endswith("+08:00")
            assert start <= ts(e) <= end, (run, e)
        assert [e["ts"] for e in events] == sorted(e["ts"] for e in events)


def test_progress_shapes_tell_the_story(any_seed):
    jobs = {j["JobID"]: j for j in any_seed.jobs}
    by_run = events_by_run(any_seed)
    failed = next(j for j in any_seed.jobs if j["State"] == "FAILED")
    assert [e["event"] for e in by_run[failed["JobID"]]] == ["start"]
    silent = [j for j in any_seed.jobs if j["Start"] != "Unknown" and j["JobID"] not in by_run]
    assert silent  # some runs logged nothing
    assert len({r for r, ev in by_run.items() if any(e["event"] == "data_wait" for e in ev)}) == 1
    node_fail = next(j for j in any_seed.jobs if j["State"] == "NODE_FAIL")
    ev = by_run[node_fail["JobID"]]
    last_step = max(ts(e) for e in ev if e["event"] == "step")
    assert window(node_fail)[1] - last_step >= timedelta(minutes=30)  # the hang
    assert "end" not in {e["event"] for e in ev}
    holds = []
    for run, ev in by_run.items():
        ends = [ts(e) for e in ev if e["event"] == "end"]
        if ends:
            assert jobs[run]["State"] == "COMPLETED"
            holds.append(window(jobs[run])[1] - ends[0])
        steps = [e["step"] for e in ev if e["event"] == "step"]
        assert steps == sorted(steps)
    assert sum(timedelta(minutes=20) <= h <= timedelta(minutes=40) for h in holds) == 1
    for d in (e for e in any_seed.progress if e["event"] == "checkpoint_saved"):
        assert 60 <= d["duration_s"] <= 300


def test_retries_resume_from_the_last_checkpoint(any_seed):
    by_run = events_by_run(any_seed)
    resumed = 0
    for j in any_seed.jobs:
        t = tags(j)
        if t.get("cause") != "infra_fault":
            continue
        failed = by_run[t["retry_of"]]
        last_ckpt = [e["step"] for e in failed if e["event"] == "checkpoint_saved"][-1]
        last_step = max(e["step"] for e in failed if e["event"] == "step")
        assert last_step > last_ckpt  # progress after the checkpoint is lost
        resume = [e for e in by_run[j["JobID"]] if e["event"] == "resume"]
        assert [e["step"] for e in resume] == [last_ckpt]
        resumed += 1
    assert resumed == 2


# --- the bill ------------------------------------------------------------------------------------

def test_every_job_node_hour_is_on_the_bill(any_seed):
    hours = {(r["ResourceId"], r["ChargePeriodStart"]) for r in any_seed.focus
             if r["ResourceId"].startswith("gpu-node-") and r["ChargeCategory"] == "Usage"}
    assert len(hours) == 4 * 21 * 24
    for j in any_seed.jobs:
        if j["Start"] == "Unknown":
            continue
        start, end = (t.astimezone(UTC) for t in window(j))
        hour = start.replace(minute=0, second=0)
        while hour < end:
            for node in expand(j["NodeList"]):
                key = (node, hour.strftime("%Y-%m-%dT%H:%M:%SZ"))
                assert key in hours, (j["JobID"], key)
            hour += timedelta(hours=1)


def test_focus_rows_look_like_an_alibaba_export(demo):
    rows = demo.focus
    assert {r["BillingCurrency"] for r in rows} == {"CNY"}
    assert {r["ProviderName"] for r in rows} == {"Alibaba Cloud"}
    for r in rows:
        assert re.fullmatch(r"2026-11-\d\dT\d\d:00:00Z", r["ChargePeriodStart"])
        assert re.fullmatch(r"-?\d+\.\d\d", r["BilledCost"])
        assert r["ChargePeriodEnd"] > r["ChargePeriodStart"]
    gpu = [r for r in rows
           if r["ResourceId"].startswith("gpu-node-") and r["ChargeCategory"] == "Usage"]
    assert {(r["ResourceType"], r["ServiceName"], r["ServiceCategory"], r["ConsumedQuantity"],
             r["ConsumedUnit"], r["PricingCategory"]) for r in gpu} == {
        ("ecs.ebmgn8v.48xlarge", "Elastic Compute Service", "Compute", "1", "Hours", "Standard")}
    assert 100 <= Decimal(gpu[0]["BilledCost"]) <= 1000
    credits = [r for r in rows if r["ChargeCategory"] == "Credit"]
    assert len(credits) == 1 and Decimal(credits[0]["BilledCost"]) < 0
    odd = [r for r in rows if r["ChargeCategory"] not in ("Usage", "Credit")]
    assert [r["ChargeCategory"] for r in odd] == ["usage-adjust"]
    assert Decimal(odd[0]["BilledCost"]) > 0
    nat = [r for r in rows if r["ServiceName"] == "NAT Gateway"]
    assert nat and {r["Tags"] for r in nat} == {"NULL"}
    tagged = [r for r in rows if '"batch"' in r["Tags"]]
    batch_a = demo.config["batches"][0]["id"]
    assert tagged and {r["ResourceName"] for r in tagged} == {"dp-clean-01"}
    assert any(batch_a in r["Tags"] for r in tagged)


# --- storage, labor, invoices --------------------------------------------------------------------

def test_storage_inventory(any_seed):
    rows = any_seed.storage
    prefixes = [p["prefix"] for p in any_seed.config["storage_prefixes"]]
    for r in rows:
        assert r["storage_class"] in {c.value for c in StorageClass} or \
            any(r["path"].startswith(p) for p in prefixes), r["path"]
        assert int(r["size_bytes"]) > 0
    classes = ({r["storage_class"] for r in rows} - {""}) | {"checkpoint", "log"}
    assert classes == {c.value for c in StorageClass}
    ckpts = [r for r in rows if r["path"].startswith("oss://train-ckpt/")]
    assert ckpts and all(80 * 10**9 <= int(r["size_bytes"]) <= 100 * 10**9 for r in ckpts)
    saved = {}
    runs = {tags(j).get("run"): j["JobID"] for j in any_seed.jobs}
    for e in any_seed.progress:
        if e["event"] == "checkpoint_saved":
            saved[(e["run"], e["step"])] = ts(e)
    for r in ckpts:
        batch, run, step = re.fullmatch(r"oss://train-ckpt/([^/]+)/([^/]+)/step-(\d+)/",
                                        r["path"]).groups()
        when = saved[(runs[run], int(step))]
        assert datetime.fromisoformat(r["last_modified"]) == when
    findings = [r for r in rows if not r["owner"] or not (r["retention_until"] or r["review_at"])]
    assert 2 <= len(findings) <= 3
    stale = [r for r in findings if r["storage_class"] == "cache"]
    assert len(stale) == 1 and not stale[0]["owner"]
    assert sum(r["storage_class"] == "final_artifact" for r in rows) == 1


def test_timesheet_and_invoices(demo):
    batches = {b["id"] for b in demo.config["batches"]}
    rows = demo.timesheet
    assert {r["role"] for r in rows} == {r.value for r in LaborRole}
    assert {r["phase"] for r in rows} == {p.value for p in LaborPhase}
    assert {r["batch"] for r in rows} == batches | {""}
    assert any(r["phase"] == "build" and not r["batch"] for r in rows)
    activities = {r["activity"] for r in rows}
    for a in ("environment adaptation", "data pipeline", "config", "fault handling", "evaluation",
              "approval", "release prep", "vendor coordination"):
        assert a in activities
    for r in rows:
        assert Decimal(r["hours"]) > 0 and r["date"] < "2026-11-23"
    inv = demo.invoices
    assert {r["stage"] for r in inv} == {"delivery", "ongoing"}
    assert {r["currency"] for r in inv} == {"CNY", "USD"}
    assert {r["batch"] for r in inv} <= batches | {""}
