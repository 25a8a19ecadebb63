"""A pool's occupancy series moves money (engine/capacity_occupancy.py, review finding G23): each day's
GPU time no imported job holds is split into "held, jobs not imported" (the series' running GPU-hours
beyond what the imported jobs hold) and capacity no job held (the rest: idle by the series); and the
demand left waiting while capacity was idle is valued as an opportunity cost beside the totals.

By hand, on tests/data/vc-pools (cluster X, pool vcA: 8 GPUs each day at 10.00 / GPU-hour; job 1
holds 4 GPUs 11-02 00–12 h = 48 GPU-h, job 2 8 GPUs 11-03 06–12 h = 48 GPU-h, both batch b1) and an
hourly series of X/vcA for 11-02 only:

    00–12 h  running 6, idle 2, pending 3     12–24 h  running 0, idle 8, pending 0
    11-02: R = 6 × 12 = 72 GPU-h, H = 48 (job 1), U = 192 − 48 = 144
           held, jobs not imported N = min(max(72 − 48, 0), 144) = 24 GPU-h = 240.00; idle 120 GPU-h
    11-03: no sample — as before: 144 GPU-h unheld
    pool:  3,840.00 = attributed 960.00 + held, jobs not imported 240.00 + unheld 2,640.00 (264 GPU-h)
    demand left waiting while capacity was idle: min(pending 3, idle 2) × 12 h = 24 GPU-h = 240.00 (all
           pending while some GPU was idle: 3 × 12 = 36 GPU-h = 360.00), an opportunity cost: in no line
           and no total
"""

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine import Facts, attribute
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.model import Basis

from .test_vc_pools import POOL, _config, price_lookup

VC = Path(__file__).resolve().parents[1] / "data" / "vc-pools"
DAY = datetime(2026, 11, 2, tzinfo=UTC)
ONE = POOL.format(id="pool-a", vc='vc = "vcA"\n', rate="10.00")


def _sample(h: int, running: int, idle: int, pending: int | None, vc: str = "vcA") -> dict:
    return {"ts": DAY + timedelta(hours=h), "interval_s": 3600, "cluster": "X", "vc": vc, "unit": "gpu",
            "total": running + idle, "running": running, "pending": pending, "idle": idle, "running_jobs": None,
            "pending_jobs": None, "extra": "{}", "source_sha256": "8" * 64, "row": h + 1}


@pytest.fixture(scope="module")
def facts(tmp_path_factory):
    lake = Lake(tmp_path_factory.mktemp("occ-money") / "lake")
    import_files("nodes", [VC / "gpus.csv"], lake, options={"preset": "helios-gpus", "tz": "UTC", "set": ["cluster=X"]})
    import_files("jobs", [VC / "jobs.csv"], lake, options={"preset": "slurm-trace", "tz": "UTC", "set": ["cluster=X"]})
    return Facts.from_lake(lake)


def _run(facts, tmp_path, series):
    result = attribute(replace(facts, occupancy=tuple(series)), _config(tmp_path, ONE), price_lookup,
                       date(2026, 11, 4))
    (rec,) = [r for r in result.conservation_capacity if r["capacity"] == "pool-a"]
    lines = [ln for ln in result.lines  # the capacity's lines: a job's row (held) or the workspace file
             if ln.provenance.source_kind in ("config", "capacity") and ln.basis is Basis.RATE_CARD]
    return result, rec, lines


HAND = [_sample(h, 6, 2, 3) for h in range(12)] + [_sample(h, 0, 8, 0) for h in range(12, 24)]


def test_a_partial_job_list_by_hand(facts, tmp_path):
    result, rec, lines = _run(facts, tmp_path, HAND)
    assert (rec["total"], rec["attributed"], rec["held_not_imported"], rec["unheld"], rec["difference"]) == (
        "3840.00", "960.00", "240.00", "2640.00", "0.00")
    assert rec["gpu_hours"] == {"total": "384", "held": "96", "held_not_imported": "24", "unheld": "264",
                                "oversubscribed": "0", "carried": "384", "difference": "0"}
    held = [ln for ln in lines if ln.reason.startswith("occupancy_held")]
    assert [(ln.quantity, ln.amount.expected, ln.detail, ln.batch_id) for ln in held] == [
        (24, Decimal("240.00"), "held_not_imported", None)]  # one line, on 11-02, in no batch
    assert held[0].provenance.rule == "occupancy_series/held_not_imported"
    idle_by_day = {}
    for ln in lines:
        if ln.reason.startswith("capacity_unheld"):
            idle_by_day[ln.provenance.row] = (ln.quantity, ln.amount.expected)
    assert sorted(idle_by_day.values()) == [(120, Decimal("1200.00")), (144, Decimal("1440.00"))]
    assert sum(ln.amount.expected for ln in lines) == Decimal("3840.00")  # the lines themselves conserve
    w = rec["occupancy"]["waiting_while_idle"]
    assert (w["gpu_hours"], w["opportunity_cost"], w["pending_while_any_idle_gpu_hours"],
            w["pending_while_any_idle_value"]) == ("24", "240.00", "36", "360.00")
    assert w["basis"] == "opportunity"
    assert rec["occupancy"]["running_gpu_hours"] == "72" and rec["occupancy"]["idle_gpu_hours"] == "120"
    reasons = {(x["reason"], x["amount"]) for x in rec["unattributed_by_reason"]}
    assert reasons == {("occupancy_held", "240.00"), ("capacity_unheld", "2640.00")}
    assert not [p for p in result.problems if p.kind == "conservation"]


def test_without_a_series_or_with_one_the_jobs_fill_nothing_moves(facts, tmp_path):
    _r, rec, _l = _run(facts, tmp_path, [])
    assert (rec["unheld"], "held_not_imported" in rec, "occupancy" in rec) == ("2880.00", False, False)
    # a series that says only the imported jobs ran (4 of 8 GPUs 00–12 h): nothing held by others
    _r, rec, _l = _run(facts, tmp_path, [_sample(h, 4, 4, 0) for h in range(12)])
    assert (rec["unheld"], rec["held_not_imported"]) == ("2880.00", "0.00")
    # another VC's or a node-unit series is not vcA's
    other = [_sample(h, 8, 0, 0, vc="vcB") for h in range(24)] + [{**_sample(h, 8, 0, 0), "unit": "node"}
                                                                   for h in range(24)]
    _r, rec, _l = _run(facts, tmp_path, other)
    assert rec["unheld"] == "2880.00" and "occupancy" not in rec


def test_a_sample_imported_twice_counts_once_the_later_wins(facts, tmp_path):
    stale = [_sample(h, 8, 0, 0) for h in range(12)]  # an earlier export said all 8 ran
    _r, rec, _l = _run(facts, tmp_path, stale + HAND)
    assert (rec["held_not_imported"], rec["unheld"]) == ("240.00", "2640.00")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 8), st.integers(0, 5)), min_size=48, max_size=48))
def test_money_and_hours_conserve_whatever_the_series(facts, tmp_path_factory, hours):
    series = [_sample(h, r, 8 - r, p) for h, (r, p) in enumerate(hours)]
    _res, rec, lines = _run(facts, tmp_path_factory.mktemp("p"), series)
    assert rec["difference"] == "0.00" and rec["gpu_hours"]["difference"] == "0"
    parts = sum(Decimal(rec[k]) for k in ("attributed", "held_not_imported", "unheld", "job_without_batch"))
    assert parts == Decimal(rec["total"]) == sum(ln.amount.expected for ln in lines) == Decimal("3840.00")
    assert rec["attributed"] == "960.00"  # the imported jobs keep exactly what they held
    # held, jobs not imported = per day max(series running − job hours, 0), at the rate, to the cent
    day1 = sum(r for r, _p in hours[:24])
    day2 = sum(r for r, _p in hours[24:])
    expect = max(day1 - 48, 0) + max(day2 - 48, 0)
    assert Decimal(rec["gpu_hours"]["held_not_imported"]) == expect
    assert Decimal(rec["held_not_imported"]) == 10 * expect
    w = rec["occupancy"]["waiting_while_idle"]
    waiting = sum(min(p, 8 - r) for r, p in hours)  # what the idle GPUs could have served
    assert Decimal(w["gpu_hours"]) == waiting and Decimal(w["opportunity_cost"]) == 10 * waiting
    pending = sum(p for r, p in hours if r < 8)  # all pending while some GPU was idle
    assert Decimal(w["pending_while_any_idle_gpu_hours"]) == pending >= waiting
