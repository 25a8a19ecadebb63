"""Numbers as finance reads them: the one formatting rule of every human renderer.

Cost sheets (md, html), ``attribute``'s text output and estimate reports (md, html) format their
figures here; JSON keeps exact decimal text (``plain``) with no separators.

* Never scientific notation: ``0E-11`` is ``0.00``, ``2.0150E-7`` is ``0.00000020150``.
* Money at the currency's minor unit (``model.money.MINOR_UNITS``), rounded half-even, with
  thousands separators: ``282,600.97 CNY``. A cash figure whose source carries more precision
  (``exact=True``: a bill line priced at 0.0000001) is shown in full with ``†`` and the renderer
  prints ``PRECISION_NOTE`` once.
* Unit prices (``unit_price``) at least at the minor unit (``36.00 CNY`` per GPU-hour), with the
  digits a rate has beyond it (``4.0966``), never ``†``.
* GPU-hours and other quantities to two decimals in tables (``quantity``).
* Estimates (ranges whose precision is the assumptions') to three significant figures
  (``money_sig``, ``quantity_sig``).
* ``rounding_gap``: where a table shows rounded rows beside a total, the difference the rounding
  makes, so a reader is told rather than left to find it.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_EVEN, Context, Decimal, InvalidOperation

from trainledger.model.money import minor_quantum

DASH = "—"
MARK = "†"
PRECISION_NOTE = {
    "en": f"{MARK} the source carries more precision than the currency's minor unit: shown in full.",
    "zh-CN": f"{MARK} 来源数据的精度高于该币种的最小单位：按原精度完整显示。",
}
ROUNDING_NOTE = {
    "en": "each row is rounded to {q}: the rows add to {rows}, the total is {total}; the difference of {gap}"
          " is rounding, nothing is missing",
    "zh-CN": "各行分别四舍五入到 {q}：各行相加为 {rows}，合计为 {total}；相差的 {gap} 来自舍入，没有遗漏",
}
TWO = Decimal("0.01")


def dec(value: object) -> Decimal | None:
    """``value`` as a finite Decimal; None for None, "" and text that is not a number."""
    if value is None or value == "":
        return None
    if isinstance(value, Decimal):
        d = value
    else:
        try:
            d = Decimal(str(value).replace(",", "").strip())
        except InvalidOperation:
            return None
    return d if d.is_finite() else None


def _ctx(d: Decimal, q: Decimal | None = None) -> Context:
    """A context wide enough that rounding ``d`` to ``q`` (or normalising it) never loses a digit
    it should keep nor raises: display must not crash on a 30-digit amount."""
    digits = len(d.as_tuple().digits) + abs(d.as_tuple().exponent if isinstance(d.as_tuple().exponent, int) else 0)
    if q is not None:
        digits += abs(q.as_tuple().exponent) + max(d.adjusted(), 0)
    return Context(prec=max(28, digits + 2), rounding=ROUND_HALF_EVEN, Emax=10**9, Emin=-(10**9))


def _round(d: Decimal, q: Decimal) -> Decimal:
    return d.quantize(q, context=_ctx(d, q))


def _text(d: Decimal, *, sep: bool) -> str:
    if d.is_zero():
        d = abs(d)  # no "-0.00"
    return format(d, ",f" if sep else "f")


def plain(value: object) -> str:
    """Exact decimal text for machines: no exponent, no separators (``0E-11`` → ``0.00000000000``)."""
    d = dec(value)
    return str(value) if d is None else _text(d, sep=False)


def finer_than_minor(value: object, currency: str) -> bool:
    """True when ``value`` has non-zero digits below the currency's minor unit."""
    d = dec(value)
    if d is None:
        return False
    return d != _round(d, minor_quantum(currency))


def amount(value: object, currency: str, *, exact: bool = False, sep: bool = True) -> str:
    """The number part of a money figure (no currency code). ``exact``: cash whose every digit
    counts — shown in full with ``†`` when finer than the minor unit, else at the minor unit."""
    d = dec(value)
    if d is None:
        return DASH if value in (None, "") else str(value)
    q = minor_quantum(currency)
    shown = _round(d, q)
    if exact and d != shown:
        return _text(_own_precision(d, q), sep=sep) + MARK  # finer than q: every digit kept
    return _text(shown, sep=sep)


def _own_precision(d: Decimal, q: Decimal) -> Decimal:
    """``d`` without the trailing zeros an exact sum picks up (``139.2974000000``), but never with
    fewer places than it was written with, up to two below the minor unit: a bill at 0.0001 USD
    keeps ``242.4330`` — the figure at its source's own precision — not ``242.433``."""
    short = d.normalize(context=_ctx(d))
    own = -_exp(d)
    keep = min(own, -_exp(q) + 2)
    return _round(short, Decimal(1).scaleb(-keep)) if -_exp(short) < keep else short


def _exp(d: Decimal) -> int:
    e = d.as_tuple().exponent
    return e if isinstance(e, int) else 0


def unit_price(value: object, currency: str) -> str:
    """A unit price (per GPU-hour, per GiB-month): never fewer places than the currency's minor
    unit (``36.00``, not ``36``), every digit it has beyond that up to six significant figures
    (``4.0966``); no ``†`` — a rate is not cash."""
    d = dec(value)
    if d is None:
        return DASH if value in (None, "") else str(value)
    q = minor_quantum(currency)
    if d == _round(d, q):
        return _text(_round(d, q), sep=True)
    r = _sig(d, 6)
    r = r.normalize(context=_ctx(r))
    return _text(_round(r, q) if -_exp(r) < -_exp(q) else r, sep=True)


def money(value: object, currency: str, *, exact: bool = False) -> str:
    """``282,600.97 CNY``; ``—`` for no value."""
    text = amount(value, currency, exact=exact)
    return text if text == DASH else f"{text} {currency}"


def money_unit(value: object, currency: str) -> str:
    """``36.00 CNY``: a unit price with its currency; ``—`` for no value."""
    text = unit_price(value, currency)
    return text if text == DASH else f"{text} {currency}"


def quantity(value: object, places: int = 2, *, sep: bool = True) -> str:
    """GPU-hours, GiB-months, hours: ``7,414.26``."""
    d = dec(value)
    if d is None:
        return DASH if value in (None, "") else str(value)
    return _text(_round(d, Decimal(1).scaleb(-places)), sep=sep)


def _sig(d: Decimal, sig: int) -> Decimal:
    if d.is_zero():
        return Decimal(0)
    return _round(d, Decimal(1).scaleb(d.adjusted() - sig + 1))


def quantity_sig(value: object, sig: int = 3) -> str:
    """An estimated quantity to ``sig`` significant figures: ``1,460,000``, ``0.000000202``, ``7.5``."""
    d = dec(value)
    if d is None:
        return DASH if value in (None, "") else str(value)
    r = _sig(d, sig)
    if r.as_tuple().exponent < 0:
        r = r.normalize(context=_ctx(r))
    return _text(r, sep=True)


def money_sig(value: object, currency: str, sig: int = 3) -> str:
    """An estimated amount: ``sig`` significant figures, at least whole units above 100, the minor
    unit below (``1,230,000 CNY``, ``48.20 CNY``); a figure under the minor unit keeps its
    significant digits (``0.000000202 USD``) rather than reading as zero."""
    d = dec(value)
    if d is None:
        return DASH
    r = _sig(d, sig)
    q = minor_quantum(currency)
    if abs(r) >= 100:
        r = _round(r, Decimal(1))
    elif abs(r) >= q or r.is_zero():
        r = _round(r, q)
    else:
        r = r.normalize(context=_ctx(r))
    return f"{_text(r, sep=True)} {currency}"


def percent(share: object, places: int = 1) -> str:
    """A share 0..1 as ``96.7%``."""
    d = dec(share)
    if d is None:
        return DASH
    return _text(_round(d.scaleb(2), Decimal(1).scaleb(-places)), sep=True) + "%"


def rounding_gap(rows: Iterable[object], total: object, quantum: Decimal = TWO) -> tuple[Decimal, Decimal] | None:
    """(sum of the rows as shown, rounding difference to the total as shown) when rows rounded to
    ``quantum`` do not add to the rounded total; None when they do."""
    shown = [_round(d, quantum) for d in (dec(r) for r in rows) if d is not None]
    t = dec(total)
    if t is None or not shown:
        return None
    t = _round(t, quantum)
    rows_sum = sum(shown, Decimal(0))
    return None if rows_sum == t else (rows_sum, rows_sum - t)


def rounding_note(rows: Iterable[object], total: object, lang: str, quantum: Decimal = TWO,
                  unit: str = "") -> str | None:
    """The sentence a table prints under itself when its rounded rows do not add to its total."""
    gap = rounding_gap(rows, total, quantum)
    if gap is None:
        return None
    rows_sum, diff = gap
    suffix = f" {unit}" if unit else ""
    msg = ROUNDING_NOTE["zh-CN" if lang.lower().startswith("zh") else "en"]
    return msg.format(q=_text(quantum, sep=False), rows=_text(rows_sum, sep=True) + suffix,
                      total=_text(rows_sum - diff, sep=True) + suffix, gap=_text(diff, sep=True) + suffix)


def precision_note(lang: str) -> str:
    return PRECISION_NOTE["zh-CN" if lang.lower().startswith("zh") else "en"]
