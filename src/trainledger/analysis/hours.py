"""Exact hours from exact seconds, rounded so that the parts add up to the rounded total."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import ROUND_HALF_EVEN, Decimal

HOUR = Decimal(3600)
PLACES = Decimal("0.000001")  # a micro-hour: 3.6 ms of one GPU


def hours(seconds: Decimal) -> Decimal:
    return (seconds / HOUR).quantize(PLACES, rounding=ROUND_HALF_EVEN)


def split_hours(parts: Mapping[str, Decimal]) -> tuple[Decimal, dict[str, Decimal]]:
    """(total hours, hours per part) rounded to ``PLACES``; the parts add up to the total exactly
    (largest remainder: the units lost by rounding each part down go to the parts that lost most,
    ties by name)."""
    exact = {k: v / HOUR for k, v in parts.items()}
    total = hours(sum(parts.values(), Decimal(0)))
    down = {k: (v / PLACES).to_integral_value(rounding="ROUND_FLOOR") for k, v in exact.items()}
    short = int(total / PLACES) - int(sum(down.values(), Decimal(0)))
    order = sorted(exact, key=lambda k: (-(exact[k] / PLACES - down[k]), k))
    for k in order[: max(short, 0)]:
        down[k] += 1
    return total, {k: (down[k] * PLACES).quantize(PLACES) for k in sorted(down)}
