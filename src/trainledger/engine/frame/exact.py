"""Integer arithmetic that is exact on every Ibis backend (no backend decimal division on money).

``units``: a decimal text column (the lake keeps money as text) → (units, scale) in
``decimal(38,0)``: ``"-12.50"`` in CNY is (-1250, 2); the scale is never coarser than the
currency's minor unit (``model.money.allocation_quantum``). ``floordiv``: ⌊a / b⌋ for a ≥ 0,
b > 0 in ``decimal(38,0)``: a float quotient is only a first guess, corrected twice by exact
multiplication and subtraction, so the result is exact while |a| < 10**30.
"""

from __future__ import annotations

import ibis
import ibis.expr.datatypes as dt

from trainledger.model.money import MINOR_UNITS

DEC = dt.Decimal(38, 0)
PLAIN = r"^[+-]?[0-9]+(\.[0-9]+)?$"  # what units() reads; anything else is refused before splitting


def dec(x) -> ibis.Value:
    return x.cast(DEC)


def minor_units(currency) -> ibis.Value:
    out = ibis.literal(2, "int64")
    for code, n in sorted(MINOR_UNITS.items()):
        out = ibis.ifelse(currency == code, ibis.literal(n, "int64"), out)
    return out


def units(text, currency) -> tuple[ibis.Value, ibis.Value]:
    """(signed units, scale) of a plain decimal text column (``PLAIN``: a sign only in front).

    Each input column is referenced a few times only (Ibis inlines every intermediate, so an
    expression nested in another is copied into it): the digits are padded with zeros to the
    scale as text and cast once, instead of multiplying by a chain of powers of ten."""
    txt = text.strip()
    neg = txt.startswith("-")
    digits = txt.replace(".", "").replace("-", "").replace("+", "")
    dot = txt.find(".")  # -1 when absent
    frac = ibis.ifelse(dot < 0, 0, txt.length() - dot - 1).cast("int64")
    pad = ibis.greatest(minor_units(currency) - frac, 0).cast("int64")  # scale - frac
    raw = dec(digits.concat(ibis.literal("0").repeat(pad)))
    return ibis.ifelse(neg, -raw, raw).cast(DEC), (frac + pad).cast("int64")


def floordiv(a, b) -> ibis.Value:
    """⌊a / b⌋ exactly, a ≥ 0 and b > 0 decimal(38,0)."""
    fb = b.cast("float64")
    q0 = (a.cast("float64") / fb).cast(DEC)
    q1 = (q0 + ((a - q0 * b).cast("float64") / fb).cast(DEC)).cast(DEC)
    r1 = (a - q1 * b).cast(DEC)
    return ibis.cases((r1 < 0, q1 - 1), (r1 >= b, q1 + 1), else_=q1).cast(DEC)
