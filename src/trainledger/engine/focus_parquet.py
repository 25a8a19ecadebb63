"""The FOCUS allocation rows as a typed Parquet table: FOCUS's Decimal columns (costs, quantities,
unit prices, the origin's costs) as ``decimal128`` at the column's largest scale, its DateTime
columns as UTC timestamps and the source row as an integer, so a BI tool reading the file sums
numbers, not text (review 6 K15). The CSV keeps each cell's text as the bill wrote it; here a
column has one scale, so ``1.50`` in a column whose widest value has 11 places reads 1.50000000000 —
the same number. A column whose values do not fit 38 digits at one scale stays text."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal, InvalidOperation

DECIMAL_COLUMNS = frozenset({"BilledCost", "EffectiveCost", "ListCost", "ContractedCost", "ConsumedQuantity",
                             "PricingQuantity", "ListUnitPrice", "ContractedUnitPrice", "x_OriginBilledCost",
                             "x_OriginEffectiveCost"})
TIME_COLUMNS = frozenset({"ChargePeriodStart", "ChargePeriodEnd", "BillingPeriodStart", "BillingPeriodEnd"})
INTEGER_COLUMNS = frozenset({"x_SourceRow"})
MAX_DIGITS = 38  # decimal128's precision


def _decimal_array(pa, texts: Sequence[str | None]):
    values = [None if t in (None, "") else Decimal(t) for t in texts]
    present = [v for v in values if v is not None]
    scale = max((-v.as_tuple().exponent for v in present), default=0)
    scale = max(scale, 0)
    whole = max((len(v.as_tuple().digits) + v.as_tuple().exponent for v in present), default=1)
    if whole + scale > MAX_DIGITS:
        return None
    quantum = Decimal(1).scaleb(-scale)
    return pa.array([None if v is None else v.quantize(quantum) for v in values],
                    pa.decimal128(max(whole + scale, 1), scale))


def _time_array(pa, texts: Sequence[str | None]):
    values = [None if t in (None, "") else datetime.fromisoformat(str(t).replace("Z", "+00:00")) for t in texts]
    if any(v is not None and v.tzinfo is None for v in values):
        return None  # a time without an offset is not a UTC instant: kept as written
    return pa.array(values, pa.timestamp("us", tz="UTC"))


def arrow_table(rows: Sequence[Mapping[str, str | None]], columns: Sequence[str]):
    """The rows (text cells, as the CSV has them) as an Arrow table with FOCUS's types."""
    import pyarrow as pa

    arrays = {}
    for c in columns:
        texts = [r.get(c) for r in rows]
        typed = None
        try:
            if c in DECIMAL_COLUMNS:
                typed = _decimal_array(pa, texts)
            elif c in TIME_COLUMNS:
                typed = _time_array(pa, texts)
            elif c in INTEGER_COLUMNS:
                typed = pa.array([None if t in (None, "") else int(t) for t in texts], pa.int64())
        except (InvalidOperation, ValueError, TypeError):
            typed = None  # a value of another shape: the column stays text
        arrays[c] = typed if typed is not None else pa.array(texts, pa.string())
    return pa.table(arrays)
