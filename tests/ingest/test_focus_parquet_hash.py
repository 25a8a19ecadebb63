"""The Parquet FOCUS reader's row hashes a column at a time (``focus_fast.record_hashes``) equal
``keys.mapping_key`` of each row, as the per-row reader computed them: on typed columns of every
kind a bill carries (floats, decimals, integers, booleans, timestamps with and without a zone,
text with literal NULL and NUL, maps, lists), on the FOCUS files of tests/data copied to typed
Parquet by DuckDB, and when a column name repeats (the per-row key, unchanged)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import DATA

from trainledger.ingest import focus_fast
from trainledger.ingest.focus import FocusImporter, _null
from trainledger.ingest.keys import (
    canon_for,
    canon_json,
    canon_loose,
    canon_number,
    canon_text,
    canon_time_utc,
    hashing,
    mapping_key,
)

NULLS = FocusImporter.nulls


def per_row(batch: pa.RecordBatch, canon: dict) -> list[str]:
    return [
        mapping_key({n: _null(v, NULLS) for n, v in d.items()}, fold=True, canon=canon, default=canon_loose)
        for d in batch.to_pylist()
    ]


COLUMNS = {
    "BilledCost": (pa.float64(), st.one_of(st.none(), st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.1]))),
    "ListCost": (pa.decimal128(18, 6), st.one_of(st.none(), st.decimals(-10**6, 10**6, places=6))),
    "step": (pa.int64(), st.one_of(st.none(), st.integers(-(2**63), 2**63 - 1))),
    "flag": (pa.bool_(), st.one_of(st.none(), st.booleans())),
    "ChargePeriodStart": (pa.timestamp("us", tz="UTC"), st.one_of(st.none(), st.datetimes(
        min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2100, 1, 1), timezones=st.just(dt.UTC)))),
    "naive": (pa.timestamp("us"), st.one_of(st.none(), st.datetimes(
        min_value=dt.datetime(1970, 1, 1), max_value=dt.datetime(2100, 1, 1)))),
    "day": (pa.date32(), st.one_of(st.none(), st.dates(dt.date(1970, 1, 1), dt.date(2100, 1, 1)))),
    "ResourceId": (pa.string(), st.one_of(st.none(), st.sampled_from(["", "NULL", "null", "a\x00b", "i-1", "中文"]),
                                          st.text(st.characters(blacklist_categories=("Cs",)), max_size=6))),
    "Tags": (pa.map_(pa.string(), pa.string()), st.one_of(st.none(), st.lists(
        st.tuples(st.sampled_from(["team", "团队", "b"]), st.sampled_from(["x", "视觉"])), max_size=2))),
    "x_list": (pa.list_(pa.int64()), st.one_of(st.none(), st.lists(st.integers(0, 9), max_size=3))),
}
CANON = {"BilledCost": canon_number, "ListCost": canon_number, "ChargePeriodStart": canon_time_utc,
         "ResourceId": canon_text, "Tags": canon_json}


@st.composite
def batches(draw: st.DrawFn) -> pa.RecordBatch:
    names = draw(st.lists(st.sampled_from(sorted(COLUMNS)), min_size=1, max_size=6, unique=True))
    n = draw(st.integers(0, 12))
    arrays = [pa.array([draw(COLUMNS[c][1]) for _ in range(n)], COLUMNS[c][0]) for c in names]
    return pa.RecordBatch.from_arrays(arrays, names=names)


@settings(max_examples=60, deadline=None)
@given(batches())
def test_typed_columns_hash_as_the_per_row_reader_hashed_them(batch):
    canon = {n: c for n, c in CANON.items() if n in batch.schema.names}
    assert focus_fast.record_hashes(batch, canon, canon_loose, NULLS) == per_row(batch, canon)


@settings(max_examples=40, deadline=None)
@given(batches())
def test_typed_columns_hash_alike_with_row_hash_version_3(batch):
    canon = {n: c for n, c in CANON.items() if n in batch.schema.names}
    with hashing(3):
        got = focus_fast.record_hashes(batch, canon, canon_loose, NULLS)
        assert got == per_row(batch, canon)
    assert got is None or batch.num_rows == 0 or got != focus_fast.record_hashes(batch, canon, canon_loose, NULLS)


@pytest.mark.parametrize("path", sorted(DATA.glob("focus-*/*.csv"))[:6], ids=lambda p: p.name)
def test_the_test_data_as_typed_parquet_hashes_alike(path: Path, tmp_path):
    out = tmp_path / "bill.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{path}')) TO '{out}'")
    table = pq.read_table(out)
    by_name = {c.sources[0]: c for c in FocusImporter.columns}
    canon = {n: canon_for(by_name[n]) or canon_text for n in table.schema.names if n in by_name}
    for batch in table.to_batches(max_chunksize=100):
        assert focus_fast.record_hashes(batch, canon, canon_loose, NULLS) == per_row(batch, canon)


def test_repeated_column_names_keep_the_per_row_key():
    batch = pa.RecordBatch.from_arrays([pa.array(["a"]), pa.array(["b"])], names=["x", "x"])
    assert focus_fast.record_hashes(batch, {}, canon_loose, NULLS) is None
