from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainledger.model import AmountRange, Money, allocate
from trainledger.model.money import allocation_quantum

amounts = st.decimals(min_value=Decimal("-1e9"), max_value=Decimal("1e9"), places=11,
                      allow_nan=False, allow_infinity=False)
weights = st.lists(st.decimals(min_value=0, max_value=Decimal("1e6"), places=6), min_size=1, max_size=40)


@given(amounts, weights)
def test_allocation_conserves_every_unit(amount, ws):
    if sum(ws) == 0:
        ws = [*ws[:-1], Decimal(1)]
    shares = allocate(amount, ws, "USD")
    assert sum(shares, Decimal(0)) == amount
    q = allocation_quantum(amount, "USD")
    total_w = sum(ws)
    for share, w in zip(shares, ws, strict=True):
        exact = amount * w / total_w
        assert abs(share - exact) < q  # never off by a whole unit
        assert share % q == 0


def test_allocation_rule_on_a_hand_worked_example():
    # 12.34 three ways: 4.113.. each; 1 left-over cent goes to the first largest remainder
    assert allocate(Decimal("12.34"), [1, 1, 1], "CNY") == [Decimal("4.12"), Decimal("4.11"), Decimal("4.11")]
    # a credit split keeps its sign and its 11-decimal precision
    assert allocate(Decimal("-0.00001605990"), [3, 1], "USD") == [
        Decimal("-0.00001204493"), Decimal("-0.00000401497")]
    # an integer amount is split to the currency's minor unit; JPY has none
    assert allocate(Decimal("10"), [1, 2], "USD") == [Decimal("3.33"), Decimal("6.67")]
    assert allocate(Decimal("10"), [1, 2], "JPY") == [Decimal("3"), Decimal("7")]


def test_allocation_refuses_what_has_no_basis():
    with pytest.raises(ValueError, match="all zero"):
        allocate(Decimal("1"), [0, 0])
    with pytest.raises(ValueError, match=">= 0"):
        allocate(Decimal("1"), [1, -1])


def test_money_refuses_floats_and_mixed_currencies():
    with pytest.raises(TypeError, match="float"):
        Money(0.1, "USD")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="FX"):
        Money(Decimal(1), "USD") + Money(Decimal(1), "CNY")
    with pytest.raises(ValueError, match="ISO 4217"):
        Money(Decimal(1), "dollars")
    assert Money("0.1", "usd") + Money("0.2", "USD") == Money("0.3", "USD")


@given(st.lists(st.tuples(amounts, amounts, amounts), min_size=1, max_size=10))
def test_range_sum_keeps_order_and_is_exact(triples):
    ranges = [AmountRange(*sorted(t), "CNY") for t in triples]
    total = ranges[0]
    for r in ranges[1:]:
        total = total + r
    assert total.low <= total.expected <= total.high
    assert total.expected == sum(r.expected for r in ranges)


def test_range_invariants():
    with pytest.raises(ValueError, match="low <= expected <= high"):
        AmountRange(Decimal(2), Decimal(1), Decimal(3), "USD")
    with pytest.raises(ValueError, match="cannot add"):
        AmountRange.zero("USD") + AmountRange.zero("CNY")
    r = AmountRange(Decimal(1), Decimal(2), Decimal(4), "USD").scale(Decimal("1.5"))
    assert (r.low, r.expected, r.high) == (Decimal("1.5"), Decimal("3.0"), Decimal("6.0"))
