"""Fuzz the ``slurm`` importer with mutations of the sacct --parsable2 output the demo writes
(job and step rows, pipe-separated, local times): no traceback, only the
project's errors, and the counts identity (fuzz_helpers.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ingest.fuzz_helpers import ENCODING_OPTION, EXAMPLES, check_import, mutated, seed

SEEDS = (seed("sacct.txt"),)
OPTIONS = {"tz": "Asia/Shanghai"}


def test_the_seed_imports_cleanly():
    for data in SEEDS:
        r = check_import("slurm", data, "sacct.txt", **OPTIONS)
        assert r is not None and r.rows_read == r.accepted > 0


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SEEDS).flatmap(lambda s: mutated(s, "|")), ENCODING_OPTION)
def test_mutated_slurm_never_crashes(data, encoding):
    check_import("slurm", data, "sacct.txt", **OPTIONS, **encoding)
