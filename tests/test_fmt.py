"""trainledger.fmt: figures as finance reads them — never an exponent, separators in human text,
money at the minor unit (every digit of cash kept, marked), and the rounding gap told."""

from __future__ import annotations

import re
from decimal import ROUND_HALF_EVEN, Decimal, localcontext

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger import fmt

GROUPED = re.compile(r"^-?\d{1,3}(,\d{3})*(\.\d+)?$")
PLAIN = re.compile(r"^-?\d+(\.\d+)?$")

# Decimals as sources spell them: any digits at any exponent (0E-11, 2.0150E-7, 1.5E+3, -0.000).
decimals = st.tuples(st.integers(0, 1), st.lists(st.integers(0, 9), min_size=1, max_size=24),
                     st.integers(-30, 12)).map(lambda t: Decimal((t[0], tuple(t[1]), t[2])))
currencies = st.sampled_from(["USD", "CNY", "JPY", "KWD"])


def back(text: str) -> Decimal:
    return Decimal(text.replace(",", "").removesuffix(fmt.MARK).removesuffix("%"))


@settings(max_examples=300)
@given(decimals, currencies)
def test_money_is_never_scientific_and_reads_back_at_the_minor_unit(d, cur):
    q = Decimal(1).scaleb(-{"JPY": 0, "KWD": 3}.get(cur, 2))
    shown = fmt.amount(d, cur)
    assert "E" not in shown.upper() and GROUPED.match(shown), shown
    with localcontext(prec=100):
        assert back(shown) == d.quantize(q, ROUND_HALF_EVEN)
    assert not shown.startswith("-") or back(shown) != 0  # no "-0.00"
    assert fmt.money(d, cur) == f"{shown} {cur}"


@settings(max_examples=300)
@given(decimals, currencies)
def test_exact_cash_keeps_every_digit_and_marks_finer_than_minor(d, cur):
    shown = fmt.amount(d, cur, exact=True)
    assert "E" not in shown.upper() and GROUPED.match(shown.removesuffix(fmt.MARK)), shown
    if shown.endswith(fmt.MARK):
        assert back(shown) == d and fmt.finer_than_minor(d, cur)
    else:
        assert back(shown) == d  # at or coarser than the minor unit: the same number
        assert not fmt.finer_than_minor(d, cur)


@settings(max_examples=200)
@given(decimals)
def test_quantities_and_plain_text_are_never_scientific(d):
    for text in (fmt.quantity(d), fmt.quantity_sig(d), fmt.money_sig(d, "USD").removesuffix(" USD"),
                 fmt.percent(d)):
        assert "E" not in text.upper() and GROUPED.match(text.removesuffix("%")), text
    with localcontext(prec=100):
        assert back(fmt.quantity(d)) == d.quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    plain = fmt.plain(d)
    assert PLAIN.match(plain) and "," not in plain and Decimal(plain) == d  # JSON: exact, no separators


@settings(max_examples=200)
@given(decimals.filter(lambda d: not d.is_zero()))
def test_three_significant_figures_keep_small_estimates_visible(d):
    text = fmt.quantity_sig(d)
    value = back(text)
    assert value != 0  # 2.0150E-7 must not read as 0
    assert abs(value - d) <= abs(d) * Decimal("0.005") + Decimal("1E-40")


def test_the_figures_the_first_hour_found():
    assert fmt.amount(Decimal("0E-11"), "USD") == "0.00"
    assert fmt.amount(Decimal("2.0150E-7"), "USD", exact=True) == "0.0000002015" + fmt.MARK
    assert fmt.money(Decimal("282600.97"), "CNY") == "282,600.97 CNY"
    assert fmt.quantity("7414.2600") == "7,414.26"
    assert fmt.money_sig("2.0150E-7", "USD") == "0.000000202 USD"
    assert fmt.money_sig("1234567", "CNY") == "1,230,000 CNY"
    assert fmt.amount("-0.001", "USD") == "0.00"
    assert fmt.amount(None, "USD") == fmt.DASH


def test_rounding_gap_is_told_only_when_rows_do_not_add_up():
    rows = ["2.165", "4.335", "200.165", "1.005"]  # shown 2.16 + 4.34 (half-even) + 200.16 + 1.00 = 207.66
    rows += ["0.006", "0.006"]  # each shown as 0.01: the rows add to 207.68, the exact total 207.682 shows 207.68
    assert fmt.rounding_gap(rows, sum(Decimal(r) for r in rows)) is None
    rows = ["0.006", "0.006", "207.65"]  # 0.01 + 0.01 + 207.65 = 207.67 shown; exact 207.662 → 207.66
    assert fmt.rounding_gap(rows, sum(Decimal(r) for r in rows)) == (Decimal("207.67"), Decimal("0.01"))
    note = fmt.rounding_note(rows, sum(Decimal(r) for r in rows), "en", unit="CNY")
    assert "207.67 CNY" in note and "207.66 CNY" in note and "0.01 CNY" in note
    assert "207.67 CNY" in fmt.rounding_note(rows, sum(Decimal(r) for r in rows), "zh-CN", unit="CNY")
    assert fmt.rounding_gap(["1.00", "2.00"], "3.00") is None


def test_unit_price_keeps_the_minor_unit_and_a_rates_own_digits():
    # review: the owned capacity's price per GPU-hour printed "36 CNY"
    assert fmt.money_unit("36", "CNY") == "36.00 CNY"
    assert fmt.unit_price(Decimal("36.0000"), "CNY") == "36.00"
    assert fmt.unit_price("4.0966", "USD") == "4.0966"  # a rate: every digit, no †
    assert fmt.unit_price("3.89871234", "USD") == "3.89871"
    assert fmt.unit_price("36", "JPY") == "36"
    assert fmt.money_unit(None, "USD") == fmt.DASH


def test_exact_cash_is_shown_at_its_own_precision_not_cut_to_fewer_places():
    # review finding 12: a bill at 0.0001 summed to 242.4330 printed "242.433†"
    assert fmt.amount(Decimal("242.4330"), "USD", exact=True) == "242.4330" + fmt.MARK
    assert fmt.amount(Decimal("139.2974000000"), "USD", exact=True) == "139.2974" + fmt.MARK  # sum artefact
    assert fmt.amount(Decimal("1234567.891"), "USD", exact=True) == "1,234,567.891" + fmt.MARK
    assert fmt.amount(Decimal("242.4300"), "USD", exact=True) == "242.43"  # at the minor unit: no †
