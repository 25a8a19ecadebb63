"""Column types that keep money exact and time unambiguous on every backend.

``DecimalText`` stores a ``Decimal`` as its own text (``str(d)``): SQLite's NUMERIC affinity
silently turns ``0.1000000000000000001`` into a float, and a PostgreSQL ``NUMERIC(p, s)`` would
fix one scale for every currency and quantity. Text keeps the value *and* its exponent, so a line
read back is the line written. The price: amounts cannot be summed or compared in SQL. That is
deliberate — sums happen in Python (or the engine) where the rounding rule lives.

``CleanString`` / ``CleanText`` refuse the NUL character (PostgreSQL cannot store it, SQLite
can) and ``CleanString`` enforces its length (PostgreSQL does, SQLite does not): without them the
same input would succeed on one backend and fail on the other.

``UTCDateTime`` stores an instant. It refuses naive datetimes (whose zone nobody knows), stores
UTC (as ``timestamptz`` where the backend has one, as naive UTC text on SQLite, which sorts
correctly) and always returns a tz-aware UTC datetime.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import DateTime, String, Text
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from trainledger.model.money import to_decimal

# Backends whose timestamp-with-time-zone column keeps the instant; the others get naive UTC.
TZ_NATIVE_DIALECTS = frozenset({"postgresql"})


class DecimalText(TypeDecorator[Decimal]):
    """An exact ``Decimal`` stored as text. Floats are refused: they already lost precision."""

    impl = Text
    cache_ok = True

    @property
    def python_type(self) -> type[Decimal]:
        return Decimal

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return str(to_decimal(value))

    def process_literal_param(self, value: Any, dialect: Dialect) -> str:
        if value is None:
            return "NULL"
        return "'" + str(to_decimal(value)) + "'"

    def process_result_value(self, value: Any, dialect: Dialect) -> Decimal | None:
        if value is None:
            return None
        return Decimal(value)


class UTCDateTime(TypeDecorator[datetime]):
    """A tz-aware instant, stored as UTC; naive datetimes are refused on the way in."""

    impl = DateTime(timezone=True)
    cache_ok = True

    @property
    def python_type(self) -> type[datetime]:
        return datetime

    def process_bind_param(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if not isinstance(value, datetime):
            raise TypeError(f"expected a datetime, got {type(value).__name__} {value!r}")
        if value.tzinfo is None or value.utcoffset() is None:
            raise ValueError(
                f"refusing naive datetime {value.isoformat()}: the ledger stores instants;"
                " attach a time zone (e.g. datetime.now(UTC) or .replace(tzinfo=...))"
            )
        utc = value.astimezone(UTC)
        return utc if dialect.name in TZ_NATIVE_DIALECTS else utc.replace(tzinfo=None)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


def _refuse_nul(value: Any) -> Any:
    if isinstance(value, str) and "\x00" in value:
        raise ValueError(
            f"refusing text with a NUL character: {value[:40]!r}; strip control characters"
            " from the source before it reaches the ledger"
        )
    return value


class CleanString(TypeDecorator[str]):
    """``String(length)`` without NUL characters, its length enforced on every backend
    (SQLite ignores ``VARCHAR(n)``; PostgreSQL refuses longer values)."""

    impl = String
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        length = self.impl.length
        if isinstance(value, str) and length is not None and len(value) > length:
            raise ValueError(f"text longer than {length} characters: {value[:40]!r}…")
        return _refuse_nul(value)


class CleanText(TypeDecorator[str]):
    """``Text`` without NUL characters."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> Any:
        return _refuse_nul(value)
