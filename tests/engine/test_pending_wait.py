"""A job still PENDING has waited so far: its wait, submit (eligible) → the data's as-of time, is in the
queued figures (basis queued, valued, never cash), like a never-started pod's (review 3, G15). The
reviewer's example: job 9105 submitted 12:00 asking 4 GPUs, data to 14:00 → 2 h × 4 = 8 queued GPU-hours."""

from datetime import date
from decimal import Decimal

import pytest

from trainledger.engine import Facts, attribute
from trainledger.model import Basis

from .factories import at, bill, job, price_lookup

NOON = at(12 * 60)


def _facts(state="PENDING"):
    ran = job("9104", start=at(0), end=at(60), gpus=4, row=1)  # 00:00 → 01:00, no wait
    pending = job("9105", start=None, end=None, gpus=4, state=state, submit=NOON, row=2)
    return Facts(jobs=(ran, pending), bill_lines=(bill(at(0), hours=14),))  # the data runs to 14:00


def _queued(result, run="9105"):
    return [ln for ln in result.lines if ln.run_id == run and ln.basis is Basis.QUEUED]


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_a_pending_jobs_wait_so_far_is_queued_to_the_latest_fact(config, engine):
    if engine == "duckdb":
        pytest.importorskip("ibis")
    result = attribute(_facts(), config, price_lookup, date(2031, 1, 1), engine=engine)
    (line,) = _queued(result)
    assert line.quantity == Decimal(8)  # 12:00 → 14:00 (the bill's last ChargePeriodEnd) × 4 GPUs
    assert line.batch_id == "b1" and str(line.evidence) == "assumed"
    assert not [ln for ln in result.lines if ln.run_id == "9105" and ln.basis is not Basis.QUEUED]  # no cash


def test_as_of_cuts_the_wait_and_before_the_submit_there_is_none(config):
    assert _queued(attribute(_facts(), config, price_lookup, at(0).date(), at(13 * 60)))[0].quantity == Decimal(4)
    assert _queued(attribute(_facts(), config, price_lookup, at(0).date(), at(11 * 60))) == []


def test_a_job_that_never_started_and_is_no_longer_pending_adds_no_wait(config):
    assert _queued(attribute(_facts("CANCELLED"), config, price_lookup, date(2031, 1, 1))) == []


def test_python_and_duckdb_agree_on_the_lines(config):
    pytest.importorskip("ibis")
    py = attribute(_facts(), config, price_lookup, date(2031, 1, 1))
    dk = attribute(_facts(), config, price_lookup, date(2031, 1, 1), engine="duckdb")
    key = lambda ln: (ln.basis, ln.run_id or "", ln.detail, ln.provenance.row, str(ln.amount))  # noqa: E731
    assert sorted(map(key, py.lines)) == sorted(map(key, dk.lines))
