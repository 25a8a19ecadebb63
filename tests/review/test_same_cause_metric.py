"""The stop-rule metric ``same_cause_max`` counts each failure's cause as the sheet shows it —
confirmed, recorded or suggested — once per failure (review 6 K16); it read only the causes a job
wrote in its Comment, so two confirmed config errors stayed 0 and a rule on it never fired."""

from __future__ import annotations

import json
from decimal import Decimal

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.demo.scenario import BATCH_A


def _run(ws, *args):
    r = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", "en", *args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


def _metric(ws):
    return Decimal(json.loads(_run(ws, "status", BATCH_A, "--json"))["metrics"]["same_cause_max"])


def test_a_confirmed_cause_counts_and_a_retry_is_the_same_failure(demo_copy):
    # batch A: a-r01 FAILED (config error, named by its retry a-r02), a-r03 NODE_FAIL (infra fault, its
    # retry a-r07 says so too): one failure each, whatever their retries record
    assert _metric(demo_copy) == 1
    _run(demo_copy, "runs", "confirm", "a-r04", "--cause", "config_error", "--by", "li")  # a TIMEOUT
    assert _metric(demo_copy) == 2
