"""A rate card's cost per run is the rate × its GPU-hours, to the cent (review findings G3, K2).

The capacity stage splits its cost per node and day like a bill row (``compute.node_split``): each
row's amount goes by largest remainder to the runs that held the node and to the time no job held.
Over thousands of rows the cents drift, so a run's total strayed from rate × GPU-hours by a cent or
more, both ways. For a rate card the exact figure is known: each held line is worth
``price × GPU-hours`` (GPU-hours to 1e-12, undoing the 28-digit quotient; the row's price: the
card's, or the price-book entry of that day). So per capacity:

* each **group** — a run (with a batch or without), or the time the occupancy series says jobs not
  imported held (capacity_occupancy.py) — gets T = Σ price × GPU-hours of its lines, rounded
  half-even to the currency's minor unit, spread over its lines by that exact value
  (``model.allocate``: the lines sum to T exactly). A batch is the sum of its runs (so within half a
  cent per run of rate × the batch's GPU-hours);
* the time **no job held** takes the remainder, capacity total − Σ T, spread over its lines by their
  amounts — only the remainder is apportioned, so attributed + unheld + jobs without a batch = the
  capacity's total, exactly, as before.

When that remainder cannot be taken — no time is unheld (a fully held capacity), or the runs' rounding
up exceeds what was unheld — the total is apportioned over the groups (and the unheld time, if any) by
largest remainder of their exact values: each within a cent of its T, the sum exact. When jobs held
more than the capacity (``pool_oversubscribed``: Σ price × hours beyond the cost, with unheld time
elsewhere, or beyond a cent per group) the row split stands. GPU-hours are untouched. Amortised
capacity keeps the row split (its price carries 4 decimals). The stage is the same for both engines
(the frame engine splits bills only), so python / duckdb parity is kept.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.model import CostLine
from trainledger.model.money import AmountRange, allocate, minor_quantum

UNHELD = "capacity_unheld"
OCC_HELD = "occupancy_held"  # capacity_occupancy.OCC_HELD: one group, priced like a job
HOURS = Decimal("1e-12")  # a line's GPU-hours are a 28-digit quotient: 17.7699…9 is 17.77 GPU-hours


def _set(ln: CostLine, amount: Decimal) -> CostLine:
    cur = ln.amount.currency
    return replace(ln, amount=AmountRange(amount, amount, amount, cur))


def _group(ln: CostLine) -> str | None:
    if ln.quantity is None or str(ln.reason or "").startswith(UNHELD):
        return None
    if str(ln.reason or "").startswith(OCC_HELD):  # held by jobs not imported (capacity_occupancy.py)
        return "occupancy"
    return f"run:{ln.run_id}"  # the unit a rate card charges (K2); a batch is the sum of its runs


def exact_rate_card(lines: list[CostLine], price_of_row: dict[int, Decimal], currency: str) -> list[CostLine]:
    """``lines`` of one rate-card capacity with each group at price × GPU-hours (see the module)."""
    q = minor_quantum(currency)
    total = sum((ln.amount.expected for ln in lines), Decimal(0))
    groups: dict[str, list[int]] = {}
    unheld: list[int] = []
    exact: dict[int, Decimal] = {}
    for i, ln in enumerate(lines):
        g = _group(ln)
        if g is None:
            unheld.append(i)
            continue
        groups.setdefault(g, []).append(i)
        exact[i] = price_of_row[ln.provenance.row] * ln.quantity.quantize(HOURS)  # GPU-s / 3600: 28 digits
    if not groups:
        return lines
    names = sorted(groups)
    worth = {g: sum((exact[i] for i in groups[g]), Decimal(0)) for g in names}
    target = {g: worth[g].quantize(q, ROUND_HALF_EVEN) for g in names}
    rest = total - sum(target.values(), Decimal(0))
    unheld_amounts = [lines[i].amount.expected for i in unheld]
    free = any(unheld_amounts)  # unheld time with money: it can take a remainder >= 0
    if rest < 0 or (rest > 0 and not free):  # the rounded runs do not fit: largest remainder of the total
        over = sum(worth.values(), Decimal(0)) - total  # what the runs' exact worth exceeds the capacity by
        if over > 0 and (free or over > q * len(names)):
            return lines  # held beyond the capacity (pool_oversubscribed): the row split stands
        if not any(worth.values()):
            return lines
        weights = [worth[g] for g in names] + ([-over] if free else [])
        shares = allocate(total, weights, currency)
        target = dict(zip(names, shares, strict=False))
        rest = shares[-1] if free else Decimal(0)
    out = list(lines)
    for g in names:
        idx = groups[g]
        weights = [exact[i] for i in idx]
        shares = allocate(target[g], weights, currency) if any(weights) else [target[g]] + [Decimal(0)] * (len(idx) - 1)
        for i, s in zip(idx, shares, strict=True):
            out[i] = _set(lines[i], s)
    if unheld:
        weights = unheld_amounts if any(unheld_amounts) else [Decimal(1)] * len(unheld)
        for i, s in zip(unheld, allocate(rest, weights, currency), strict=True):
            out[i] = _set(lines[i], s)
    return out
