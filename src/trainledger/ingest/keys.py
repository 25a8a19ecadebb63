"""Row hashes: what a row *says*, the same however a file wrote it.

A row's ``row_hash`` is blake2b-128 (hex) of its non-null values keyed by (case-folded) column
name and sorted by name (``content_key``). Each value is first written in a canonical spelling
for its column's meaning (``canon_for``), so the same bill exported as CSV text and as typed
Parquet hashes alike:

- a number (money, quantity, count) is its normalised decimal: ``1.10``, ``1.1`` and a Parquet
  ``decimal128`` 1.10 are all ``1.1``; ``1E+3`` is ``1000``; ``-0`` is ``0``;
- a timestamp is ISO 8601 in UTC ending in ``Z`` (``2024-09-01T00:00:00Z``); a time without an
  offset is read as UTC, except for sources that print local times (sacct), where it is kept
  as written (naive ISO), so that the ``--tz`` option never changes a row's hash;
- a date is ``YYYY-MM-DD``; a currency code is upper-case; a JSON object (FOCUS Tags, or a
  Parquet map) is compact JSON with sorted keys;
- any other text is kept exactly; in a column trainledger does not model, text that is a plain
  decimal number is normalised like a number, and a typed Parquet value is spelled by its type.

A value that does not parse as its column says (a bad number, a bad time) is kept as written.

Versions (each partition records the one its rows were hashed with, ``settle.meta_of``):

- 2 (``DEFAULT_VERSION``): blake2b-128 of the items joined by NUL (``content_key_v2``), one
  C call per row; the importers that read row by row hash with it (storage listing, timesheet,
  invoices, mapped kinds, ...): version 3 computed one row at a time in Python is 5-40x slower;
- 3 (``ROW_HASH_VERSION``): the same items, each digested on its own and folded per row
  (``rowhash.py``), which runs a column at a time: ``import focus``, ``import slurm`` and
  ``import progress`` (their column readers, ``focus_fast`` / ``slurm_fast`` / ``progress_fast``)
  hash with it. A file their column reader
  gives back is read row by row with version 3 too (slower, but the partition has one version).

``content_key`` hashes with the version in force (``hashing``; default 2). ``run_import`` puts
an importer's version in force (``lake.settle.import_version``): version 3 for an importer that
has it, unless the table holds a partition of the same kind (or of no recorded kind: one
written before partitions recorded theirs) hashed with version 2 — an older lake keeps
hashing FOCUS (or sacct, or progress) rows with version 2, so the rows it holds are still found again.
"""

from __future__ import annotations

import contextlib
import contextvars
import hashlib
import json
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, date, datetime
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal, InvalidOperation
from typing import Any

from trainledger.ingest import convert as cv
from trainledger.ingest import rowhash
from trainledger.ingest.base import Column

ROW_HASH_VERSION = 3  # the newest
DEFAULT_VERSION = 2  # the version of the importers that hash one row at a time
VERSIONS = (2, 3)
_ACTIVE: contextvars.ContextVar[int] = contextvars.ContextVar("row_hash_version", default=DEFAULT_VERSION)


def active_version() -> int:
    """The row-hash version ``content_key`` (and the column-wise hashers) use here and now."""
    return _ACTIVE.get()


@contextlib.contextmanager
def hashing(version: int) -> Iterator[None]:
    """Hash rows with ``version`` (one of ``VERSIONS``) inside the block (this thread, and the
    threads started with a copy of its context)."""
    if version not in VERSIONS:
        raise ValueError(f"unknown row hash version {version!r}")
    token = _ACTIVE.set(version)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
Canon = Callable[[Any], str]

_TIME_LIKE = re.compile(r"\s*\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
_CANONICAL_Z = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")  # already as _utc_z writes it


def row_key(raw: str) -> tuple[str, str | None]:
    """The key of a row known only by its raw text (one that cannot be read into named values)
    and, when the text holds undecodable bytes, a problem to report."""
    text = raw.rstrip("\r\n")
    try:
        data, problem = text.encode("utf-8"), None
    except UnicodeEncodeError as e:
        data = text.encode("utf-8", "surrogateescape")
        problem = f"not valid UTF-8 text (bad byte at character {e.start + 1})"
    return hashlib.blake2b(data, digest_size=16).hexdigest(), problem


_KEY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


def content_key(items: list[Any]) -> str:
    """The row hash (32 hex digits) of ``items``, a flat ``[name, value, name, value, ...]``
    list of the row's *non-null* canonical values sorted by name, by the version in force."""
    if _ACTIVE.get() == 2:
        return content_key_v2(items)
    return rowhash.content_key_v3(items)


def content_key_v2(items: list[Any]) -> str:
    """Version 2: blake2b-128 (hex) of ``items``.

    Text items are joined with NUL (fast); a list with a NUL inside an item, or with non-text
    items, is written as JSON after a \x01 mark instead (JSON escapes control characters, so
    the two forms never meet and the encoding stays one-to-one).
    """
    try:
        data = "\x00".join(items)
    except TypeError:
        data = None
    if data is None or len(items) == 1 or data.count("\x00") != len(items) - 1:
        data = "\x01" + _KEY_JSON(items)
    return hashlib.blake2b(data.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def mapping_key(
    values: Mapping[str, Any],
    *,
    fold: bool = False,
    canon: Mapping[str, Canon] | None = None,
    default: Canon | None = None,
) -> str:
    """``content_key`` of a mapping (a Parquet row, a JSON object); ``fold`` case-folds names;
    ``canon`` spells the value of a named column, ``default`` of every other one."""
    items = []
    for k, v in values.items():
        if v is None:
            continue
        spell = (canon or {}).get(k, default)
        items.append(((k.casefold() if fold else k), v if spell is None else spell(v)))
    items.sort(key=lambda kv: kv[0])
    return content_key([x for pair in items for x in pair])


# -- canonical spellings ------------------------------------------------------------------------


_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)  # normalize() never rounds


def _plain(d: Decimal) -> str:
    if not d.is_finite():
        return str(d)
    if d.is_zero():
        return "0"
    d = d.normalize(_EXACT)  # the default context would round to 28 digits (or overflow)
    if abs(d.adjusted()) > 64:  # do not write a 1E+100000 out in full
        return str(d)
    return format(d, "f")


def _utc_z(dt: datetime, naive_utc: bool = True) -> str:
    if dt.tzinfo is None or dt.utcoffset() is None:
        if not naive_utc:
            return dt.isoformat()
        dt = dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC).replace(tzinfo=None).isoformat() + "Z"
    except OverflowError:  # outside the calendar in UTC (year 1 at +08:00): as written
        return dt.isoformat()


def canon_value(v: Any, naive_utc: bool = True) -> str:
    """A typed value (Parquet, JSON) spelled by its type."""
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | Decimal):
        return _plain(Decimal(v))
    if isinstance(v, float):
        return _plain(Decimal(repr(v))) if v == v and abs(v) != float("inf") else repr(v)
    if isinstance(v, datetime):
        return _utc_z(v, naive_utc)
    if isinstance(v, date):
        return v.isoformat()
    if isinstance(v, Mapping) or (
        isinstance(v, list) and all(isinstance(p, tuple) and len(p) == 2 for p in v) and v
    ):
        return _KEY_JSON(_sorted_json(dict(v)))
    if isinstance(v, list | tuple):
        return _KEY_JSON([_sorted_json(x) for x in v])
    return str(v)


def _sorted_json(obj: Any) -> Any:
    if isinstance(obj, Mapping):
        return {str(k): _sorted_json(obj[k]) for k in sorted(obj, key=str)}
    if isinstance(obj, list | tuple):
        return [_sorted_json(x) for x in obj]
    return obj


def canon_text(v: Any) -> str:
    """A text column: text as written; a typed value (Parquet) spelled by its type."""
    return v if type(v) is str else canon_value(v)


def canon_number(v: Any) -> str:
    if type(v) is str:
        if not cv._NUMBER.fullmatch(v):
            return v
        try:
            return _plain(Decimal(v))
        except InvalidOperation:  # pragma: no cover - the pattern admits only numbers
            return v
    return canon_value(v)


def _time(v: Any, naive_utc: bool) -> str:
    if type(v) is str:
        if _CANONICAL_Z.fullmatch(v):  # valid: spelled canonically; invalid: kept as written
            return v
        try:
            dt = cv.parse_datetime(v)
        except ValueError:
            return v
        return _utc_z(dt, naive_utc)
    if isinstance(v, date) and not isinstance(v, datetime):
        v = datetime(v.year, v.month, v.day)
    return canon_value(v, naive_utc)


def canon_time_utc(v: Any) -> str:
    """A timestamp; without an offset it is UTC (FOCUS, storage)."""
    return _time(v, True)


def canon_time_local(v: Any) -> str:
    """A timestamp printed in local time (sacct): without an offset it is kept naive."""
    return _time(v, False)


def canon_date(v: Any) -> str:
    if type(v) is str:
        try:
            return date.fromisoformat(v.strip()).isoformat()
        except ValueError:
            return v
    if isinstance(v, datetime):
        return v.date().isoformat()
    return canon_value(v)


def canon_upper(v: Any) -> str:
    return v.strip().upper() if isinstance(v, str) else canon_value(v)


def canon_json(v: Any) -> str:
    """A JSON object (FOCUS Tags as text, or a Parquet map): compact, keys sorted."""
    if isinstance(v, str):
        try:
            obj = json.loads(v)
        except (ValueError, RecursionError):
            return v
        return _KEY_JSON(_sorted_json(obj)) if isinstance(obj, dict) else v
    return canon_value(v)


def canon_loose(v: Any) -> str:
    """A column trainledger does not model: a plain decimal number is normalised, a typed value
    is spelled by its type, other text is kept (naive times as UTC)."""
    if type(v) is str:
        if cv._NUMBER.fullmatch(v):
            return canon_number(v)
        if _TIME_LIKE.match(v):
            return canon_time_utc(v)
        return v
    return canon_value(v)


def canon_loose_local(v: Any) -> str:
    """``canon_loose`` for a source that prints local times: naive times stay naive."""
    if type(v) is str:
        if cv._NUMBER.fullmatch(v):
            return canon_number(v)
        if _TIME_LIKE.match(v):
            return canon_time_local(v)
        return v
    return canon_value(v, False)


_BY_CONVERTER: dict[Any, Canon] = {
    cv.decimal_text: canon_number,
    cv.money_text: canon_number,
    cv.nonneg_decimal_text: canon_number,
    cv.integer: canon_number,
    cv.nonneg_integer: canon_number,
    cv.timestamp_utc: canon_time_utc,
    cv.timestamp_flag_naive: canon_time_utc,
    cv.timestamp_with_offset: canon_time_utc,
    cv.iso_date: canon_date,
    cv.currency: canon_upper,
}


def canon_for(column: Column) -> Canon | None:
    """How a column's values are spelled in the row hash; None: text kept as written."""
    if column.canon is not None:
        return column.canon
    return _BY_CONVERTER.get(column.convert)
