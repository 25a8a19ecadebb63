"""Runs that hold a capacity's nodes (or its pool) outside the capacity's period (review finding G1).

A capacity is costed only inside ``from`` → ``until`` (engine/capacity.py): a run on its nodes
before or after that is on no bill and in no capacity — not valued. A typo in the period would
silently turn the cluster into idle cost and every batch into zero, so the stage reports
``capacity_period_misses_runs``: the capacity, its pool or nodes, its period, how many runs hold it
outside the period (a few named) and the GPU-hours they hold there. The time after the
attribution's cutoff is not "outside": it is not attributed yet.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from trainledger.engine.context import Problem

EXAMPLES = 3


def _outside(a: datetime, b: datetime, lo: datetime, hi: datetime, cutoff: datetime | None) -> Decimal:
    """Seconds of [a, b) before ``lo`` or at / after ``hi`` (and before ``cutoff``)."""
    if cutoff is not None:
        b = min(b, cutoff)
    secs = Decimal(0)
    if a < lo:
        secs += Decimal(str((min(b, lo) - a).total_seconds()))
    if b > hi:
        secs += Decimal(str((b - max(a, hi)).total_seconds()))
    return max(secs, Decimal(0))


def period_problems(cap, runs, cutoff: datetime | None) -> list[Problem]:
    """``capacity_period_misses_runs`` for ``cap`` over the placed ``runs`` (RunInfo), or none."""
    mine = set(cap.nodes)
    ids, gpu_seconds = [], Decimal(0)
    for info in runs:
        shared = mine.intersection(info.nodes)
        if not shared or not info.segments or info.run.gpu_equivalents <= 0:
            continue
        gpus = info.run.gpu_equivalents * Decimal(len(shared)) / Decimal(len(info.nodes))
        held = sum((gpus * Decimal(str(seg.weight)) * _outside(seg.start, seg.end, cap.start, cap.end, cutoff)
                    for seg in info.segments), Decimal(0))
        if held > 0:
            ids.append(str(info.run.id))
            gpu_seconds += held
    if not ids:
        return []
    ids.sort()
    shown = ", ".join(ids[:EXAMPLES]) + (", …" if len(ids) > EXAMPLES else "")
    where = ", ".join(cap.nodes)  # a pool's pseudo-node names it: pool:openb, pool:helios/vc6YE
    hours = format((gpu_seconds / 3600).quantize(Decimal("0.01")), "f")
    period = f"{cap.start.isoformat()} → {cap.end.isoformat()}"
    return [Problem("capacity_period_misses_runs",
                    f"capacity {cap.id} ({where}): {len(ids)} run(s) hold it outside its period {period}"
                    f" ({shown}): {hours} GPU-hours there are not valued — check the capacity's from / until",
                    {"capacity": cap.id, "where": where, "runs": len(ids), "examples": shown, "period": period,
                     "gpu_hours": hours})]
