"""The one mapping format: a TOML file that says how a table from any source becomes lake rows.

Every mapped import reads the same schema — the job tables (``jobs``, ``occupancy``,
``worker_steps``, ``capacity``: ``mapping.py`` → ``tabular.py``) and the tables read through a native importer
(``bill_lines``, ``storage_objects``, ``labor_entries``, ``progress_events``: ``vendor_mapping.py``
→ ``remap.py``). Built-in mappings (*presets*) are files of this schema in ``presets/*.toml``;
``load`` reads ``--preset NAME`` or ``--mapping FILE`` into a ``MappingFile`` and every mistake is a
``BadInput`` naming the file, the key, the closest known name and the remedy::

    name = "my-bill"                          # what --preset names; part of an import's identity
    table = "bill_lines"                      # the target table (TABLES)
    description = "…"
    source = "https://… (read 2026-12-01)"    # where the layout is documented
    caveats = '''…'''                         # what the source leaves open, how it is read
    unverified = ["官网价"]                     # headers the source did not confirm
    signature = ["id", ["金额", "Amount"]]      # headers the file must have (a list: any one)
    nulls = ["", "None"]                      # job tables: texts meaning "no value"
    encoding = "gb18030"                      # other tables: used when the file is not UTF-8
    unit = "gpu"   interval_s = 60            # occupancy (gpu | node); worker_steps (s | ms | normalised)
                                              # capacity: interval_s is how long a row's fact holds
    [wide]  field = "vc"  value = "gpus"  total = "total"  # capacity: one column per VC (unpivoted)
    run_from_path = '…(?P<run>…)'             # progress_events: the run from the file's path
    [time]  format = "iso"  zone = "Asia/Shanghai"         # ISO text, naive → zone …
            source_zone = "America/Los_Angeles"           # … or this one when the import gives no --tz
            format = "number"  unit = "s"  origin = "…Z"   # … or numbers of a unit from an origin
    [columns]  field = "header" | ["h1", "h2"] | { from = …, type, scale, map, unmapped,
                                                   fallback, unit, origin }
    [constants]  field = value                # used when no column gives one
    [tags]  tag = "header"                    # jobs: attribution fields (rules read tags.<tag>)
    [period]  day / month / range = [headers] # bill_lines: a charge period from a day, month, range
    [finalised]  day = 4  hour = 12           # bill_lines: the vendor's month is final then
    [[notes]]  text, when = always | decimals_over, column, places   # evidence notes on rows

Old files (the two formats before this one) still load: ``timezone`` (now ``[time] zone``),
``[time] tz`` (``zone``), ``[states]`` (a ``map`` on the state column), ``notes = "text"``
(``caveats``) and the column types ``epoch_s`` / ``epoch_ms`` (``type = "time"`` with ``unit``)
are translated, and ``MappingFile.legacy`` says, per key, how to rewrite it.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from importlib import resources
from pathlib import Path
from types import MappingProxyType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from trainledger.errors import BadInput
from trainledger.names import closest

JOB_TABLES = ("jobs", "occupancy", "worker_steps", "capacity")
ROW_TABLES = ("bill_lines", "storage_objects", "labor_entries", "progress_events")
TABLES = JOB_TABLES + ROW_TABLES
UNITS = MappingProxyType({"s": 1_000_000, "ms": 1_000, "us": 1, "min": 60_000_000})
TYPES = ("text", "decimal", "time", "date", "tags")
DOCS = "see docs/formats.md § Mappings"
EPOCH = "1970-01-01T00:00:00Z"
# a bill whose amounts are in fen (分, 1/100 yuan) is the usual reason for a scale
SCALE_REMEDY = ('write the factor as a number in quotes, e.g. scale = "0.01": a bill whose amounts are in fen'
                ' (1/100 yuan) is read in yuan by billed_cost = { from = "Amount (fen)", type = "decimal",'
                ' scale = "0.01" }, which divides each amount by 100 exactly')
INTERNAL = frozenset({"row", "row_hash", "source_sha256", "flags", "extra"})  # lake columns no mapping fills

# top-level key → the tables it applies to
KEYS: MappingProxyType[str, tuple[str, ...]] = MappingProxyType({
    **{k: TABLES for k in ("name", "table", "description", "source", "caveats", "unverified",
                           "signature", "time", "columns", "constants")},
    "nulls": JOB_TABLES, "tags": ("jobs",), "unit": ("occupancy", "worker_steps"),
    "interval_s": ("occupancy", "capacity"), "wide": ("capacity",), "encoding": ROW_TABLES, "notes": ROW_TABLES,
    "period": ("bill_lines",), "finalised": ("bill_lines",), "run_from_path": ("progress_events",),
})  # fmt: skip
TIME_KEYS = ("format", "unit", "origin", "zone", "source_zone")
COLUMN_KEYS = ("from", "type", "scale", "map", "unmapped", "fallback", "unit", "origin")
JOB_COLUMN_KEYS = ("from", "map")  # the job tables' fields are read by their own converters
NOTE_KEYS = ("text", "when", "column", "places")
# a name people guess for a key that lives elsewhere
ELSEWHERE = MappingProxyType({"zone": "[time] zone", "tz": "[time] zone", "origin": "[time] origin",
                              "format": "[time] format", "vocabulary": "a map on the column",
                              "map": "a map on the column: state = { from = …, map = { … } }"})


@dataclass(frozen=True, slots=True)
class TimeSpec:
    format: str = "iso"  # iso | number
    unit: str = "s"
    origin: datetime | None = None
    zone: str | None = None  # naive ISO times are local to it; None: the import's (jobs) / UTC
    source_zone: str | None = None  # the zone the source documents: used when the import gives no --tz


@dataclass(frozen=True, slots=True)
class ColumnSpec:
    """One target field: fed from the first of ``sources`` the file has, read as ``type``."""

    name: str
    sources: tuple[str, ...]
    type: str = "text"
    scale: Decimal | None = None
    values: MappingProxyType[str, str] | None = None  # a vocabulary: source word → value
    unmapped: str = "keep"  # keep | null
    fallback: tuple[str, ...] = ()  # headers read, in order, when the value is empty
    unit: str | None = None  # a number of time units (overrides [time] unit)
    origin: datetime | None = None  # … counted from this instant (overrides [time] origin)


@dataclass(frozen=True, slots=True)
class NoteSpec:
    text: str
    when: str = "always"  # always | decimals_over
    column: str = ""
    places: int = 2


@dataclass(frozen=True, slots=True)
class MappingFile:
    name: str
    table: str
    where: str  # "preset NAME" or the file's path: what errors name
    digest: str  # sha256 of the text: part of an import's identity
    description: str = ""
    source: str = ""
    caveats: str = ""
    unverified: tuple[str, ...] = ()
    signature: tuple[tuple[str, ...], ...] = ()
    signed: bool = False  # whether the file gave a signature (job tables default to every column)
    nulls: frozenset[str] | None = None
    encoding: str | None = None
    unit: str | None = None
    interval_s: int | None = None
    wide: tuple[str, str, str] | None = None  # capacity: (field the headers give, field the cells give, total)
    run_from_path: str | None = None
    time: TimeSpec = field(default_factory=TimeSpec)
    columns: tuple[ColumnSpec, ...] = ()
    constants: MappingProxyType[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    tags: MappingProxyType[str, str] = field(default_factory=lambda: MappingProxyType({}))
    period: MappingProxyType[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    finalised: tuple[int, int] | None = None
    notes: tuple[NoteSpec, ...] = ()
    legacy: tuple[str, ...] = ()  # how to rewrite each old-format key this file used

    def column(self, name: str) -> ColumnSpec | None:
        return next((c for c in self.columns if c.name == name), None)


# -- presets ----------------------------------------------------------------------------------


def mapped_kind(table: str) -> str:
    """The import kind that reads ``table`` through the user's mapping (the registry's
    ``MAPPED_KIND``; imported here when asked, as the importers import this module)."""
    from trainledger.ingest import MAPPED_KIND

    return MAPPED_KIND[table]


def preset_texts() -> dict[str, str]:
    """name → TOML text of every built-in mapping (``presets/NAME.toml``)."""
    out = {}
    for f in sorted(resources.files("trainledger.ingest.presets").iterdir(), key=lambda f: f.name):
        if f.name.endswith(".toml"):
            out[f.name[:-5]] = f.read_text(encoding="utf-8")
    return out


@functools.cache
def _parsed() -> tuple[tuple[str, MappingFile], ...]:
    return tuple((name, parse(text, f"preset {name}")) for name, text in preset_texts().items())


def presets(tables: tuple[str, ...] | None = None) -> dict[str, MappingFile]:
    """name → the parsed preset, of ``tables`` if given (parsed once: files of the package)."""
    return {n: m for n, m in _parsed() if tables is None or m.table in tables}


def _listing(known: dict[str, MappingFile]) -> str:
    return ", ".join(f"{n} ({m.table})" for n, m in known.items()) or "none"


def load(options: Any, tables: tuple[str, ...], kind: str) -> MappingFile:
    """The mapping an import's options name: ``preset`` (built-in) or ``mapping`` (a file; a
    preset name there is read as that preset)."""
    preset, path = options.get("preset"), options.get("mapping")
    if preset and path:
        raise BadInput("give --preset or --mapping, not both",
                       remedy="drop one of them")
    known = presets(tables)
    if not preset and not path:
        raise BadInput(
            f"`import {kind}` needs a mapping: the columns of a {' / '.join(tables)} table differ by source",
            remedy=f"pass --preset NAME (one of: {_listing(known)}) or --mapping FILE; {DOCS}",
        )
    if path and Path(str(path)).is_file():
        p = Path(str(path))
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise BadInput("a mapping file is UTF-8 TOML", path=str(p),
                           remedy="save the mapping as UTF-8") from None
        m = parse(text, str(p), tables[0] if len(tables) == 1 else None)
    else:
        name = str(preset or path)
        if name not in known:
            every = presets()
            if name in every:
                other = every[name].table
                raise BadInput(
                    f"preset {name} fills table {other}, not {' / '.join(tables)}",
                    remedy=f"import it with `trainledger import {mapped_kind(other)} --preset {name}`",
                )
            if preset:
                raise BadInput(f"no preset {name!r}{_hint(name, known)}",
                               remedy=f"use one of: {_listing(known)} (`trainledger presets` lists them)")
            raise BadInput(f"no mapping file or preset {name!r}{_hint(name, known)}",
                           remedy=f"check the --mapping path, or use a preset: {_listing(known)}"
                                  " (`trainledger presets` lists them)")
        m = known[name]
    if m.table not in tables:
        raise BadInput(
            f"this mapping fills table {m.table}, but `import {kind}` fills {' / '.join(tables)}",
            path=m.where,
            remedy=f"import it with `trainledger import {mapped_kind(m.table)}`, or set table = "
                   f"\"{tables[0]}\" in the mapping",
        )
    return m


# -- parsing ----------------------------------------------------------------------------------


def _bad(where: str, key: str, problem: str, remedy: str = DOCS) -> BadInput:
    return BadInput(f"{key}: {problem}", path=where, remedy=remedy)


def _hint(name: str, known: Any) -> str:
    """`` — did you mean X?`` for the known name closest to ``name``, or ""; English only: the
    catalogue gives the Chinese (``{value} — did you mean {name}?``), so each language is whole."""
    close = closest(name, known)
    return f" — did you mean {close}?" if close else ""


def _unknown(where: str, section: str, name: str, known: tuple[str, ...] | list[str]) -> BadInput:
    hint = _hint(name, known)
    if not hint and name in ELSEWHERE:
        return _bad(where, f"{section}{name}", f"unknown key: it is written as {ELSEWHERE[name]}",
                    remedy=f"known: {', '.join(known)}; {DOCS}")
    return _bad(where, f"{section}{name}", f"unknown key{hint}", remedy=f"known: {', '.join(known)}; {DOCS}")


def _names(value: Any, where: str, key: str) -> tuple[str, ...]:
    if isinstance(value, str) and value:
        return (value,)
    if isinstance(value, list) and value and all(isinstance(v, str) and v for v in value):
        return tuple(value)
    raise _bad(where, key, "must be a header name or a list of them",
               remedy=f'e.g. {key} = ["应付金额", "PretaxAmount"]')


def _table(doc: dict, key: str, where: str) -> dict:
    value = doc.get(key, {})
    if not isinstance(value, dict):
        raise _bad(where, key, f"must be a table, written [{key}]")
    return value


def _instant(value: Any, where: str, key: str) -> datetime:
    try:
        dt = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise _bad(where, key, f"{value!r} is not an ISO time",
                   remedy=f'e.g. {key.rsplit(".", 1)[-1]} = "2020-04-01T00:00:00+08:00"') from None
    if dt.tzinfo is None:
        raise _bad(where, key, f"{value!r} has no UTC offset",
                   remedy="write the instant with its offset, e.g. +08:00 or Z")
    return dt.astimezone(UTC)


def _zone(value: Any, where: str, key: str) -> str:
    try:
        ZoneInfo(str(value))
    except (ZoneInfoNotFoundError, ValueError):
        raise _bad(where, key, f"unknown time zone {value!r}",
                   remedy="use an IANA name, e.g. Asia/Shanghai") from None
    return str(value)


def _unit(value: Any, where: str, key: str) -> str:
    if value not in UNITS:
        raise _bad(where, key, f"unit {value!r} is not one of {', '.join(UNITS)}{_hint(str(value), UNITS)}",
                   remedy=f'e.g. {key.rsplit(".", 1)[-1]} = "s"')
    return str(value)


def translate(doc: dict) -> tuple[dict, tuple[str, ...]]:
    """An old-format document in this format, and one rewrite note per old key it used."""
    doc = dict(doc)
    notes: list[str] = []
    time = doc.get("time")
    if "timezone" in doc:
        tz = doc.pop("timezone")
        doc["time"] = {"zone": tz, **(time if isinstance(time, dict) else {})}
        notes.append(f'timezone = "{tz}" is the old spelling: write [time] zone = "{tz}"')
    time = doc.get("time")
    if isinstance(time, dict) and "tz" in time:
        time = dict(time)
        tz = time.pop("tz")
        time.setdefault("zone", tz)
        doc["time"] = time
        notes.append(f'[time] tz = "{tz}" is the old spelling: write [time] zone = "{tz}"')
    cols = doc.get("columns")
    if "states" in doc and isinstance(doc["states"], dict) and isinstance(cols, dict | None):
        states = doc.pop("states")
        cols = dict(cols or {})
        src = cols.get("state")
        if isinstance(src, dict):
            cols["state"] = {**src, "map": {**states, **(src.get("map") or {})}}
        elif src is not None:
            cols["state"] = {"from": src, "map": states}
        doc["columns"] = cols
        notes.append('[states] is the old spelling: write the words on the state column, '
                     'state = { from = "…", map = { word = "STATE", … } }')
    if isinstance(doc.get("notes"), str):
        doc["caveats"] = doc.pop("notes")
        notes.append('notes = "…" (text) is the old spelling: write caveats = "…" ([[notes]] are put on rows)')
    cols = doc.get("columns")
    if isinstance(cols, dict):
        cols = dict(cols)
        for name, spec in cols.items():
            if isinstance(spec, dict) and spec.get("type") in ("epoch_s", "epoch_ms"):
                unit = "s" if spec["type"] == "epoch_s" else "ms"
                cols[name] = {**spec, "type": "time", "unit": unit, "origin": spec.get("origin", EPOCH)}
                notes.append(f'columns.{name}: type = "{spec["type"]}" is the old spelling: write '
                             f'type = "time", unit = "{unit}", origin = "{spec.get("origin", EPOCH)}"')
        doc["columns"] = cols
    return doc, tuple(notes)


def parse(text: str, where: str, table: str | None = None) -> MappingFile:
    """A MappingFile from TOML text; ``table`` is the import's, for a file that names none."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise BadInput(f"not TOML: {e}", path=where, remedy=DOCS) from None
    doc, legacy = translate(raw)
    for key in doc:
        if key not in KEYS:
            raise _unknown(where, "", key, tuple(KEYS))
    target = doc.get("table", table)
    if target not in TABLES:
        hint = _hint(str(target), TABLES) if target else ""
        raise _bad(where, "table", f"{target!r} is not a target table{hint}",
                   remedy=f"table = one of {', '.join(TABLES)}")
    for key in doc:
        if target not in KEYS[key]:
            raise _bad(where, key, f"does not apply to table {target} (it is for {', '.join(KEYS[key])})",
                       remedy=f"leave {key} out; {DOCS}")
    time = _time(_table(doc, "time", where), where)
    job = target in JOB_TABLES
    columns = tuple(_column(name, spec, where, job, time) for name, spec in _table(doc, "columns", where).items())
    if not columns and job:  # (a native importer's table reads its own headers without one)
        raise _bad(where, "columns", "is empty: map at least one field",
                   remedy='e.g. [columns] job_id = "id"')
    _check_fields(target, [c.name for c in columns], where, "columns")
    constants = _table(doc, "constants", where)
    _check_fields(target, list(constants), where, "constants")
    for k, v in constants.items():
        if not isinstance(v, str | int | float | bool):
            raise _bad(where, f"constants.{k}", "must be a text or number")
    tags = _table(doc, "tags", where)
    for k, v in tags.items():
        if not isinstance(v, str) or not v:
            raise _bad(where, f"tags.{k}", "must name a header", remedy=f'e.g. {k} = "group"')
    if job and time.format == "number" and time.origin is None and {c.name for c in columns} & {
        "submit", "eligible", "start", "end", "ts", "valid_from", "valid_to"
    }:
        raise _bad(where, "time", "numbers need an origin", remedy='add [time] origin = "…Z"')
    sig = doc.get("signature")
    if sig is not None and not isinstance(sig, list):
        raise _bad(where, "signature", "must be a list of headers")
    signature = tuple(_names(g, where, "signature") for g in sig or ())
    if sig is None and job:
        signature = tuple(c.sources for c in columns)
    nulls = doc.get("nulls")
    if nulls is not None and not (isinstance(nulls, list) and all(isinstance(n, str) for n in nulls)):
        raise _bad(where, "nulls", "must be a list of texts", remedy='e.g. nulls = ["", "None"]')
    interval = doc.get("interval_s")
    if interval is not None and (isinstance(interval, bool) or not isinstance(interval, int) or interval <= 0):
        raise _bad(where, "interval_s", "must be a whole number of seconds > 0",
                   remedy="e.g. interval_s = 60")
    unverified = doc.get("unverified", [])
    if not isinstance(unverified, list) or not all(isinstance(u, str) for u in unverified):
        raise _bad(where, "unverified", "must be a list of headers")
    return MappingFile(
        name=str(doc.get("name") or Path(where).name),
        table=target,
        where=where,
        digest=hashlib.sha256(text.encode()).hexdigest(),
        description=str(doc.get("description", "")),
        source=str(doc.get("source", "")),
        caveats=str(doc.get("caveats", "")),
        unverified=tuple(unverified),
        signature=signature,
        signed=sig is not None,
        nulls=frozenset(nulls) if nulls is not None else None,
        encoding=str(doc["encoding"]) if "encoding" in doc else None,
        unit=str(doc["unit"]) if "unit" in doc else None,
        interval_s=interval,
        wide=_wide(doc.get("wide"), where, target, columns),
        run_from_path=str(doc["run_from_path"]) if "run_from_path" in doc else None,
        time=time,
        columns=columns,
        constants=MappingProxyType(dict(constants)),
        tags=MappingProxyType(dict(tags)),
        period=_period(_table(doc, "period", where), where),
        finalised=_finalised(doc.get("finalised"), where),
        notes=_notes(doc.get("notes"), where, target),
        legacy=legacy,
    )


def _time(section: dict, where: str) -> TimeSpec:
    for k in section:
        if k not in TIME_KEYS:
            raise _unknown(where, "time.", k, TIME_KEYS)
    numeric = "unit" in section or "origin" in section
    fmt = section.get("format", "number" if numeric else "iso")
    if fmt not in ("iso", "number"):
        raise _bad(where, "time.format", f"{fmt!r} is not iso or number")
    return TimeSpec(
        format=fmt,
        unit=_unit(section.get("unit", "s"), where, "time.unit"),
        origin=_instant(section["origin"], where, "time.origin") if "origin" in section else None,
        zone=_zone(section["zone"], where, "time.zone") if "zone" in section else None,
        source_zone=_zone(section["source_zone"], where, "time.source_zone") if "source_zone" in section else None,
    )


def _column(name: str, spec: Any, where: str, job: bool, time: TimeSpec) -> ColumnSpec:
    key = f"columns.{name}"
    if not isinstance(spec, dict):
        return ColumnSpec(name, _names(spec, where, key))
    allowed = JOB_COLUMN_KEYS if job else COLUMN_KEYS
    for k in spec:
        if k not in allowed:
            if job and k in COLUMN_KEYS:
                raise _bad(where, f"{key}.{k}", "does not apply to the job tables (jobs, occupancy, "
                           "worker_steps, capacity: their fields are read by their own converters)",
                           remedy=f"leave {k} out; for times use the [time] section")
            raise _unknown(where, f"{key}.", k, allowed)
    if "from" not in spec:
        raise _bad(where, key, "names no header: add from = \"…\"",
                   remedy=f'e.g. {name} = {{ from = "…" }}')
    kind = spec.get("type", "text")
    if kind not in TYPES:
        raise _bad(where, f"{key}.type", f"unknown type {kind!r}{_hint(str(kind), TYPES)}",
                   remedy=f"use one of {', '.join(TYPES)}")
    scale = None
    if "scale" in spec:
        try:
            scale = Decimal(str(spec["scale"]))
        except InvalidOperation:
            raise _bad(where, f"{key}.scale", f"{spec['scale']!r} is not a number", remedy=SCALE_REMEDY) from None
    values = spec.get("map")
    if values is not None:
        if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
            raise _bad(where, f"{key}.map", "must map source words to texts")
        if job and name != "state":
            raise _bad(where, f"{key}.map", "only the state column of a job table has a vocabulary")
        values = MappingProxyType({str(k): v for k, v in values.items()})
    unmapped = str(spec.get("unmapped", "keep"))
    if unmapped not in ("keep", "null"):
        raise _bad(where, f"{key}.unmapped", f"{unmapped!r} is not keep or null")
    unit = _unit(spec["unit"], where, f"{key}.unit") if "unit" in spec else None
    origin = _instant(spec["origin"], where, f"{key}.origin") if "origin" in spec else None
    if kind == "time" and (unit or time.format == "number") and (origin or time.origin) is None:
        raise _bad(where, key, "a time written as a number needs an origin",
                   remedy=f'add origin = "{EPOCH}" (Unix time) on the column or under [time]')
    if (unit or origin) and kind != "time":
        raise _bad(where, key, "unit and origin are for type = \"time\"")
    return ColumnSpec(
        name, _names(spec["from"], where, f"{key}.from"), kind, scale, values, unmapped,
        _names(spec["fallback"], where, f"{key}.fallback") if "fallback" in spec else (), unit, origin,
    )


def _check_fields(table: str, names: list[str], where: str, section: str) -> None:
    known = fields_of(table)
    for n in names:
        if n not in known:
            raise _bad(where, f"{section}.{n}", f"{table} has no field {n!r}{_hint(n, known)}",
                       remedy=f"map onto one of {', '.join(sorted(known))}")


def fields_of(table: str) -> frozenset[str]:
    """The fields a mapping may fill in ``table``: a job table's importer fields, else the lake
    table's columns (the native importer's)."""
    if table == "jobs":
        from trainledger.ingest.mapped import FIELDS
    elif table == "occupancy":
        from trainledger.ingest.occupancy import FIELDS
    elif table == "worker_steps":
        from trainledger.ingest.steps import FIELDS
    elif table == "capacity":
        from trainledger.ingest.nodes import FIELDS
    else:
        from trainledger.lake.schemas import TABLES as LAKE

        return frozenset(LAKE[table].names) - INTERNAL
    return FIELDS


def _wide(section: Any, where: str, table: str, columns: tuple[ColumnSpec, ...]) -> tuple[str, str, str] | None:
    """``[wide]``: a table with one column per virtual cluster (or node): every header no column
    maps (and not ``total``) is a value of ``field``, its cells values of ``value``."""
    if section is None:
        return None
    if not isinstance(section, dict):
        raise _bad(where, "wide", "must be a table [wide] with field and value")
    for k in section:
        if k not in ("field", "value", "total"):
            raise _unknown(where, "wide.", k, ("field", "value", "total"))
    key, value, total = section.get("field"), section.get("value"), section.get("total", "")
    if not (isinstance(key, str) and isinstance(value, str) and isinstance(total, str)) or key == value:
        raise _bad(where, "wide", "needs field and value, two field names (and total, a header)",
                   remedy='e.g. [wide] field = "vc"  value = "gpus"  total = "total"')
    _check_fields(table, [key, value], where, "wide")
    taken = [n for n in (key, value) if any(c.name == n for c in columns)]
    if taken:
        raise _bad(where, f"wide.{taken[0]}", "is also under [columns]: a wide table's headers give it",
                   remedy=f"drop {taken[0]} from [columns]")
    return key, value, total


def _period(section: dict, where: str) -> MappingProxyType[str, tuple[str, ...]]:
    for k in section:
        if k not in ("day", "month", "range"):
            raise _unknown(where, "period.", k, ("day", "month", "range"))
    return MappingProxyType({k: _names(v, where, f"period.{k}") for k, v in section.items()})


def _finalised(section: Any, where: str) -> tuple[int, int] | None:
    if section is None:
        return None
    if not isinstance(section, dict):
        raise _bad(where, "finalised", "must be a table [finalised] with day and hour")
    for k in section:
        if k not in ("day", "hour"):
            raise _unknown(where, "finalised.", k, ("day", "hour"))
    day, hour = section.get("day", 1), section.get("hour", 0)
    if not (isinstance(day, int) and 1 <= day <= 28 and isinstance(hour, int) and 0 <= hour <= 23):
        raise _bad(where, "finalised", "day is 1-28 and hour 0-23")
    return day, hour


def _notes(value: Any, where: str, table: str) -> tuple[NoteSpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(n, dict) for n in value):
        raise _bad(where, "notes", "must be [[notes]] tables")
    out = []
    for i, n in enumerate(value, 1):
        for k in n:
            if k not in NOTE_KEYS:
                raise _unknown(where, f"notes[{i}].", k, NOTE_KEYS)
        when = n.get("when", "always")
        if when not in ("always", "decimals_over", "missing") or not isinstance(n.get("text"), str):
            raise _bad(where, f"notes[{i}]", "needs text, and when = always, decimals_over or missing")
        if when in ("decimals_over", "missing"):
            _check_fields(table, [str(n.get("column", ""))], where, f"notes[{i}].column")
        out.append(NoteSpec(n["text"], when, str(n.get("column", "")), int(n.get("places", 2))))
    return tuple(out)


def legacy_notes(kind: str, options: Any, lang: str = "en") -> list[str]:
    """What to tell someone whose ``--mapping`` file is of an old format: one line per old key,
    saying how to rewrite it (the file is read, translated), in ``lang``. Empty for presets and
    new files."""
    from trainledger.i18n import localize
    from trainledger.ingest import importer_for

    imp = importer_for(kind)
    table = getattr(imp, "mapping_table", None) or (imp.table if getattr(imp, "generic", False) else None)
    if table is None or not options.get("mapping"):
        return []
    m = load(options, (table,), kind)
    if not m.legacy:
        return []
    head = f"{m.where}: old mapping format, read translated; rewrite it so:"
    return [localize(head, lang), *(f"  {localize(line, lang)}" for line in m.legacy)]
