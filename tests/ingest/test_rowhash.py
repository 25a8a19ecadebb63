"""Row hash version 3 (``ingest/rowhash.py``): the column-at-a-time hash equals the one-list
reference on awkward text; the encoding is one-to-one where version 2 needed its JSON form; the
version in force is the one ``content_key``, ``hash_rows`` and a new partition use; fixed
vectors pin the definition (a change to it is a new version, never an edit)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.ingest import focus_fast, rowhash
from trainledger.ingest.keys import content_key, content_key_v2, hashing, mapping_key

GOLDEN = [
    ([], "9571abf2aa276c10d1a1100fde42c53f"),
    (["billedcost", "1.1"], "f57824cccc730be9a4fd750c2b4d3f01"),
    (["billedcost", "1.1", "tags", '{"team":"视觉"}'], "7fd6cddccecf31a16fc494583f673303"),
    (["k", "snapshot_date", "2026-11-01"], "2b29a4dc4e09ecfa0583a0f5fc079403"),  # a lone last item
    (["step", 1], "120ba0c7ee896767166228e7fe059e5b"),  # a number, not the text "1"
    (["step", "1"], "687fb9d3da43736c087efc1b5857e84a"),
]


@pytest.mark.parametrize(("items", "want"), GOLDEN, ids=range(len(GOLDEN)))
def test_fixed_vectors(items, want):
    assert rowhash.content_key_v3(items) == want
    with hashing(3):
        assert content_key(items) == want


def test_the_version_in_force_picks_the_function():
    items = ["billedcost", "1.1"]
    assert content_key(items) == content_key_v2(items)  # the default: version 2
    with hashing(3):
        assert content_key(items) == rowhash.content_key_v3(items)
        with hashing(2):
            assert content_key(items) == content_key_v2(items)
    with pytest.raises(ValueError, match="unknown row hash version"), hashing(4):
        pass


def test_one_to_one_where_a_delimiter_would_meet():
    lists = [
        ["a", "b\x00c"], ["a\x00b", "c"], ["a", "b", "c", ""], ["a", "bc"], ["ab", "c"],
        ["a", ""], ["a", "\x00"], ["", "a"], ["a", "1"], ["a", 1], ["a", "x" * 8], ["a", "x" * 8 + "\x00"],
        ["a", "x" * 7], ["a", "1", "b"], ["a", "1", "b", ""], ["a"], [""], [],
    ]
    keys = [rowhash.content_key_v3(x) for x in lists]
    assert len(set(keys)) == len(lists)
    assert all(len(k) == 32 and int(k, 16) >= 0 for k in keys)
    # the order of pairs counts (rows are sorted by name before hashing, so it never varies)
    assert rowhash.content_key_v3(["a", "1", "b", "2"]) != rowhash.content_key_v3(["b", "2", "a", "1"])
    with hashing(3):
        assert mapping_key({"A": "1", "b": None}, fold=True) == mapping_key({"a": "1"}, fold=True)


TEXT = st.one_of(
    st.none(),
    st.sampled_from(["", "\x00", "a\x00", "12345678", "123456789", "中文字段", "NULL", "-0.5"]),
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
)


# v2 assumes no NUL; a lone surrogate is no text a file can hold (UTF-8 refuses it), as in TEXT
NAME = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), min_size=1, max_size=9)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(NAME, st.lists(TEXT, min_size=4, max_size=4)), max_size=5, unique_by=lambda c: c[0]),
       st.lists(st.integers(0, 3), min_size=0, max_size=9))
def test_columns_hash_as_the_reference(columns, codes):
    """``hash_columns`` (codes into per-column values, nulls: no item) == the reference of each
    row's non-null (name, value) pairs in name order."""
    columns = sorted(columns)
    m = len(codes)
    codes_np = np.array(codes, dtype=np.int64)
    spelled = [(name, codes_np, pa.array(values, pa.string())) for name, values in columns]
    got = rowhash.hash_columns(spelled, m).to_pylist()
    want = [
        rowhash.content_key_v3([x for name, values in columns if values[c] is not None
                                for x in (name, values[c])])
        for c in codes
    ]
    assert got == want
    with hashing(3):
        assert focus_fast.hash_rows(spelled, m).to_pylist() == want
    if not columns:  # version 2's DuckDB step needs a column (every file has one)
        return
    with hashing(2):  # and version 2 stays the blake2b of before
        assert focus_fast.hash_rows(spelled, m).to_pylist() == [
            content_key_v2([x for name, values in columns if values[c] is not None for x in (name, values[c])])
            for c in codes
        ]


def test_binary_items_with_the_json_mark_hash_as_non_text_items():
    values = pa.array([rowhash.JSON_MARK + b"1", b"1"], pa.binary())
    got = rowhash.hash_columns([("step", np.arange(2), values)], 2).to_pylist()
    assert got == [rowhash.content_key_v3(["step", 1]), rowhash.content_key_v3(["step", "1"])]


def test_a_sliced_array_reads_its_own_values():
    arr = pa.array(["skip me", "x" * 20, None, "y"], pa.string()).slice(1)
    got = rowhash.hash_columns([("c", np.array([0, 1, 2]), arr)], 3).to_pylist()
    assert got == [rowhash.content_key_v3(["c", "x" * 20]), rowhash.content_key_v3([]),
                   rowhash.content_key_v3(["c", "y"])]


@settings(max_examples=40, deadline=None)
@given(st.lists(TEXT, min_size=1, max_size=6), st.lists(st.integers(0, 5), max_size=9),
       st.lists(NAME, min_size=2, max_size=4, unique=True))
def test_one_array_under_several_names_hashes_as_separate_columns(values, codes, names):
    """Columns given the *same* values array (a bill's twin amount columns) are digested
    together (``digest_many``): each still with its own name's seed, as the reference says."""
    names = sorted(names)
    codes = [c % len(values) for c in codes]
    arr = pa.array(values, pa.string())
    codes_np = np.array(codes, dtype=np.int64)
    shared = rowhash.hash_columns([(n, codes_np, arr) for n in names], len(codes)).to_pylist()
    apart = rowhash.hash_columns([(n, codes_np, pa.array(values, pa.string())) for n in names],
                                 len(codes)).to_pylist()
    want = [rowhash.content_key_v3([x for n in names if values[c] is not None for x in (n, values[c])])
            for c in codes]
    assert shared == apart == want
