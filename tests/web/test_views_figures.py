from decimal import Decimal

from trainledger.web.views import _figure


def test_json_money_is_exact_without_context_artefacts():
    # review: /batches gave queued "28.53947250000000000000000000"
    assert _figure(Decimal("28.53947250000000000000000000"), "queued", "USD") == "28.5394725"
    assert _figure(Decimal("0.45369863") + Decimal("0.15123288"), "estimate", "USD") == "0.60493151"
    assert _figure(Decimal("253.9331"), "billed", "USD") == "253.9331"  # cash: exact as billed
    assert _figure(Decimal("0E-11"), "billed", "USD") == "0.00000000000"  # plain: never an exponent
