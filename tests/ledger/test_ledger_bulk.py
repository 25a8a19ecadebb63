"""The columnar line write (ledger/bulk.py) stores the same values and fingerprints as the general
path (``bind_rows`` + ``figures.fingerprints``), and hands every value it does not vouch for back
to the general path, whose errors name the column and the row."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from trainledger.errors import BadInput
from trainledger.ledger import bulk
from trainledger.ledger.schema import cost_lines
from trainledger.model import AmountRange, CostLine, Provenance
from trainledger.model.vocab import ComputeState

SHA = "c" * 64
chars = st.characters(codec="utf-8", exclude_characters="\x00")  # the ledger refuses NUL (tested below)
decimals = st.decimals(allow_nan=False, allow_infinity=False, places=None, min_value=-10**6, max_value=10**6)


@st.composite
def lines(draw):  # detail as text or as a compute state (a StrEnum), as the stages write it
    attributed = draw(st.booleans())
    amount = draw(decimals)
    return CostLine(
        category=draw(st.sampled_from(["compute", "storage", "network"])),
        basis=draw(st.sampled_from(["billed", "allocated_idle", "amortized"])),
        evidence=draw(st.sampled_from(["contract", "measured", "assumed"])),
        amount=AmountRange(amount, amount, amount, draw(st.sampled_from(["CNY", "USD"]))),
        provenance=Provenance(SHA, draw(st.integers(1, 10**9)), draw(st.text(chars, max_size=8)) or "r", "focus"),
        batch_id="b1" if attributed else None,
        run_id=draw(st.none() | st.text(chars, max_size=12)),
        detail=draw(st.text(chars, max_size=12)
                    | st.sampled_from(list(ComputeState))),
        quantity=draw(st.none() | decimals | st.just(Decimal("0E-11"))),
        unit=draw(st.sampled_from(["", "gpu_hour"])),
        reason="" if attributed else draw(st.text(chars, min_size=1, max_size=12)),
    )


def stored(ledger):
    with ledger._engine.connect() as conn:
        rows = [tuple(r) for r in conn.execute(select(*[c for c in cost_lines.columns if c.name not in
                                                        ("id", "attribution_id")]).order_by(cost_lines.c.id))]
    return rows


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(lines(), min_size=1, max_size=8))
def test_the_columnar_write_stores_what_the_general_path_stores(seeded, batch):
    seeded.replace_cost_lines(batch, summary={})
    fast = stored(seeded)
    assert seeded.verify_figures()[0] == []  # the fingerprints kept are the general ones of the rows
    with pytest.MonkeyPatch.context() as m:
        m.setattr(bulk, "bind_and_fingerprint", lambda *a, **k: None)
        seeded.replace_cost_lines(batch, summary={})
        general = stored(seeded)
    assert fast == general
    assert seeded.verify_figures()[0] == []
    assert seeded.cost_lines() == batch


def test_columns_it_does_not_vouch_for_go_the_general_way(seeded):
    line = CostLine("compute", "billed", "measured", AmountRange("1.5", "1.5", "1.5", "CNY"),
                    Provenance(SHA, 1, "r", "focus"), batch_id="b1", detail=ComputeState.EFFECTIVE)
    with seeded._engine.connect() as conn:
        cols = bulk.columns_of_lines([line], 1)
        values, _ = bulk.bind_and_fingerprint(conn, cost_lines, tuple(cols), cols)  # a StrEnum: its value
        assert type(values[0][tuple(cols).index("detail")]) is str
        cols["source_row"] = [True]  # a bool in an integer column
        assert bulk.bind_and_fingerprint(conn, cost_lines, tuple(cols), cols) is None
        cols["source_row"] = [1]
        cols["category"] = ["x" * 33]  # CleanString(32)
        assert bulk.bind_and_fingerprint(conn, cost_lines, tuple(cols), cols) is None
    seeded.replace_cost_lines([line], summary={})
    assert seeded.cost_lines()[0].detail == "effective" and seeded.verify_figures()[0] == []


@pytest.mark.parametrize("field,value,words", [("detail", "bad\x00text", "NUL"),
                                               ("unit", "u" * 65, "longer than 64")])
def test_refused_text_is_refused_with_the_general_error(seeded, field, value, words):
    good = CostLine("compute", "billed", "measured", AmountRange("1", "1", "1", "CNY"),
                    Provenance(SHA, 1, "r", "focus"), batch_id="b1")
    bad = CostLine("compute", "billed", "measured", AmountRange("1", "1", "1", "CNY"),
                   Provenance(SHA, 2, "r", "focus"), batch_id="b1", **{field: value})
    with pytest.raises(BadInput, match=rf"cost_lines\.{field} of row 2: .*{words}"):
        seeded.replace_cost_lines([good, bad], summary={})
    from trainledger.engine.lines import LineColumns, Lines

    with pytest.raises(BadInput, match=rf"cost_lines\.{field} of row 2: .*{words}"):  # held as columns too
        seeded.replace_cost_lines(Lines([LineColumns.from_lines([good, bad])]), summary={})


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(batch=st.lists(lines(), min_size=1, max_size=8), split=st.integers(0, 8))
def test_lines_held_as_columns_store_what_their_objects_store(seeded, batch, split):
    """engine.lines: a part held as columns is written from its columns (decimal text), and stores
    the rows and fingerprints the same lines store as objects — mixed with object parts too."""
    from trainledger.engine.lines import LineColumns, Lines
    seeded.replace_cost_lines(batch, summary={})
    objects = stored(seeded)
    mixed = Lines([batch[:split], LineColumns.from_lines(batch[split:])])
    assert list(mixed) == batch and mixed == tuple(batch)
    seeded.replace_cost_lines(mixed, summary={})
    assert stored(seeded) == objects  # every column, in order
    assert seeded.verify_figures()[0] == []  # the fingerprints kept are the general path's of these rows
    assert seeded.cost_lines() == batch
