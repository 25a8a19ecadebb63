"""``ingest.vector``: each column-at-a-time function equals its per-value original on every value
(Hypothesis over number-, time- and text-like strings, and the fuzz harness's hostile values)."""

from __future__ import annotations

import json

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import HOSTILE

from trainledger.ingest import convert as cv
from trainledger.ingest import keys
from trainledger.ingest import vector as V

DIGITS = st.text("0123456789", min_size=0, max_size=34)
NUMBERS = st.builds(
    lambda sign, i, dot, f, exp, pad: f"{pad}{sign}{i}{dot}{f}{exp}{pad}",
    st.sampled_from(["", "-", "+"]),
    DIGITS,
    st.sampled_from(["", ".", "."]),
    DIGITS,
    st.sampled_from(["", "", "e5", "E-3", "e+99"]),
    st.sampled_from(["", "", "", " ", "\x0b", "\u3000"]),
)
TIMES = st.builds(
    lambda y, mo, d, sep, h, mi, s, tail: f"{y:04d}-{mo:02d}-{d:02d}{sep}{h:02d}:{mi:02d}:{s:02d}{tail}",
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.sampled_from(["T", " ", "t"]),
    st.integers(0, 24),
    st.integers(0, 60),
    st.integers(0, 60),
    st.sampled_from(["Z", "", "+08:00", "-05:00", ".5Z", " UTC", "z", "Zx"]),
)
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)  # UTF-8 text holds no surrogate
HOSTILE_TEXT = [h for h in HOSTILE if "\ud800" not in h]
VALUES = st.lists(st.one_of(NUMBERS, TIMES, TEXT, st.sampled_from(HOSTILE_TEXT)), min_size=1, max_size=40)


def per_value(fn, values):
    out = []
    for v in values:
        try:
            out.append(("ok", fn(v, None)))
        except (ValueError, TypeError, ArithmeticError) as e:
            out.append(("error", str(e), getattr(e, "remedy", None)))
    return out


def column(convert, values):
    got = V.convert_column(pa.array(values, pa.string()), convert, None)
    res = got.values.to_pylist()
    err = got.errors.to_pylist() if got.errors is not None else [None] * len(values)
    rem = got.remedies.to_pylist() if got.remedies is not None else [None] * len(values)
    return [("ok", r) if e is None else ("error", e, m) for r, e, m in zip(res, err, rem, strict=True)]


@settings(max_examples=60, deadline=None)
@given(VALUES)
def test_converters_by_column_equal_the_per_value_ones(values):
    for convert in (cv.money_text, cv.decimal_text, cv.timestamp_utc, cv.currency):
        assert column(convert, values) == per_value(convert, values), convert.__name__


@settings(max_examples=60, deadline=None)
@given(VALUES)
def test_row_hash_spellings_by_column_equal_the_per_value_ones(values):
    arr = pa.array(values, pa.string())
    for canon in (keys.canon_number, keys.canon_time_utc, keys.canon_loose, keys.canon_json, keys.canon_upper):
        assert V.canon_column(arr, canon).to_pylist() == [canon(v) for v in values], canon.__name__
    assert V.json_string(arr).to_pylist() == [json.dumps(v, ensure_ascii=False) for v in values]


def test_nulls_stay_null_and_plain_shapes_are_kept():
    arr = pa.array(["1.50", None, "-0.00", "007", "2.4800", "0.0"])
    assert V.convert_column(arr, cv.money_text, None).values.to_pylist() == [
        "1.50", None, "0.00", "7", "2.4800", "0.0"
    ]
    assert V.canon_column(arr, keys.canon_number).to_pylist() == ["1.5", None, "0", "7", "2.48", "0"]


def test_coded_columns_spread_per_value_results_to_rows():
    col = V.Coded.of(pa.array(["a", "NULL", "b", "a", ""]), frozenset({"", "NULL"}))
    assert col.values.null_count == 2 and len(col.values) == 4
    assert col.rows().to_pylist() == ["a", None, "b", "a", None]
    assert col.mask(~col.null).tolist() == [True, False, True, True, False]
    assert col.filter(np.array([True, False, False, True, True])).rows().to_pylist() == ["a", "a", None]


def test_join_skip_keeps_rows_whose_items_are_all_null():
    a, b = pa.array(["x", None, None]), pa.array([None, "y", None])
    assert V.join_skip([a, b], ",", 3).to_pylist() == ["x", "y", ""]
    assert V.json_list([V.json_string(a), V.json_string(b)], 3).to_pylist() == ['["x"]', '["y"]', "[]"]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.one_of(st.none(), TEXT), min_size=3, max_size=3), min_size=0, max_size=30))
def test_concat_rows_joins_each_row_in_order_nulls_empty(rows):
    """DuckDB's concatenation of (dictionary-encoded) columns equals Python's, row by row."""
    cols = {}
    for j in range(3):
        arr = pa.array([r[j] for r in rows], pa.string())
        cols[f"c{j}"] = arr.dictionary_encode() if j == 1 else arr  # a dictionary column too
    got = V.concat_rows(pa.table(cols), len(rows)).to_pylist()
    assert got == ["".join(v or "" for v in r) for r in rows]


def test_concat_rows_keeps_the_order_of_many_rows():
    n = 200_000  # several DuckDB vectors and row groups
    nums = pa.array([str(i) for i in range(n)])
    got = V.concat_rows(pa.table({"a": nums, "b": pa.array(["|"] * n)}), n)
    assert got.to_pylist()[::9973] == [f"{i}|" for i in range(0, n, 9973)]


@settings(max_examples=150, deadline=None)
@given(st.lists(NUMBERS, min_size=1, max_size=20))
def test_plain_number_spelling_of_converted_money_is_canon_number_of_the_text(texts):
    """``canon_plain_number_column`` of what ``money_text`` wrote equals ``keys.canon_number``
    of the file's text, for every text the converter accepts (what it refuses quarantines)."""
    ok, written = [], []
    for t in texts:
        try:
            out = cv.money_text(t)
        except (ValueError, ArithmeticError):
            continue
        ok.append(t)
        written.append(out)
    got = V.canon_plain_number_column(pa.array(written, pa.string())).to_pylist()
    assert got == [keys.canon_number(t) for t in ok]
