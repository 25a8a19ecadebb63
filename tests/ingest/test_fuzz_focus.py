"""Fuzz the ``focus`` importer with mutations of the demo's FOCUS bill and the public FOCUS
sample (AWS, Microsoft, Oracle rows): no traceback, only the
project's errors, and the counts identity (fuzz_helpers.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import ENCODING_OPTION, EXAMPLES, check_import, mutated, parquet_of, seed

SEEDS = (seed("bill-focus.csv"), seed("focus-sample-data/focus_sample.csv"))
OPTIONS = {}


def test_the_seed_imports_cleanly():
    for data in SEEDS:
        r = check_import("focus", data, "bill.csv", **OPTIONS)
        assert r is not None and r.rows_read == r.accepted > 0


@settings(max_examples=EXAMPLES * 2 // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS).flatmap(lambda s: mutated(s, ",")), ENCODING_OPTION)
def test_mutated_focus_never_crashes(data, encoding):
    check_import("focus", data, "bill.csv", **OPTIONS, **encoding)


@settings(max_examples=EXAMPLES // 3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS).flatmap(parquet_of))
def test_parquet_bill_with_hostile_typed_values_never_crashes(data):
    """A Parquet bill may hold any Arrow type: extreme integers, decimals of 38 digits, timestamps
    at the ends of int64, nested values. The fuzz for CSV and Parquet share the file's budget."""
    check_import("focus", data, "bill.parquet", **OPTIONS)
