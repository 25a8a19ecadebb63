"""A partition's Parquet pages: a dictionary only for the columns that repeat, statistics only
where they can prune (lake/encoding.py: columns not text, text of one value), and the rows read
back exactly as written."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from trainledger.lake import Lake, encoding
from trainledger.lake.schemas import TABLES


def _table(n: int) -> pa.Table:
    schema = TABLES["bill_lines"]
    cols = {}
    for f in schema:
        if f.name == "row":
            cols[f.name] = pa.array(range(1, n + 1), pa.int64())
        elif f.name == "row_hash":
            cols[f.name] = pa.array([f"{i:032x}" for i in range(n)], f.type)
        elif f.name == "currency":  # one value in the partition
            cols[f.name] = pa.array(["USD"] * n, f.type)
        elif f.name == "billed_cost":
            cols[f.name] = pa.array([f"{i}.{i % 97:02d}" for i in range(n)], f.type)
        elif pa.types.is_string(f.type):
            cols[f.name] = pa.array([f"v{i % 3}" for i in range(n)], f.type)
        elif pa.types.is_timestamp(f.type):
            cols[f.name] = pa.array([1_700_000_000_000_000 + 3_600_000_000 * (i % 5) for i in range(n)], f.type)
        else:
            cols[f.name] = pa.nulls(n, f.type)
    return pa.table(cols, schema=schema)


def _chunks(meta: pq.FileMetaData, name: str) -> list[pq.ColumnChunkMetaData]:
    at = meta.schema.names.index(name)
    return [meta.row_group(g).column(at) for g in range(meta.num_row_groups)]


def test_dictionary_and_statistics_only_where_values_repeat(tmp_path):
    t = _table(5000)
    opts = encoding.options(t)
    assert "row_hash" not in opts["use_dictionary"] and "billed_cost" not in opts["use_dictionary"]
    assert "row" not in opts["use_dictionary"] and "currency" in opts["use_dictionary"]
    assert "row" in opts["write_statistics"]  # not text: kept
    assert "charge_period_start" in opts["write_statistics"]
    assert "row_hash" not in opts["write_statistics"]
    assert "currency" in opts["write_statistics"]  # text of one value: a query naming another skips the file
    assert "charge_category" in opts["use_dictionary"]  # three values: a dictionary ...
    assert "charge_category" not in opts["write_statistics"]  # ... but no min / max (it prunes nothing)

    lake = Lake(tmp_path)
    path = lake.write_partition("bill_lines", "a" * 64, t)
    meta = pq.ParquetFile(path).metadata
    (hashes,) = _chunks(meta, "row_hash")
    (currency,) = _chunks(meta, "currency")
    (category,) = _chunks(meta, "charge_category")
    assert not hashes.has_dictionary_page and not hashes.is_stats_set
    assert currency.has_dictionary_page and currency.is_stats_set
    assert currency.statistics.min == "USD" and currency.statistics.max == "USD"
    assert category.has_dictionary_page and not category.is_stats_set
    (row,) = _chunks(meta, "row")
    assert row.statistics.min == 1 and row.statistics.max == 5000
    back = pq.read_table(path)
    assert back.schema.remove_metadata().equals(t.schema.remove_metadata())
    assert back.equals(t.replace_schema_metadata(back.schema.metadata))


def test_no_rows_defaults():
    assert encoding.options(None) == {"compression": "zstd", "compression_level": 1}
    assert "use_dictionary" not in encoding.options(_table(0))
