"""Cost lines held as columns (engine/lines.py, frame/columns.py): the text an amount gets is
``str(Decimal)``'s, a built line equals (and reprs as) the one the columns were made from, and the
exact sums conservation reads equal the lines' own sums — also where a value leaves 64 bits."""

from __future__ import annotations

from decimal import Decimal

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine.conservation import line_sums
from trainledger.engine.frame.columns import decimal_text
from trainledger.engine.lines import LineColumns, Lines
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.model.money import EXACT
from trainledger.model.vocab import ComputeState

SHA = "d" * 64


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-(10**18), 10**18) | st.sampled_from([0, 1, -1, 10, -5]),
                          st.integers(0, 12)), min_size=1, max_size=40))
def test_decimal_text_is_what_str_of_the_decimal_writes(pairs):
    units = pa.array([u for u, _ in pairs], pa.int64()).cast(pa.decimal128(38, 0))
    scale = pa.array([s for _, s in pairs], pa.int32())
    assert decimal_text(units, scale).to_pylist() == [str(Decimal(u).scaleb(-s)) for u, s in pairs]


def line(amount: str, *, batch: str | None = "b1", detail="effective", quantity: str | None = "0.5",
         currency: str = "CNY", reason: str = "") -> CostLine:
    a = Decimal(amount)
    return CostLine("compute", Basis.BILLED if batch else Basis.CAPACITY_UNHELD, Evidence.MEASURED,
                    AmountRange(a, a, a, currency), Provenance(SHA, 3, "gpu_seconds_on_node/wckey", "focus"),
                    batch_id=batch, run_id="r1" if batch else None, detail=detail,
                    quantity=None if quantity is None else Decimal(quantity), unit="gpu_hour",
                    reason=reason or ("" if batch else "capacity_unheld: node n1"))


def test_built_lines_are_the_lines_they_came_from():
    made = [line("1.23"), line("-0.01", batch=None, detail=ComputeState.CAPACITY_UNHELD),
            line("0E-11", quantity=None), line("7", currency="USD", quantity="0.4444444444444444444444444444")]
    cols = LineColumns.from_lines(made)
    assert len(cols) == 4 and list(cols) == made and [repr(x) for x in cols] == [repr(x) for x in made]
    assert type(cols[1].detail) is ComputeState and type(cols[0].detail) is str  # a member stays a member
    assert cols[1:3] == tuple(made[1:3]) and cols[-1] == made[-1]
    with pytest.raises(IndexError):
        cols[4]
    lines = Lines([made[:1], cols, ()])
    assert len(lines) == 5 and lines[1] == made[0] and lines == (made[0], *made)
    assert lines.select(batch_id=None) == [made[1]]
    assert lines.count(currency="USD") == 1 and lines.count(basis=Basis.BILLED) == 4
    assert lines.select(detail="effective", currency="CNY") == [made[0], made[0], made[2]]


def test_a_built_line_keeps_its_checks():
    cols = LineColumns.from_lines([line("1.00")])
    bad = cols.table.set_column(cols.table.schema.get_field_index("currency"), "currency", pa.array(["C$"]))
    with pytest.raises(ValueError, match="ISO 4217"):
        list(LineColumns(bad))
    with pytest.raises(AssertionError, match="columns"):
        LineColumns(cols.table.drop_columns(["units"]))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.decimals(allow_nan=False, allow_infinity=False, places=None, min_value=-10**21,
                                      max_value=10**21), st.booleans(), st.sampled_from(["CNY", "USD"])),
                min_size=1, max_size=30))
def test_sums_are_the_lines_exact_sums(rows):
    made = [line(str(a), batch="b1" if held else None, currency=cur) for a, held, cur in rows]
    want: dict[tuple, Decimal] = {}
    for ln in made:
        k = (str(ln.basis), "focus", ln.currency, bool(ln.batch_id), ln.reason)
        want[k] = EXACT.add(want.get(k, Decimal(0)), ln.amount.expected)
    got = line_sums(Lines([LineColumns.from_lines(made)]))
    assert got == want and {k: str(v) for k, v in got.items()} == {k: str(v) for k, v in want.items()}
    assert line_sums(made) == want  # the objects' own path agrees


def test_sums_beyond_64_bits_are_still_exact():
    big = [line("9223372036854775.807"), line("9223372036854775.807"), line("0.001")]  # units past 2**62
    got = line_sums(Lines([LineColumns.from_lines(big)]))
    assert got == {("billed", "focus", "CNY", True, ""): Decimal("18446744073709551.615")}
