"""Column-at-a-time versions of the per-value converters and row-hash spellings.

Each function here gives, for an Arrow string array, exactly what the per-value function of
``convert.py`` or ``keys.py`` gives for each of its values. Only values of one plain shape are
computed with Arrow kernels (``-12.50``; ``2024-09-01T00:00:00Z``; ASCII text that is neither a
number nor a time); every other value goes through the per-value function itself, once per
*distinct* value of the chunk (``per_distinct``) — so the two can only agree.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest import convert as cv
from trainledger.ingest import keys
from trainledger.ingest.base import Flagged

STR = pa.string()
TS = pa.timestamp("us", tz="UTC")
_WS = r"[\t\n\x0b\x0c\r \x1c-\x1f]"  # Python's \s on ASCII text (RE2's \s lacks \v and \x1c-\x1f)
_NUMBER_LIKE = rf"^{_WS}*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?{_WS}*$"
_TIME_LIKE = rf"^{_WS}*[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}[T ][0-9]{{2}}:[0-9]{{2}}"
_CANON_Z = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$"


class Unexpected(Exception):
    """A per-value function gave what the column-wise code does not handle (a ``Flagged``)."""


class Coded:
    """A text column as its distinct values (the null spellings made null) and each row's
    code: every per-value step runs once per distinct value, then ``rows`` spreads it. A column
    of (almost) all-distinct values is better left as it is (``of(..., encode=False)``): its
    values are the rows' own, and each row's code is its position (``identity``)."""

    __slots__ = ("codes", "distinct", "identity", "null", "raw", "values")

    def __init__(
        self, values: pa.Array, codes: np.ndarray, null: np.ndarray, raw: pa.Array | None = None,
        identity: bool = False, distinct: bool = False,
    ) -> None:
        self.values, self.codes, self.null = values, codes, null
        self.raw = raw  # the rows' text when no value of it is null (rows() of the values)
        self.identity = identity  # codes == arange: values are row by row
        self.distinct = distinct  # no two values alike (a dictionary's): ``dictionary`` may use them

    @classmethod
    def of(cls, arr: pa.Array, nulls: frozenset[str], encode: bool = True) -> Coded:
        if not encode:
            null = _np(nulls_mask(arr, nulls))
            values = with_nulls(arr, pa.array(null)) if null.any() else arr
            return cls(values, np.arange(len(arr)), null, None if null.any() else arr, True)
        enc = pc.dictionary_encode(arr)
        values = enc.dictionary
        null = _np(nulls_mask(values, nulls))
        if null.any():
            values = with_nulls(values, pa.array(null))
        codes = enc.indices.to_numpy(zero_copy_only=False)
        return cls(values, codes, null, None if null.any() else arr, distinct=True)

    def rows(self, per_value: pa.Array | None = None) -> pa.Array:
        """``per_value`` (default: the values) for each row."""
        if self.raw is not None and (per_value is None or per_value is self.values):
            return self.raw  # the values as they are: the chunk's own column, no copy
        if self.identity:
            return self.values if per_value is None else per_value
        return pc.take(self.values if per_value is None else per_value, pa.array(self.codes))

    def dictionary(self) -> pa.DictionaryArray:
        """The rows as a dictionary array of the (distinct) values, a null value's rows null
        indices and the dictionary without it — as Parquet's writer takes a dictionary (no
        null, no value twice) without hashing each row's text again."""
        if not self.distinct:
            raise ValueError("a column of repeated values is no dictionary")
        if self.null.any():
            keep = ~self.null
            remap = (np.cumsum(keep) - 1).astype(np.int32)
            indices = pa.array(remap[self.codes], pa.int32(), mask=self.null[self.codes])
            return pa.DictionaryArray.from_arrays(indices, self.values.filter(pa.array(keep)))
        return pa.DictionaryArray.from_arrays(pa.array(self.codes, pa.int32()), self.values)

    def mask(self, per_value: np.ndarray) -> np.ndarray:
        return per_value if self.identity else per_value[self.codes]

    def filter(self, keep: np.ndarray) -> Coded:
        return Coded(self.values, self.codes[keep], self.null, distinct=self.distinct)

    @property
    def distinct_share(self) -> float:
        """Distinct values per row (1.0 for a column left as it is)."""
        return 1.0 if self.identity else len(self.values) / max(1, len(self.codes))


def const(text: str, n: int) -> pa.Array:
    """``n`` copies of ``text`` (Arrow repeats it; no Python list of ``n`` items)."""
    return pa.repeat(pa.scalar(text, STR), n)


def nulls_mask(arr: pa.Array, nulls: frozenset[str]) -> pa.Array:
    return pc.is_in(arr, value_set=pa.array(sorted(nulls), STR))


def with_nulls(arr: pa.Array, mask: pa.Array) -> pa.Array:
    """``arr`` with the positions of ``mask`` null."""
    return pc.if_else(mask, pa.scalar(None, arr.type), arr)


def per_distinct(arr: pa.Array, fn: Callable[[Any], Any], type: pa.DataType) -> pa.Array:
    """``fn`` of each value (null stays null), called once per distinct value."""
    enc = pc.dictionary_encode(arr)
    values = [fn(v) for v in enc.dictionary.to_pylist()]
    return pc.take(pa.array(values, type), enc.indices)


def patch(
    result: pa.Array, need: np.ndarray, arr: pa.Array, fn: Callable[[Any], Any], type: pa.DataType
) -> pa.Array:
    """``result`` with the positions of ``need`` replaced by ``fn`` of ``arr`` there."""
    if not need.any():
        return result
    mask = pa.array(need)
    fixed = per_distinct(arr.filter(mask), fn, type)
    return pc.replace_with_mask(result, mask, fixed)


def _np(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    return np.asarray(pc.fill_null(mask, False).to_numpy(zero_copy_only=False), dtype=bool)


def _matches(arr: pa.Array, pattern: str) -> np.ndarray:
    return _np(pc.match_substring_regex(arr, pattern))


# -- numbers ------------------------------------------------------------------------------------

# plain decimals that ``keys.canon_number`` leaves unchanged: no sign but a minus, no leading
# or trailing zero, not negative zero, at most 30 digits either side of the point
_CANON_NUMBER = r"^(?:-?[1-9][0-9]{0,29}(?:\.[0-9]{0,29}[1-9])?|0|-?0\.[0-9]{0,29}[1-9])$"
# plain decimals with a fraction that ends in zero (``2.4800``): canonical once the zeros go
_TRAILING_ZEROS = r"^-?(?:[1-9][0-9]{0,29}|0)\.[0-9]{0,29}0$"


def canon_number_column(arr: pa.Array, valid: np.ndarray) -> pa.Array:
    """``keys.canon_number`` of each value: canonical ones kept, trailing zeros of plain ones
    cut by Arrow, any other by the function itself."""
    same = _matches(arr, _CANON_NUMBER)
    zeros = np.zeros(len(arr), dtype=bool)
    other = ~same & valid
    if other.any():  # the second pattern only where the first did not match
        zeros[other] = _matches(arr.filter(pa.array(other)), _TRAILING_ZEROS)
    out = arr
    if zeros.any():
        mask = pa.array(zeros)
        cut = pc.replace_substring_regex(arr.filter(mask), r"\.?0+$", "")
        cut = pc.if_else(pc.equal(cut, "-0"), pa.scalar("0"), cut)
        out = pc.replace_with_mask(arr, mask, cut)
    return patch(out, ~same & ~zeros & valid, arr, keys.canon_number, STR)


def canon_plain_number_column(arr: pa.Array) -> pa.Array:
    """``keys.canon_number`` of plain decimals as ``convert.money_text`` / ``decimal_text``
    write them (no sign but a minus, no leading zero, no exponent, no negative zero): the
    fraction's trailing zeros cut, and the point with them — no pattern to match."""
    has_point = pc.match_substring(arr, ".")
    cut = pc.utf8_rtrim(pc.utf8_rtrim(arr, characters="0"), characters=".")
    return pc.if_else(has_point, cut, arr)


# -- converters ---------------------------------------------------------------------------------


class Converted:
    """A column converted: ``values`` (null where the input was null or refused), and for the
    refused values ``errors`` (the converter's message) and ``remedies`` (its remedy, if any)."""

    __slots__ = ("errors", "remedies", "values")

    def __init__(self, values: pa.Array, errors: pa.Array | None, remedies: pa.Array | None):
        self.values, self.errors, self.remedies = values, errors, remedies


def _outcome(convert: Callable[..., Any], ctx: Any) -> Callable[[Any], Any]:
    def run(v: Any) -> Any:
        try:
            out = convert(v, ctx)
        except (ValueError, TypeError, ArithmeticError) as e:
            return {"v": None, "e": str(e), "r": getattr(e, "remedy", None)}
        if type(out) is Flagged or out is None:
            raise Unexpected(repr(out))
        return {"v": out, "e": None, "r": None}

    return run


def convert_column(arr: pa.Array, convert: Callable[..., Any], ctx: Any) -> Converted:
    """``convert`` of each value of ``arr`` (text, null spellings null; usually a ``Coded``
    column's distinct values) as ``base.convert_columns`` runs it."""
    valid = _np(pc.is_valid(arr))
    if convert is cv.money_text or convert is cv.decimal_text:
        # already as the converter writes it: no sign but a minus, no leading zero, no exponent
        digits = cv.MAX_AMOUNT_DIGITS if convert is cv.money_text else cv.MAX_QUANTITY_DIGITS
        same = _matches(arr, _as_written(digits - 1, 40 if convert is cv.money_text else 30))
        same &= _np(pc.less_equal(pc.utf8_length(arr), cv.MAX_NUMBER_CHARS))
        values = arr if same.all() else with_nulls(arr, pa.array(~same))
        need = valid & ~same
    else:  # times, currencies: few distinct values in a bill; the converter itself for each
        values, need = pa.nulls(len(arr), _type_of(convert)), valid
    if not need.any():
        return Converted(values, None, None)
    got = per_distinct(
        arr.filter(pa.array(need)),
        _outcome(convert, ctx),
        pa.struct([("v", values.type), ("e", STR), ("r", STR)]),
    )
    mask = pa.array(need)
    values = pc.replace_with_mask(values, mask, got.field("v"))
    errors = pc.replace_with_mask(pa.nulls(len(arr), STR), mask, got.field("e"))
    remedies = pc.replace_with_mask(pa.nulls(len(arr), STR), mask, got.field("r"))
    return Converted(values, errors, remedies)


def _as_written(int_more: int, frac: int) -> str:
    """Plain decimals that ``format(Decimal(v), "f")`` (no negative zero) leaves unchanged."""
    f = rf"(?:\.[0-9]{{1,{frac}}})?"
    return (
        rf"^(?:-?[1-9][0-9]{{0,{int_more}}}{f}|0{f}|-0\.[0-9]{{0,{frac - 1}}}[1-9][0-9]{{0,{frac - 1}}})$"
    )


def _type_of(convert: Callable[..., Any]) -> pa.DataType:
    if convert in (cv.timestamp_utc, cv.timestamp_flag_naive, cv.timestamp_with_offset):
        return TS
    return STR


# -- row-hash spellings -------------------------------------------------------------------------


def canon_column(arr: pa.Array, canon: Callable[[Any], str] | None) -> pa.Array:
    """``canon`` of each value of ``arr`` (string, nulls null): its row-hash spelling."""
    if canon is None:
        return arr
    valid = _np(pc.is_valid(arr))
    if canon is keys.canon_number:
        return canon_number_column(arr, valid)
    if canon is keys.canon_time_utc:
        return patch(arr, ~_matches(arr, _CANON_Z) & valid, arr, canon, STR)
    if canon is keys.canon_loose:  # kept: ASCII text that is no number or time, or a canonical number
        ascii_ = _np(pc.string_is_ascii(arr))
        number = _matches(arr, _NUMBER_LIKE)
        other = ~ascii_ | (number & ~_matches(arr, _CANON_NUMBER)) | _matches(arr, _TIME_LIKE)
        return patch(arr, other & valid, arr, canon, STR)
    return per_distinct(arr, canon, STR)


# -- JSON text ----------------------------------------------------------------------------------


def _dumps(v: Any) -> str:
    return json.dumps(v, ensure_ascii=False)


def json_string(arr: pa.Array) -> pa.Array:
    """``json.dumps(v, ensure_ascii=False)`` of each text value (null stays null)."""
    quoted = pc.binary_join_element_wise(pa.scalar('"'), arr, pa.scalar('"'), "")
    need = _matches(arr, r'[\x00-\x1f"\\]')
    return patch(quoted, need, arr, _dumps, STR)


_LOCAL = threading.local()


def _duckdb() -> Any:
    """This thread's DuckDB connection (in memory; a connection is not shared across threads)."""
    con = getattr(_LOCAL, "con", None)
    if con is None:
        import duckdb

        con = _LOCAL.con = duckdb.connect()
        con.execute("SET preserve_insertion_order = true")
        con.execute("SET threads = 1")  # the import's other work runs beside it
    return con


def concat_rows(table: pa.Table, n: int) -> pa.ChunkedArray:
    """Each row's columns concatenated (a null is empty), in row order: DuckDB reads the
    columns as they are (dictionary-encoded ones without spreading them first), in parallel."""
    con = _duckdb()
    expr = ", ".join(f"coalesce(\"{name}\", '')" for name in table.column_names)
    con.register("tl_pieces", table)
    try:
        out = con.sql(f"SELECT concat({expr}) AS s FROM tl_pieces").to_arrow_table().column(0)
    finally:
        con.unregister("tl_pieces")
    if len(out) != n:  # pragma: no cover - DuckDB keeps every row
        raise RuntimeError(f"concat_rows: {len(out)} rows back for {n}")
    if not (pa.types.is_string(out.type) or pa.types.is_large_string(out.type)):
        out = out.cast(pa.large_string())
    return out


def join_skip(items: list[pa.Array], sep: str, n: int) -> pa.Array:
    """The non-null items of each row joined by ``sep`` ("" when none). (Arrow's own
    ``null_handling="skip"`` drops a row whose items are all null: a lead item prevents it.)"""
    lead = const("\x01", n)
    joined = pc.binary_join_element_wise(lead, *items, sep, null_handling="skip")
    return pc.utf8_slice_codeunits(joined, 1 + len(sep))


def json_list(items: list[pa.Array], n: int) -> pa.Array:
    """``[a,b,...]`` of JSON texts (null items left out), as ``base.dumps`` of a list writes it."""
    items = [i for i in items if i.null_count < len(i)]  # an item null on every row adds nothing
    if not items:
        return const("[]", n)
    inner = join_skip(items, ",", n)
    return pc.binary_join_element_wise(pa.scalar("["), inner, pa.scalar("]"), "")


def json_object(pairs: list[tuple[str, pa.Array]], n: int) -> pa.Array:
    """``{"k":v,...}`` of named JSON texts (null values left out), as ``base.dumps`` writes it."""
    items = [
        pc.binary_join_element_wise(pa.scalar(_dumps(k) + ":"), v, "") for k, v in pairs
        if v.null_count < len(v)  # null on every row: no member anywhere
    ]
    if not items:
        return const("{}", n)
    inner = join_skip(items, ",", n)
    return pc.binary_join_element_wise(pa.scalar("{"), inner, pa.scalar("}"), "")


def canon_loose_local_column(arr: pa.Array) -> pa.Array:
    """``keys.canon_loose_local`` of each value (sacct's unmodelled columns): the values
    ``canon_loose`` keeps are kept (a time-like one is never kept), any other by the function."""
    valid = _np(pc.is_valid(arr))
    ascii_ = _np(pc.string_is_ascii(arr))
    number = _matches(arr, _NUMBER_LIKE)
    other = ~ascii_ | (number & ~_matches(arr, _CANON_NUMBER)) | _matches(arr, _TIME_LIKE)
    return patch(arr, other & valid, arr, keys.canon_loose_local, STR)
