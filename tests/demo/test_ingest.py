"""Every generated file goes through the real importers of docs/formats.md without a quarantine.

The demo contains no row that is bad on purpose: the PENDING job (Start/End ``Unknown``) is a
valid sacct row with null times. What *is* deliberately odd is accepted and flagged: the FOCUS
row with a non-conformant ChargeCategory, and three storage objects lacking an owner or dates.
"""

from __future__ import annotations

import pytest

from trainledger import workspace
from trainledger.ingest import import_files
from trainledger.lake import Lake

KINDS = ("slurm", "focus", "progress", "storage", "timesheet", "invoice")


@pytest.fixture(scope="module")
def imported(demo_files, tmp_path_factory):
    cfg = workspace.load(demo_files.config.parent)
    lake = Lake(tmp_path_factory.mktemp("lake"))
    opts = {"tz": cfg.get("sources.slurm.timezone"),
            "storage_prefixes": list(cfg.storage_prefixes)}
    results = {}
    for kind in KINDS:
        (results[kind],) = import_files(kind, [getattr(demo_files, kind)], lake, options=opts)
    return results


@pytest.mark.parametrize("kind", KINDS)
def test_no_row_is_quarantined(imported, kind):
    r = imported[kind]
    assert r.quarantined == 0 and r.duplicates == 0
    assert r.accepted == r.rows_read > 0


def test_only_the_deliberately_odd_rows_are_flagged(imported):
    assert imported["focus"].flagged == 1  # ChargeCategory "usage-adjust": money kept, flagged
    assert imported["storage"].flagged == 3  # stale cache, dedup scratch, undated sweep checkpoint
    for kind in ("slurm", "progress", "timesheet", "invoice"):
        assert imported[kind].flagged == 0, kind
