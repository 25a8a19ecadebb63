"""The import key of a bill row reaches its cost lines on DuckDB as in the Python engine: the rows of
a second import of the same content (lake/rowkeys.py) carry an ``import_key`` column, and every line
of such a row — split on a node by the frame, or made whole — names that import."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pyarrow as pa
import pytest

pytest.importorskip("ibis")

from trainledger.engine import Facts  # noqa: E402
from trainledger.engine.compute import bill_stage  # noqa: E402
from trainledger.engine.context import Rows  # noqa: E402
from trainledger.engine.frame import connect  # noqa: E402
from trainledger.engine.frame import stage as frame_stage  # noqa: E402
from trainledger.engine.frame.oracle import context  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")
OTHER = "e" * 64


def test_the_frame_gives_each_bill_line_its_rows_import(demo_pristine):
    from trainledger.service import Workspace

    with Workspace.open(demo_pristine) as w:
        facts = Facts.from_lake(w.lake)
        t = facts.bill_lines.table
        shas = t.column("source_sha256").to_pylist()
        keys = [OTHER if i % 2 else sha for i, sha in enumerate(shas)]  # every other row: another import's
        keyed = replace(facts, bill_lines=Rows(t.append_column("import_key", pa.array(keys, pa.string()))))
        ctx = context(keyed, w.config, w.price_lookup(), date(2026, 12, 1))
        py, frame = bill_stage(keyed, ctx), frame_stage.bill_stage(keyed, ctx, connect("duckdb"))
    assert [repr(x) for x in frame.lines] == [repr(x) for x in py.lines]  # repr names the import key
    got = {ln.provenance.import_key for ln in frame.lines}
    assert OTHER in got and got - {OTHER} <= set(shas)
    by_row = {(ln.provenance.source_sha256, ln.provenance.row): ln.provenance.import_key for ln in frame.lines}
    rows = dict(zip(zip(shas, t.column("row").to_pylist(), strict=True), keys, strict=True))
    assert all(rows[k] == v for k, v in by_row.items())
