"""Exact arithmetic, always (issue #6, item 2): a sum that would need rounding raises or is
reported, never rounded silently; "difference 0.00" means exactly zero."""

from __future__ import annotations

from decimal import Decimal, Inexact, localcontext

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainledger.engine import conservation
from trainledger.engine.context import Facts
from trainledger.model import AmountRange, Basis, CostLine, Money, allocate
from trainledger.model.cost import Provenance
from trainledger.model.money import EXACT, exact_sum

# 15 integer digits and 18 decimals: a FOCUS bill may carry that many, and the importers accept
# it (at most 15 integer digits, 64 characters) — 33 significant digits, beyond the default 28
BIG = "100000000000000.000000000000000001"
EVEN = "100000000000000.000000000000000000"


def line(amount: str, batch: str | None = "b1", basis: Basis = Basis.BILLED) -> CostLine:
    return CostLine(
        category="compute", basis=basis, evidence="contract",
        amount=AmountRange.exact(Money(Decimal(amount), "USD")),
        provenance=Provenance("0" * 64, 1, "rule", "focus"), batch_id=batch,
        reason="" if batch else "idle",
    )


def test_the_default_context_would_round_silently():
    """Why EXACT exists: the default context drops the 29th digit without a word."""
    assert Decimal(0) + Decimal(BIG) == Decimal(EVEN)  # silently rounded
    assert exact_sum([Decimal(0), Decimal(BIG)]) == Decimal(BIG)
    with pytest.raises(Inexact):
        exact_sum([Decimal("1E+150"), Decimal("1E-60")])  # 211 digits: raise, never round


def test_conservation_sees_a_difference_beyond_28_digits():
    facts = Facts(bill_lines=({"billed_cost": BIG, "currency": "USD"},))
    records, problems = conservation.check(facts, [line(EVEN)])
    (rec,) = records
    assert rec["billed_total"] == BIG and rec["attributed"] == EVEN
    assert Decimal(rec["difference"]) == Decimal("1E-18")
    assert [p.kind for p in problems] == ["conservation"] and "too little" in problems[0].message
    # exactly balanced: the difference is exactly zero
    records, problems = conservation.check(facts, [line(EVEN, None), line("0.000000000000000001")])
    assert Decimal(records[0]["difference"]) == 0 and problems == []


def test_conservation_reports_a_total_it_cannot_compute_exactly():
    facts = Facts(bill_lines=({"billed_cost": "1E+150", "currency": "USD"},
                              {"billed_cost": "1E-60", "currency": "USD"}))
    records, problems = conservation.check(facts, [])
    assert records == []
    assert [p.kind for p in problems] == ["inexact_total"]


def test_money_arithmetic_never_rounds():
    a = Money(Decimal(BIG), "USD")
    assert (a + Money(Decimal("1E-18"), "USD")).amount == Decimal("100000000000000.000000000000000002")
    assert (a - a).amount == 0
    with pytest.raises(Inexact):
        Money(Decimal("1E+150"), "USD") + Money(Decimal("1E-60"), "USD")
    r = AmountRange(Decimal(EVEN), Decimal(BIG), Decimal(BIG), "USD")
    assert (r + r).expected == Decimal("200000000000000.000000000000000002")


def test_allocation_of_a_33_digit_amount_conserves_every_unit():
    shares = allocate(Decimal(BIG), [1, 1, 1], "USD")
    assert exact_sum(shares) == Decimal(BIG)
    # 10**32 + 1 units of 1E-18 three ways: 3...3 (32 threes) each, 2 units left over, which go
    # to the first two (equal remainders: by position)
    assert shares == [Decimal("33333333333333.333333333333333334"),
                      Decimal("33333333333333.333333333333333334"),
                      Decimal("33333333333333.333333333333333333")]


@given(st.lists(st.decimals(min_value=0, max_value=Decimal("1e12"), places=20), min_size=1, max_size=12),
       st.decimals(min_value=Decimal("-1e14"), max_value=Decimal("1e14"), places=18))
def test_allocation_is_exact_in_integers(weights, amount):
    if all(w == 0 for w in weights):
        weights = [*weights[:-1], Decimal(1)]
    shares = allocate(amount, weights, "USD")
    with localcontext(EXACT):
        assert sum(shares, Decimal(0)) == amount  # exact: EXACT would raise if it rounded
        q = Decimal(1).scaleb(min(amount.as_tuple().exponent, -2))
        total = sum(weights, Decimal(0))
        for s, w in zip(shares, weights, strict=True):
            # |share - amount*w/total| < q, compared without dividing
            assert abs(s * total - amount * w) < q * total


def test_conservation_figures_are_plain_decimals():
    """An exact zero at the bill's 11 decimals reads 0.00000000000, not 0E-11."""
    facts = Facts(bill_lines=({"billed_cost": "0.00000080000", "currency": "USD"},))
    (rec,), problems = conservation.check(facts, [line("0.00000080000")])
    assert rec["difference"] == "0.00000000000" and rec["billed_total"] == "0.00000080000" and problems == []
