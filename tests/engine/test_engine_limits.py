"""A backend that cannot run stops `attribute` before anything is written (review 6 K14): DuckDB out
of its memory limit, or Spark without a Java that starts, is the machine's limit, not a broken stage;
publishing a month with its whole bill unattributed (stage_failed) would replace good figures."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from trainledger.cli import cli


def _attribute(ws, *args, env=None):
    return CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", "en", "attribute", "--json", *args],
                              catch_exceptions=False, env=env)


def _figures(ws):
    r = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", "en", "audit", "--json"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return json.loads(r.output)


def test_duckdb_out_of_memory_stops_attribute_and_keeps_the_figures(demo_copy):
    before = _figures(demo_copy)
    cfg = demo_copy / "trainledger.toml"
    text = cfg.read_text(encoding="utf-8")
    assert "[engine]" not in text
    cfg.write_text(text + '\n[engine]\nbackend = "duckdb"\nmemory_limit = "1MB"\n', encoding="utf-8")
    r = _attribute(demo_copy)
    assert r.exit_code != 0
    assert "ran out of memory" in r.output and "memory_limit" in r.output and "stage_failed" not in r.output
    assert _figures(demo_copy) == before  # nothing written: the verified attribution is the old one


@pytest.mark.skipif(not os.environ.get("TRAINLEDGER_TEST_SPARK"), reason="slow (a Spark session): set"
                    " TRAINLEDGER_TEST_SPARK=1 (and Java)")
def test_spark_without_a_java_that_starts_stops_attribute(demo_copy):
    """In a process of its own: a Spark session another test started would be reused, Java or not."""
    before = _figures(demo_copy)
    env = {**os.environ, "JAVA_HOME": str(demo_copy / "no-java"), "PYTHONPATH": os.pathsep.join(sys.path)}
    r = subprocess.run([sys.executable, "-m", "trainledger.cli", "--workspace", str(demo_copy), "--lang", "en",
                        "attribute", "--engine", "spark"], env=env, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode != 0 and "could not start Java" in out and "JAVA_HOME" in out, out[-2000:]
    assert _figures(demo_copy) == before
