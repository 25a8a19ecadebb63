"""An open attempt (no End) is cut at a time the data says — --as-of, Start + Elapsed, the latest fact —
never at the wall clock, so the same facts give the same figures (engine/asof.py)."""

import json
from datetime import date, timedelta
from decimal import Decimal

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.engine import Facts, attribute
from trainledger.engine.summary_runs import hours_of

from .factories import T0, at, bill, job, price_lookup


def _hours(result, run="100") -> Decimal:
    return sum((Decimal(v) for v in hours_of(result.summary())[run].values()), Decimal(0))


def _open(result):
    return next(p for p in result.problems if p.kind == "open_job")


def _running(**kw):
    j = job("100", start=at(30), end=None, state="RUNNING", gpus=8)
    return j | kw


FAR = date(2031, 1, 1)  # an as-of date years after the facts: the wall clock must not leak in


def test_a_running_job_ends_at_start_plus_elapsed_the_export_time(config):
    facts = Facts(jobs=(_running(extra=json.dumps({"Elapsed": "01:30:00"})),),
                  bill_lines=(bill(at(0), hours=4),))
    result = attribute(facts, config, price_lookup, FAR)
    assert _hours(result) == Decimal(12)  # 8 GPUs x 1.5 h, not years up to today
    p = _open(result)
    assert p.detail["source"] == "export" and p.detail["until"] == at(120).isoformat()
    assert "the run is open" in p.message and at(120).isoformat() in p.message


def test_without_elapsed_the_latest_fact_cuts_it(config):
    facts = Facts(jobs=(_running(),), bill_lines=(bill(at(0), hours=3),))
    result = attribute(facts, config, price_lookup, FAR)
    assert _hours(result) == Decimal(8) * Decimal("2.5")  # 00:30 → 03:00, the bill's last ChargePeriodEnd
    assert _open(result).detail["source"] == "latest_fact"
    again = attribute(facts, config, price_lookup, FAR + timedelta(days=400))
    assert _hours(again) == _hours(result)  # the as-of date (and so the clock) does not move it


def test_as_of_overrides_the_export_time(config):
    facts = Facts(jobs=(_running(extra=json.dumps({"Elapsed": "01:30:00"})),), bill_lines=(bill(at(0), hours=4),))
    result = attribute(facts, config, price_lookup, T0.date(), at(90))
    assert _hours(result) == Decimal(8)  # 00:30 → 01:30
    assert _open(result).detail["source"] == "as_of"


def test_as_of_without_an_offset_is_a_usage_error(tmp_path):
    res = CliRunner().invoke(cli, ["attribute", "--workspace", str(tmp_path), "--as-of", "2026-11-10T13:00:00"],
                             prog_name="trainledger")
    assert res.exit_code == 2
    assert "--as-of" in res.output and "2026-11-10T14:00:00Z" in res.output  # the remedy: how to write it
    res = CliRunner().invoke(cli, ["attribute", "--workspace", str(tmp_path), "--as-of", "yesterday"],
                             prog_name="trainledger")
    assert res.exit_code == 2
