"""The unattributed bucket of the non-cash bases and the labor-hours control (review 7 L3).

A timesheet row naming no batch is internal labor no bill reconciles: it must be in a bucket — spread
by a declared shared pool, or unattributed with its reason — and the timesheet's hours must equal
the hours on batches + shared pools + unattributed, exactly. The sums here are the test's own, over
the lines, never the engine's verdict."""

import textwrap
from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute, unattributed
from trainledger.service import engine_settings

from .factories import CONFIG, T0, price_lookup

SHA_TS = "4" * 64
POOL = """
[[labor_rates]]
role = "platform_support"
currency = "CNY"
low = "200"
expected = "250"
high = "300"
source = "rate card"
evidence = "assumed"
owner = "finance"
[[allocation.shared]]
id = "build-labor"
category = "labor"
reason = "shared_work"
detail_prefix = "build/"
driver = "equal"
"""


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws-noncash")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(POOL), encoding="utf-8")
    return engine_settings(workspace.load(root))


def entry(row, hours, role="training_engineering", phase="run", batch=""):
    return {"date": date(2026, 11, 2), "person": "p", "role": role, "activity": "a", "phase": phase,
            "hours": hours, "recurrence": "", "batch": batch, "source_sha256": SHA_TS, "row": row}


ROWS = (entry(1, "3", batch="b1"),                       # on the batch
        entry(2, "2"),                                   # run work, no batch: unattributed
        entry(3, "1.5", role="platform_support"),        # another role, no batch: unattributed
        entry(4, "4", phase="build"),                    # build work: the build-labor pool spreads it
        entry(5, "1", role="data_prep"))                 # no rate: counted, not valued


def _result(config):
    return attribute(Facts(labor_entries=ROWS), config, price_lookup, T0.date())


def test_unlabelled_labor_is_in_a_bucket_by_reason(config):
    result = _result(config)
    (rec,) = [r for r in result.unattributed_noncash if r["basis"] == "internal"]
    orphans = [ln for ln in result.lines if ln.category == "labor" and ln.batch_id is None]
    left = [ln for ln in orphans if not ln.detail.startswith("build/")]
    assert sum(ln.quantity for ln in left) == Decimal("4.5") == Decimal(rec["quantity"])
    # 2 h × 380 (300–450) + 1.5 h × 250 (200–300) + 1 h not valued
    assert (rec["low"], rec["expected"], rec["high"]) == ("900.00", "1135.00", "1350.00")
    assert sum(ln.amount.expected for ln in left) == Decimal(rec["expected"])
    assert rec["lines"] == 3 and rec["unit"] == "hour" and rec["currency"] == "CNY"
    reasons = {(x["reason"], x["detail"]): (x["lines"], x["quantity"], x["expected"])
               for x in rec["unattributed_by_reason"]}
    assert reasons == {("shared_work", "run/training_engineering (no batch named)"): (1, "2", "760.00"),
                       ("shared_work", "run/platform_support (no batch named)"): (1, "1.5", "375.00"),
                       ("not_valued", "no labor rate for data_prep; shared_work: run/data_prep (no batch named)"):
                       (1, "1", "0.00")}
    # the reasons add up to the bucket, every unit of it
    for k in ("low", "expected", "high", "quantity"):
        assert sum(Decimal(x[k]) for x in rec["unattributed_by_reason"]) == Decimal(rec[k])
    assert [(p["policy"], p["lines"], p["quantity"], p["expected"]) for p in rec["pooled"]] == [
        ("build-labor", 1, "4", "1520.00")]
    # whose cost it is: one role's reason row, several roles' total (report/noncash.py)
    assert rec["roles"] == ["platform_support", "training_engineering"]


def test_timesheet_hours_equal_batches_pools_and_unattributed(config):
    result = _result(config)
    (ctl,) = result.labor_hours
    timesheet = sum(Decimal(r["hours"]) for r in ROWS)
    assert timesheet == Decimal("11.5") == Decimal(ctl["timesheet_hours"])
    parts = [Decimal(ctl[k]) for k in ("batches_hours", "pooled_hours", "unattributed_hours")]
    assert parts == [Decimal(3), Decimal(4), Decimal("4.5")] and sum(parts) == timesheet
    assert Decimal(ctl["difference"]) == 0 and ctl["rows"] == 5
    assert ctl["by_batch"] == [{"batch": "b1", "hours": "3"}]
    assert ctl["by_pool"] == [{"policy": "build-labor", "hours": "4"}]
    assert not [p for p in result.problems if p.kind == "labor_hours_conservation"]


def test_a_row_missing_from_the_bucket_fails_the_control(config):
    """Drop one unattributed line (or change its hours) and the control says by how much."""
    result = _result(config)
    lines = [ln for ln in result.lines if ln.category == "labor"]
    pooled = unattributed.pooled_by(dict(config.raw["allocation"]), "t", result.allocation)
    dropped = [ln for ln in lines if ln.provenance.row != 3]
    (ctl,), (problem,) = unattributed.labor_hours(Facts(labor_entries=ROWS), config, dropped, pooled)
    assert ctl["difference"] == "1.5" and ctl["unattributed_hours"] == "3"
    assert problem.kind == "labor_hours_conservation" and problem.detail["side"] == "too little"
    grown = [replace(ln, quantity=Decimal("2.25")) if ln.provenance.row == 2 else ln for ln in lines]
    (ctl,), (problem,) = unattributed.labor_hours(Facts(labor_entries=ROWS), config, grown, pooled)
    assert ctl["difference"] == "-0.25" and problem.detail["side"] == "too much"


def test_a_pool_that_spreads_nothing_leaves_its_lines_unattributed(tmp_path):
    """A gpu_hours pool with no GPU-hours allocates nothing (``left``): its lines stay in the bucket."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(POOL).replace(
        'driver = "equal"', 'driver = "gpu_hours"'), encoding="utf-8")
    cfg = engine_settings(workspace.load(root))
    result = attribute(Facts(labor_entries=ROWS), cfg, price_lookup, T0.date())
    (rec,) = [r for r in result.unattributed_noncash if r["basis"] == "internal"]
    assert rec["pooled"] == [] and rec["quantity"] == "8.5"  # 4.5 + the build row's 4
    (ctl,) = result.labor_hours
    assert [Decimal(ctl[k]) for k in ("pooled_hours", "unattributed_hours", "difference")] == [0, Decimal("8.5"), 0]
