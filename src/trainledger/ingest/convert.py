"""Field converters shared by the importers: text (or a Parquet/JSON value) → typed value.

Each takes ``(value, ctx)`` and returns the value, a ``Flagged`` value, or raises ``ValueError``
with a message that says what was expected. Money and quantities stay exact: they come back as
decimal *text* in plain notation (``format(Decimal, "f")``), never through a float.

Implausible values are refused, not read: digits are ASCII only (``٢٨٨`` is not 288); an amount
(``money_text``, ``nonneg_decimal_text``) has at most ``MAX_AMOUNT_DIGITS`` integer digits and no
exponent (``1E5`` is a spreadsheet's rounding, not a bill); any number has at most
``MAX_NUMBER_CHARS`` characters; an integer fits 64 bits (the lake's ``int64``); a time fits
the calendar after conversion to UTC (year 1 at +08:00 does not).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal
from enum import StrEnum
from typing import Any

from trainledger.ingest.base import Context, Flagged
from trainledger.model.money import check_currency, currency_hint, to_decimal

# ASCII digits only: Python's \d and Decimal() also read Arabic-Indic or full-width digits
_NUMBER = re.compile(r"\s*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")
_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")
_DECIMAL_COMMA = re.compile(r"\s*[+-]?[0-9]+,[0-9]+\s*")
_THOUSANDS = re.compile(r"\s*[+-]?[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?\s*")  # 1,234.50 (not 1,5)
_CURRENCY_SIGN = re.compile(r"\s*([+-]?)\s*(?:[¥￥$€£]|US\$|RMB|CNY|USD)\s*([0-9][0-9,]*\.?[0-9]*)\s*")
MAX_AMOUNT_DIGITS = 15  # 999 999 999 999 999.xx: no bill line, invoice or timesheet is near it
MAX_NUMBER_CHARS = 64  # longer text is not a number a system wrote
MAX_QUANTITY_DIGITS = 30  # integer digits of a quantity or unit price (bytes, requests, ...)
INT64_MAX = (1 << 63) - 1
_UTC_WORD = re.compile(r"(?i)\s*(?:utc|gmt)\s*$")  # BigQuery: "2024-09-01 00:00:00 UTC"


class BadValue(ValueError):
    """A value a converter refuses, with what to do about it (told with the quarantined row)."""

    def __init__(self, message: str, remedy: str) -> None:
        super().__init__(message)
        self.remedy = remedy


ASCII_REMEDY = "write the digits as ASCII 0-9"
PLAIN_REMEDY = "write the amount as a plain decimal number, e.g. 48000.00"
RANGE_REMEDY = "check the value in the source system; a number this large is an export fault"
TIME_REMEDY = "check the time in the source: a year this far off is a placeholder, not a real time"


def _shown(value: Any) -> str:
    """``value`` for a message: a huge value is cut, not printed in full."""
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:24]}… ({len(str(value))} characters)"


def not_a_number(value: Any) -> ValueError:
    """The error for text that is not a plain decimal; a decimal comma says how to write it."""
    if isinstance(value, str) and len(value) > MAX_NUMBER_CHARS:
        return BadValue(
            f"not a plausible number: {_shown(value)} (more than {MAX_NUMBER_CHARS} characters)",
            RANGE_REMEDY,
        )
    if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value):
        fixed = value.strip().replace(",", ".")
        return ValueError(f"not a number: {value!r} has a decimal comma (write {fixed})")
    if isinstance(value, str) and _THOUSANDS.fullmatch(value):
        fixed = value.strip().replace(",", "")
        return BadValue(f"not a number: {value!r} has thousands separators (write {fixed})",
                        f"remove the thousands separators: write {fixed}")
    if isinstance(value, str) and (sign := _CURRENCY_SIGN.fullmatch(value)):
        fixed = (sign.group(1) or "") + sign.group(2).replace(",", "")
        return BadValue(f"not a number: {value!r} has a currency sign (write {fixed})",
                        f"write the amount without the currency sign: {fixed}")
    if isinstance(value, str) and _foreign_digits(value):
        return BadValue(f"not a number: {value!r} has digits that are not ASCII 0-9", ASCII_REMEDY)
    return ValueError(f"not a number: {_shown(value)}")


def _foreign_digits(value: str) -> bool:
    """Digits other than ASCII 0-9 (٢٨٨, full-width ３２０) — not a ¥ or other sign beside 0-9."""
    return not value.isascii() and any(c.isdigit() and not c.isascii() for c in value)


def check_magnitude(d: Decimal, value: Any, digits: int, *, exponent: bool = True) -> Decimal:
    """``d`` (read from ``value``) if it has at most ``digits`` integer digits — and, when
    ``exponent`` is False, was not written with an exponent; else ValueError."""
    if not exponent and isinstance(value, str) and ("e" in value or "E" in value):
        plain = decimal_plain(d) if abs(d.adjusted()) <= MAX_NUMBER_CHARS else None
        fits = plain is not None and len(plain) <= MAX_NUMBER_CHARS
        shown = _shown(value.strip())
        if fits:  # one sentence a language (review 7 L8: the hint was English inside the Chinese text)
            raise BadValue(f"{shown} is written with an exponent (write {plain}); an amount is a plain decimal",
                           f"write it as {plain}")
        raise BadValue(f"{shown} is written with an exponent; an amount is a plain decimal", PLAIN_REMEDY)
    if not d.is_zero() and d.adjusted() >= digits:
        raise BadValue(
            f"implausible magnitude: {_shown(value)} has {d.adjusted() + 1} integer digits "
            f"(the most trainledger reads is {digits})",
            RANGE_REMEDY,
        )
    exp = d.as_tuple().exponent
    if isinstance(exp, int) and abs(exp) > MAX_NUMBER_CHARS:  # 0E-999999999: no one writes it
        raise BadValue(f"implausible number: {_shown(value)}", RANGE_REMEDY)
    return d


def decimal_plain(d: Decimal) -> str:
    """Exact decimal text without exponent; keeps the source's scale; no negative zero."""
    if d.is_zero():
        d = d.copy_abs()
    return format(d, "f")


def to_exact(value: Any) -> Decimal | Flagged:
    """A Decimal from text, int or Decimal. A float (from Parquet or JSON) is read through its
    shortest repr and flagged: the exporter already rounded it to binary."""
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"not a finite number: {value!r}")
        return Flagged(Decimal(repr(value)), "stored as a binary float in the source")
    if isinstance(value, str) and (len(value) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(value)):
        raise not_a_number(value)
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    if isinstance(value, int) and abs(value) > INT64_MAX:
        raise BadValue(f"implausible magnitude: {_shown(value)} does not fit 64 bits", RANGE_REMEDY)
    try:
        return to_decimal(value)
    except TypeError as e:
        raise ValueError(str(e)) from None


def _bounded(value: Any, digits: int, exponent: bool) -> Decimal | Flagged:
    d = to_exact(value)
    amount = d.value if isinstance(d, Flagged) else d
    check_magnitude(amount, value, digits, exponent=exponent)
    return d


def decimal_text(value: Any, ctx: Context | None = None) -> str | Flagged:
    """A quantity or unit price: exact decimal text; an exponent is read (``1E-7``), a value
    with more than ``MAX_QUANTITY_DIGITS`` integer digits is refused."""
    if type(value) is str:  # the common case, kept short: 10M-row bills pass through here
        if len(value) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(value):
            raise not_a_number(value)
        d = Decimal(value)
        if "e" in value or "E" in value or d.adjusted() >= MAX_QUANTITY_DIGITS:
            check_magnitude(d, value, MAX_QUANTITY_DIGITS)
        return format(d.copy_abs() if d.is_zero() else d, "f")
    d = _bounded(value, MAX_QUANTITY_DIGITS, True)
    if isinstance(d, Flagged):
        return Flagged(decimal_plain(d.value), d.note)
    return decimal_plain(d)


def money_text(value: Any, ctx: Context | None = None) -> str | Flagged:
    """An amount of money: exact decimal text in plain notation, at most
    ``MAX_AMOUNT_DIGITS`` integer digits; an exponent (``1E5``) is refused."""
    if type(value) is str:  # the common case, kept short
        if len(value) > MAX_NUMBER_CHARS or not _NUMBER.fullmatch(value):
            raise not_a_number(value)
        d = Decimal(value)
        if "e" in value or "E" in value or d.adjusted() >= MAX_AMOUNT_DIGITS:
            check_magnitude(d, value, MAX_AMOUNT_DIGITS, exponent=False)
        return format(d.copy_abs() if d.is_zero() else d, "f")
    d = _bounded(value, MAX_AMOUNT_DIGITS, False)
    if isinstance(d, Flagged):
        return Flagged(decimal_plain(d.value), d.note)
    return decimal_plain(d)


def nonneg_decimal_text(value: Any, ctx: Context | None = None) -> str | Flagged:
    """An amount >= 0 (hours): the rules of ``money_text``."""
    d = _bounded(value, MAX_AMOUNT_DIGITS, False)
    amount = d.value if isinstance(d, Flagged) else d
    if amount < 0:
        raise ValueError(f"must be >= 0, got {value!r}")
    text = decimal_plain(amount)
    return Flagged(text, d.note) if isinstance(d, Flagged) else text


def integer(value: Any, ctx: Context | None = None) -> int:
    """A whole number that fits the lake's 64-bit integers."""
    if isinstance(value, bool):
        raise ValueError(f"not an integer: {value!r}")
    if isinstance(value, int):
        n = value
    elif (isinstance(value, float) and value.is_integer()) or _is_integer_text(value):
        n = int(value)
    elif isinstance(value, str) and _foreign_digits(value):
        raise BadValue(f"not an integer: {value!r} has digits that are not ASCII 0-9", ASCII_REMEDY)
    else:
        raise ValueError(f"not an integer: {_shown(value)}")
    if abs(n) > INT64_MAX:
        raise BadValue(
            f"implausible magnitude: {_shown(value)} does not fit a 64-bit integer "
            f"(the most is {INT64_MAX})",
            RANGE_REMEDY,
        )
    return n


def _is_integer_text(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_NUMBER_CHARS and bool(_INTEGER.fullmatch(value))


def nonneg_integer(value: Any, ctx: Context | None = None) -> int:
    n = integer(value)
    if n < 0:
        raise ValueError(f"must be >= 0, got {value!r}")
    return n


def parse_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    if not isinstance(value, str):
        raise ValueError(f"not a timestamp: {value!r}")
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError:
        pass
    utc_word = _UTC_WORD.search(value)
    if utc_word is None or not value[: utc_word.start()].strip():
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}")
    try:  # "2024-09-01 00:00:00 UTC" (BigQuery): a time in UTC
        dt = datetime.fromisoformat(value[: utc_word.start()].strip())
    except ValueError:
        raise ValueError(f"not an ISO 8601 timestamp: {value!r}") from None
    if dt.tzinfo is not None and dt.utcoffset():
        raise ValueError(f"{value!r} has an offset and says UTC")
    return dt.replace(tzinfo=UTC)


def repeated_local_time(dt: datetime, tz: tzinfo) -> bool:
    """True when the naive ``dt`` happens twice in ``tz`` (the hour repeated when DST ends)."""
    first = dt.replace(tzinfo=tz, fold=0).utcoffset()
    second = dt.replace(tzinfo=tz, fold=1).utcoffset()
    return first is not None and second is not None and first > second


def as_utc(dt: datetime) -> datetime:
    """``dt`` (aware) in UTC; ValueError when UTC is outside the calendar (year 1 at +08:00,
    year 9999 at -05:00) — Python raises OverflowError there."""
    try:
        return dt.astimezone(UTC)
    except OverflowError:
        raise BadValue(
            f"{dt.replace(tzinfo=None).isoformat()} ({dt.tzinfo}) is out of range: in UTC it "
            "falls outside years 1-9999",
            TIME_REMEDY,
        ) from None


def localize(dt: datetime, tz: tzinfo) -> datetime | Flagged:
    """Read a naive local time in ``tz`` as UTC; an ambiguous or skipped (DST) time is flagged
    and read as its first occurrence (``fold=0``)."""
    first = dt.replace(tzinfo=tz, fold=0)
    utc = as_utc(first)
    second = dt.replace(tzinfo=tz, fold=1).utcoffset()
    if first.utcoffset() != second:
        what = "ambiguous (DST ends)" if repeated_local_time(dt, tz) else "skipped (DST starts)"
        return Flagged(utc, f"local time {dt.isoformat()} is {what} in {tz}; read as {_z(utc)}")
    return utc


def _z(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def timestamp_utc(value: Any, ctx: Context | None = None) -> datetime:
    """A timestamp; one without an offset is read as UTC (FOCUS requires UTC)."""
    dt = parse_datetime(value)
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else as_utc(dt)


def timestamp_with_offset(value: Any, ctx: Context | None = None) -> datetime:
    """A timestamp that must carry its own offset: a naive one is refused, not guessed."""
    dt = parse_datetime(value)
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"{value!r} has no UTC offset (write e.g. 2026-11-02T08:00:00+08:00)")
    return as_utc(dt)


def timestamp_flag_naive(value: Any, ctx: Context | None = None) -> datetime | Flagged:
    """Like ``timestamp_utc`` but notes that a naive value was assumed to be UTC."""
    dt = parse_datetime(value)
    if dt.tzinfo is None:
        return Flagged(dt.replace(tzinfo=UTC), f"{value!r} has no offset; read as UTC")
    return as_utc(dt)


def iso_date(value: Any, ctx: Context | None = None) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise ValueError(f"not an ISO date (YYYY-MM-DD): {value!r}")


def _fold(s: str) -> str:
    return re.sub(r"[\s\-]+", "_", s.strip().casefold())


def one_of(enum: type[StrEnum]) -> Callable[[Any, Context | None], str]:
    """A converter to ``enum``'s value; case, spaces and hyphens are forgiven (Data-Prep)."""
    by_fold = {_fold(m.value): m.value for m in enum}
    allowed = ", ".join(m.value for m in enum)

    def convert(value: Any, ctx: Context | None = None) -> str:
        v = by_fold.get(_fold(str(value)))
        if v is None:
            raise ValueError(f"{value!r} is not one of {allowed}")
        return v

    convert.__name__ = f"one_of_{enum.__name__}"
    return convert


CURRENCY_REMEDY = "write its three-letter ISO 4217 code, e.g. CNY or USD, and import the file again"


def currency(value: Any, ctx: Context | None = None) -> str:
    """An ISO 4217 code (case forgiven); anything else is refused with the code it likely means
    (``RMB`` → write CNY)."""
    try:
        return check_currency(str(value))
    except ValueError:
        hint = currency_hint(str(value))
        if hint is not None:
            raise BadValue(
                f"currency {_shown(value)} is not an ISO 4217 code (it means {hint})",
                f"write {hint} instead of {_shown(str(value).strip())} and import the file again",
            ) from None
        raise BadValue(f"currency {_shown(value)} is not an ISO 4217 code", CURRENCY_REMEDY) from None


def stripped(value: Any, ctx: Context | None = None) -> str | None:
    """Text without surrounding blanks; only blanks count as empty (null)."""
    return (value if isinstance(value, str) else str(value)).strip() or None
