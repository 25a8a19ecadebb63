"""How a partition's columns are written to Parquet: dictionary pages and statistics only where
they pay.

Parquet's writer, left to itself, dictionary-encodes every column and keeps min / max statistics
of every column. For a column whose values hardly repeat (amounts, quantities, ``row``,
``row_hash``) the dictionary is built value by value and then abandoned once it outgrows its page
limit, and the statistics of text like that (lexicographic minima of amounts, of random hashes)
prune nothing a reader asks for; at 1M FOCUS rows the two were ~40 % of the write.

``options(sample)`` looks at the first rows written (``SAMPLE`` of them) and keeps a dictionary
for the columns that repeat there (distinct values per row ≤ ``DICTIONARY_SHARE``), statistics
for every column that is not text (times, integers: what a reader filters on) and for the text
columns of one value there (a partition's currency, provider, billing account or period: a query
naming another one skips the whole file). The min / max of any other text column (resource ids,
names, tags, descriptions) spans nearly every value in each row group, so it prunes nothing, and
computing it (a comparison per value and column) was ~25 % of the write at 1M FOCUS rows.
The file reads back exactly the same (same schema, same values; only the pages differ), so the
choice is made per partition and nothing records it.

A writer may be handed text columns as Arrow dictionaries (``import focus`` gives each chunk's
repeated columns as its distinct values and each row's code): Parquet's writer then takes the
dictionary as it is instead of hashing every row's text again (``layout`` / ``conform``). Such a
file is written without Arrow's own copy of the schema, which would name the dictionaries
(readers would get dictionary columns): only for a schema whose types Parquet alone gives back
exactly (``bare``: text, integers, booleans, floats, UTC microsecond times), so it reads back
with the same schema as any other partition, its metadata written as the file's key-values.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

SAMPLE = 16_384
DICTIONARY_SHARE = 0.5
COMPRESSION = "zstd"
COMPRESSION_LEVEL = 1  # zstd's fastest: the same size within ~1 % on bills, at less CPU


def _text(t: pa.DataType) -> bool:
    if pa.types.is_dictionary(t):
        t = t.value_type
    return pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_binary(t)


_BARE = (pa.string(), pa.int64(), pa.bool_(), pa.float64(), pa.timestamp("us", tz="UTC"))
_CODED = pa.dictionary(pa.int32(), pa.string())


def bare(schema: pa.Schema) -> bool:
    """Whether every type of ``schema`` reads back from Parquet alone, without Arrow's schema."""
    return all(f.type in _BARE for f in schema)


def layout(data: pa.Schema, schema: pa.Schema) -> pa.Schema | None:
    """``schema`` with the text columns ``data`` gives as dictionaries kept as dictionaries (the
    columns as written), or None when ``data`` is not ``schema`` so (other names, other types,
    or a schema that is not ``bare``)."""
    if data.names != schema.names or not bare(schema):
        return None
    fields = []
    for got, want in zip(data, schema, strict=True):
        if got.type == _CODED and want.type == pa.string():
            fields.append(pa.field(want.name, _CODED, want.nullable))
        elif got.type == want.type:
            fields.append(want)
        else:
            return None
    return pa.schema(fields, metadata=schema.metadata)


def coded(schema: pa.Schema) -> bool:
    """Whether a layout keeps a column as a dictionary."""
    return any(f.type == _CODED for f in schema)


def conform(batch: pa.RecordBatch, to: pa.Schema) -> pa.RecordBatch:
    """``batch`` (of the same columns) with each column of the layout's type: a dictionary
    spread into text, or text encoded, where the two differ (a column encoded in one chunk and
    not in another)."""
    if batch.schema.equals(to):
        return batch
    cols = []
    for col, f in zip(batch.columns, to, strict=True):
        if col.type != f.type:
            col = pc.dictionary_encode(col) if f.type == _CODED else col.cast(f.type)
        cols.append(col)
    return pa.RecordBatch.from_arrays(cols, schema=to)


def options(sample: pa.Table | None) -> dict[str, Any]:
    """Keyword arguments of ``pyarrow.parquet.ParquetWriter`` for a partition whose first rows
    are ``sample`` (None, or no rows: Parquet's defaults, but the compression)."""
    base: dict[str, Any] = {"compression": COMPRESSION, "compression_level": COMPRESSION_LEVEL}
    if sample is None or sample.num_rows == 0:
        return base
    head = sample.slice(0, SAMPLE)
    n = head.num_rows
    dictionary, stats = [], []
    for name, column in zip(head.column_names, head.columns, strict=True):
        if pa.types.is_dictionary(column.type):
            column = column.cast(column.type.value_type)
        distinct = pc.count_distinct(column, mode="all").as_py()
        if distinct <= DICTIONARY_SHARE * n:
            dictionary.append(name)
        if distinct == 1 or not _text(column.type):
            stats.append(name)
    return base | {"use_dictionary": dictionary, "write_statistics": stats}
