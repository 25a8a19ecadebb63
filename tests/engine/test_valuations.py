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


def test_queued_value_is_an_assumed_valuation_even_at_a_contract_price(config):
    # review: "queued | contract" — a contract rate says what an hour costs, not what waiting is worth
    facts = Facts(jobs=(job("100", submit=at(-60), start=at(0), end=at(60), gpus=1),))
    result = attribute(facts, config, price_lookup, T0.date())  # price_lookup's entry is a contract
    (q,) = [ln for ln in result.lines if ln.basis is Basis.QUEUED]
    assert str(q.evidence) == "assumed"
    (a,) = [a for a in result.assumptions if a.name.startswith("value of a queued GPU-hour")]
    assert str(a.evidence) == "assumed" and a.owner  # an assumption names who confirms it


def test_unclassified_cash_is_billed_and_its_state_is_the_assumption(config):
    from trainledger.report.sheet import _assumptions

    from .factories import bill

    facts = Facts(jobs=(job("100", start=at(0), end=at(60), gpus=8),), bill_lines=(bill(at(0)),))
    lines = attribute(facts, config, price_lookup, T0.date()).lines  # no progress log: all unclassified
    (ln,) = [x for x in lines if x.run_id == "100"]
    assert ln.detail == "unclassified" and str(ln.evidence) == "measured" and ln.amount.expected == Decimal("80.00")
    (states,) = [a for a in _assumptions({}, list(lines), "anna") if a["name"] == "compute-state boundaries"]
    assert states["evidence"] == "assumed" and states["owner"] == "anna"
    (unowned,) = [a for a in _assumptions({}, list(lines)) if a["name"] == "compute-state boundaries"]
    assert unowned["owner"].startswith("unassigned") and unowned["owner_zh"].startswith("未指定")


def test_no_queue_warning_without_queued_hours_and_none_for_a_job_that_never_ran(config):
    # review: unpriced_queue fired in a workspace with no jobs; job_without_batch for job 5008,
    # cancelled before it started with no GPUs allocated
    kinds = {p.kind for p in attribute(Facts(), config, lambda item, on, unit: None, T0.date()).problems}
    assert "unpriced_queue" not in kinds
    queued = Facts(jobs=(job("100", submit=at(-60), start=at(0), end=at(60), gpus=8),))
    assert "unpriced_queue" in {p.kind for p in attribute(queued, config, lambda i, o, u: None, T0.date()).problems}
    never = job("5008", start=None, end=at(5), gpus=0, nodes="None assigned", wckey="", state="CANCELLED by 1")
    result = attribute(Facts(jobs=(never,)), config, price_lookup, T0.date())
    assert "job_without_batch" not in {p.kind for p in result.problems} and result.lines == ()
    ran = job("5009", start=at(0), end=at(30), gpus=1, wckey="")  # ran without a batch: still warned
    assert "job_without_batch" in {p.kind for p in attribute(Facts(jobs=(ran,)), config, price_lookup,
                                                              T0.date()).problems}
