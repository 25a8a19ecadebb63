"""Synchronous-barrier waiting of distributed jobs, from per-worker step times.

In synchronous data-parallel training every worker waits at the end of each iteration for the
slowest one (the all-reduce barrier). For one iteration with step times t_w of n workers, worker
w waits max(t) − t_w, and the iteration holds n · max(t) worker-time. Over a job:

    waiting share = Σ_iterations Σ_w (max(t) − t_w)  /  Σ_iterations n · max(t)

Only iterations in which every worker of the job has a time count (``complete``); the others
are counted in ``incomplete`` and left out (a worker's missing time says nothing of its wait).
A job's workers are all the workers any row of it names. A (job, worker, iteration) imported
twice counts once: the later import wins. The share is a ratio, so a step-time scale without
offset (PAI's normalised 0–1000) gives the same share as seconds would.

``barrier_shares(rows)`` is the same computation in exact decimals over lake rows, for the
engine: the share of each job (rounded half-even to ``SHARE_QUANTUM`` once) becomes the compute
state ``straggler_wait`` carved out of the run's effective time (engine/timeline.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from trainledger.lake import Lake

COLUMNS = ("job", "worker", "iteration", "step_time", "unit")
SHARE_QUANTUM = Decimal("0.000001")  # the engine's straggler share, as the summary rounds it: exact decimal


@dataclass(frozen=True, slots=True)
class StragglerSummary:
    job: str
    unit: str
    workers: int
    complete: int  # iterations with every worker's time
    incomplete: int
    worker_time: float  # Σ n · max(t), in ``unit``
    waiting: float  # Σ (max(t) − t_w), in ``unit``
    share: float | None  # waiting / worker_time
    slowest: tuple[tuple[str, int], ...]  # the workers most often slowest, with their counts

    def as_json(self) -> dict[str, Any]:
        return {
            "job": self.job,
            "unit": self.unit,
            "workers": self.workers,
            "iterations": {"complete": self.complete, "incomplete": self.incomplete},
            "worker_time": self.worker_time,
            "waiting": self.waiting,
            "waiting_share": self.share,
            "most_often_slowest": [{"worker": w, "iterations": n} for w, n in self.slowest],
        }


def _read(lake: Lake) -> pa.Table | None:
    parts = [pq.read_table(p, columns=list(COLUMNS)).replace_schema_metadata(None)
             for p in lake.partitions("worker_steps")]  # fmt: skip
    return pa.concat_tables(parts) if parts else None


def barrier_wait(lake: Lake, job: str | None = None) -> tuple[StragglerSummary, ...]:
    t = _read(lake)
    if t is None:
        return ()
    if job is not None:
        t = t.filter(pc.equal(t["job"], job))
    out = []
    for name in sorted(set(t["job"].to_pylist())):
        out.append(_one(t.filter(pc.equal(t["job"], name)), name))
    return tuple(out)


def _one(t: pa.Table, job: str) -> StragglerSummary:
    workers = pc.dictionary_encode(t["worker"]).combine_chunks()
    w, names = workers.indices.to_numpy(), workers.dictionary.to_pylist()
    it = t["iteration"].to_numpy()
    times = pc.cast(t["step_time"], pa.float64()).to_numpy()
    pos = np.arange(t.num_rows)
    order = np.lexsort((pos, w, it))  # by iteration, then worker; the later import last
    w, it, times = w[order], it[order], times[order]
    last = np.ones(len(w), dtype=bool)
    last[:-1] = (it[1:] != it[:-1]) | (w[1:] != w[:-1])
    w, it, times = w[last], it[last], times[last]
    n = len(names)
    starts = np.flatnonzero(np.r_[True, it[1:] != it[:-1]])
    counts = np.diff(np.r_[starts, len(it)])
    slowest_t = np.maximum.reduceat(times, starts)
    total_t = np.add.reduceat(times, starts)
    full = counts == n
    worker_time = float((n * slowest_t[full]).sum())
    waiting = float((n * slowest_t[full] - total_t[full]).sum())
    slow = Counter()
    for s, c, m in zip(starts[full], counts[full], slowest_t[full], strict=True):
        for k in np.flatnonzero(times[s : s + c] == m):
            slow[names[w[s + k]]] += 1
    return StragglerSummary(
        job=job, unit=str(t["unit"][0]), workers=n, complete=int(full.sum()),
        incomplete=int((~full).sum()), worker_time=worker_time, waiting=waiting,
        share=round(waiting / worker_time, 6) if worker_time else None,
        slowest=tuple(sorted(slow.items(), key=lambda x: (-x[1], x[0]))[:3]),
    )  # fmt: skip


def barrier_waiting(rows: Iterable[Mapping[str, Any]]) -> dict[str, tuple[Decimal, Decimal]]:
    """job → (waiting, worker time), exact decimals in the rows' unit, from ``worker_steps`` rows
    in import order (a later row of the same job, worker and iteration replaces an earlier one)."""
    times: dict[str, dict[int, dict[str, Decimal]]] = {}
    workers: dict[str, set[str]] = {}
    for r in rows:
        job, worker = str(r["job"]), str(r["worker"])
        workers.setdefault(job, set()).add(worker)
        times.setdefault(job, {}).setdefault(int(r["iteration"]), {})[worker] = Decimal(str(r["step_time"]))
    out = {}
    for job, by_iteration in times.items():
        n = len(workers[job])
        waiting = worker_time = Decimal(0)
        for ts in by_iteration.values():
            if len(ts) == n:
                slowest = max(ts.values())
                worker_time += n * slowest
                waiting += n * slowest - sum(ts.values(), Decimal(0))
        out[job] = (waiting, worker_time)
    return out


def barrier_shares(rows: Iterable[Mapping[str, Any]]) -> dict[str, Decimal]:
    """job → waiting share of worker time (``SHARE_QUANTUM``), for jobs with a complete iteration."""
    return {job: (w / t).quantize(SHARE_QUANTUM, ROUND_HALF_EVEN)
            for job, (w, t) in barrier_waiting(rows).items() if t > 0}
