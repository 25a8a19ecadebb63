"""Field converters shared by the importers: text (or a Parquet/JSON value) → typed value.

Each takes ``(value, ctx)`` and returns the value, a ``Flagged`` value, or raises ``ValueError``
with a message that says what was expected. Money and quantities stay exact: they come back as
decimal *text* in plain notation (``format(Decimal, "f")``), never through a float.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, date, datetime, tzinfo
from decimal import Decimal
from enum import StrEnum
from typing import Any

from trainledger.ingest.base import Context, Flagged
from trainledger.model.money import check_currency, to_decimal

_NUMBER = re.compile(r"\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*")
_INTEGER = re.compile(r"\s*[+-]?\d+\s*")
_DECIMAL_COMMA = re.compile(r"\s*[+-]?\d+,\d+\s*")
_UTC_WORD = re.compile(r"(?i)\s*(?:utc|gmt)\s*$")  # BigQuery: "2024-09-01 00:00:00 UTC"


def not_a_number(value: Any) -> ValueError:
    """The error for text that is not a plain decimal; a decimal comma says how to write it."""
    if isinstance(value, str) and _DECIMAL_COMMA.fullmatch(value):
        fixed = value.strip().replace(",", ".")
        return ValueError(f"not a number: {value!r} has a decimal comma (write {fixed})")
    return ValueError(f"not a number: {value!r}")


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
    if isinstance(value, str) and not _NUMBER.fullmatch(value):
        raise not_a_number(value)
    if isinstance(value, bool):
        raise ValueError(f"not a number: {value!r}")
    try:
        return to_decimal(value)
    except TypeError as e:
        raise ValueError(str(e)) from None


def decimal_text(value: Any, ctx: Context | None = None) -> str | Flagged:
    if type(value) is str:  # the common case, kept short: 10M-row bills pass through here
        if not _NUMBER.fullmatch(value):
            raise not_a_number(value)
        d = Decimal(value)
        return format(d.copy_abs() if d.is_zero() else d, "f")
    d = to_exact(value)
    if isinstance(d, Flagged):
        return Flagged(decimal_plain(d.value), d.note)
    return decimal_plain(d)


def nonneg_decimal_text(value: Any, ctx: Context | None = None) -> str | Flagged:
    d = to_exact(value)
    amount = d.value if isinstance(d, Flagged) else d
    if amount < 0:
        raise ValueError(f"must be >= 0, got {value!r}")
    text = decimal_plain(amount)
    return Flagged(text, d.note) if isinstance(d, Flagged) else text


def integer(value: Any, ctx: Context | None = None) -> int:
    if isinstance(value, bool):
        raise ValueError(f"not an integer: {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    raise ValueError(f"not an integer: {value!r}")


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


def localize(dt: datetime, tz: tzinfo) -> datetime | Flagged:
    """Read a naive local time in ``tz`` as UTC; an ambiguous or skipped (DST) time is flagged
    and read as its first occurrence (``fold=0``)."""
    first = dt.replace(tzinfo=tz, fold=0)
    utc = first.astimezone(UTC)
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
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def timestamp_with_offset(value: Any, ctx: Context | None = None) -> datetime:
    """A timestamp that must carry its own offset: a naive one is refused, not guessed."""
    dt = parse_datetime(value)
    if dt.tzinfo is None or dt.utcoffset() is None:
        raise ValueError(f"{value!r} has no UTC offset (write e.g. 2026-11-02T08:00:00+08:00)")
    return dt.astimezone(UTC)


def timestamp_flag_naive(value: Any, ctx: Context | None = None) -> datetime | Flagged:
    """Like ``timestamp_utc`` but notes that a naive value was assumed to be UTC."""
    dt = parse_datetime(value)
    if dt.tzinfo is None:
        return Flagged(dt.replace(tzinfo=UTC), f"{value!r} has no offset; read as UTC")
    return dt.astimezone(UTC)


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


def currency(value: Any, ctx: Context | None = None) -> str:
    return check_currency(str(value))


def stripped(value: Any, ctx: Context | None = None) -> str | None:
    """Text without surrounding blanks; only blanks count as empty (null)."""
    return (value if isinstance(value, str) else str(value)).strip() or None
