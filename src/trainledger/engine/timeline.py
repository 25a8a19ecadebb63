"""Split one run's allocation into compute states from scheduler times and progress events.

The boundary is approximate by design (the seed: 不能仅凭设备利用率判断, 但至少要通过任务事件和关键进度
建立近似边界). Rules, applied over the allocation window [start, end):

* start → first ``step``/``resume``: **setup** (or **preemption_recovery** when the run resumes a
  preempted predecessor);
* first → last step: **effective**, except ``checkpoint_saved`` and ``data_wait`` windows
  (``ts - duration_s`` → ``ts``: **checkpoint** / **data_stall**) and step gaps longer than the
  stale threshold (**hang**);
* a failed run's steps after its last checkpoint: **lost_progress** (that work is redone);
* after the last step: until ``end`` **checkpoint/unclassified**; after ``end`` **allocated_idle**;
  for a failed run with no ``end``, **hang** (allocated, no progress);
* a run with no progress events at all: **unclassified** — never guessed to be effective.

Overlapping windows resolve by priority (checkpoint, data_stall, hook windows > hang gap > base state).

``STRAGGLER_HOOK``: synchronous waiting on stragglers (``analysis.stragglers``, from per-worker
step times) is not a window: every iteration ends with the faster workers waiting at the barrier
for the slowest, so a share ``s`` of the worker time of every effective moment is waiting.
``classify(..., straggler_share=s)`` splits each **effective** segment into two segments over the
same window, ``effective`` with ``weight`` 1 − s and **straggler_wait** with ``weight`` s (a
segment's weight is the share of the run's GPUs in that state over its window; 1 elsewhere), so
the GPU-seconds of the two sum exactly to the effective time they came from. Windows another
analysis found come in through ``extra_layers=[(state, start, end), ...]``.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from trainledger.model.vocab import ComputeState as S

STRAGGLER_HOOK = "straggler_share"  # the classify() parameter the barrier-waiting share comes in through
# states in which an allocation ended without finishing its work; REQUEUED is an earlier allocation
# of a job Slurm ran again (``sacct -D``): its work after the last checkpoint is lost too (review 6 K17)
FAILED_STATES = frozenset({"FAILED", "NODE_FAIL", "TIMEOUT", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL",
                           "DEADLINE", "REQUEUED"})


@dataclass(frozen=True, slots=True)
class Segment:
    state: S
    start: datetime
    end: datetime
    weight: Decimal = Decimal(1)  # the share of the run's GPUs in this state over [start, end)

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()

    @property
    def exact_seconds(self) -> Decimal:
        return exact_seconds(self.start, self.end)


def exact_seconds(a: datetime, b: datetime) -> Decimal:
    """``b - a`` in seconds, exactly (microsecond resolution, no float): hours must conserve."""
    return Decimal((b - a) // timedelta(microseconds=1)) / 1_000_000


def _flatten(window: tuple[datetime, datetime], layers: Iterable[tuple[int, S, datetime, datetime]]) -> list[Segment]:
    lo, hi = window
    spans = [(p, s, max(a, lo), min(b, hi)) for p, s, a, b in layers]
    spans = [x for x in spans if x[2] < x[3]]
    cuts = sorted({lo, hi, *(x[2] for x in spans), *(x[3] for x in spans)})
    out: list[Segment] = []
    for a, b in zip(cuts, cuts[1:], strict=False):
        covering = [x for x in spans if x[2] <= a and x[3] >= b]
        state = max(covering, key=lambda x: x[0])[1] if covering else S.UNCLASSIFIED
        if out and out[-1].state == state and out[-1].end == a:
            out[-1] = Segment(state, out[-1].start, b)
        else:
            out.append(Segment(state, a, b))
    return out


def _lost_from(steps: list[Mapping], ckpts: list[Mapping], first: datetime) -> datetime | None:
    """When the work a failed run will redo began: the last step sample at or below the highest
    saved step (a checkpoint may finish after the last step sample: it still saved that step).
    None when everything was saved."""
    top = max((e.get("step") or 0) for e in steps)
    saved_steps = []
    for c in ckpts:
        step = c.get("step")
        if step is None:  # a save without a step number saved what had been reached by then
            before = [e.get("step") or 0 for e in steps if e["ts"] <= c["ts"]]
            step = max(before) if before else None
        if step is not None:
            saved_steps.append(step)
    if not saved_steps:
        return first
    saved = max(saved_steps)
    if top <= saved:
        return None
    reached = [e["ts"] for e in steps if (e.get("step") or 0) <= saved]
    return reached[-1] if reached else first


def classify(
    start: datetime | None,
    end: datetime | None,
    state: str,
    events: list[Mapping],
    *,
    after_preemption: bool = False,
    stale_gap: timedelta = timedelta(minutes=15),
    extra_layers: Iterable[tuple[S, datetime, datetime]] = (),
    straggler_share: Decimal | None = None,
) -> list[Segment]:
    """Segments covering [start, end) exactly, in time order (weights sum to 1 at every instant).
    Empty when the job never ran.

    ``extra_layers``: windows (state, start, end) another analysis found, laid over the effective
    span with the priority of checkpoint and data_stall. ``straggler_share`` (``STRAGGLER_HOOK``,
    0 ≤ s ≤ 1): the measured share of worker time spent waiting at the iteration barrier, carved
    out of every effective segment. The timeline never guesses either."""
    if start is None or end is None or end <= start:
        return []
    window = (start, end)
    events = sorted(events, key=lambda e: e["ts"])
    progress = [e for e in events if e["event"] in ("step", "resume")]
    if not progress:
        return [Segment(S.UNCLASSIFIED, start, end)]
    failed = state.upper() in FAILED_STATES
    first, last = progress[0]["ts"], progress[-1]["ts"]
    layers: list[tuple[int, S, datetime, datetime]] = []
    layers.append((1, S.PREEMPTION_RECOVERY if after_preemption else S.SETUP, start, first))
    steps = [e for e in events if e["event"] == "step"]
    ckpts = [e for e in events if e["event"] == "checkpoint_saved"]
    # effective span, with failed-run progress past the last saved step marked lost
    lost_from = None
    if failed and steps:
        lost_from = _lost_from(steps, ckpts, first)
    layers.append((1, S.EFFECTIVE, first, lost_from or last))
    if lost_from is not None:
        layers.append((1, S.LOST_PROGRESS, lost_from, last))
    # after the last progress sample
    end_ev = next((e["ts"] for e in reversed(events) if e["event"] == "end"), None)
    if end_ev is not None and end_ev >= last:
        layers.append((1, S.UNCLASSIFIED, last, end_ev))
        layers.append((1, S.ALLOCATED_IDLE, end_ev, end))
    elif failed:
        layers.append((1, S.HANG, last, end))
    else:
        layers.append((1, S.UNCLASSIFIED, last, end))
    # stale gaps between step samples
    if len(steps) >= 3:
        gaps = [(b["ts"] - a["ts"]) for a, b in zip(steps, steps[1:], strict=False)]
        typical = timedelta(seconds=statistics.median(g.total_seconds() for g in gaps))
        limit = max(stale_gap, 3 * typical)
        for a, b, g in zip(steps, steps[1:], gaps, strict=False):
            if g > limit:
                layers.append((2, S.HANG, a["ts"] + typical, b["ts"]))
    for state_, a, b in extra_layers:
        layers.append((3, S(state_), a, b))
    for e in events:
        dur = e.get("duration_s")
        if dur is None:
            continue
        span = (e["ts"] - timedelta(seconds=float(dur)), e["ts"])
        if e["event"] == "checkpoint_saved":
            layers.append((3, S.CHECKPOINT, *span))
        elif e["event"] == "data_wait":
            layers.append((3, S.DATA_STALL, *span))
    return carve_straggler_wait(_flatten(window, layers), straggler_share)


def carve_straggler_wait(segments: list[Segment], share: Decimal | None) -> list[Segment]:
    """Each effective segment as effective (weight 1 − share) and straggler_wait (weight share)."""
    if not share:
        return segments
    if not Decimal(0) <= share <= 1:
        raise ValueError(f"straggler share {share} is not between 0 and 1")
    out: list[Segment] = []
    for seg in segments:
        if seg.state is S.EFFECTIVE:
            if share < 1:
                out.append(Segment(S.EFFECTIVE, seg.start, seg.end, seg.weight * (1 - share)))
            out.append(Segment(S.STRAGGLER_WAIT, seg.start, seg.end, seg.weight * share))
        else:
            out.append(seg)
    return out
