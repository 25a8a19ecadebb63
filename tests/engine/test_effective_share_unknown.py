"""G2: with no progress signal every held hour is unclassified — the effective share is unknown, not 0 %."""

from trainledger.engine import Facts, attribute
from trainledger.report.sheet import _efficiency

from .factories import T0, at, bill, event, job, price_lookup


def _eff(config, progress):
    jobs = (job("100", start=at(0), end=at(60), row=1),)
    result = attribute(Facts(jobs=jobs, bill_lines=(bill(at(0), amount="96.00", row=1),), progress_events=progress),
                       config, price_lookup, T0.date())
    (row,) = _efficiency(list(result.lines))
    return row


def test_no_progress_signal_is_unknown_not_zero(config):
    row = _eff(config, ())
    assert row["effective_gpu_hours"] == "0.000000" or row["effective_gpu_hours"].strip("0.") == ""
    assert row["effective_share"] is None  # unknown; the old sheet said "0.0 %"


def test_a_progress_signal_gives_a_measured_share(config):
    row = _eff(config, tuple(event("100", m, "step", step=i + 1) for i, m in enumerate((6, 30, 60))))
    assert row["effective_share"] is not None and float(row["effective_share"]) > 0
