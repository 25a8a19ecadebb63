"""Money, ranges and exact allocation.

``Money`` is a ``Decimal`` with an ISO 4217 currency; arithmetic across currencies raises.
``AmountRange`` is low / expected / high in one currency — the shape of every figure that rests
on an assumption. ``allocate`` splits an amount into shares that add up to it exactly.

Rounding rule (stated once, used everywhere): an allocation keeps the precision of the amount
being split (its own decimal exponent, never coarser than the currency's minor unit); each share
is first truncated toward zero at that precision, then the left-over units go one by one to the
shares with the largest truncated remainders, ties broken by position. The shares therefore sum
to the amount exactly, and no share differs from its exact value by a unit or more.

Exactness (stated once): sums, differences and products of money are computed in ``EXACT``, a
decimal context that traps ``Inexact`` — an operation that would have to round raises
``decimal.Inexact`` instead of rounding silently (the default context keeps 28 digits and
rounds the 29th away without a word). ``exact_sum`` adds in it; ``allocate`` splits with
integers only, so no division rounds.

Valuations (stated once): a quantity that is a quotient (GPU-hours from seconds, GiB-months from
days and bytes) times a price has no exact decimal (1/3 of an hour × 4.0966); the default
context cuts it at 28 digits, and those artefact digits leaked into JSON and spreadsheets as
``28.53947250000000000000000000``. ``valuation`` rounds such a figure once, where it is made,
half-even to ``VALUATION_PLACES`` places below the currency's minor unit (USD: 0.00000001), and
drops trailing zeros down to the minor unit: ``28.5394725``, ``0.45369863``, ``11.50``. Only
valued figures (basis ``queued``, ``estimate``) are made so; billed cash is split by ``allocate``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import (
    MAX_EMAX,
    MIN_EMIN,
    ROUND_HALF_EVEN,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
)

# ISO 4217 minor units for the currencies trainledger's users bill in; others default to 2.
MINOR_UNITS = {"JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0, "BHD": 3, "KWD": 3, "JOD": 3}
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
# ISO 4217 codes in use (list one, 2024), funds and precious metals included
ISO_4217 = frozenset((
    "AED", "AFN", "ALL", "AMD", "ANG", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT",
    "BGN", "BHD", "BIF", "BMD", "BND", "BOB", "BOV", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD",
    "CAD", "CDF", "CHE", "CHF", "CHW", "CLF", "CLP", "CNY", "COP", "COU", "CRC", "CUC", "CUP",
    "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN", "ETB", "EUR", "FJD", "FKP", "GBP",
    "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD", "HNL", "HTG", "HUF", "IDR", "ILS",
    "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES", "KGS", "KHR", "KMF", "KPW", "KRW",
    "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL", "LYD", "MAD", "MDL", "MGA", "MKD",
    "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN", "MXV", "MYR", "MZN", "NAD", "NGN",
    "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP", "PKR", "PLN", "PYG", "QAR",
    "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK", "SGD", "SHP", "SLE", "SLL",
    "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT", "TND", "TOP", "TRY",
    "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "USN", "UYI", "UYU", "UYW", "UZS", "VED", "VES",
    "VND", "VUV", "WST", "XAF", "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XCD", "XDR", "XOF",
    "XPD", "XPF", "XPT", "XSU", "XTS", "XUA", "XXX", "YER", "ZAR", "ZMW", "ZWG", "ZWL",
))

# 200 digits hold any sum of amounts the importers accept (15 integer digits, 64 characters) by
# a wide margin; past that, Inexact is raised — never a silent rounding.
EXACT = Context(
    prec=200,
    rounding=ROUND_HALF_EVEN,
    Emax=MAX_EMAX,
    Emin=MIN_EMIN,
    traps=[Inexact, InvalidOperation, DivisionByZero, Overflow],
)


def exact_sum(values: Iterable[Decimal], start: Decimal = Decimal(0)) -> Decimal:
    """The sum of ``values``, exactly; raises ``decimal.Inexact`` rather than round."""
    total = start
    add = EXACT.add
    for v in values:
        total = add(total, v)
    return total


# what people write for a currency that is not its ISO 4217 code (RMB: how Chinese exports and
# finance staff often name the yuan) → the code
CURRENCY_ALIASES = {
    "RMB": "CNY", "人民币": "CNY", "元": "CNY", "¥": "CNY", "￥": "CNY", "CNH": "CNY",
    "US$": "USD", "$": "USD", "美元": "USD", "€": "EUR", "欧元": "EUR", "£": "GBP", "NTD": "TWD",
}


def currency_hint(code: str) -> str | None:
    """The ISO 4217 code ``code`` most likely means (RMB → CNY), or None."""
    c = (code or "").strip()
    return CURRENCY_ALIASES.get(c.upper()) or CURRENCY_ALIASES.get(c)


def check_currency(code: str) -> str:
    """Return ``code`` upper-cased if it is an ISO 4217 code (``ISO_4217``), else raise
    ValueError — three letters are not enough: ``RMB`` or ``XYZ`` is no currency."""
    c = (code or "").strip().upper()
    if not _CURRENCY_RE.match(c) or c not in ISO_4217:
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


VALUATION_PLACES = 6


def valuation(amount: Decimal, currency: str) -> Decimal:
    """A valued figure (quantity × price) at the documented scale: see the module docstring."""
    minor = minor_quantum(currency)
    q = minor.scaleb(-VALUATION_PLACES)
    wide = Context(prec=max(28, amount.adjusted() + 2 - q.as_tuple().exponent), rounding=ROUND_HALF_EVEN)
    d = amount.quantize(q, context=wide).normalize(context=wide)
    if d.as_tuple().exponent > minor.as_tuple().exponent:
        d = d.quantize(minor, context=wide)
    return d


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
        return Money(EXACT.add(self.amount, other.amount), self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(EXACT.subtract(self.amount, other.amount), self.currency)

    def __neg__(self) -> Money:
        return Money(-self.amount, self.currency)

    def __mul__(self, factor: Decimal | int) -> Money:
        if isinstance(factor, float):
            raise TypeError("multiply Money by Decimal or int, not float")
        return Money(EXACT.multiply(self.amount, Decimal(factor)), self.currency)

    __rmul__ = __mul__

    def rounded(self) -> Money:
        """Half-even to the currency's minor unit, for display; never used inside allocation."""
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
        add = EXACT.add
        return AmountRange(
            add(self.low, other.low), add(self.expected, other.expected), add(self.high, other.high),
            self.currency,
        )

    def scale(self, factor: Decimal | int) -> AmountRange:
        f = Decimal(factor)
        if f < 0:
            raise ValueError("scale factor must be >= 0")
        mul = EXACT.multiply
        return AmountRange(mul(self.low, f), mul(self.expected, f), mul(self.high, f), self.currency)


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
    if all(w == 0 for w in ws):
        raise ValueError("allocation weights are all zero")
    q = allocation_quantum(amount, currency)
    units_total = _units(amount, q)
    sign = -1 if units_total < 0 else 1
    units_abs = abs(units_total)
    # integers only: weight i is iw[i] / 10**scale, so share i is units_abs * iw[i] / total
    # units, exactly; its floor and remainder are integer division — nothing rounds
    scale = max(0, *(-_exponent(w) for w in ws))
    iw = [_units(w, Decimal(1).scaleb(-scale)) for w in ws]
    total = sum(iw)
    floors, rems = zip(*(divmod(units_abs * w, total) for w in iw), strict=True)
    floors = list(floors)
    left = units_abs - sum(floors)
    order = sorted(range(len(ws)), key=lambda i: (-rems[i], i))
    for i in order[:left]:
        floors[i] += 1
    return [EXACT.multiply(q, Decimal(sign * f)) for f in floors]


def _exponent(d: Decimal) -> int:
    exp = d.as_tuple().exponent
    return exp if isinstance(exp, int) else 0


def _units(d: Decimal, q: Decimal) -> int:
    """``d`` as a whole number of ``q`` (a power of ten that divides it), exactly."""
    sign, digits, exp = d.as_tuple()
    shift = exp - _exponent(q)  # exp >= q's exponent
    n = int("".join(map(str, digits)) or "0") * 10**shift if shift >= 0 else None
    if n is None:
        raise ValueError(f"{d} is not a whole number of {q}")
    return -n if sign else n
