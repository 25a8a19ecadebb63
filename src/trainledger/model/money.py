"""Money, ranges and exact allocation.

``Money`` is a ``Decimal`` with an ISO 4217 currency; arithmetic across currencies raises.
``AmountRange`` is low / expected / high in one currency — the shape of every figure that rests
on an assumption. ``allocate`` splits an amount into shares that add up to it exactly.

Rounding rule (stated once, used everywhere): an allocation keeps the precision of the amount
being split (its own decimal exponent, never coarser than the currency's minor unit); each share
is first truncated toward zero at that precision, then the left-over units go one by one to the
shares with the largest truncated remainders, ties broken by position. The shares therefore sum
to the amount exactly, and no share differs from its exact value by a unit or more.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import ROUND_DOWN, Decimal, InvalidOperation

# ISO 4217 minor units for the currencies trainledger's users bill in; others default to 2.
MINOR_UNITS = {"JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "BHD": 3, "KWD": 3, "JOD": 3}
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")


def check_currency(code: str) -> str:
    """Return ``code`` upper-cased if it is a three-letter ISO 4217 code, else raise ValueError."""
    c = (code or "").strip().upper()
    if not _CURRENCY_RE.match(c):
        raise ValueError(f"not an ISO 4217 currency code: {code!r}")
    return c


def to_decimal(value: object) -> Decimal:
    """Parse ``value`` as an exact decimal. Floats are refused: they already lost precision."""
    if isinstance(value, Decimal):
        d = value
    elif isinstance(value, bool | float):
        raise TypeError(f"refusing {type(value).__name__} {value!r}: pass str or Decimal")
    elif isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"not a decimal number: {value!r}") from None
    else:
        raise TypeError(f"cannot make a Decimal of {type(value).__name__}")
    if not d.is_finite():
        raise ValueError(f"not a finite number: {value!r}")
    return d


def minor_quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-MINOR_UNITS.get(currency, 2))


@dataclass(frozen=True, slots=True)
class Money:
    amount: Decimal
    currency: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "amount", to_decimal(self.amount))
        object.__setattr__(self, "currency", check_currency(self.currency))

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(Decimal(0), currency)

    def _same(self, other: Money) -> None:
        if not isinstance(other, Money):
            raise TypeError(f"cannot combine Money with {type(other).__name__}")
        if other.currency != self.currency:
            raise ValueError(
                f"cannot combine {self.currency} with {other.currency}: convert with a dated FX rate"
            )

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> Money:
        if isinstance(factor, float):
            raise TypeError("multiply Money by Decimal or int, not float")
        return Money(self.amount * Decimal(factor), self.currency)

    __rmul__ = __mul__

    def rounded(self) -> Money:
        """Half-even to the currency's minor unit, for display; never used inside allocation."""
        from decimal import ROUND_HALF_EVEN

        return Money(self.amount.quantize(minor_quantum(self.currency), ROUND_HALF_EVEN), self.currency)

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


def money_sum(items: Iterable[Money], currency: str) -> Money:
    total = Money.zero(currency)
    for m in items:
        total = total + m
    return total


@dataclass(frozen=True, slots=True)
class AmountRange:
    """low ≤ expected ≤ high in one currency. A certain figure has low == expected == high."""

    low: Decimal
    expected: Decimal
    high: Decimal
    currency: str

    def __post_init__(self) -> None:
        for name in ("low", "expected", "high"):
            object.__setattr__(self, name, to_decimal(getattr(self, name)))
        object.__setattr__(self, "currency", check_currency(self.currency))
        if not (self.low <= self.expected <= self.high):
            raise ValueError(
                f"range must satisfy low <= expected <= high, got {self.low} / {self.expected} / {self.high}"
            )

    @classmethod
    def exact(cls, money: Money) -> AmountRange:
        return cls(money.amount, money.amount, money.amount, money.currency)

    @classmethod
    def zero(cls, currency: str) -> AmountRange:
        return cls(Decimal(0), Decimal(0), Decimal(0), currency)

    @property
    def is_exact(self) -> bool:
        return self.low == self.high

    def __add__(self, other: AmountRange) -> AmountRange:
        # Adding ranges bound-by-bound is the conservative (fully correlated) sum: it is what a
        # budget reviewer can defend, and it never narrows a range below its parts.
        if not isinstance(other, AmountRange):
            raise TypeError(f"cannot add AmountRange and {type(other).__name__}")
        if other.currency != self.currency:
            raise ValueError(f"cannot add {self.currency} range to {other.currency} range")
        return AmountRange(
            self.low + other.low, self.expected + other.expected, self.high + other.high, self.currency
        )

    def scale(self, factor: Decimal | int) -> AmountRange:
        f = Decimal(factor)
        if f < 0:
            raise ValueError("scale factor must be >= 0")
        return AmountRange(self.low * f, self.expected * f, self.high * f, self.currency)


def allocation_quantum(amount: Decimal, currency: str) -> Decimal:
    exp = amount.as_tuple().exponent
    own = Decimal(1).scaleb(exp) if isinstance(exp, int) else minor_quantum(currency)
    return min(own, minor_quantum(currency))


def allocate(amount: Decimal, weights: Sequence[Decimal | int], currency: str = "USD") -> list[Decimal]:
    """Split ``amount`` in proportion to non-negative ``weights`` so the shares sum exactly.

    See the module docstring for the rounding rule. All-zero weights raise: the caller must
    decide where money with no basis for a split goes (usually the unattributed bucket).
    """
    amount = to_decimal(amount)
    ws = [to_decimal(w) for w in weights]
    if not ws:
        raise ValueError("allocate needs at least one weight")
    if any(w < 0 for w in ws):
        raise ValueError("allocation weights must be >= 0")
    total_w = sum(ws, Decimal(0))
    if total_w == 0:
        raise ValueError("allocation weights are all zero")
    q = allocation_quantum(amount, currency)
    units_total = int((amount / q).to_integral_value())  # exact: q divides amount
    sign = -1 if units_total < 0 else 1
    units_abs = abs(units_total)
    exact = [Decimal(units_abs) * w / total_w for w in ws]
    floors = [int(e.to_integral_value(rounding=ROUND_DOWN)) for e in exact]
    left = units_abs - sum(floors)
    order = sorted(range(len(ws)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [q * sign * f for f in floors]
