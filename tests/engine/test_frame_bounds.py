"""The frame split's integers stay in range (``frame/split.py``: ``_rows``, ``may_overflow``).

A ``gpu_share`` with 12 decimals makes every weight a numerator over 10**12 (``holdings.scale``);
a month-long node row of a large amount then needs |units| × total ≈ 10**39 — beyond
``decimal(38,0)`` (DuckDB raised "Overflow in multiplication of DECIMAL(38)" before the guard) and
far beyond ``floordiv``'s exact range. Such rows go to ``compute.node_split``; smaller rows of the
same workspace stay on the frame; either way the lines are the Python engine's.
"""

from __future__ import annotations

from decimal import Decimal

import pytest

ibis = pytest.importorskip("ibis")

from trainledger.engine import Facts  # noqa: E402
from trainledger.engine.compute import bill_stage  # noqa: E402
from trainledger.engine.frame import connect, split  # noqa: E402
from trainledger.engine.frame import stage as frame_stage  # noqa: E402
from trainledger.engine.frame.oracle import context  # noqa: E402

from .factories import T0, at, bill, job, price_lookup  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")

SHARE = "0.123456789012"  # 12 decimals: holdings.MAX_PLACES, still exact on the frame
MONTH = 720


def _facts(*bills):
    jobs = (job("1", start=at(0), end=at(60 * MONTH), gpus=1, row=1) | {"gpu_share": SHARE},
            job("2", start=at(0), end=at(60 * MONTH), gpus=3, wckey="", row=2))
    return Facts(jobs=jobs, bill_lines=tuple(bills))


def _fallback(facts, ctx, con):
    """(may_overflow, idx of the rows fallback_rows names) on DuckDB, as stage.py asks them."""
    holdings = frame_stage.holdings_table(ctx.runs)
    scratch = frame_stage.Scratch(con)
    try:
        bills = scratch.upload(frame_stage._bills(facts.bill_lines, []))
        nodes = scratch.upload(frame_stage.pa.table({"node": frame_stage.pa.array(holdings.nodes)}))
        prepared = scratch.materialize(split.prepare(bills, nodes, None, [], 1))
        h = scratch.upload(holdings.table)
        may = split.may_overflow(prepared, holdings, gpus_per_node=8, views=1)
        rows = con.to_pyarrow(split.fallback_rows(prepared, h, gpus_per_node=8, scale=holdings.scale, views=1))
        return may, sorted(rows.column("idx").to_pylist())
    finally:
        scratch.close()


@pytest.fixture
def con():
    return connect("duckdb")


def test_extreme_share_rows_go_to_node_split_and_match(config, con):
    big = bill(at(0), hours=MONTH, amount="9876543210.1234", row=1)  # 98,765,432,101,234 units of 0.0001
    small = bill(at(0), hours=1, amount="0.07", row=2)
    facts = _facts(big, small)
    ctx = context(facts, config, price_lookup, T0.date())
    holdings = frame_stage.holdings_table(ctx.runs)
    assert holdings.scale == 10**12 and all(holdings.table.column("exact").to_pylist())  # no inexact segment
    may, rows = _fallback(facts, ctx, con)
    # row 0: 9.9e13 units × (2,592,000 s × 10**6 µs × 8 GPUs × 10**12) ≈ 2e39 ≥ 10**29 → Python;
    # row 1: 7 units × 3.6e9 × 8e12 ≈ 2e23 < 10**29 → the frame
    assert may is True and rows == [0]
    py, frame = bill_stage(facts, ctx), frame_stage.bill_stage(facts, ctx, con)
    assert [repr(x) for x in frame.lines] == [repr(x) for x in py.lines]
    assert sum(ln.amount.expected for ln in frame.lines) == Decimal("9876543210.1234") + Decimal("0.07")
    # run 1 holds 0.123456789012 of the node's 8 GPUs all month: 9876543210.1234 × 0.123456789012 / 8
    # = 152,415,788.907513… → its floor in units of 0.0001 (a remainder of 0.13 unit gets no extra unit)
    run1 = [ln.amount.expected for ln in frame.lines if ln.run_id == "1" and ln.provenance.row == 1]
    assert run1 == [Decimal("152415788.9075")]


def test_whole_gpus_are_proved_in_range_without_the_row_check(config, con):
    facts = _facts(bill(at(0), hours=MONTH, amount="98765.4321", row=1))
    ctx = context(facts, config, price_lookup, T0.date())
    may, rows = _fallback(facts, ctx, con)
    # 987,654,321 units × 2.592e12 µs × 8e12 ≈ 2e34: still too large with 12-decimal weights
    assert may is True and rows == [0]
    plain = Facts(jobs=tuple(j | {"gpu_share": None} for j in facts.jobs), bill_lines=facts.bill_lines)
    ctx = context(plain, config, price_lookup, T0.date())
    assert frame_stage.holdings_table(ctx.runs).scale == 1
    may, rows = _fallback(plain, ctx, con)
    assert may is False and rows == []  # whole GPUs: 9.9e8 × 2.6e12 × 8 ≈ 2e22, proved from the maxima
