"""Runs from scheduler jobs: batch (by rule), reason and cause (from tags), and compute states.

A run holds its GPU-equivalents (``jobs.gpu_share``: a pod's 0.25 of a GPU, MIG or time-sliced
shares; else its whole ``gpus``). Per-worker step times (``worker_steps``) logged under the job's
id, its cluster-qualified key or its run tag give the run's barrier-waiting share
(``analysis.stragglers.barrier_shares``), carved out of its effective time as ``straggler_wait``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from trainledger.analysis.stragglers import barrier_shares
from trainledger.engine import asof, node_map, tzcheck
from trainledger.engine.causes import VERSION_TAGS, RunFacts
from trainledger.engine.context import Context, Facts, Problem, RunInfo, rows_of
from trainledger.engine.rules import tags_of
from trainledger.engine.timeline import FAILED_STATES, classify
from trainledger.model import FailureCause, Run, RunReason

EVENT_TOLERANCE = timedelta(minutes=5)  # loggers and schedulers disagree by seconds, not by hours


def _enum(enum, value, problems, job_id, what):
    if not value:
        return None
    try:
        return enum(value)
    except ValueError:
        problems.append(Problem(
            "bad_tag", f"job {job_id}: {what} {value!r} is not one of {', '.join(e.value for e in enum)}",
            {"job_id": job_id, "what": what, "value": str(value), "allowed": ", ".join(e.value for e in enum)}))
        return None


def latest_job_rows(rows) -> list:
    """One row per allocation of a job. A job is (cluster, job_id): ``sacct -M a,b`` prints jobs of
    several clusters, which reuse ids. Overlapping sacct dumps repeat an allocation, first RUNNING and
    later finished: the rows of one job with the same Start are one allocation, and the row that knows
    most wins — one with an End over one without, then the later End, then the later import (rows come
    in import order: ``Lake.read``). A job requeued and listed by ``sacct -D`` has one row per
    allocation, each with its own Start: each is kept. A row without a Start (the job never started)
    stands for the job only when no row of it has a Start. Kept rows are in the order they came."""
    jobs: dict[tuple[str, str], dict] = {}
    for pos, j in enumerate(rows):
        if j.get("is_step"):
            continue
        end = j.get("end")
        rank = (end is not None, end.timestamp() if end else 0.0, pos)
        allocations = jobs.setdefault((str(j.get("cluster") or ""), str(j["job_id"])), {})
        start = j.get("start")
        if start not in allocations or rank > allocations[start][0]:
            allocations[start] = (rank, j)
    kept = []
    for allocations in jobs.values():
        if len(allocations) > 1:
            allocations.pop(None, None)
        kept.extend(allocations.values())
    return [j for _, j in sorted(kept, key=lambda x: x[0][2])]


def _events_for(events, job_id: str, run_tag: str, start, end, problems) -> list:
    """A job's progress events: logged under its job id or its run tag, and inside its allocation.
    A run tag shared by a failed job and its retry (a resumed tracker run) is split by time."""
    found = list(events.get(job_id, ()))
    if run_tag and run_tag != job_id:
        found += events.get(run_tag, ())
    if start is None or end is None or not found:
        return found
    lo, hi = start - EVENT_TOLERANCE, end + EVENT_TOLERANCE
    inside = [e for e in found if lo <= e["ts"] <= hi]
    own = events.get(job_id, ())
    if own and not any(lo <= e["ts"] <= hi for e in own):
        problems.append(Problem("progress_outside_allocation", f"job {job_id}: {len(own)} progress events, none"
                                f" between its start {start.isoformat()} and end {end.isoformat()} — a clock or"
                                " time-zone error? The allocation stays unclassified",
                                {"job_id": job_id, "events": len(own), "start": start.isoformat(),
                                 "end": end.isoformat()}))
    return inside


JOB_COLUMNS = ("cluster", "job_id", "is_step", "submit", "eligible", "start", "end", "state", "gpus", "gpu_share",
               "nodes", "tags", "extra", "source_sha256", "row", "import_key")  # what deriving a run reads of its job


def _job_rows(jobs, ctx: Context):
    """The job rows with only what deriving runs reads (``JOB_COLUMNS`` and the fields the slurm
    rules match on) when they are the lake's columns: a million jobs make small dicts, not whole rows."""
    rows = rows_of(jobs)
    if not rows.is_columns:
        return rows
    fields = {"tags" if r.field.startswith("tags.") else r.field for r in ctx.config.rules if r.source == "slurm"}
    return rows.columns(*JOB_COLUMNS, *sorted(fields - set(JOB_COLUMNS)))


def _job_key(j, seen) -> str:
    """The job's id, prefixed by its cluster when sacct named one; a further allocation of a
    requeued job (``sacct -D``) gets its start time appended, so no allocation hides another."""
    cluster, raw = str(j.get("cluster") or ""), str(j["job_id"])
    key = f"{cluster}/{raw}" if cluster else raw
    if key in seen:
        start = j.get("start")
        key = f"{key}@{start.strftime('%Y%m%dT%H%M%SZ')}" if start else f"{key}@{len(seen)}"
    return key


def derive_runs(facts: Facts, ctx: Context) -> tuple[dict[str, RunInfo], list[Problem]]:
    problems: list[Problem] = []
    events = defaultdict(list)
    for e in facts.progress_events:
        events[str(e["run"])].append(e)
    jobs = latest_job_rows(_job_rows(facts.jobs, ctx))
    by_id = {str(j["job_id"]): _slim(j) for j in jobs}
    stale = timedelta(minutes=ctx.config.get("cluster.stale_gap_minutes"))
    waiting = barrier_shares(facts.worker_steps) if facts.worker_steps else {}
    out: dict[str, RunInfo] = {}
    used: dict[str, str] = {}
    samples: dict[tuple[str, str], tzcheck.Sample] = {}  # per import and job id
    facts_time = ctx.facts_time or asof.latest_fact_time(facts)  # where an open job without Elapsed ends
    attempts: dict[tuple[str, str], tuple[str, dict]] = {}  # (cluster, job id) → its latest allocation so far
    allocations: Counter = Counter()  # (cluster, job id) → its allocations so far
    claimed: dict[str, tuple[str, str]] = {}  # run id → the (cluster, job id) whose allocation took it
    node_names = node_map.run_nodes(ctx.config)  # cluster/host where [[nodes]] ties a host to a cluster
    filed_under: set[str] = set()  # the progress keys some job reads its events from
    same = _shared()  # one object for the values many runs repeat (a million runs, H12)
    jobs.reverse()  # taken from the end: each job's row is freed once its run is made (H12)
    while jobs:
        j = jobs.pop()
        job_id = _job_key(j, out)
        alloc = (str(j.get("cluster") or ""), str(j["job_id"]))
        allocations[alloc] += 1
        tags = tags_of(j)
        requeued = _requeue_of(j, job_id, attempts)  # sacct -D: the allocation before this one, when it failed
        batch_id, rule = ctx.matcher.match("slurm", j)
        batch_id = same(batch_id)
        reason = _enum(RunReason, tags.get("reason"), problems, job_id, "reason") or RunReason.UNRECORDED
        cause = _enum(FailureCause, tags.get("cause"), problems, job_id, "cause")
        if reason is RunReason.FAULT_RETRY and cause is None:
            problems.append(Problem("missing_cause", f"job {job_id} is a fault retry without a failure cause",
                                    {"job_id": job_id}))
        run_id = str(tags.get("run") or job_id)
        if run_id in used and claimed.get(run_id) == alloc and f"{run_id}#{allocations[alloc]}" not in used:
            run_id = f"{run_id}#{allocations[alloc]}"  # sacct -D repeats the job's Comment on each allocation
        if run_id in used:
            problems.append(Problem("duplicate_run_id", f"job {job_id} claims run {run_id}, already taken by"
                                    f" job {used[run_id]}; kept as {run_id}#{job_id}",
                                    {"run_id": run_id, "job_id": job_id, "taken_by": used[run_id]}))
            run_id = f"{run_id}#{job_id}"
        used[run_id] = job_id
        claimed.setdefault(str(tags.get("run") or run_id), alloc)
        if tags.get("retry_of"):
            requeued = None  # the job's own tag names what it retries
        if requeued and not tags.get("reason") and _state(requeued[1]) in FAILED_STATES:
            reason = RunReason.FAULT_RETRY  # its cause: the attempt's state (engine/causes.py)
        prev = requeued[1] if requeued else by_id.get(str(tags.get("retry_of", "")))
        after_preemption = prev is not None and str(prev.get("state", "")).upper() == "PREEMPTED"
        start, end = j.get("start"), j.get("end")
        if start is not None and end is None:
            end, source = asof.open_end(j, facts_time, ctx.as_of_time)
            problems.append(Problem("open_job", f"job {job_id} ({j.get('state')}) has not ended: the run is open,"
                                    f" classified up to {end.isoformat()} ({asof.WHY[source][0]}); attribute again"
                                    " when it has, or cut elsewhere with attribute --as-of TIMESTAMP",
                                    {"job_id": job_id, "state": str(j.get("state")), "until": end.isoformat(),
                                     "source": source, "why": asof.WHY[source][0]}))
        run_events = _events_for(events, str(j["job_id"]), str(tags.get("run") or ""), start, end, problems)
        filed_under.update((str(j["job_id"]), str(tags.get("run") or "")))
        own, filed = events.get(str(j["job_id"]), ()), str(j["job_id"])
        tag = str(tags.get("run") or "")
        if not own and tag and tag != filed:  # events filed under the run tag (MLflow, Comment run=): a shift
            own, filed = events.get(tag, ()), f"run:{tag}"  # moves them out of the window, so take them all
        if own and start is not None and end is not None:  # a requeued job's allocations (a tag's jobs): one span
            key = (j["source_sha256"], filed)
            prev = samples.get(key)
            samples[key] = tzcheck.Sample(j["source_sha256"], min(start, prev.start) if prev else start,
                                          max(end, prev.end) if prev else end, tuple(e["ts"] for e in own))
        share = next((waiting[k] for k in (str(j["job_id"]), job_id, str(tags.get("run") or ""))
                      if k in waiting), None)
        segments = classify(start, end, str(j.get("state", "")), run_events,
                            after_preemption=after_preemption, stale_gap=stale, straggler_share=share)
        if share and not any(seg.state == "straggler_wait" for seg in segments) and start is not None:
            problems.append(Problem("straggler_share_unused", f"job {job_id}: per-worker step times say its workers"
                                    f" wait {share} of their time at the iteration barrier, but no progress event"
                                    " marks effective time to carve it from; import its progress events",
                                    {"job_id": job_id, "share": str(share)}))
        run = Run(id=run_id, batch_id=batch_id or "", reason=reason, cause=cause, source_job=job_id,
                  state=same(str(j.get("state", ""))), submitted_at=j.get("submit"), started_at=j.get("start"),
                  ended_at=j.get("end"), gpus=int(j.get("gpus") or 0),
                  gpu_share=None if j.get("gpu_share") is None else Decimal(str(j["gpu_share"])))
        nodes = same(node_names(str(j.get("cluster") or ""), tuple(n for n in str(j.get("nodes") or "").split(",")
                                                                  if n and n != "None assigned")))
        when = j.get("start") or j.get("submit") or j.get("end")
        rf = RunFacts(run_id=run_id, batch_id=batch_id, job=job_id, state=same(run.state.split(" ")[0].upper()),
                      order=when.isoformat() if when else "", tag_cause=str(cause) if cause else None,
                      retry_of=str(tags.get("retry_of") or "") or (requeued[0] if requeued else None),
                      versions=same(tuple(str(tags.get(k) or "") for k in VERSION_TAGS)))
        sha = same(j["source_sha256"])
        out[job_id] = RunInfo(run=run, batch_id=batch_id, rule=rule, nodes=nodes, segments=tuple(segments),
                              source_sha256=sha, row=int(j["row"]),
                              import_key=same(str(j.get("import_key") or sha)),
                              eligible=_eligible(j), facts=rf, cluster=same(str(j.get("cluster") or "")))
        if nodes and run.gpu_share is None and run.gpus % len(nodes):
            problems.append(Problem("uneven_gpu_split", f"job {job_id}: {run.gpus} GPUs on {len(nodes)} nodes do not"
                                    " divide evenly; its node-hours are split as if they did",
                                    {"job_id": job_id, "gpus": run.gpus, "nodes": len(nodes)}))
        if batch_id is None and _holds_compute(run):  # a job that never ran has no compute to leave
            problems.append(Problem("job_without_batch", f"job {job_id} matched no slurm rule; its compute"
                                    " stays in the unattributed bucket", {"job_id": job_id}))
    problems.extend(unmatched_progress(events, filed_under))
    problems.extend(tzcheck.problems(samples.values(), facts.imports))
    bills = rows_of(facts.bill_lines)
    bill_rows = (lambda nodes: billed_hours(bills.table, nodes)) if bills.is_columns else bills
    problems.extend(tzcheck.bill_problems(out.values(), bill_rows, facts.imports,
                                          lambda nodes: node_map.names(nodes, ctx.config)))
    return _link_retries(out), problems


SHOWN_RUNS = 5  # the run names an unmatched-progress problem lists


def unmatched_progress(events: Mapping[str, list], filed_under: set[str]) -> list[Problem]:
    """Progress events (W&B, MLflow, JSONL) filed under a run name no job reads — neither a job id
    nor a job's ``run`` tag — classify nothing: said once, with a count, the first run names and the
    remedy, instead of dropping them without a word."""
    names = sorted(k for k in events if k not in filed_under)
    if not names:
        return []
    count = sum(len(events[k]) for k in names)
    shown = ", ".join(names[:SHOWN_RUNS])  # the first few, sorted: the count says how many more
    return [Problem("progress_without_job", f"{count} progress event(s) of {len(names)} run(s) (first: {shown})"
                    " match no job: they classify no compute time. Name the job each belongs to — tag the job"
                    " with the tracker's run name (sacct Comment run=NAME, a pod annotation trainledger.io/run),"
                    " or import a history that names no run with --set run=JOB_ID"
                    " (trainledger import wandb FILE --set run=JOB_ID)",
                    {"events": count, "runs": len(names), "names": shown, "first": names[0]})]


def billed_hours(table, nodes) -> dict[str, list[tuple[datetime, datetime]]]:
    """Per node, the merged charge periods of the bill rows for it (``tzcheck``'s ``_merged`` of the
    rows ``compute._node_of`` names a node and shorter than a day), from the columns: no row is made.
    ``nodes``: the nodes' names, or what a bill may call each (``node_map.names``)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    names = set(table.column_names)
    if not nodes or not {"charge_period_start", "charge_period_end"} <= names or not table.num_rows:
        return {}
    known = pa.array(sorted(nodes), pa.string())
    to_node = pa.array([nodes[k] if isinstance(nodes, Mapping) else k for k in known.to_pylist()], pa.string())
    node = pa.nulls(table.num_rows, pa.string())
    for col in ("resource_id", "resource_name")[::-1]:  # the first that names a node wins: fill backwards
        if col not in names:
            continue
        full = table.column(col).cast(pa.string())
        short = pc.replace_substring_regex(full, pattern=r"\..*", replacement="", max_replacements=1)
        for cand in (short, full):
            at = pc.index_in(cand, value_set=known)
            node = pc.if_else(pc.is_valid(at), pc.take(to_node, at), node)
    p0 = table.column("charge_period_start").cast(pa.timestamp("us", "UTC")).cast(pa.int64())
    p1 = table.column("charge_period_end").cast(pa.timestamp("us", "UTC")).cast(pa.int64())
    span = pc.subtract(p1, p0)
    keep = pc.and_(pc.is_valid(node), pc.and_(pc.greater(span, 0), pc.less_equal(span, DAY_US)))
    t = pa.table({"node": node, "p0": p0, "p1": p1}).filter(pc.fill_null(keep, False))
    out: dict[str, list[tuple[datetime, datetime]]] = {}
    if not t.num_rows:
        return out
    t = t.sort_by([("node", "ascending"), ("p0", "ascending"), ("p1", "ascending")])
    nd = t.column("node").to_numpy(zero_copy_only=False)
    a, b = t.column("p0").to_numpy(), t.column("p1").to_numpy()
    cuts = np.flatnonzero(nd[1:] != nd[:-1]) + 1
    for lo, hi in zip(np.r_[0, cuts], np.r_[cuts, len(nd)], strict=True):
        aa, bb = a[lo:hi], b[lo:hi]
        reach = np.maximum.accumulate(bb)
        new = np.r_[True, aa[1:] > reach[:-1]]  # a period starting after all before it ended
        at = np.flatnonzero(new)
        ends = np.maximum.reduceat(bb, at)
        out[str(nd[lo])] = [(EPOCH + timedelta(microseconds=int(x)), EPOCH + timedelta(microseconds=int(y)))
                            for x, y in zip(aa[at], ends, strict=True)]
    return out


def _shared():
    """``same(value)``: the first equal value seen (a batch id, a state, an import's hash, a node
    list), so a million runs hold a few hundred such objects, not a million copies (H12)."""
    seen: dict = {}
    return lambda value: seen.setdefault(value, value)


def _eligible(j):
    """When the job could start: its Eligible, else its Submit — the Submit object itself when the two
    are the same time (most jobs), so a run holds one datetime for both (H12)."""
    eligible, submit = j.get("eligible"), j.get("submit")
    if eligible is None or (eligible == submit and eligible.tzinfo is submit.tzinfo):
        return submit
    return eligible


DAY_US = 86_400_000_000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
REQUEUE_STATES = FAILED_STATES | {"REQUEUED"}  # an allocation ended so that Slurm ran the job again


def _requeue_of(j, job_key: str, attempts: dict) -> tuple[str, dict] | None:
    """A job requeued (``sacct -D``: the same JobID, a later allocation) retries its previous
    allocation when that one ended failed or requeued (PREEMPTED, NODE_FAIL…): (its key, its row).
    Records ``j`` as the job's latest allocation (rows come in time order per job: ``sacct -D``)."""
    key = (str(j.get("cluster") or ""), str(j["job_id"]))
    prev = attempts.get(key)
    if j.get("start") is not None:
        attempts[key] = (job_key, _slim(j))
    if prev is None or prev[1].get("start") is None or j.get("start") is None or j["start"] <= prev[1]["start"]:
        return None
    return prev if _state(prev[1]) in REQUEUE_STATES else None


def _slim(j) -> dict:
    """What a later allocation or retry reads of an earlier job's row (its start and state), kept
    instead of the row: a million rows are not all held while their runs are made (H12)."""
    return {k: j[k] for k in ("start", "state") if k in j}


def _state(j) -> str:
    return str(j.get("state", "")).split(" ")[0].upper()  # CANCELLED by 1001 → CANCELLED


def _holds_compute(run: Run) -> bool:
    """True when a run has GPU time to attribute: it started holding GPUs, or it waited for them
    (queued GPU-hours). A job cancelled before it started with no GPUs allocated (sacct: no Start,
    empty AllocTRES) has none: it is counted as never started (``trainledger jobs``), not warned of
    as compute without a batch."""
    return run.gpu_equivalents > 0 and (run.started_at is not None or run.ended_at is not None)


def _link_retries(out: dict[str, RunInfo]) -> dict[str, RunInfo]:
    """``retry_of`` names a job id (or a run id): store the run id of the attempt retried."""
    from dataclasses import replace

    by_job = {info.run.source_job: info.run.id for info in out.values()}
    by_job |= {k.split("/")[-1]: info.run.id for k, info in out.items()}
    runs = {info.run.id for info in out.values()}
    for key, info in out.items():
        target = info.facts.retry_of
        if target:
            run_id = target if target in runs else by_job.get(target)
            out[key] = replace(info, facts=replace(info.facts, retry_of=run_id or target))
    return out
