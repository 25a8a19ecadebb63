"""``trainledger jobs``: what the imported scheduler jobs say, whichever scheduler wrote them.

One *job* is (cluster, job_id); an *attempt* is one allocation of it. Rows are settled as the
engine settles them (``engine.runs.latest_job_rows``): the rows of a job with the same Start are
one attempt and the one that knows most wins (an End over none, then the later End, then the
later import); a row without a Start stands for the job only when no row of it started. Steps
(``is_step``) are not attempts.

- ``never_started``: jobs none of whose attempts started; their waiting (Submit to End, the time
  they were given up) is in ``never_started_wait_seconds``. A job still PENDING (no Start, no End)
  has waited so far: Eligible (else Submit) to the ``cutoff`` — the engine's queued figure counts
  the same wait (engine/compute.py ``queued_stage``) — in ``pending_wait_seconds``.
- ``cutoff``: where attribution cuts what has no end yet, by default (engine/asof.py): the latest
  time an imported fact shows (a job's submit / eligible / start / end, a progress event, a bill
  row's ChargePeriodEnd; ``attribute --as-of`` cuts elsewhere, and so the sheets then differ).
- ``queued_gpu_hours``: Σ GPU-equivalents × the queue of each started attempt (``started``), × the
  wait of each job given up before it started (eligible → End, ``given_up``) and × the wait so far
  of each pending job (``pending``): the hours the sheets' queued rows count, valued or not.
- ``queue_seconds``: Start − Eligible over the started attempts, Start − Submit where Eligible is
  absent (one definition with the engine's queued cost, docs/concepts.md: queueing is waiting while
  eligible — a job held for its dependency is not queued). ``queue_from`` says how many attempts
  counted from each (``as_json``: ``queue_definition`` and ``queue_from``).
- ``gpu_hours``: Σ GPU-equivalents × (End − Start) over started attempts with an End, where a
  row's GPU-equivalents are its ``gpu_share`` (fractional GPUs pro rata) or else its ``gpus``;
  ``by_final_state`` groups each attempt under its *job's* final state (the state of its attempt
  with the latest Start): what the GPU time of jobs that ended COMPLETED / FAILED / ... came to,
  a requeued or preempted attempt counted with the job it was part of. ``by_attempt_state``
  groups each attempt under its *own* end state (REQUEUED, PREEMPTED, NODE_FAIL, ...): what the
  attempts that did not finish cost. Both add up to ``total`` exactly. ``whole_gpu_hours`` counts
  every device touched as a whole GPU, to show what pro rata changes. ``open_attempts`` started
  and have no End yet: each is counted to where attribution cuts it (``engine.asof.open_end``: the
  export's Start + Elapsed, else the ``cutoff``), as ``attribute`` and the sheets charge it;
  ``gpu_hours.open_attempts`` says how many of the total's hours are theirs (review 8, R8-4).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.analysis.hours import hours, split_hours

if TYPE_CHECKING:
    from trainledger.lake import Lake

COLUMNS = ("cluster", "job_id", "is_step", "submit", "eligible", "start", "end", "state", "gpus", "gpu_share")
QUEUE_DEFINITION = "start_minus_eligible_else_submit"  # the engine's queued stage counts the same (compute.py)
NONE = np.iinfo(np.int64).min  # a null time


@dataclass(frozen=True, slots=True)
class Stats:
    count: int
    mean: float | None
    p50: float | None
    p90: float | None
    p99: float | None

    def as_json(self) -> dict[str, Any]:
        return {"count": self.count, "mean": self.mean, "p50": self.p50, "p90": self.p90, "p99": self.p99}


def stats(values: np.ndarray) -> Stats:
    """Mean and percentiles (linear interpolation, numpy's and pandas' default), in seconds."""
    if not len(values):
        return Stats(0, None, None, None, None)
    p = np.percentile(values, [50, 90, 99])
    return Stats(len(values), round(float(values.mean()), 3), *(round(float(x), 3) for x in p))


@dataclass(frozen=True, slots=True)
class JobSummary:
    jobs: int
    attempts: int
    never_started: int
    open_attempts: int
    queue_seconds: Stats
    never_started_wait_seconds: Stats
    gpu_hours: Decimal
    gpu_hours_by_final_state: tuple[tuple[str, Decimal], ...]
    whole_gpu_hours: Decimal
    queue_from: tuple[tuple[str, int], ...] = (("eligible", 0), ("submit", 0))  # attempts counted from each
    gpu_hours_by_attempt_state: tuple[tuple[str, Decimal], ...] = ()  # each attempt under its own end state
    open_gpu_hours: Decimal = Decimal("0.000000")  # of gpu_hours: the open attempts', to where they are cut
    cutoff: datetime | None = None  # the latest time an imported fact shows (engine/asof.py)
    pending_wait_seconds: Stats = Stats(0, None, None, None, None)  # still PENDING: eligible → the cutoff
    queued_gpu_hours: Decimal = Decimal("0.000000")  # started attempts' queue + pending jobs' wait so far
    pending_queued_gpu_hours: Decimal = Decimal("0.000000")  # of queued_gpu_hours: the pending jobs'
    given_up_queued_gpu_hours: Decimal = Decimal("0.000000")  # of it: never started, given up (eligible → End)

    @property
    def started_queued_gpu_hours(self) -> Decimal:
        return self.queued_gpu_hours - self.pending_queued_gpu_hours - self.given_up_queued_gpu_hours

    def as_json(self) -> dict[str, Any]:
        q = self.queue_seconds.as_json()
        return {
            "jobs": self.jobs,
            "attempts": self.attempts,
            "never_started": self.never_started,
            "open_attempts": self.open_attempts,
            "queue_seconds": q,
            "queue_definition": QUEUE_DEFINITION,
            "queue_from": dict(self.queue_from),
            "never_started_wait_seconds": self.never_started_wait_seconds.as_json(),
            "pending_wait_seconds": self.pending_wait_seconds.as_json(),
            "cutoff": {"time": self.cutoff.isoformat() if self.cutoff else None, "source": "latest_fact"},
            "queued_gpu_hours": {"total": str(self.queued_gpu_hours), "started": str(self.started_queued_gpu_hours),
                                 "given_up": str(self.given_up_queued_gpu_hours),
                                 "pending": str(self.pending_queued_gpu_hours)},
            "gpu_hours": {
                "total": str(self.gpu_hours),
                "open_attempts": str(self.open_gpu_hours),
                "by_final_state": {k: str(v) for k, v in self.gpu_hours_by_final_state},
                "by_attempt_state": {k: str(v) for k, v in self.gpu_hours_by_attempt_state},
                "whole_gpu_total": str(self.whole_gpu_hours),
            },
        }


def _read(lake: Lake) -> pa.Table:
    """The columns the summary needs from every jobs partition, in import order."""
    parts = []
    for p in lake.partitions("jobs"):
        f = pq.ParquetFile(p)
        have = [c for c in COLUMNS if c in f.schema_arrow.names]
        t = f.read(columns=have)
        if "gpu_share" not in have:  # written before the column existed: whole GPUs
            t = t.append_column("gpu_share", pa.nulls(t.num_rows, pa.string()))
        if "eligible" not in have:  # a scheduler that records no Eligible: the queue counts from Submit
            t = t.append_column("eligible", pa.nulls(t.num_rows, pa.timestamp("us", tz="UTC")))
        parts.append(t.select(list(COLUMNS)).replace_schema_metadata(None))
    if not parts:
        return pa.table({c: pa.array([], pa.string()) for c in COLUMNS})
    return pa.concat_tables(parts, promote_options="default")


def _micros(col: pa.ChunkedArray) -> np.ndarray:
    ints = pc.cast(col, pa.timestamp("us", tz="UTC")).cast(pa.int64())
    return ints.fill_null(NONE).to_numpy()


def _exact_sums(keys: np.ndarray, values: np.ndarray) -> list[tuple[int, int]]:
    """(key, Σ values of that key) as Python ints, exact: int64 sums where they cannot overflow."""
    if not len(keys):
        return []
    order = np.argsort(keys, kind="stable")
    k, v = keys[order], values[order].astype(np.int64)
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    if float(np.abs(v).astype(np.float64).sum()) < 2.0**62:
        sums = np.add.reduceat(v, starts).tolist()
    else:  # pragma: no cover - more than 146,000 years of µs: add as Python ints
        bounds = [*starts.tolist(), len(v)]
        sums = [sum(int(x) for x in v[a:b]) for a, b in zip(bounds, bounds[1:], strict=False)]
    return list(zip(k[starts].tolist(), sums, strict=True))


TIMED = (("progress_events", ("ts",)), ("bill_lines", ("charge_period_end",)))  # besides the jobs' own times


def latest_fact_time(lake: Lake, jobs: pa.Table) -> datetime | None:
    """The latest time any imported fact shows, as ``engine.asof.latest_fact_time`` reads it from the
    same partitions: the jobs' submit / eligible / start / end (``jobs``: every row, as read), progress
    events' ts, bill rows' ChargePeriodEnd (those columns only)."""
    tables = [(jobs, ("submit", "eligible", "start", "end"))]
    for table, names in TIMED:
        for p in lake.partitions(table):
            f = pq.ParquetFile(p)
            have = [c for c in names if c in f.schema_arrow.names]
            tables += [(f.read(columns=have), have)] if have else []
    found = [pc.max(pc.cast(t[c], pa.timestamp("us", tz="UTC"))).as_py()
             for t, names in tables for c in names
             if t.num_rows and c in t.column_names and pa.types.is_timestamp(t[c].type)]
    return max((v for v in found if v is not None), default=None)


def _us(d: datetime) -> int:
    return (d.astimezone(UTC) - EPOCH) // timedelta(microseconds=1)


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _open_ends(lake: Lake, rows: np.ndarray, start: np.ndarray, cutoff: datetime | None) -> np.ndarray:
    """The end, in µs, of each open attempt (``rows``: its row in the read table; ``start``: its µs)
    as attribution cuts it without ``--as-of``: ``engine.asof.open_end`` (the export's Start + Elapsed,
    else the cutoff). The jobs' ``extra`` (sacct's Elapsed) is read only when some attempt is open."""
    from trainledger.engine.asof import open_end

    extra = []
    for p in lake.partitions("jobs"):
        f = pq.ParquetFile(p)
        col = f.read(columns=["extra"])["extra"] if "extra" in f.schema_arrow.names else \
            pa.chunked_array([pa.nulls(f.metadata.num_rows, pa.string())])
        extra.append(col.combine_chunks().cast(pa.string()))
    extras = pa.concat_arrays(extra) if extra else pa.array([], pa.string())
    out = np.empty(len(rows), dtype=np.int64)
    for i, (r, st) in enumerate(zip(rows.tolist(), start.tolist(), strict=True)):
        job = {"start": EPOCH + timedelta(microseconds=st), "extra": extras[r].as_py()}
        out[i] = _us(open_end(job, cutoff, None)[0])
    return out


def clusters(lake: Lake) -> list[str]:
    """The cluster names the imported jobs give ("" for jobs that name none), sorted."""
    t = _read(lake)
    return sorted({c or "" for c in pc.unique(t["cluster"]).to_pylist()}) if t.num_rows else []


def job_summary(lake: Lake, cluster: str | None = None) -> JobSummary:
    """The summary of every imported job, or (``cluster``) of one cluster's; what has no end yet is
    cut where ``attribute`` cuts it without ``--as-of`` (the latest fact: ``cutoff``)."""
    t = _read(lake)
    cutoff = latest_fact_time(lake, t)  # every job's times, steps and other clusters' too
    t = t.append_column("_row", pa.array(np.arange(t.num_rows, dtype=np.int64)))  # its row in the partitions
    if t.num_rows:
        t = t.filter(pc.invert(pc.fill_null(t["is_step"], False)))
    if cluster is not None and t.num_rows:
        t = t.filter(pc.equal(pc.fill_null(t["cluster"], ""), cluster))
    n = t.num_rows
    if not n:
        empty = stats(np.array([]))
        return JobSummary(0, 0, 0, 0, empty, empty, Decimal("0.000000"), (), Decimal("0.000000"),
                          cutoff=cutoff)
    key = pc.binary_join_element_wise(pc.fill_null(t["cluster"], ""), t["job_id"], "\x1f")
    job = pc.dictionary_encode(key).combine_chunks().indices.to_numpy()  # job number per row
    submit, start, end = _micros(t["submit"]), _micros(t["start"]), _micros(t["end"])
    eligible = _micros(t["eligible"])
    pos = np.arange(n)
    has_end = end != NONE
    # the winning row of each (job, start): sort so it comes last in its group
    order = np.lexsort((pos, end, has_end, start, job))
    j, s = job[order], start[order]
    last = np.ones(n, dtype=bool)
    last[:-1] = (j[1:] != j[:-1]) | (s[1:] != s[:-1])
    kept = order[last]
    started = start[kept] != NONE
    jobs_with_start = np.zeros(job.max() + 1, dtype=bool)
    jobs_with_start[job[kept][started]] = True
    keep = started | ~jobs_with_start[job[kept]]  # an unstarted row stands alone or not at all
    kept = np.sort(kept[keep])  # back to import order
    kjob, ks, ke, ksub, kel = job[kept], start[kept], end[kept], submit[kept], eligible[kept]
    started = ks != NONE
    n_jobs = int(len(np.unique(kjob)))

    # the final state of a job: its attempt with the latest start (then the later row)
    final_order = np.lexsort((kept, ks, kjob))
    fj = kjob[final_order]
    is_last = np.ones(len(fj), dtype=bool)
    is_last[:-1] = fj[1:] != fj[:-1]
    states = pc.dictionary_encode(pc.fill_null(t["state"], "")).combine_chunks()
    state_no, state_names = states.indices.to_numpy(), states.dictionary.to_pylist()
    final_of_job = np.zeros(job.max() + 1, dtype=np.int64)
    final_of_job[fj[is_last]] = state_no[kept[final_order[is_last]]]

    since = np.where(kel != NONE, kel, ksub)  # Eligible, else Submit: the engine's definition
    queued = started & (since != NONE)
    queue = (ks[queued] - since[queued]) / 1e6
    from_eligible = int((queued & (kel != NONE)).sum())
    never = ~started
    waited = never & (ksub != NONE) & (ke != NONE)
    wait = (ke[waited] - ksub[waited]) / 1e6

    is_open = started & (ke == NONE)
    if is_open.any():  # cut where attribution cuts it, as the sheets charge it (R8-4)
        ke = ke.copy()
        ke[is_open] = _open_ends(lake, t["_row"].to_numpy()[kept][is_open], ks[is_open], cutoff)
    closed = started & (ke != NONE)
    # a share's text for each attempt: its gpu_share, else its whole GPUs
    gpus = pc.fill_null(t["gpus"], 0)
    share_text = pc.coalesce(t["gpu_share"], pc.cast(gpus, pa.string()))
    shares = pc.dictionary_encode(share_text).combine_chunks()
    share_no, share_names = shares.indices.to_numpy()[kept], shares.dictionary.to_pylist()
    held = (ke - ks)[closed]
    open_us = _share_us(share_no[is_open], (ke - ks)[is_open], share_names)
    # queued GPU-hours, as the engine's queued stage counts them: the started attempts' queue, and the
    # wait so far of each job still PENDING (eligible, else submit → the cutoff)
    queue_us = _share_us(share_no[queued], np.maximum(ks[queued] - since[queued], 0), share_names)
    word = pc.list_element(pc.split_pattern(pc.utf8_upper(pc.fill_null(t["state"], "")), " "), 0)
    is_pending = pc.equal(word, "PENDING").to_numpy(zero_copy_only=False)[kept]  # the engine's run.state
    cut_us = _us(cutoff) if cutoff is not None else NONE
    pending = never & (ke == NONE) & (since != NONE) & is_pending & (cut_us > since)
    pwait = cut_us - since[pending]
    pending_us = _share_us(share_no[pending], pwait, share_names)
    gave_up = never & (ke != NONE) & (since != NONE) & (ke > since)  # the engine counts it to its End
    gave_up_us = _share_us(share_no[gave_up], ke[gave_up] - since[gave_up], share_names)
    by_state = _held_by(final_of_job[kjob[closed]], share_no[closed], held, state_names, share_names)
    by_own = _held_by(state_no[kept][closed], share_no[closed], held, state_names, share_names)
    devices = gpus.to_numpy()[kept][closed]
    whole_us = sum(int(n) * us for n, us in _exact_sums(devices, held))
    total, split = split_hours(by_state)
    _, own_split = split_hours(by_own)
    return JobSummary(
        jobs=n_jobs,
        attempts=len(kept),
        never_started=n_jobs - int(len(np.unique(kjob[started]))),
        open_attempts=int(is_open.sum()),
        queue_seconds=stats(queue),
        never_started_wait_seconds=stats(wait),
        gpu_hours=total,
        gpu_hours_by_final_state=tuple(split.items()),
        whole_gpu_hours=hours(Decimal(whole_us) / 1_000_000),
        queue_from=(("eligible", from_eligible), ("submit", int(queued.sum()) - from_eligible)),
        gpu_hours_by_attempt_state=tuple(own_split.items()),
        open_gpu_hours=hours(open_us / 1_000_000),
        cutoff=cutoff,
        pending_wait_seconds=stats(pwait / 1e6),
        queued_gpu_hours=hours((queue_us + gave_up_us + pending_us) / 1_000_000),
        pending_queued_gpu_hours=hours(pending_us / 1_000_000),
        given_up_queued_gpu_hours=hours(gave_up_us / 1_000_000),
    )


def _share_us(share: np.ndarray, us: np.ndarray, share_names: list[str]) -> Decimal:
    """Exact GPU-µs: Σ share × µs (each share's sum of µs an exact int)."""
    return sum((Decimal(share_names[k]) * v for k, v in _exact_sums(share, us)), Decimal(0))


def _held_by(
    state: np.ndarray, share: np.ndarray, held: np.ndarray, state_names: list[str], share_names: list[str]
) -> dict[str, Decimal]:
    """Exact GPU-seconds per state name: Σ share × held µs of the attempts given each state."""
    out: dict[str, Decimal] = {}
    for g, us in _exact_sums(state * len(share_names) + share, held):  # (state, share) → µs held
        name, sh = state_names[g // len(share_names)], share_names[g % len(share_names)]
        out[name] = out.get(name, Decimal(0)) + Decimal(sh) * us / 1_000_000
    return out
