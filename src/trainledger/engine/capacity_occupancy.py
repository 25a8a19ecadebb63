"""A pool's occupancy series moves money: held by jobs not imported vs capacity no job held (G23).

A pool capacity (``[[capacity]] cluster = NAME``, optionally ``vc``) is split per day by the runs of
its imported jobs (engine/capacity.py); the GPU time no imported job holds was all "capacity no job
held". When the cluster's occupancy series is imported (``trainledger import occupancy``: running,
idle and pending GPUs per sample), each day's unheld part is split again, by the series::

    R = Σ running × Δt of the samples in the day     (GPU-hours some job held, imported or not)
    H = the GPU-hours the imported jobs hold that day  (the day's held lines)
    N = min(max(R − H, 0), U)                          held by jobs not imported
    U − N                                              capacity no job held (idle by the series)

where U is the day's unheld GPU-hours. N becomes its own line, reason ``occupancy_held`` and state
``held_not_imported`` ("held, jobs not imported"), no batch; the unheld line keeps the rest. The
day's unheld money is split between the two by GPU-hours, largest remainder (``model.allocate``),
so the pool's total still equals attributed + job without a batch + held, jobs not imported +
unheld, to the cent, and the hours conserve (each line's quantity is its exact share). A rate card
then prices the held-not-imported part at rate × GPU-hours like a job (capacity_exact.py): with a
series that states the pool's GPUs, the idle money is rate × the series' idle GPU-hours.

Days the series does not cover stay as they were (no sample: nothing to say); a day it covers in
part compares the covered running hours with the whole day's held hours (conservative: the rest
stays no job held). Only ``unit = gpu`` series count. A VC pool reads its VC's series; a cluster's
pool the series of the VCs no VC pool prices, summed per sample. A sample imported twice counts
once: the later import wins (as ``trainledger occupancy``).

**Demand left waiting while capacity was idle** (``waiting``): Σ min(pending, idle) × Δt — the
pending GPUs that idle GPUs could have served, sample by sample (the same figure as ``trainledger
occupancy``'s ``pending_while_idle``); beside it ``pending_idle``, Σ pending × Δt over the samples
with some GPU idle (an upper bound: jobs that wait for whole nodes or co-located GPUs could not all
have fit). Both are valued at the pool's price per GPU-hour as an **opportunity cost**: reported
beside the capacity's cost, never a cost line and never added to any total.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from decimal import Decimal

from trainledger.model import CostLine
from trainledger.model.money import AmountRange, allocate

OCC_HELD = "occupancy_held"  # the reason code of GPU time held by jobs not imported (by the series)
HELD_STATE = "held_not_imported"  # its compute state ("held, jobs not imported")
UNHELD = "capacity_unheld"
HOUR = Decimal(3600)


@dataclass(frozen=True)
class Series:
    """One pool's samples, summed per instant: prefix sums of GPU-seconds for windows."""

    ts: tuple[datetime, ...]
    running: tuple[int, ...]  # prefix sums (GPU-seconds), len(ts) + 1
    idle: tuple[int, ...]
    waiting: tuple[int, ...]  # min(pending, idle): what the idle GPUs could have served
    pending_idle: tuple[int, ...]  # all pending while some GPU was idle
    pending_known: bool

    def window(self, a: datetime, b: datetime) -> tuple[Decimal, Decimal, Decimal, Decimal, int]:
        """(running, idle, waiting, pending_idle) GPU-hours and the number of samples with ``a <= ts < b``."""
        i, j = bisect_left(self.ts, a), bisect_left(self.ts, b)
        h = lambda p: Decimal(p[j] - p[i]) / HOUR  # noqa: E731
        return h(self.running), h(self.idle), h(self.waiting), h(self.pending_idle), j - i


def _utc(ts: datetime) -> datetime:
    return ts if ts.tzinfo is not None else ts.replace(tzinfo=UTC)


def series_of(cap, rows: Iterable[Mapping], vc_pooled: set[tuple[str, str]]) -> Series | None:
    """The pool ``cap``'s series from the occupancy rows (None when it has none)."""
    if not cap.pool:
        return None
    last: dict[tuple[str, datetime], Mapping] = {}
    for r in rows:
        if r.get("unit") != "gpu" or r.get("cluster") != cap.pool:
            continue
        vc = str(r.get("vc") or "")
        if (vc != cap.vc) if cap.vc else ((cap.pool, vc) in vc_pooled):
            continue
        last[(vc, _utc(r["ts"]))] = r  # the later import of a sample wins
    if not last:
        return None
    per: dict[datetime, list[int]] = {}
    known = False
    for (_vc, ts), r in last.items():
        secs = int(r.get("interval_s") or 0)
        run, idle, pend = r.get("running"), r.get("idle"), r.get("pending")
        acc = per.setdefault(ts, [0, 0, 0, 0])
        acc[0] += int(run or 0) * secs
        acc[1] += int(idle or 0) * secs
        if pend is not None and idle is not None:
            known = True
            acc[2] += min(int(pend), int(idle)) * secs
            acc[3] += int(pend) * secs if int(idle) > 0 else 0
    order = sorted(per)
    sums: list[list[int]] = [[0], [0], [0], [0]]
    for ts in order:
        for k in range(4):
            sums[k].append(sums[k][-1] + per[ts][k])
    return Series(tuple(order), *(tuple(x) for x in sums), known)


def vc_pooled(caps) -> set[tuple[str, str]]:
    return {(c.pool, c.vc) for c in caps if c.pool and c.vc}


def _set(ln: CostLine, amount: Decimal, quantity: Decimal, **kw) -> CostLine:
    return replace(ln, amount=AmountRange(amount, amount, amount, ln.amount.currency), quantity=quantity, **kw)


def split_row(lines: list[CostLine], series: Series | None, row: Mapping, pool_name: str) -> list[CostLine]:
    """One capacity row's lines (``node_split``) with its unheld line split by the series (module)."""
    if series is None:
        return lines
    running, _idle, _waiting, _pending, n = series.window(row["charge_period_start"], row["charge_period_end"])
    if n == 0 or running <= 0:
        return lines
    unheld = [i for i, ln in enumerate(lines) if ln.quantity is not None and ln.batch_id is None
              and str(ln.reason).startswith(UNHELD)]
    if len(unheld) != 1:
        return lines
    (u,) = unheld
    held = sum((ln.quantity for i, ln in enumerate(lines) if i != u and ln.quantity is not None), Decimal(0))
    idle_line = lines[u]
    total_u = idle_line.quantity
    n_hours = min(max(running - held, Decimal(0)), total_u)
    if n_hours <= 0:
        return lines
    rest = total_u - n_hours
    amount = idle_line.amount.expected
    a_held, a_idle = allocate(amount, [n_hours, rest], idle_line.amount.currency) if amount else (amount, amount)
    prov = replace(idle_line.provenance, rule="occupancy_series/held_not_imported")
    held_line = _set(idle_line, a_held, n_hours, detail=HELD_STATE, provenance=prov,
                     reason=f"{OCC_HELD}: pool {pool_name}")
    out = [ln for i, ln in enumerate(lines) if i != u] + [held_line]
    if rest > 0 or a_idle != 0:
        out.append(_set(idle_line, a_idle, rest))
    return out


def figures(series: Series | None, rows: Iterable[tuple[Mapping, Decimal]]) -> dict[str, Decimal] | None:
    """Over a capacity's (row, price per GPU-hour) pairs: the series' running / idle / waiting /
    pending_idle GPU-hours inside the rows and the waiting and pending_idle hours' value at each row's price
    (unrounded); None without a series."""
    if series is None:
        return None
    keys = ("running", "idle", "waiting", "pending_idle", "waiting_value", "pending_idle_value", "samples")
    acc = dict.fromkeys(keys, Decimal(0))
    for row, price in rows:
        r, i, w, pi, n = series.window(row["charge_period_start"], row["charge_period_end"])
        acc["running"] += r
        acc["idle"] += i
        acc["waiting"] += w
        acc["pending_idle"] += pi
        acc["waiting_value"] += w * price
        acc["pending_idle_value"] += pi * price
        acc["samples"] += n
    acc["pending_known"] = Decimal(int(series.pending_known))
    return acc
