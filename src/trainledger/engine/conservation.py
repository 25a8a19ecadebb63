"""Promise 1: attributed + unattributed cash equals the bill total, exactly, per currency.

Each currency record also breaks the unattributed bucket down by reason
(``unattributed_by_reason``: ``[{"reason", "detail", "amount"}]``, largest first, then by reason and
detail), and those amounts sum exactly to ``unattributed``. A line's reason is written
``"<reason>: <detail>"`` by the stage that made it (``reason_of`` reads it back).

Every total here is computed in ``money.EXACT``, which traps ``Inexact``: a "difference 0.00"
means exactly zero, never "zero after rounding to 28 digits". Should a sum ever need rounding,
the check reports an ``inexact_total`` problem instead of a figure it cannot stand behind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from decimal import Decimal, Inexact, localcontext

from trainledger.engine.context import Facts, Problem
from trainledger.model import CASH_BASES, Basis, CostLine
from trainledger.model.money import EXACT, minor_quantum


def _plain(d: Decimal) -> str:
    return format(d.copy_abs() if d.is_zero() else d, "f")


def bill_totals(facts: Facts, column: str = "billed_cost") -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    with localcontext(EXACT):
        for row in facts.bill_lines:
            if row.get(column) is not None:
                totals[row["currency"]] += Decimal(row[column])
        if column == "billed_cost":
            for row in facts.external_services:
                totals[row["currency"]] += Decimal(str(row["amount"]))
    return dict(totals)


def reason_of(line: CostLine) -> tuple[str, str]:
    """(reason code, detail) of an unattributed line: ``"capacity_unheld: node n1"`` →
    ``("capacity_unheld", "node n1")``; a reason without a code is its own code."""
    code, sep, detail = line.reason.partition(": ")
    code = code.strip()
    if not sep or " " in code:
        return line.reason.strip(), ""
    return code, detail.strip()


def by_reason(lines: Iterable[CostLine], currency: str, zero: Decimal) -> list[dict]:
    acc: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for ln in lines:
        if ln.currency == currency:
            acc[reason_of(ln)] += ln.amount.expected
    items = sorted(acc.items(), key=lambda kv: (-abs(kv[1]), kv[0]))
    return [{"reason": r, "detail": d, "amount": _plain(a + zero)} for (r, d), a in items]


def check(facts: Facts, lines: Iterable[CostLine], *, view: str = "billed") -> tuple[list[dict], list[Problem]]:
    """One record per currency, as the ``attribute --json`` contract prints it, and the problems.

    ``view="billed"`` reconciles the cash bases against BilledCost (and invoices);
    ``view="amortized"`` reconciles amortized lines against EffectiveCost."""
    try:
        return _check(facts, lines, view)
    except Inexact:
        return [], [Problem("inexact_total", f"{view}: a total cannot be computed exactly in "
                            f"{EXACT.prec} digits; no conservation figure is shown rather than a rounded one",
                            {"view": view, "digits": EXACT.prec})]


def _check(facts: Facts, lines: Iterable[CostLine], view: str) -> tuple[list[dict], list[Problem]]:
    totals = bill_totals(facts, "billed_cost" if view == "billed" else "effective_cost")
    wanted = CASH_BASES if view == "billed" else (Basis.AMORTIZED,)
    attributed: dict[str, Decimal] = defaultdict(Decimal)
    unattributed: dict[str, Decimal] = defaultdict(Decimal)
    records, problems = [], []
    bucket_lines: list[CostLine] = []
    with localcontext(EXACT):
        for line in lines:
            if line.basis not in wanted or (view != "billed" and line.provenance.source_kind != "focus"):
                continue  # owned capacity's amortized lines reconcile against the capacity (capacity.check)
            bucket = attributed if line.batch_id else unattributed
            bucket[line.currency] += line.amount.expected
            if not line.batch_id:
                bucket_lines.append(line)
        for cur in sorted(set(totals) | set(attributed) | set(unattributed)):
            zero = Decimal(0).quantize(minor_quantum(cur))  # "0.00", not "0": amounts keep the currency's scale
            total = totals.get(cur, zero) + zero
            a, u = attributed.get(cur, zero) + zero, unattributed.get(cur, zero) + zero
            diff = total - a - u
            # plain notation: an exact zero at 11 decimals is "0.00000000000", never "0E-11"
            records.append({"currency": cur, "billed_total": _plain(total), "attributed": _plain(a),
                            "unattributed": _plain(u), "difference": _plain(diff),
                            "unattributed_by_reason": by_reason(bucket_lines, cur, zero)})
            if diff != 0:
                side = "too little" if diff > 0 else "too much"
                problems.append(Problem("conservation", f"{cur} ({view}): bills total {total} but cost lines carry "
                                        f"{a + u} ({side} attributed by {abs(diff)})",
                                        {**records[-1], "subject": f"{cur} ({view})", "carried": str(a + u),
                                         "side": side, "gap": str(abs(diff))}))
    return records, problems
