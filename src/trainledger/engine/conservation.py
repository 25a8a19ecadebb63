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

from trainledger.engine.context import Facts, Problem, rows_of
from trainledger.model import CASH_BASES, Basis, CostLine
from trainledger.model.money import EXACT, minor_quantum


def _plain(d: Decimal) -> str:
    return format(d.copy_abs() if d.is_zero() else d, "f")


def bill_totals(facts: Facts, column: str = "billed_cost") -> dict[str, Decimal]:
    totals: dict[str, Decimal] = defaultdict(Decimal)
    with localcontext(EXACT):
        for row in rows_of(facts.bill_lines).columns("currency", column):  # two columns, not the rows
            if row.get(column) is not None:
                totals[row["currency"]] += Decimal(row[column])
        if column == "billed_cost":
            for row in facts.external_services:
                totals[row["currency"]] += Decimal(str(row["amount"]))
    return dict(totals)


def reason_of(line: CostLine) -> tuple[str, str]:
    """(reason code, detail) of an unattributed line: ``"capacity_unheld: node n1"`` →
    ``("capacity_unheld", "node n1")``; a reason without a code is its own code."""
    return reason_parts(line.reason)


def reason_parts(reason: str) -> tuple[str, str]:
    """``reason_of`` of a line's reason text."""
    code, sep, detail = reason.partition(": ")
    code = code.strip()
    if not sep or " " in code:
        return reason.strip(), ""
    return code, detail.strip()


def by_reason(lines: Iterable[CostLine], currency: str, zero: Decimal) -> list[dict]:
    return by_reason_sums(((ln.reason, ln.amount.expected) for ln in lines if ln.currency == currency), zero)


def by_reason_sums(amounts: Iterable[tuple[str, Decimal]], zero: Decimal) -> list[dict]:
    """``by_reason`` of (reason text, amount) pairs (sums of lines with that reason, or the lines)."""
    acc: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    with localcontext(EXACT):
        for reason, amount in amounts:
            acc[reason_parts(reason)] += amount
        items = sorted(acc.items(), key=lambda kv: (-abs(kv[1]), kv[0]))
        return [{"reason": r, "detail": d, "amount": _plain(a + zero)} for (r, d), a in items]


def line_sums(lines: Iterable[CostLine]) -> dict[tuple[str, str, str, bool, str], Decimal]:
    """Exact sums of the expected amount per (basis, source kind, currency, attributed, reason):
    every figure conservation shows is a sum of these. Columns (``engine.lines``) are summed as
    integers, never built into lines."""
    import pyarrow.compute as pc

    from trainledger.engine.lines import LineColumns, as_lines, dense

    out: dict[tuple, Decimal] = defaultdict(Decimal)
    keys = ("basis", "source_kind", "currency", "attributed", "reason")
    with localcontext(EXACT):
        for part in as_lines(lines).parts:
            if isinstance(part, LineColumns):
                held = pc.fill_null(pc.not_equal(dense(part.table.column("batch_id")), ""), False)
                t = part.table.append_column("attributed", held)
                for k, v in LineColumns(t).sums(keys).items():
                    out[k] += v
                continue
            for ln in part:
                out[(str(ln.basis), ln.provenance.source_kind, ln.currency, bool(ln.batch_id), ln.reason)] += \
                    ln.amount.expected
    return dict(out)


BY_BATCH = ("batch_id", "basis", "source_kind", "currency", "category")


def batch_sums(lines: Iterable[CostLine]) -> dict[tuple[str, str, str, str, str], Decimal]:
    """Exact sums of the expected amount of the attributed lines (a batch id) per ``BY_BATCH``: what
    each batch's workbook shows of the others (``by_batch``). Columns are summed as integers."""
    from trainledger.engine.lines import LineColumns, as_lines

    out: dict[tuple, Decimal] = defaultdict(Decimal)
    with localcontext(EXACT):
        for part in as_lines(lines).parts:
            if isinstance(part, LineColumns):
                for k, v in part.sums(BY_BATCH).items():
                    if k[0]:
                        out[k] += v
                continue
            for ln in part:
                if ln.batch_id:
                    out[(ln.batch_id, str(ln.basis), ln.provenance.source_kind, ln.currency, ln.category)] += \
                        ln.amount.expected
    return dict(out)


def by_batch(sums: dict[tuple[str, str, str, str, str], Decimal], view: str = "billed") -> list[dict]:
    """The attributed of a conservation view (``check``) per currency, batch, basis and category
    (``[{"currency", "batch", "basis", "category", "amount"}]``, in that order): per currency they sum
    exactly to the view's ``attributed``. The category says whose amount it is (an external line's is a
    vendor's: report/access.py)."""
    wanted = {str(b) for b in (CASH_BASES if view == "billed" else (Basis.EFFECTIVE_COST,))}
    acc: dict[tuple[str, str, str, str], Decimal] = defaultdict(Decimal)
    with localcontext(EXACT):
        for (batch, basis, kind, cur, category), amount in sums.items():
            if basis in wanted and (view == "billed" or kind == "focus"):
                acc[(cur, batch, basis, category)] += amount
        return [{"currency": cur, "batch": batch, "basis": basis, "category": category,
                 "amount": _plain(a + Decimal(0).quantize(minor_quantum(cur)))}
                for (cur, batch, basis, category), a in sorted(acc.items())]


def check(facts: Facts, lines: Iterable[CostLine], *, view: str = "billed") -> tuple[list[dict], list[Problem]]:
    """One record per currency, as the ``attribute --json`` contract prints it, and the problems.

    ``view="billed"`` reconciles the cash bases against BilledCost (and invoices);
    ``view="amortized"`` reconciles the bill's effective-cost lines (basis ``effective_cost``) against
    EffectiveCost (the view keeps its old name: the summary's ``conservation_amortized`` record)."""
    try:
        return _check(facts, lines, view)
    except Inexact:
        return [], [Problem("inexact_total", f"{view}: a total cannot be computed exactly in "
                            f"{EXACT.prec} digits; no conservation figure is shown rather than a rounded one",
                            {"view": view, "digits": EXACT.prec})]


def _check(facts: Facts, lines: Iterable[CostLine], view: str) -> tuple[list[dict], list[Problem]]:
    totals = bill_totals(facts, "billed_cost" if view == "billed" else "effective_cost")
    wanted = {str(b) for b in (CASH_BASES if view == "billed" else (Basis.EFFECTIVE_COST,))}
    attributed: dict[str, Decimal] = defaultdict(Decimal)
    unattributed: dict[str, Decimal] = defaultdict(Decimal)
    records, problems = [], []
    bucket: dict[str, list[tuple[str, Decimal]]] = defaultdict(list)
    with localcontext(EXACT):
        for (basis, kind, cur, held, reason), amount in sorted(line_sums(lines).items()):
            if basis not in wanted or (view != "billed" and kind != "focus"):
                continue  # owned capacity's lines reconcile against the capacity (capacity.check)
            (attributed if held else unattributed)[cur] += amount
            if not held:
                bucket[cur].append((reason, amount))
        for cur in sorted(set(totals) | set(attributed) | set(unattributed)):
            zero = Decimal(0).quantize(minor_quantum(cur))  # "0.00", not "0": amounts keep the currency's scale
            total = totals.get(cur, zero) + zero
            a, u = attributed.get(cur, zero) + zero, unattributed.get(cur, zero) + zero
            diff = total - a - u
            # plain notation: an exact zero at 11 decimals is "0.00000000000", never "0E-11"
            records.append({"currency": cur, "billed_total": _plain(total), "attributed": _plain(a),
                            "unattributed": _plain(u), "difference": _plain(diff),
                            "unattributed_by_reason": by_reason_sums(bucket[cur], zero)})
            if diff != 0:
                side = "too little" if diff > 0 else "too much"
                problems.append(Problem("conservation", f"{cur} ({view}): bills total {total} but cost lines carry "
                                        f"{a + u} ({side} attributed by {abs(diff)})",
                                        {**records[-1], "subject": f"{cur} ({view})", "carried": str(a + u),
                                         "side": side, "gap": str(abs(diff))}))
    return records, problems
