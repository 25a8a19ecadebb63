"""Play the story: scheduler times and training progress of every run, consistent by construction.

A job's end time is *derived* from what its training process did (steps at a jittered rate,
checkpoint pauses, data-loader stalls, a hang, a time limit, a cancel, a preemption), so progress
events always lie inside their allocation, and a job that waits for another starts after it ended.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from trainledger.demo.scenario import NODES, PLANS, UIDS, RunPlan, Work, local


@dataclass(frozen=True)
class Event:
    """One progress JSONL line before rendering: ``fields`` follow ts, run, event."""

    ts: datetime
    event: str
    fields: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Job:
    plan: RunPlan
    submit: datetime
    eligible: datetime | None
    start: datetime | None
    end: datetime | None
    proc_end: datetime | None  # when the training process (the srun step ``.0``) exited
    state: str
    exit_code: str
    events: tuple[Event, ...]

    @property
    def job_id(self) -> str:
        return str(self.plan.job_id)

    @property
    def nodes(self) -> tuple[str, ...]:
        return tuple(NODES[i - 1] for i in self.plan.nodes) if self.start else ()

    @property
    def checkpoints(self) -> tuple[tuple[int, datetime], ...]:
        return tuple((int(dict(e.fields)["step"]), e.ts) for e in self.events
                     if e.event == "checkpoint_saved")


def _s(seconds: float) -> timedelta:
    return timedelta(seconds=round(seconds))


def _loss(step: int, work: Work, rng: random.Random) -> float:
    base = 0.46 + 1.3 * math.exp(-step / 650) + rng.gauss(0, 0.008)
    if work.diverges_at is not None and step >= work.diverges_at:
        base *= 1.9 ** ((step - work.diverges_at) / 8)
    return round(base, 4)


def _progress_fields(step: int, work: Work, rng: random.Random) -> tuple[tuple[str, object], ...]:
    out: list[tuple[str, object]] = [("step", step)]
    if work.tokens_per_step:
        out.append(("tokens", step * work.tokens_per_step))
    out.append(("samples", step * work.samples_per_step))
    if work.kind == "train":
        out.append(("loss", _loss(step, work, rng)))
    return tuple(out)


def _deadline(work: Work, start: datetime) -> tuple[datetime | None, str]:
    if work.limit_s is not None:
        return start + _s(work.limit_s), "TIMEOUT"
    if work.stop_after_s is not None:
        return start + _s(work.stop_after_s), "CANCELLED"
    if work.stop_at is not None:
        return local(work.stop_at), "PREEMPTED"
    return None, ""


def _train(plan: RunPlan, start: datetime, rng: random.Random):
    """Progress events, job end, process end, state and exit code of one started job."""
    w = plan.work
    if w.kind == "opaque":
        end = start + _s(w.duration_s)
        return (), end, end, "COMPLETED", "0:0"
    t = start + _s(w.setup_s * rng.uniform(0.93, 1.07))
    events = [Event(t, "start")]
    if w.kind == "crash":
        end = t + _s(w.crash_after_s)
        return tuple(events), end, end, "FAILED", "1:0"
    step = w.start_step
    if step:
        t += _s(rng.uniform(150, 260))  # restoring model + optimizer state from OSS
        events.append(Event(t, "resume", (("step", step),)))
    deadline, stop_state = _deadline(w, start)
    stop = w.fail_step if w.fail_step is not None else w.target
    waits = dict(w.data_waits)
    points = sorted({p for p in range(step + 1, stop + 1)
                     if p % w.log_every == 0 or (w.ckpt_every and p % w.ckpt_every == 0)}
                    | set(waits) | {stop})
    sec_per_step = 60.0 / w.rate
    cut = False
    for p in points:
        nxt = t + _s((p - step) * sec_per_step * rng.uniform(0.97, 1.03))
        if deadline is not None and nxt >= deadline:
            cut = True
            break
        step, t = p, nxt
        if p in waits:  # the loader starved the GPUs before this step could run
            t += _s(waits[p])
            events.append(Event(t, "data_wait", (("duration_s", waits[p]),)))
        if p % w.log_every == 0 or p == stop:
            events.append(Event(t, "step", _progress_fields(p, w, rng)))
        if w.ckpt_every and (p % w.ckpt_every == 0 or p == w.target):
            dur = rng.randint(120, 240)
            if deadline is not None and t + _s(dur) >= deadline:
                cut = True
                break
            t += _s(dur)
            events.append(Event(t, "checkpoint_saved", (("step", p), ("duration_s", dur))))
    if cut:
        assert deadline is not None
        state = stop_state
        end = deadline + _s(rng.uniform(5, 40)) if state == "TIMEOUT" else deadline
        if state == "CANCELLED":
            state = f"CANCELLED by {UIDS[plan.user]}"
        exit_code = "0:15" if state.startswith("CANCELLED") else "0:0"
        return tuple(events), end, end, state, exit_code
    if w.fail_step is not None:  # the node died: no progress; the job hangs until Slurm gives up
        end = t + _s(w.hang_s)
        return tuple(events), end, end, "NODE_FAIL", "0:0"
    t += _s(rng.uniform(15, 60))
    events.append(Event(t, "end"))
    proc_end = t + _s(rng.uniform(3, 12))
    end = proc_end + _s(max(0, w.hold_s - 8))
    return tuple(events), end, proc_end, "COMPLETED", "0:0"


def play(seed: int) -> tuple[Job, ...]:
    """Every planned run as a Job, in job-id order. Deterministic for a seed."""
    rng = random.Random(f"{seed}:timeline")
    done: dict[int, Job] = {}
    for plan in PLANS:
        wh = plan.when
        ends = [done[a].end for a in wh.waits_for]
        assert all(e is not None for e in ends), plan.job_id
        if wh.submit is None:  # a retry: submitted a while after the job it retries ended
            submit = ends[0] + _s(wh.gap_s + rng.randint(0, 90))  # type: ignore[operator]
            eligible = submit
            ready = max([submit, *ends])  # type: ignore[type-var]
        else:
            submit = local(wh.submit)
            ready = max([submit, *ends])  # type: ignore[type-var]
            eligible = ready if wh.dependency else submit
        if wh.never_starts:
            done[plan.job_id] = Job(plan, submit, None, None, None, None, "PENDING", "0:0", ())
            continue
        start = ready + _s(wh.wait_s)
        events, end, proc_end, state, exit_code = _train(plan, start, rng)
        done[plan.job_id] = Job(plan, submit, eligible, start, end, proc_end, state, exit_code,
                                events)
    jobs = tuple(sorted(done.values(), key=lambda j: j.plan.job_id))
    _check_nodes(jobs)
    return jobs


def _check_nodes(jobs: tuple[Job, ...]) -> None:
    """Each node is held by one whole-node job at a time (plans hand nodes over by ``after``)."""
    held: dict[str, list[tuple[datetime, datetime, str]]] = {}
    for j in jobs:
        if j.start is not None and j.end is not None:
            for node in j.nodes:
                held.setdefault(node, []).append((j.start, j.end, j.job_id))
    for node, spans in held.items():
        spans.sort()
        for (_, end, a), (start, _, b) in zip(spans, spans[1:], strict=False):
            if start < end:
                raise AssertionError(f"{node}: job {b} starts before job {a} released it")
