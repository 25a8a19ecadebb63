"""The importer protocol, its records, and the declarative columns every table source shares.

An importer (after beangulp's protocol) is four steps, plus one for import-wide settings:

    configure(options)            -> settings checked once (time zone, currency, ...); BadInput
    identify(path)                -> True, or the reason the file is not this kind
    parse(path, ctx)              -> one Record per data row: row number, raw text, named values
    validate(record, ctx)         -> typed values and flags; raises Rejected (→ quarantine)
    normalise(values, record, ctx) -> one lake row {column: value}, with a "flags" list

A CSV-like source is a ``DelimitedImporter`` subclass (``delimited.py``) that lists ``Column``s —
the lake column, the header names that feed it, a converter, and what a bad value costs
(quarantine the row or flag it) — and derives computed columns, if any, in ``normalise``.
``run.py`` drives the steps; ``text.py`` reads text files; ``keys.py`` computes row hashes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NamedTuple, Protocol, runtime_checkable

QUARANTINE: Literal["quarantine"] = "quarantine"
FLAG: Literal["flag"] = "flag"


class Rejected(Exception):
    """A row cannot enter the lake; it is quarantined with this reason and remedy."""

    def __init__(self, reason: str, remedy: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.remedy = remedy


class Flagged(NamedTuple):
    """A converter's result that is usable but worth a note on the row."""

    value: Any
    note: str


@dataclass(frozen=True, slots=True)
class Context:
    path: Path
    sha256: str
    kind: str
    options: Mapping[str, Any]
    cfg: Any = None  # what the importer's configure() returned
    watch: Any = None  # a text.ContentWatch: parsers that read with it hash what they read


@dataclass(slots=True)
class Record:
    """One data row as read: ``values`` are raw (text, or Python values from Parquet/JSON)."""

    row: int
    line: int | None
    raw: str
    key: str  # the row_hash: blake2b-128 of the row's content (``content_key``), never of its
    # row number or file, so the same row in another file has the same key
    values: dict[str, Any]
    extra: dict[str, Any] | None = None
    problem: str | None = None  # a structural fault found while reading (wrong field count...)
    remedy: str | None = None
    notes: list[str] | None = None  # flags found while reading (e.g. truncated nanoseconds)


class Verdict(str):
    """``identify``'s reason a file is not its kind, with a remedy to tell the user."""

    remedy: str | None

    def __new__(cls, reason: str, remedy: str | None = None) -> Verdict:
        self = super().__new__(cls, reason)
        self.remedy = remedy
        return self


@dataclass(frozen=True, slots=True)
class ImportResult:
    kind: str
    path: str
    sha256: str
    rows_read: int
    accepted: int
    duplicates: int
    quarantined: int
    quarantine_file: str | None
    flagged: int
    notices: tuple[tuple[str, Mapping[str, Any]], ...] = ()  # (key, values): ingest/notices.py
    import_key: str = ""  # which import of the file this was (lake.keys.import_key); "": sha256

    @property
    def import_id(self) -> str:
        """The id ``imports list`` shows for this import."""
        return (self.import_key or self.sha256)[:12]

    def as_json(self) -> dict[str, Any]:
        return {
            "accepted": self.accepted,
            "duplicates": self.duplicates,
            "quarantined": self.quarantined,
            "quarantine_file": self.quarantine_file,
        }


@runtime_checkable
class Importer(Protocol):
    kind: str
    table: str
    description: str

    def configure(self, options: Mapping[str, Any]) -> Any: ...

    def identify(self, path: Path) -> bool | str: ...

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]: ...

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]: ...

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]: ...


# -- declarative columns --------------------------------------------------------------------------

Converter = Callable[[Any, Context], Any]


def as_text(value: Any, ctx: Context) -> str:
    return value if isinstance(value, str) else str(value)


@dataclass(frozen=True, slots=True)
class Column:
    """One lake column fed from the first of ``sources`` (header names, case-insensitive) that
    the file has. ``required``: the header must have one of them (else BadInput for the file).
    ``needed``: a null value rejects the row. ``on_error``: what a value the converter refuses
    costs — ``quarantine`` the row, or ``flag`` it and store ``default``."""

    name: str
    sources: tuple[str, ...]
    convert: Converter = as_text
    required: bool = False
    needed: bool = False
    on_error: Literal["quarantine", "flag"] = QUARANTINE
    default: Any = None
    remedy: str | None = None  # told with a quarantined row, e.g. "write a plain decimal"
    canon: Callable[[Any], str] | None = None  # the value's row_hash spelling (keys.canon_for)

    @property
    def label(self) -> str:
        return self.sources[0]


def col(name: str, *sources: str, **kw: Any) -> Column:
    return Column(name, sources or (name,), **kw)


def convert_columns(
    columns: tuple[Column, ...], raw: Mapping[str, Any], ctx: Context
) -> dict[str, Any]:
    """Run each column's converter; the result has a ``flags`` list. Raises Rejected."""
    out: dict[str, Any] = {}
    flags: list[str] = []
    for name, convert, needed, flag_errors, default, label, remedy in _compiled(columns):
        v = raw.get(name)
        if v is None:
            if needed:
                raise Rejected(f"{label} is empty", f"fill in {label}")
            out[name] = default
            continue
        if convert is as_text and type(v) is str:  # the common case, without a call
            out[name] = v
            continue
        try:
            v = convert(v, ctx)
        except (ValueError, TypeError, ArithmeticError) as e:  # Overflow: a value out of range
            if flag_errors:
                flags.append(f"{label}: {e}")
                out[name] = default
                continue
            raise Rejected(f"{label}: {e}", getattr(e, "remedy", None) or remedy) from None
        if type(v) is Flagged:
            flags.append(f"{label}: {v.note}")
            v = v.value
        if v is None:
            if needed:
                raise Rejected(f"{label} is empty", f"fill in {label}")
            v = default
        out[name] = v
    out["flags"] = flags
    return out


_PLANS: dict[int, tuple[tuple[Column, ...], tuple[tuple[Any, ...], ...]]] = {}


def _compiled(columns: tuple[Column, ...]) -> tuple[tuple[Any, ...], ...]:
    """The columns as plain tuples, cached by identity (hashing Columns per row is slow)."""
    hit = _PLANS.get(id(columns))
    if hit is not None and hit[0] is columns:
        return hit[1]
    plan = tuple(
        (c.name, c.convert, c.needed, c.on_error == FLAG, c.default, c.label, c.remedy)
        for c in columns
    )
    if len(_PLANS) > 256:
        _PLANS.clear()
    _PLANS[id(columns)] = (columns, plan)
    return plan


def dumps(obj: Any) -> str:
    """Compact JSON for lake text columns (tags, flags, extra); keeps non-ASCII as is."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
