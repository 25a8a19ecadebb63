"""The other tables' side of the one mapping format (``mapfile.py``): a file read through a
native importer (focus, storage, timesheet, progress) — and the vendor spellings it rewrites.

``spec_of`` turns a loaded ``MappingFile`` of table ``bill_lines``, ``storage_objects``,
``labor_entries`` or ``progress_events`` into the ``Spec`` that ``remap.py`` reads with: which of
a file's headers feed which lake column, and how to read vendor spellings (Beijing times,
``GMT+08:00``, a month ``2026-11``, ``key:k value:v`` tags, Chinese vocabulary) into the native
importer's input. The row then goes through that importer's own ``validate`` and ``normalise``,
so a mapped file keeps every guarantee of the native one (quarantine, flags, duplicates, counts)::

    file ─► read (header by name) ─► rename + transform (this module) ─► native validate /
            normalise (focus, storage, timesheet, progress) ─► notes of the mapping ─► lake

Column types: ``text`` (default), ``decimal`` (``scale`` multiplies exactly), ``time`` (ISO,
``/`` dates, ``GMT+08:00``; naive → ``[time] zone``, default UTC; or, with a ``unit`` on the column
or ``[time] format = "number"``, a number of that unit from the origin — rounded to the
microsecond), ``date``, ``tags`` (JSON, ``key:k value:v;...``, ``k=v;...`` or ``k:v;...`` → a
JSON object).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo

from trainledger.ingest.base import dumps
from trainledger.ingest.convert import decimal_plain
from trainledger.ingest.mapfile import ROW_TABLES, UNITS, MappingFile, load

MAPPING_REMEDY = "see docs/formats.md § Mappings for the mapping format"


@dataclass(frozen=True, slots=True)
class Field:
    """One lake column: fed from the first of ``sources`` the file has, read as ``type``."""

    name: str
    sources: tuple[str, ...] = ()
    type: str = "text"
    scale: Decimal | None = None
    values: Mapping[str, str] | None = None
    unmapped: str = "keep"  # keep | null
    constant: Any = None
    fallback: tuple[str, ...] = ()  # headers read, in order, when the value is empty
    origin: datetime | None = None  # epoch: counted from this instant
    unit: str | None = None  # epoch: a number of this unit (s, ms, us, min)


@dataclass(frozen=True, slots=True)
class Note:
    text: str
    when: str = "always"
    column: str = ""
    places: int = 2


@dataclass(frozen=True, slots=True)
class Spec:
    name: str
    table: str
    description: str
    digest: str
    fields: tuple[Field, ...]
    signature: tuple[tuple[str, ...], ...] = ()
    timezone: str = "UTC"
    encoding: str | None = None
    period: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    finalised: tuple[int, int] | None = None
    notes: tuple[Note, ...] = ()
    run_from_path: str | None = None  # a regex with a ``run`` group, for the run of a tracker
    legacy: tuple[str, ...] = ()  # how to rewrite the old-format keys the mapping used

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


def spec_of(m: MappingFile) -> Spec:
    """The reading Spec of a mapping of one of the native importers' tables."""
    fields: dict[str, Field] = {}
    for c in m.columns:
        kind, unit, origin = c.type, None, None
        if c.type == "time" and (c.unit or m.time.format == "number"):
            kind, unit, origin = "epoch", c.unit or m.time.unit, c.origin or m.time.origin
        fields[c.name] = Field(
            c.name, c.sources, kind, c.scale,
            MappingProxyType({k.casefold(): v for k, v in c.values.items()}) if c.values else None,
            c.unmapped, fallback=c.fallback, origin=origin, unit=unit,
        )
    for name, value in m.constants.items():
        fields[name] = replace(fields.get(name) or Field(name), constant=value)
    return Spec(
        name=m.name,
        table=m.table,
        description=m.description or f"a table mapped by {Path(m.where).name}",
        digest=m.digest[:16],
        fields=tuple(fields.values()),
        signature=m.signature,
        timezone=m.time.zone or "UTC",
        encoding=m.encoding,
        period=m.period,
        finalised=m.finalised,
        notes=tuple(Note(n.text, n.when, n.column, n.places) for n in m.notes),
        run_from_path=m.run_from_path,
        legacy=m.legacy,
    )


def load_spec(ref: str | Path, kind: str = "mapped") -> Spec:
    """A mapping from a TOML file, or a built-in preset by name, of any native importer's table."""
    return spec_of(load({"mapping": str(ref)}, ROW_TABLES, kind))


# -- reading vendor spellings -----------------------------------------------------------------

_GMT = re.compile(r"\s*(?:GMT|UTC)\s*([+-])(\d{1,2}):?(\d{2})\s*$", re.I)
_SLASH_DATE = re.compile(r"^(\d{4})/(\d{1,2})/(\d{1,2})")
_MONTH = re.compile(r"^\s*(\d{4})[-/年](\d{1,2})月?\s*$")


def vendor_time(text: str, tz: ZoneInfo) -> datetime:
    """``2020-08-23 22:00:00 GMT+08:00``, ``2020/07/02 08:36``, ISO 8601 → aware UTC; a time
    without an offset is local to ``tz``."""
    s = text.strip()
    offset = None
    m = _GMT.search(s)
    if m:
        sign, hh, mm = m.groups()
        offset = f"{sign}{int(hh):02d}:{mm}"
        s = s[: m.start()].strip()
    m = _SLASH_DATE.match(s)
    if m:
        y, mo, d = m.groups()
        s = f"{y}-{int(mo):02d}-{int(d):02d}{s[m.end():]}"
    try:
        dt = datetime.fromisoformat(s + (offset or ""))
    except ValueError:
        raise ValueError(f"not a time: {text!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=tz)
    return dt.astimezone(UTC)


def vendor_range(text: str, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """``START - END`` (or ``~``, ``至``) in one cell; the separator is found where both halves
    read as times (``-`` also sits inside dates and offsets)."""
    s = text.strip()
    for m in re.finditer(r"\s*(?:~|至|—|-)\s*", s):
        left, right = s[: m.start()], s[m.end():]
        if not left or not right:
            continue
        try:
            return vendor_time(left, tz), vendor_time(right, tz)
        except ValueError:
            continue
    raise ValueError(f"not a time range START - END: {text!r}")


def vendor_tags(text: str) -> dict[str, str]:
    """Resource tags as vendors print them → a dict; keys kept exactly as written."""
    s = text.strip()
    if not s:
        return {}
    if s.startswith("{"):
        obj = json.loads(s)
        if not isinstance(obj, dict):
            raise ValueError("tags JSON is not an object")
        return {str(k): v for k, v in obj.items()}
    out: dict[str, str] = {}
    pairs = re.findall(r"key:\s*(.*?)\s+value:\s*(.*?)\s*(?:;|$)", s)
    if pairs:
        return {k: v for k, v in pairs}
    for part in re.split(r"[;,，；]", s):
        part = part.strip()
        if not part:
            continue
        k, sep, v = part.partition("=")
        if not sep:
            k, sep, v = part.partition(":")
        if not sep:
            raise ValueError(f"tag {part!r} is not key=value or key:value")
        out[k.strip()] = v.strip()
    return out


def _iso(dt: datetime) -> str:
    return dt.isoformat().replace("+00:00", "Z")


def transform(f: Field, value: Any, tz: ZoneInfo) -> Any:
    """The native importer's input for a vendor value (text, or a typed Parquet / JSON value).
    A value that cannot be read is passed on as it is: the native converter refuses it with
    its own reason and remedy."""
    if value is None:
        return f.constant
    if f.values is not None:
        hit = f.values.get(str(value).strip().casefold())
        if hit is not None:
            return hit
        if f.unmapped == "null":
            return None
    try:
        if f.type == "decimal" and f.scale is not None:
            return decimal_plain(Decimal(str(value).strip()) * f.scale)
        if f.type == "time" and isinstance(value, str):
            return _iso(vendor_time(value, tz))
        if f.type == "time" and isinstance(value, datetime) and value.tzinfo is None:
            return _iso(value.replace(tzinfo=tz).astimezone(UTC))
        if f.type == "epoch" and f.unit and f.origin is not None and not isinstance(value, bool):
            us = Decimal(str(value).strip()) * UNITS[f.unit]
            return _iso(f.origin + timedelta(microseconds=int(us.to_integral_value(ROUND_HALF_EVEN))))
        if f.type == "date" and isinstance(value, str):
            m = _SLASH_DATE.match(value.strip())
            return f"{m[1]}-{int(m[2]):02d}-{int(m[3]):02d}" if m else value.strip()
        if f.type == "tags" and isinstance(value, str):
            return dumps(vendor_tags(value))
    except (ValueError, InvalidOperation, OverflowError, json.JSONDecodeError):
        return value
    return value.strip() if isinstance(value, str) else value


def month_start(text: str, tz: ZoneInfo) -> datetime:
    m = _MONTH.match(str(text))
    if not m:
        raise ValueError(f"not a month YYYY-MM: {text!r}")
    return datetime(int(m[1]), int(m[2]), 1, tzinfo=tz)


def next_month(dt: datetime) -> datetime:
    return dt.replace(year=dt.year + dt.month // 12, month=dt.month % 12 + 1)


def period_of(values: Mapping[str, Any], tz: ZoneInfo) -> tuple[str, str] | None:
    """(start, end) ISO texts from the ``__period_*`` values: a range, else a day, else a month."""
    rng, day, month = (values.get(f"__period_{k}") for k in ("range", "day", "month"))
    try:
        if rng:
            s, e = vendor_range(str(rng), tz)
            return _iso(s), _iso(e)
        if day:
            d = vendor_time(str(day).strip()[:10].replace("/", "-"), tz)
            return _iso(d), _iso(d + timedelta(days=1))
        if month:
            m = month_start(str(month), tz)
            return _iso(m.astimezone(UTC)), _iso(next_month(m).astimezone(UTC))
    except ValueError:
        return None
    return None
