"""``trainledger occupancy``: what an occupancy series says about capacity no job held.

Per (cluster, vc, unit) — unit is ``gpu`` or ``node`` — each sample stands for ``interval_s``
seconds. Hours are unit-hours (GPU-hours or node-hours), exact:

- ``capacity`` Σ total · Δt, ``running`` Σ running · Δt, ``idle`` Σ idle · Δt (capacity no job
  held), ``pending`` Σ pending · Δt (demand waiting; null when the series has no pending counts);
- ``pending_while_idle`` Σ min(pending, idle) · Δt: demand left waiting while that much capacity
  stood idle — an upper bound on what a scheduler without fragmentation or quota limits could
  have run (jobs need whole nodes or co-located GPUs, so not all of it could have fit);
- ``gaps``: consecutive samples further apart than their interval (time the series does not
  cover: it is in no figure).

A sample imported twice (overlapping exports with different numbers) counts once: the later
import wins. ``since`` / ``until`` (UTC datetimes) restrict the samples, for the engine's windows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from trainledger.analysis.hours import hours

if TYPE_CHECKING:
    from trainledger.lake import Lake

COLUMNS = ("ts", "interval_s", "cluster", "vc", "unit", "total", "running", "pending", "idle")


@dataclass(frozen=True, slots=True)
class OccupancySummary:
    cluster: str
    vc: str
    unit: str
    samples: int
    first: datetime
    last: datetime
    covered_hours: Decimal
    gaps: int
    capacity_hours: Decimal | None
    running_hours: Decimal | None
    idle_hours: Decimal | None
    pending_hours: Decimal | None
    pending_while_idle_hours: Decimal | None
    samples_pending_while_idle: int

    def as_json(self) -> dict[str, Any]:
        def d(x: Decimal | None) -> str | None:
            return None if x is None else str(x)

        return {
            "cluster": self.cluster,
            "vc": self.vc,
            "unit": self.unit,
            "samples": self.samples,
            "first": self.first.isoformat(),
            "last": self.last.isoformat(),
            "covered_hours": d(self.covered_hours),
            "gaps": self.gaps,
            f"{self.unit}_hours": {
                "capacity": d(self.capacity_hours),
                "running": d(self.running_hours),
                "idle": d(self.idle_hours),
                "pending": d(self.pending_hours),
                "pending_while_idle": d(self.pending_while_idle_hours),
            },
            "samples_pending_while_idle": self.samples_pending_while_idle,
        }


def _read(lake: Lake) -> pa.Table | None:
    parts = [pq.read_table(p, columns=list(COLUMNS)).replace_schema_metadata(None)
             for p in lake.partitions("occupancy")]  # fmt: skip
    return pa.concat_tables(parts) if parts else None


def _unit_hours(counts: pa.ChunkedArray, seconds: np.ndarray) -> Decimal | None:
    """Σ count · Δt as exact hours; None when no sample has the count."""
    known = pc.is_valid(counts).to_numpy(zero_copy_only=False)
    if not known.any():
        return None
    c = pc.fill_null(counts, 0).to_numpy().astype(np.int64)
    return hours(Decimal(int((c * seconds).sum())))


def occupancy_summary(
    lake: Lake, since: datetime | None = None, until: datetime | None = None
) -> tuple[OccupancySummary, ...]:
    t = _read(lake)
    if t is None or not t.num_rows:
        return ()
    if since is not None:
        t = t.filter(pc.greater_equal(t["ts"], pa.scalar(since, pa.timestamp("us", tz="UTC"))))
    if until is not None:
        t = t.filter(pc.less(t["ts"], pa.scalar(until, pa.timestamp("us", tz="UTC"))))
    if not t.num_rows:
        return ()
    key = pc.binary_join_element_wise(t["cluster"], t["vc"], t["unit"], "\x1f")
    series = pc.dictionary_encode(key).combine_chunks()
    sid, names = series.indices.to_numpy(), series.dictionary.to_pylist()
    ts = t["ts"].cast(pa.int64()).to_numpy()
    pos = np.arange(t.num_rows)
    order = np.lexsort((pos, ts, sid))
    last = np.ones(len(order), dtype=bool)  # the later import of a sample wins
    last[:-1] = (sid[order][1:] != sid[order][:-1]) | (ts[order][1:] != ts[order][:-1])
    keep = order[last]
    out = []
    for s in range(len(names)):
        rows = keep[sid[keep] == s]
        if not len(rows):
            continue
        part = t.take(pa.array(rows))
        secs = part["interval_s"].to_numpy().astype(np.int64)
        times = ts[rows]
        gaps = int((np.diff(times) > secs[:-1] * 1_000_000).sum())
        pending, idle = part["pending"], part["idle"]
        both = (pc.is_valid(pending).to_numpy(zero_copy_only=False)
                & pc.is_valid(idle).to_numpy(zero_copy_only=False))  # fmt: skip
        p = pc.fill_null(pending, 0).to_numpy().astype(np.int64)
        i = pc.fill_null(idle, 0).to_numpy().astype(np.int64)
        waiting = np.where(both, np.minimum(p, i), 0)
        cluster, vc, unit = names[s].split("\x1f")
        out.append(OccupancySummary(
            cluster=cluster, vc=vc, unit=unit, samples=len(rows),
            first=part["ts"][0].as_py(), last=part["ts"][-1].as_py(),
            covered_hours=hours(Decimal(int(secs.sum()))), gaps=gaps,
            capacity_hours=_unit_hours(part["total"], secs),
            running_hours=_unit_hours(part["running"], secs),
            idle_hours=_unit_hours(idle, secs),
            pending_hours=_unit_hours(pending, secs),
            pending_while_idle_hours=hours(Decimal(int((waiting * secs).sum()))) if both.any() else None,
            samples_pending_while_idle=int((waiting > 0).sum()),
        ))  # fmt: skip
    return tuple(sorted(out, key=lambda o: (o.cluster, o.vc, o.unit)))
