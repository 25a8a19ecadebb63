"""The lake: append-only Parquet facts, immutable partitions, one directory per source file.

    store.py    Lake: partitions (write to .tmp, link into place), quarantine, the import log,
                drops (tombstones), reads in import order
    keys.py     import keys: one import per file and statement (``import_key``), which import
                each line of the import log belongs to (``keyed_events``)
    rowkeys.py  which import each row of a table came through (``import_key`` for the engine)
    settle.py   a new partition against the others: cross-file duplicates, repeats, conflicts
                (under the table's lock)
    encoding.py which columns of a partition get Parquet dictionary pages and statistics
    fs.py       filesystem primitives: atomic publish, locks, append-only JSON lines
    schemas.py  the pyarrow schema of each lake table (the contract of docs/formats.md)

The layout on disk is described in ``store.py``.
"""

from __future__ import annotations

from trainledger.lake.store import (
    DROP,
    Committed,
    Lake,
    PartitionExists,
    PartitionWriter,
    QuarantineWriter,
    Settle,
    partition_key,
)

__all__ = [
    "DROP",
    "Committed",
    "Lake",
    "PartitionExists",
    "PartitionWriter",
    "QuarantineWriter",
    "Settle",
    "partition_key",
]
