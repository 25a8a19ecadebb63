"""An occupancy series against a pool's imported jobs (review finding G23).

A pool capacity (``[[capacity]] cluster = NAME``) is split by the runs of its cluster: GPU time no
imported job holds is ``capacity_unheld``. When the cluster's own occupancy series (``trainledger
import occupancy``) says more GPUs were running than the imported jobs hold — no job list imported,
or only part of it — that unheld figure is overstated. ``attribute`` then reports
``occupancy_jobs_missing`` per pool: the series' running and idle GPU-hours over the pool's period,
the GPU-hours the imported jobs hold, and the difference (GPU time held by jobs not imported). The
money is not moved: the remedy is to import the cluster's jobs.

A VC pool compares its VC's series; a cluster's pool the series of its VCs no VC pool prices.
A gap under 1 % of the series' running hours (and under one GPU-hour) is not reported.
"""

from __future__ import annotations

from decimal import Decimal

from trainledger.engine.context import Problem

SHARE = Decimal("0.01")
Q = Decimal("0.01")


def occupancy_problems(lake, caps, records: list[dict]) -> list[Problem]:
    """``occupancy_jobs_missing`` for each pool of ``caps`` (engine.capacity.Capacity) whose
    occupancy series shows more GPU-hours running than the pool's capacity record says were held."""
    from trainledger.analysis.occupancy import occupancy_summary

    pools = [c for c in caps if c.pool]
    if not pools:
        return []
    held_of = {r["capacity"]: Decimal(r.get("gpu_hours", {}).get("held", "0")) for r in records}
    vc_pooled = {(c.pool, c.vc) for c in pools if c.vc}
    out = []
    for cap in pools:
        series = [s for s in occupancy_summary(lake, since=cap.start, until=cap.end)
                  if s.unit == "gpu" and s.cluster == cap.pool
                  and (s.vc == cap.vc if cap.vc else (cap.pool, s.vc) not in vc_pooled)]
        running = sum((s.running_hours or Decimal(0) for s in series), Decimal(0))
        if not series or running <= 0:
            continue
        idle = sum((s.idle_hours or Decimal(0) for s in series), Decimal(0))
        held = held_of.get(cap.id, Decimal(0))
        missing = running - held
        if missing < 1 or missing < running * SHARE:
            continue
        f = lambda x: format(x.quantize(Q), "f")  # noqa: E731
        out.append(Problem(
            "occupancy_jobs_missing",
            f"pool {cap.pool_name} (capacity {cap.id}): its occupancy series shows {f(running)} GPU-hours running"
            f" (idle {f(idle)}) but the imported jobs hold {f(held)}: {f(missing)} GPU-hours were held by jobs"
            " not imported: costed as held, jobs not imported (not as capacity no job held) and in no batch — import"
            " the cluster's job list",
            {"capacity": cap.id, "pool": cap.pool_name, "running": f(running), "idle": f(idle), "held": f(held),
             "missing": f(missing)}))
    return out
