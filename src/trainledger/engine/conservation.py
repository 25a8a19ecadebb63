"""Promise 1: attributed + unattributed cash equals the bill total, exactly, per currency."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal

from trainledger.engine.context import Facts, Problem
from trainledger.model import CASH_BASES, CostLine
from trainledger.model.money import minor_quantum


def bill_totals(facts: Facts) -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    for row in facts.bill_lines:
        if row.get("billed_cost") is not None:
            totals[row["currency"]] += Decimal(row["billed_cost"])
    for row in facts.external_services:
        totals[row["currency"]] += Decimal(str(row["amount"]))
    return dict(totals)


def check(facts: Facts, lines: Iterable[CostLine]) -> tuple[list[dict], list[Problem]]:
    """One record per currency, as the ``attribute --json`` contract prints it, and the problems."""
    totals = bill_totals(facts)
    attributed: dict[str, Decimal] = defaultdict(Decimal)
    unattributed: dict[str, Decimal] = defaultdict(Decimal)
    for line in lines:
        if line.basis not in CASH_BASES:
            continue
        bucket = attributed if line.batch_id else unattributed
        bucket[line.currency] += line.amount.expected
    records, problems = [], []
    for cur in sorted(set(totals) | set(attributed) | set(unattributed)):
        zero = Decimal(0).quantize(minor_quantum(cur))  # "0.00", not "0": amounts keep the currency's scale
        total = totals.get(cur, zero) + zero
        a, u = attributed.get(cur, zero) + zero, unattributed.get(cur, zero) + zero
        diff = total - a - u
        records.append({"currency": cur, "billed_total": str(total), "attributed": str(a),
                        "unattributed": str(u), "difference": str(diff)})
        if diff != 0:
            side = "too little" if diff > 0 else "too much"
            problems.append(Problem("conservation", f"{cur}: bills total {total} but cost lines carry {a + u}"
                                    f" ({side} attributed by {abs(diff)})", records[-1]))
    return records, problems
