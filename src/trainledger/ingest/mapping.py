"""Declarative mappings: a TOML file that says how a CSV-like table becomes lake rows.

A mapping names, for one target table, which source column feeds each field, how its times
are written (numbers from an origin, or ISO text local to a time zone), which source words
mean which state, and constants. Built-in mappings (*presets*) live in ``presets/*.toml``;
``load_mapping`` reads either. The importers that use mappings (``mapped.py``,
``occupancy.py``, ``steps.py``) turn a ``Mapping`` into ``Column``s.

    name = "slurm-trace"                      # what the user passes to --preset
    table = "jobs"                            # jobs | occupancy | worker_steps
    description = "…"
    signature = ["job_id", "gpu_num"]         # header names the file must have
    nulls = ["", "None"]                      # texts that mean "no value"
    [time]  unit = "s"  origin = "…Z"         # numbers: unit s | ms | us | min from origin
            format = "iso"  tz = "…"           # or ISO text; a naive one is local to tz / --tz
    [columns]  field = "source column"
    [constants]  field = "value"
    [tags]  name = "source column"            # attribution fields (rules read tags.<name>)
    [states]  "source word" = "STATE"
"""

from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Flagged
from trainledger.ingest.convert import localize, parse_datetime

UNITS = MappingProxyType({"s": 1_000_000, "ms": 1_000, "us": 1, "min": 60_000_000})
TABLE_NAMES = ("jobs", "occupancy", "worker_steps")
KEYS = frozenset(
    {"name", "table", "description", "signature", "nulls", "time", "columns", "constants",
     "tags", "states", "notes", "unit", "interval_s"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Mapping:
    name: str
    table: str
    description: str
    columns: MappingProxyType[str, str]
    constants: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    tags: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    states: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    signature: tuple[str, ...] = ()
    nulls: frozenset[str] = frozenset({""})
    time_format: str = "number"  # number | iso
    time_unit: str = "s"
    origin: datetime | None = None
    tz: str | None = None  # for naive ISO text; None: the import's --tz
    unit: str | None = None  # occupancy: gpu | node; steps: s | ms | normalised
    interval_s: int | None = None  # occupancy: seconds each sample stands for
    digest: str = ""  # sha256 of the mapping's text: part of an import's identity
    source: str = ""  # "preset NAME" or the mapping file's path

    @property
    def needs_tz(self) -> bool:
        return self.time_format == "iso" and self.tz is None


def presets(table: str | None = None) -> dict[str, str]:
    """name → TOML text of every built-in mapping (of ``table``, if given)."""
    out = {}
    for f in sorted(resources.files("trainledger.ingest.presets").iterdir(), key=lambda f: f.name):
        if f.name.endswith(".toml"):
            text = f.read_text(encoding="utf-8")
            if table is None or tomllib.loads(text).get("table") == table:
                out[f.name[:-5]] = text
    return out


def load_mapping(options: Any, table: str) -> Mapping:
    """The mapping an import's options name: ``preset`` (built-in) or ``mapping`` (a file)."""
    preset, path = options.get("preset"), options.get("mapping")
    known = presets(table)
    names = ", ".join(known) or "none"
    if preset and path:
        raise BadInput("give --preset or --mapping, not both", remedy="drop one of them")
    if preset:
        if preset not in known:
            raise BadInput(f"no preset {preset!r} for table {table}", remedy=f"use one of {names}")
        return parse_mapping(known[preset], f"preset {preset}", table)
    if path:
        p = Path(str(path))
        if not p.is_file():
            raise BadInput("no such mapping file", path=str(p), remedy="check the --mapping path")
        return parse_mapping(p.read_text(encoding="utf-8"), str(p), table)
    raise BadInput(
        f"this import needs a mapping: the columns of a {table} table differ by source",
        remedy=f"pass --preset NAME ({names}) or --mapping FILE (see docs/formats.md)",
    )


def _table(doc: dict, key: str, where: str) -> MappingProxyType[str, str]:
    value = doc.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str | int) for k, v in value.items()
    ):
        raise BadInput(f"[{key}] must map names to texts", path=where, remedy="fix the mapping")
    return MappingProxyType({k: str(v) for k, v in value.items()})


def parse_mapping(text: str, where: str, table: str) -> Mapping:
    remedy = "fix the mapping (see docs/formats.md, 'Mappings')"
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"not TOML: {e}", path=where, remedy=remedy) from None
    unknown = sorted(set(doc) - KEYS)
    if unknown:
        raise BadInput(f"unknown key(s) {', '.join(unknown)}", path=where, remedy=remedy)
    if doc.get("table", table) != table:
        raise BadInput(
            f"this mapping is for table {doc.get('table')!r}, not {table}",
            path=where,
            remedy="use a mapping written for this import kind",
        )
    time = doc.get("time", {})
    if not isinstance(time, dict):
        raise BadInput("[time] must be a table", path=where, remedy=remedy)
    fmt = str(time.get("format", "number"))
    unit = str(time.get("unit", "s"))
    if fmt not in ("number", "iso") or unit not in UNITS:
        raise BadInput(
            f"[time] format {fmt!r} / unit {unit!r}: format is number or iso, unit one of "
            f"{', '.join(UNITS)}",
            path=where,
            remedy=remedy,
        )
    origin = None
    if "origin" in time:
        try:
            origin = parse_datetime(str(time["origin"]))
        except ValueError as e:
            raise BadInput(f"[time] origin: {e}", path=where, remedy=remedy) from None
        if origin.tzinfo is None:
            raise BadInput("[time] origin needs a UTC offset", path=where, remedy="end it with Z")
        origin = origin.astimezone(UTC)
    if fmt == "number" and origin is None and _has_times(doc):
        raise BadInput("[time] numbers need an origin", path=where, remedy="add origin = '…Z'")
    tz = time.get("tz")
    if tz is not None:
        check_tz(str(tz))
    columns = _table(doc, "columns", where)
    if not columns:
        raise BadInput("[columns] is empty", path=where, remedy=remedy)
    sig = doc.get("signature", list(columns.values()))
    nulls = doc.get("nulls", [""])
    interval = doc.get("interval_s")
    return Mapping(
        name=str(doc.get("name", Path(where).stem)),
        table=table,
        description=str(doc.get("description", "")),
        columns=columns,
        constants=_table(doc, "constants", where),
        tags=_table(doc, "tags", where),
        states=_table(doc, "states", where),
        signature=tuple(str(s) for s in sig),
        nulls=frozenset(str(n) for n in nulls),
        time_format=fmt,
        time_unit=unit,
        origin=origin,
        tz=str(tz) if tz is not None else None,
        unit=str(doc["unit"]) if "unit" in doc else None,
        interval_s=int(interval) if interval is not None else None,
        digest=hashlib.sha256(text.encode()).hexdigest(),
        source=where,
    )


def _has_times(doc: dict) -> bool:
    cols = doc.get("columns", {})
    return isinstance(cols, dict) and bool({"submit", "eligible", "start", "end", "ts"} & set(cols))


def check_tz(name: str) -> ZoneInfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise BadInput(f"unknown time zone {name!r}", remedy="use an IANA name, e.g. Asia/Shanghai") from None


@dataclass(frozen=True, slots=True)
class Settings:
    """What ``configure`` of a mapped importer returns: the mapping and the zone of its times."""

    mapping: Mapping
    tz: ZoneInfo | None
    overrides: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))


def overrides(value: Any) -> dict[str, str]:
    """``--set FIELD=VALUE`` pairs (a mapping, or texts ``FIELD=VALUE``) as a dict."""
    if not value:
        return {}
    if isinstance(value, dict):
        return {str(k): str(v) for k, v in value.items()}
    out = {}
    for item in value:
        k, sep, v = str(item).partition("=")
        if not sep or not k.strip():
            raise BadInput(f"--set {item!r} is not FIELD=VALUE", remedy="write e.g. --set vc=vc6YE")
        out[k.strip()] = v.strip()
    return out


def settings(options: Any, table: str) -> Settings:
    m = load_mapping(options, table)
    fixed = MappingProxyType(overrides(options.get("set")))
    tz = None
    if m.time_format == "iso":
        name = m.tz or options.get("tz")
        if not name:
            raise BadInput(
                f"mapping {m.name} reads times without an offset: the import needs their time zone",
                remedy="pass --tz ZONE (e.g. Asia/Shanghai), or set [time] tz in the mapping",
            )
        tz = check_tz(str(name))
    return Settings(m, tz, fixed)


def mapped_time(value: Any, ctx: Context) -> datetime | Flagged | None:
    """A time as the mapping writes it: a number of units from the origin, or ISO text."""
    cfg: Settings = ctx.cfg
    m = cfg.mapping
    if m.time_format == "number":
        if isinstance(value, bool):
            raise ValueError(f"not a number of {m.time_unit}: {value!r}")
        try:
            n = Decimal(str(value).strip())
        except InvalidOperation:
            raise ValueError(f"not a number of {m.time_unit}: {value!r}") from None
        if not n.is_finite():
            raise ValueError(f"not a finite number: {value!r}")
        us = n * UNITS[m.time_unit]
        if us != us.to_integral_value():
            raise ValueError(f"{value!r} {m.time_unit} is finer than a microsecond")
        assert m.origin is not None
        try:
            return m.origin + timedelta(microseconds=int(us))
        except OverflowError:
            raise ValueError(f"{value!r} {m.time_unit} from {m.origin:%Y-%m-%d} is out of range") from None
    dt = parse_datetime(value)
    if dt.tzinfo is not None:
        return dt.astimezone(UTC)
    assert cfg.tz is not None
    return localize(dt, cfg.tz)
