"""The frame stage's two scale devices: pieces read one bill row at a time across Arrow batches
(``_Pieces``), and node-row lines built once-checked (``_Maker``) equal to ``compute._line``'s."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pyarrow as pa
import pytest

from trainledger.engine import compute
from trainledger.engine.frame import stage
from trainledger.model import Basis, Evidence

SHA = "d" * 64


def pieces_table(idx: list[int], view: list[int]) -> pa.Table:
    n = len(idx)
    return pa.table({"idx": idx, "view": view, "is_idle": [0] * n, "run_id": [f"r{k}" for k in range(n)],
                     "state": ["effective"] * n, "scale": [2] * n, "exp": [0] * n, "units": list(range(n)),
                     "W": [1] * n})


def test_pieces_come_back_per_row_across_batch_boundaries(monkeypatch):
    monkeypatch.setattr(stage._Pieces, "BATCH", 2)  # every row's pieces straddle a batch boundary
    idx = [0, 0, 0, 3, 3, 4, 7, 7, 7, 7]
    view = [0, 0, 1, 0, 1, 0, 0, 0, 1, 1]
    got = stage._Pieces(pieces_table(idx, view))
    assert {v: [r[3] for r in rs] for v, rs in got.get(0, {}).items()} == {0: ["r0", "r1"], 1: ["r2"]}
    assert got.get(2, {"none": 1}) == {"none": 1}  # a row without pieces gets the default
    assert {v: [r[3] for r in rs] for v, rs in got.get(4, {}).items()} == {0: ["r5"]}  # row 3 skipped (a fallback)
    assert {v: [r[3] for r in rs] for v, rs in got.get(7, {}).items()} == {0: ["r6", "r7"], 1: ["r8", "r9"]}
    assert got.get(8, {}) == {}
    assert stage._Pieces(None).get(0, {}) == {}


def row(currency: str = "CNY") -> dict:
    t = datetime(2026, 10, 1, tzinfo=UTC)
    return {"currency": currency, "source_sha256": SHA, "row": 12, "charge_period_start": t,
            "charge_period_end": t, "service_category": "Compute"}


@pytest.mark.parametrize("unit", ["gpu_hour", ""])
def test_maker_lines_equal_computes_own(unit):
    make = stage._Maker(row(), unit)
    qty = Decimal("0.5") if unit else None
    fast = make(Decimal("1.23"), Basis.BILLED, "gpu_seconds_on_node/wckey", "b1", "job-1", "effective", qty, "")
    slow = compute._line(row(), Decimal("1.23"), Basis.BILLED, "gpu_seconds_on_node/wckey", category="compute",
                         detail="effective", quantity=qty, unit=unit, evidence=Evidence.MEASURED, source_kind="focus",
                         batch_id="b1", run_id="job-1")
    assert fast == slow and repr(fast) == repr(slow) and hash(fast) == hash(slow)
    idle = make(Decimal("0.01"), Basis.CAPACITY_UNHELD, "gpu_seconds_on_node/unheld", None, None, "capacity_unheld",
                qty, "capacity_unheld: node n1")
    assert idle == compute._line(row(), Decimal("0.01"), Basis.CAPACITY_UNHELD, "gpu_seconds_on_node/unheld",
                                 category="compute", detail="capacity_unheld", quantity=qty, unit=unit,
                                 reason="capacity_unheld: node n1", source_kind="focus", evidence=Evidence.MEASURED)


def test_maker_keeps_the_checks_it_vouches_for():
    with pytest.raises(ValueError, match="ISO 4217"):
        stage._Maker(row("C$"), "gpu_hour")
    assert stage._Maker(row("cny"), "").cur == "CNY"  # normalised as AmountRange would
    make = stage._Maker(row(), "")
    with pytest.raises(AssertionError, match="reason"):
        make(Decimal(1), Basis.BILLED, "r", None, "job-1", "effective", None, "")
    with pytest.raises(AssertionError, match="finite"):
        make(Decimal("NaN"), Basis.BILLED, "r", "b1", "job-1", "effective", None, "")
    with pytest.raises(ValueError, match="64-character"):
        stage._Maker(dict(row(), source_sha256="short"), "")(Decimal(1), Basis.BILLED, "r", "b1", None, "", None, "")
