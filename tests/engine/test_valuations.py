"""Valued figures (queued opportunity, storage estimate) are rounded once at the documented scale
(``model.money.valuation``), not left with the 28 artefact digits of a quotient."""

from decimal import Decimal

from trainledger.engine import Facts, attribute
from trainledger.model import Basis

from .factories import T0, at, job, price_lookup
from .test_edge_cases import _gb_month, _storage


def test_queued_value_of_a_third_of_an_hour_is_rounded_once(config):
    facts = Facts(jobs=(job("100", submit=at(-20), start=at(0), end=at(60), gpus=1),))
    (q,) = [ln for ln in attribute(facts, config, price_lookup, T0.date()).lines if ln.basis is Basis.QUEUED]
    # 1/3 GPU-h × 8 / 10 / 12 CNY: 2.666… → 2.66666667 at 10^-8 (six places below the fen)
    assert (q.amount.low, q.amount.expected, q.amount.high) == (
        Decimal("2.66666667"), Decimal("3.33333333"), Decimal("4.00"))
    assert str(q.amount.high) == "4.00"


def test_storage_estimate_is_rounded_once(config):
    rows = (_storage("oss://b/x", "2026-10-01", 1, written="2026-09-30"),)  # 1 GiB for 1 day
    (ln,) = [x for x in attribute(Facts(storage_objects=rows), config, _gb_month, T0.date()).lines
             if x.category == "storage"]
    assert ln.basis is Basis.ESTIMATE and ln.amount.expected == Decimal("0.03287671")  # 24/730 CNY
    assert ln.quantity == Decimal(1) / (Decimal(730) / 24)  # the quantity itself stays exact
