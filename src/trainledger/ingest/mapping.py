"""The job tables' side of the one mapping format (``mapfile.py``): jobs, occupancy, worker_steps, capacity.

``load_mapping`` reads ``--preset NAME`` / ``--mapping FILE`` through ``mapfile.load`` and gives
the ``Mapping`` that ``tabular.py`` turns into ``Column``s: each field's source headers (the
first the file has), the state vocabulary, ``[tags]``, constants, and how times are written
(numbers of a unit from an origin, or ISO text local to ``[time] zone`` — without one, to the
import's ``--tz``). ``Settings`` is what the mapped importers' ``configure`` returns;
``mapped_time`` reads one time as the mapping writes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Flagged
from trainledger.ingest.convert import localize, parse_datetime
from trainledger.ingest.mapfile import JOB_TABLES, UNITS, MappingFile, load, presets

TABLE_NAMES = JOB_TABLES
# what mapped_time reads
TIME_FIELDS = frozenset({"submit", "eligible", "start", "end", "ts", "valid_from", "valid_to"})
__all__ = ["UNITS", "Mapping", "Settings", "load_mapping", "mapped_time", "overrides", "presets", "settings"]


@dataclass(frozen=True, slots=True)
class Mapping:
    name: str
    table: str
    description: str
    columns: MappingProxyType[str, tuple[str, ...]]  # field → its source headers (the first present)
    constants: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    tags: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    states: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))  # casefolded
    signature: tuple[tuple[str, ...], ...] = ()  # header groups the file must have (one of each)
    nulls: frozenset[str] = frozenset({""})
    time_format: str = "number"  # number | iso
    time_unit: str = "s"
    origin: datetime | None = None
    tz: str | None = None  # for naive ISO text; None: the import's --tz
    unit: str | None = None  # occupancy: gpu | node; steps: s | ms | normalised
    interval_s: int | None = None  # occupancy: seconds each sample stands for; capacity: each fact holds
    wide: tuple[str, str, str] | None = None  # capacity: (field of the headers, field of the cells, total)
    digest: str = ""  # sha256 of the mapping's text: part of an import's identity
    source: str = ""  # "preset NAME" or the mapping file's path
    legacy: tuple[str, ...] = ()  # how to rewrite the old-format keys the file used

    @property
    def has_times(self) -> bool:
        return bool(set(self.columns) & TIME_FIELDS)

    @property
    def needs_tz(self) -> bool:
        return self.time_format == "iso" and self.tz is None and self.has_times

    def state_of(self, word: str) -> str | None:
        """The state the mapping's vocabulary gives ``word`` (case-insensitive), or None."""
        return self.states.get(word.casefold())


def job_mapping(m: MappingFile) -> Mapping:
    state = m.column("state")
    words = state.values if state is not None and state.values else {}
    return Mapping(
        name=m.name,
        table=m.table,
        description=m.description,
        columns=MappingProxyType({c.name: c.sources for c in m.columns}),
        constants=MappingProxyType({k: str(v) for k, v in m.constants.items()}),
        tags=m.tags,
        states=MappingProxyType({k.casefold(): v for k, v in words.items()}),
        signature=m.signature,
        nulls=m.nulls if m.nulls is not None else frozenset({""}),
        time_format=m.time.format,
        time_unit=m.time.unit,
        origin=m.time.origin,
        tz=m.time.zone,
        unit=m.unit,
        interval_s=m.interval_s,
        wide=m.wide,
        digest=m.digest,
        source=m.where,
        legacy=m.legacy,
    )


def load_mapping(options: Any, table: str) -> Mapping:
    """The mapping an import's options name: ``preset`` (built-in) or ``mapping`` (a file)."""
    kind = {"worker_steps": "steps", "capacity": "nodes"}.get(table, table)
    return job_mapping(load(options, (table,), kind))


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
    if m.time_format == "iso" and m.has_times:
        name = m.tz or options.get("tz")
        if not name:
            raise BadInput(
                f"mapping {m.name} reads times without an offset: the import needs their time zone",
                remedy="pass --tz ZONE (e.g. Asia/Shanghai), or set [time] zone in the mapping",
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
