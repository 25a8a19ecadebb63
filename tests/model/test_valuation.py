"""``model.money.valuation``: a quantity × price rounded once at the documented scale."""

from decimal import Decimal

from trainledger.model.money import valuation
from trainledger.report.xlsx import float_exact


def test_valuation_drops_context_precision_artefacts():
    # the reviewer's /batches JSON: queued "28.53947250000000000000000000"
    assert str(valuation(Decimal("28.53947250000000000000000000"), "USD")) == "28.5394725"
    third = Decimal(20) / 60 * 8 * Decimal("10")  # 2.666… GPU-h × 10: 28 digits in the default context
    assert valuation(third, "CNY") == Decimal("26.66666667")
    assert str(valuation(Decimal("11.5"), "USD")) == "11.50"  # never coarser than the minor unit
    assert str(valuation(Decimal("0"), "USD")) == "0.00"
    assert str(valuation(Decimal("12.3456789"), "JPY")) == "12.345679"  # JPY: minor unit 1, six places below
    assert float_exact(valuation(Decimal("0.4536986301369863013698630136"), "USD"))  # a numeric xlsx cell
