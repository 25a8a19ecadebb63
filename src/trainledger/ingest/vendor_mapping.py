"""Declarative mappings: any CSV / Parquet / JSONL table read through a native importer.

A mapping (TOML, or a built-in preset) says which of a file's columns feed which lake column of
one target table, and how to read vendor spellings (Beijing times, ``GMT+08:00``, a month
``2026-11``, ``key:k value:v`` tags, Chinese vocabulary) into the native importer's input. The
row then goes through that importer's own ``validate`` and ``normalise``, so a mapped file keeps
every guarantee of the native one (quarantine, flags, duplicates, counts)::

    file ─► read (header by name) ─► rename + transform (this module) ─► native validate /
            normalise (focus, storage, timesheet, progress) ─► notes of the mapping ─► lake

Format (``docs/formats.md`` § Mapped files)::

    name = "my-bill"                 # names the mapping in the import's identity
    table = "bill_lines"             # bill_lines | storage_objects | labor_entries | progress_events
    timezone = "Asia/Shanghai"       # times without an offset are local to it (default UTC)
    encoding = "gb18030"             # used when the file is not UTF-8 (default: none, ask)
    signature = [["应付金额", "PretaxAmount"]]   # header groups that identify the format
    [columns]
    billed_cost = ["应付金额", "PretaxAmount"]   # the first header the file has feeds it
    charge_period_start = { from = ["开始时间"], type = "time" }
    service_category = { from = ["产品Code"], map = { ecs = "Compute" }, unmapped = "null" }
    [constants]
    provider = "Alibaba Cloud"       # used when no column gives a value
    [period]                         # bill_lines: a charge period from a day, month or range
    day = ["账单日期"]                 # [day, day + 1 day) in ``timezone``
    month = ["账期"]                   # [month, next month)
    range = ["消费时间"]               # "START - END" in one cell
    [finalised]                      # the vendor's bill for month M is final on day/hour of M+1
    day = 4
    hour = 12
    [[notes]]                        # evidence notes put on rows
    text = "..."
    when = "decimals_over"           # always | decimals_over (with column, places)
    column = "billed_cost"
    places = 2

Types: ``text`` (default), ``decimal`` (``scale`` multiplies exactly), ``time`` (ISO, ``/``
dates, ``GMT+08:00``; naive → ``timezone``), ``epoch_s``, ``epoch_ms`` (from 1970, or from the
column's ``origin``, an ISO time with offset: a trace's relative times), ``date``, ``tags``
(JSON, ``key:k value:v;...``, ``k=v;...`` or ``k:v;...`` → a JSON object).
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainledger.errors import BadInput
from trainledger.ingest.base import dumps
from trainledger.ingest.convert import decimal_plain

TYPES = frozenset({"text", "decimal", "time", "epoch_s", "epoch_ms", "date", "tags"})
MAPPING_REMEDY = "see docs/formats.md § Mapped files for the mapping format"
PRESET_DIR = Path(__file__).parent / "vendor_presets"


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
    origin: datetime | None = None  # epoch_s / epoch_ms: counted from this instant, not 1970


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

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)


def _names(value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise BadInput(f"mapping: {where} must be a header name or a list of them", remedy=MAPPING_REMEDY)


def parse_spec(data: Mapping[str, Any], text: str, origin: str) -> Spec:
    """A Spec from TOML data; every mistake is a BadInput naming the key."""
    from trainledger.ingest.schemas import TABLES

    table = data.get("table")
    if table not in TARGETS:
        raise BadInput(
            f"mapping {origin}: table {table!r} is not one of {', '.join(TARGETS)}",
            remedy=MAPPING_REMEDY,
        )
    names = set(TABLES[table].names)
    fields: dict[str, Field] = {}
    for name, spec in (data.get("columns") or {}).items():
        if name not in names:
            raise BadInput(
                f"mapping {origin}: {table} has no column {name!r}",
                remedy=f"map onto one of {', '.join(sorted(names))}",
            )
        if not isinstance(spec, dict):
            spec = {"from": spec}
        kind = spec.get("type", "text")
        if kind not in TYPES:
            raise BadInput(f"mapping {origin}: column {name}: unknown type {kind!r}",
                           remedy=f"use one of {', '.join(sorted(TYPES))}")
        try:
            scale = Decimal(str(spec["scale"])) if "scale" in spec else None
        except InvalidOperation:
            raise BadInput(f"mapping {origin}: column {name}: scale is not a number",
                           remedy=MAPPING_REMEDY) from None
        values = spec.get("map")
        fields[name] = Field(
            name,
            _names(spec.get("from"), f"columns.{name}.from"),
            kind,
            scale,
            MappingProxyType({str(k).casefold(): str(v) for k, v in values.items()}) if values else None,
            str(spec.get("unmapped", "keep")),
            fallback=_names(spec["fallback"], f"columns.{name}.fallback") if "fallback" in spec else (),
            origin=_origin(spec.get("origin"), origin, name),
        )
    for name, value in (data.get("constants") or {}).items():
        if name not in names:
            raise BadInput(f"mapping {origin}: constant for unknown column {name!r}",
                           remedy=f"use one of {', '.join(sorted(names))}")
        fields[name] = replace(fields.get(name) or Field(name), constant=value)
    tz = str(data.get("timezone") or "UTC")
    try:
        ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadInput(f"mapping {origin}: unknown time zone {tz!r}", remedy="e.g. Asia/Shanghai") from None
    period = {k: _names(v, f"period.{k}") for k, v in (data.get("period") or {}).items()}
    if set(period) - {"day", "month", "range"}:
        raise BadInput(f"mapping {origin}: period keys are day, month and range", remedy=MAPPING_REMEDY)
    fin = data.get("finalised")
    notes = tuple(
        Note(str(n["text"]), str(n.get("when", "always")), str(n.get("column", "")),
             int(n.get("places", 2)))
        for n in data.get("notes") or ()
    )
    return Spec(
        name=str(data.get("name") or origin),
        table=table,
        description=str(data.get("description") or f"a table mapped by {origin}"),
        digest=hashlib.sha256(text.encode()).hexdigest()[:16],
        fields=tuple(fields.values()),
        signature=tuple(_names(g, "signature") for g in data.get("signature") or ()),
        timezone=tz,
        encoding=data.get("encoding"),
        period=MappingProxyType(period),
        finalised=(int(fin.get("day", 1)), int(fin.get("hour", 0))) if fin else None,
        notes=notes,
        run_from_path=data.get("run_from_path"),
    )


def _origin(value: Any, origin: str, name: str) -> datetime | None:
    """A trace's time origin (``2020-04-01T00:00:00+08:00``): offsets count from it."""
    if value is None:
        return None
    try:
        dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    except ValueError:
        raise BadInput(f"mapping {origin}: column {name}: origin {value!r} is not an ISO time",
                       remedy="e.g. origin = 2020-04-01T00:00:00+08:00") from None
    if dt.tzinfo is None:
        raise BadInput(f"mapping {origin}: column {name}: origin {value!r} has no UTC offset",
                       remedy="write the origin with its offset, e.g. +08:00") from None
    return dt.astimezone(UTC)


def load_spec(ref: str | Path) -> Spec:
    """A mapping from a TOML file, or a built-in preset by name (``presets/NAME.toml``)."""
    path = Path(ref)
    if not path.is_file():
        preset = PRESET_DIR / f"{ref}.toml"
        if not preset.is_file():
            known = ", ".join(sorted(p.stem for p in PRESET_DIR.glob("*.toml")))
            raise BadInput(f"no mapping file or preset {str(ref)!r}",
                           remedy=f"give a TOML file, or one of the presets: {known}")
        path = preset
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"mapping {path.name} is not TOML: {e}", path=str(path),
                       remedy=MAPPING_REMEDY) from None
    return parse_spec(data, text, path.name)


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
        if f.type in ("epoch_s", "epoch_ms"):
            n = Decimal(str(value).strip())
            secs = n / 1000 if f.type == "epoch_ms" else n
            base = f.origin or datetime(1970, 1, 1, tzinfo=UTC)
            return _iso(base + timedelta(seconds=float(secs)))
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


TARGETS: Mapping[str, str] = MappingProxyType({
    "bill_lines": "focus",
    "storage_objects": "storage",
    "labor_entries": "timesheet",
    "progress_events": "progress",
})
