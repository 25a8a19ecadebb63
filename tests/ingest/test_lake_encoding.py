"""A partition's Parquet pages: a dictionary only for the columns that repeat, statistics only
where they can prune (lake/encoding.py: columns not text, text of one value), and the rows read
back exactly as written."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
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


def _coded(t: pa.Table, names: list[str]) -> pa.RecordBatch:
    """``t`` with the text columns ``names`` as dictionaries (nulls as null indices)."""
    cols = [pa.chunked_array(c).combine_chunks() for c in t.columns]
    cols = [pc.dictionary_encode(c) if n in names else c for n, c in zip(t.column_names, cols, strict=True)]
    return pa.RecordBatch.from_arrays(cols, names=t.column_names)


def test_text_handed_as_dictionaries_reads_back_as_the_table_schema(tmp_path):
    """``import focus`` hands the writer its repeated text columns as dictionaries, each chunk
    its own (``Coded.dictionary``): the partition reads back with the table's schema (text, not
    dictionaries), the same values, its metadata, dictionary pages, and settles like any other."""
    from trainledger.lake.settle import partition_meta

    t = _table(3000)
    region = pa.array([None if i % 7 == 0 else f"r{i % 5}" for i in range(3000)], pa.string())
    t = t.set_column(t.schema.get_field_index("region"), t.schema.field("region"), region)
    names = ["currency", "charge_category", "region", "tags"]
    lake = Lake(tmp_path)
    with lake.open_partition("bill_lines", "b" * 64, identity="id", statement="st", kind="focus") as part:
        part.write(_coded(t.slice(0, 1000), names))
        part.write(t.slice(1000, 1000).to_batches()[0])  # a chunk with no column encoded
        part.write(_coded(t.slice(2000, 1000), names[1:]))  # and one with its own dictionaries
        committed = part.commit()
    pf = pq.ParquetFile(committed.path)
    assert pf.schema_arrow.remove_metadata().equals(TABLES["bill_lines"].remove_metadata())
    assert partition_meta(pf.schema_arrow) == {"identity": "id", "kind": "focus", "row_hash": 2, "statement": "st"}
    back = pf.read()
    assert back.to_pylist() == t.to_pylist()
    (category,) = _chunks(pf.metadata, "charge_category")
    assert category.has_dictionary_page
    assert lake.read("bill_lines").column("region").to_pylist() == region.to_pylist()


def test_a_schema_parquet_cannot_give_back_alone_keeps_dictionaries_out():
    schema = pa.schema([("a", pa.string()), ("t", pa.timestamp("ns", tz="Asia/Shanghai"))])
    coded = pa.schema([("a", pa.dictionary(pa.int32(), pa.string())), ("t", schema.field("t").type)])
    assert encoding.layout(coded, schema) is None  # Arrow's schema is needed for that time zone
    assert encoding.layout(coded, TABLES["bill_lines"]) is None  # other columns
