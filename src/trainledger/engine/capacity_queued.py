"""What a queued GPU-hour of a capacity's job is worth: the capacity's own price (review 5 J11).

Queued time is valued as an opportunity, never cash (``compute.queued_stage``). One price for every
queue — ``[cluster] gpu_item``, typically a cloud H800 rate — values an owned Ascend pool's queue at
the H800's price, four times its amortised cost. So a run that a ``[[capacity]]`` holds (by its
nodes, or its pool: ``capacity_pools.placements``) is valued at, in this order:

1. the capacity's ``queued_rate`` (a price per GPU-hour in its currency), or
2. its ``queued_item`` (a price-book entry, looked up on the attribution's day; stale: used, flagged), or
3. its own price: the rate card's ``rate`` or ``price_item``, or the amortised hardware's price per
   GPU-hour (rounded as capacity.py rounds it).

A run on no capacity (a job that never started names no node; a cloud job) keeps ``gpu_item``. Each
price used is a row of the assumptions drawer naming the capacity, its value and the source of that
value (the capacity's, the price-book entry's, or ``[[capacity]] ID queued_rate``; its note, in the
JSON, says which rule chose it);
its evidence is ``assumed`` whatever the price's own (a rate says what an hour costs, not what
waiting for one is worth), as for ``gpu_item``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainledger.engine.capacity import Capacity, capacities
from trainledger.engine.capacity_pools import placements
from trainledger.engine.context import UNOWNED, Context, Facts, Problem, price_of
from trainledger.model import Assumption, Evidence


@dataclass(frozen=True)
class QueuedPrice:
    """The value of a queued GPU-hour of one capacity's jobs (low, expected, high) and its drawer row."""

    capacity: str
    low: Decimal
    price: Decimal
    high: Decimal
    currency: str
    assumption: Assumption


def _price(cap: Capacity, ctx: Context, problems: list[Problem]) -> QueuedPrice | None:
    """The capacity's queued price, or None when its price-book entry has no price on the day."""
    name = f"value of a queued GPU-hour on capacity {cap.id} (opportunity, not cash)"
    item = cap.queued_item or (cap.price_item if cap.queued_rate is None else "")
    if item:
        # the capacity's own entry is flagged stale day by day by capacity_stage: not twice
        entry = price_of(ctx, item, ctx.as_of, "gpu_hour", problems if cap.queued_item else [])
        if entry is None:
            return None
        why = "queued_item" if cap.queued_item else "the capacity's own price_item"
        row = Assumption(name=name, evidence=Evidence.ASSUMED, source=entry.source,
                         value=str(entry.price) if entry.low == entry.high else None, low=str(entry.low),
                         high=str(entry.high), unit=f"{entry.currency}/gpu_hour",
                         owner=entry.owner or cap.owner or UNOWNED,
                         note=f"{why} {item}; [cluster] gpu_item is not used",
                         value_kind="unit_price")
        return QueuedPrice(cap.id, entry.low, entry.price, entry.high, entry.currency, row)
    if cap.queued_rate is not None:
        price, why, source = cap.queued_rate, "queued_rate", f"[[capacity]] {cap.id} queued_rate"
    else:
        what = "rate card" if cap.basis == "rate_card" else "amortized hardware"
        price, why, source = cap.price_per_gpu_hour, f"the capacity's own price ({what})", cap.source
    row = Assumption(name=name, evidence=Evidence.ASSUMED, source=source,
                     value=str(price), unit=f"{cap.currency}/gpu_hour", owner=cap.owner or UNOWNED,
                     note=f"{why}; [cluster] gpu_item is not used", value_kind="unit_price")
    return QueuedPrice(cap.id, price, price, price, cap.currency, row)


def queued_prices(facts: Facts, ctx: Context, problems: list[Problem]
                  ) -> dict[str, tuple[str, QueuedPrice | None]]:
    """Run id → (the capacity that holds it, its queued price: None when its price-book entry has no
    price then — not valued); runs of no capacity are not in the map."""
    caps = capacities(ctx, facts)
    if not caps:
        return {}
    placed, _ = placements(ctx.runs, caps, facts.jobs)  # a run without nodes: its pool (problems: capacity_stage)
    of_node = {n: cap for cap in caps for n in cap.nodes}
    prices: dict[str, QueuedPrice | None] = {}
    out: dict[str, tuple[str, QueuedPrice | None]] = {}
    for info in placed.values():
        cap = next((of_node[n] for n in info.nodes if n in of_node), None)
        if cap is None:
            continue
        if cap.id not in prices:
            prices[cap.id] = _price(cap, ctx, problems)
        out[info.run.id] = (cap.id, prices[cap.id])
    return out
