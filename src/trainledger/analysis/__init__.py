"""Analysis: summaries of lake tables that stand on their own (no ledger, no attribution).

    lake partitions ─► columns only (pyarrow) ─► numpy ─► frozen summary records ─► CLI / engine

    jobs.py        ``trainledger jobs``: jobs, attempts, never started, queue percentiles,
                   GPU-hours by final state (fractional GPUs pro rata, exact)
    occupancy.py   ``trainledger occupancy``: idle GPU-hours, and demand left pending while
                   capacity was idle, per cluster / virtual cluster
    occupancy_check.py  a pool's occupancy series against the GPU-hours its imported jobs hold
                   (``occupancy_jobs_missing`` at attribution: jobs not imported; the money moves
                   in engine/capacity_occupancy.py)
    stragglers.py  synchronous-barrier waiting of distributed jobs from per-worker step times
    hours.py       exact seconds → hours whose parts add to their total (largest remainder)

Each reads only the columns it needs, partition by partition, so memory grows with the rows'
numbers, not their text.
"""

from __future__ import annotations

from trainledger.analysis.jobs import JobSummary, job_summary
from trainledger.analysis.occupancy import OccupancySummary, occupancy_summary
from trainledger.analysis.stragglers import StragglerSummary, barrier_wait

__all__ = [
    "JobSummary",
    "OccupancySummary",
    "StragglerSummary",
    "barrier_wait",
    "job_summary",
    "occupancy_summary",
]
