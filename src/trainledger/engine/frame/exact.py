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


def pow10(k) -> ibis.Value:
    """10**k for an integer column 0 ≤ k ≤ 18, as decimal(38,0), without pow() (a float)."""
    out = ibis.literal(1, DEC)
    for n in range(18, 0, -1):
        out = ibis.ifelse(k == n, ibis.literal(10**n, DEC), out)
    return out


def minor_units(currency) -> ibis.Value:
    out = ibis.literal(2, "int64")
    for code, n in sorted(MINOR_UNITS.items()):
        out = ibis.ifelse(currency == code, ibis.literal(n, "int64"), out)
    return out


def units(text, currency) -> tuple[ibis.Value, ibis.Value]:
    """(signed units, scale) of a plain decimal text column."""
    txt = text.strip()
    body = ibis.ifelse(txt.startswith("-") | txt.startswith("+"), txt.substr(1), txt)
    dot = body.find(".")  # -1 when absent
    frac = ibis.ifelse(dot < 0, 0, body.length() - dot - 1).cast("int64")
    raw = dec(body.replace(".", ""))
    minor = minor_units(currency)
    scale = ibis.greatest(frac, minor)
    signed = ibis.ifelse(txt.startswith("-"), -raw, raw) * pow10(scale - frac)
    return signed.cast(DEC), scale


def floordiv(a, b) -> ibis.Value:
    """⌊a / b⌋ exactly, a ≥ 0 and b > 0 decimal(38,0)."""
    fb = b.cast("float64")
    q0 = (a.cast("float64") / fb).cast(DEC)
    q1 = (q0 + ((a - q0 * b).cast("float64") / fb).cast(DEC)).cast(DEC)
    r1 = (a - q1 * b).cast(DEC)
    return ibis.cases((r1 < 0, q1 - 1), (r1 >= b, q1 + 1), else_=q1).cast(DEC)
