"""engine/lines.py ``LineColumns.from_lines`` makes its columns a chunk of lines at a time (H12): the
table is the one a single pass makes, and the lines read back are the lines given."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa

from trainledger.engine import lines as L
from trainledger.model import AmountRange, CostLine, Provenance


def some(n: int) -> list[CostLine]:
    return [CostLine(category="compute", basis="queued", evidence="measured",
                     amount=AmountRange(Decimal(i) / 100, Decimal(i) / 100, Decimal(i) / 100, "CNY"),
                     provenance=Provenance(source_sha256="ab" * 32, row=i, rule="r", source_kind="slurm"),
                     batch_id="b" if i % 3 else None, run_id=f"r{i}", detail="queued",
                     quantity=Decimal(i) / 7 if i % 2 else None, unit="gpu_hour", reason="" if i % 3 else "no batch")
            for i in range(n)]


def test_chunked_columns_are_the_single_pass_table(monkeypatch):
    given = some(11)
    whole = L.LineColumns.from_lines(given)
    assert whole.table.num_rows == 11 and all(c.num_chunks == 1 for c in whole.table.columns)
    monkeypatch.setattr(L, "BATCH", 4)  # three chunks: 4 + 4 + 3
    chunked = L.LineColumns.from_lines(iter(given))
    assert chunked.table.equals(whole.table) and all(c.num_chunks == 1 for c in chunked.table.columns)
    assert list(chunked) == given
    assert L.LineColumns.from_lines([]).table.equals(pa.table({c: [] for c in L.SCHEMA.names}, schema=L.SCHEMA))
