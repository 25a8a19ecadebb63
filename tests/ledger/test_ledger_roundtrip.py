"""What goes in comes out equal: exact Decimals (value *and* exponent), instants, records."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.exc import StatementError

from trainledger.errors import BadInput
from trainledger.ledger import ImportRecord
from trainledger.model import AmountRange, CostLine, PriceEntry, Provenance, Run

from .conftest import make_batch

SHA = "5" * 64
EXAMPLES = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])

# Up to 18 decimal places, negative, very large, with trailing zeros and exponents kept.
decimals = st.one_of(
    st.decimals(allow_nan=False, allow_infinity=False, places=18,
                min_value=Decimal("-1e12"), max_value=Decimal("1e12")),
    st.builds(lambda sign, digits, exp: Decimal((sign, tuple(digits), exp)),
              st.integers(0, 1), st.lists(st.integers(0, 9), min_size=1, max_size=38),
              st.integers(-18, 20)),
)
ranges = st.lists(decimals, min_size=3, max_size=3).map(sorted)
instants = st.builds(
    lambda naive, minutes: naive.replace(tzinfo=timezone(timedelta(minutes=minutes))),
    st.datetimes(min_value=datetime(1971, 1, 1), max_value=datetime(2200, 1, 1)),
    st.integers(-14 * 60, 14 * 60),
)


def exact(d: Decimal) -> tuple:
    return d.as_tuple()


@st.composite
def cost_lines(draw):
    low, expected, high = draw(ranges)
    attributed = draw(st.booleans())
    return CostLine(
        category=draw(st.sampled_from(["compute", "storage", "labor", "external", "data"])),
        basis=draw(st.sampled_from(["billed", "capacity_unheld", "queued", "estimate"])),
        evidence=draw(st.sampled_from(["contract", "measured", "assumed"])),
        amount=AmountRange(low, expected, high, draw(st.sampled_from(["USD", "CNY", "JPY"]))),
        provenance=Provenance(SHA, draw(st.integers(1, 10**9)), "rule:tag-match", "focus"),
        batch_id="b1" if attributed else None,
        run_id=draw(st.none() | st.just("job-17")),
        detail=draw(st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)),
        quantity=draw(st.none() | decimals),
        unit="gpu_hour",
        reason="" if attributed else "no batch tag on the bill row",
    )


@EXAMPLES
@given(lines=st.lists(cost_lines(), min_size=1, max_size=6))
def test_cost_lines_round_trip_exactly(seeded, lines):
    seeded.replace_cost_lines(lines, summary={"n": len(lines)})
    back = seeded.cost_lines()
    assert back == lines
    assert seeded.verify_figures()[0] == []  # the digest written is the digest read back
    for a, b in zip(back, lines, strict=True):
        for name in ("low", "expected", "high"):
            assert exact(getattr(a.amount, name)) == exact(getattr(b.amount, name))
        assert (a.quantity is None) == (b.quantity is None)
        if a.quantity is not None:
            assert exact(a.quantity) == exact(b.quantity)


@EXAMPLES
@given(bounds=ranges, effective=st.dates(date(2000, 1, 1), date(2100, 1, 1)))
def test_prices_round_trip_exactly(ledger, bounds, effective):
    low, price, high = (abs(d) for d in bounds)
    low, price, high = sorted((low, price, high))
    entry = PriceEntry(item="gpu_hour:h800", unit="gpu_hour", price=price, currency="CNY",
                       source="contract 2024-17", effective=effective, low=low, high=high,
                       evidence="assumed", expires=effective + timedelta(days=365))
    ledger.upsert_prices([entry])
    back = {(e.item, e.effective): e for e in ledger.prices()}[(entry.item, effective)]
    assert back == entry
    assert [exact(x) for x in (back.low, back.price, back.high)] == [
        exact(x) for x in (entry.low, entry.price, entry.high)]


@EXAMPLES
@given(submitted=instants, hours=st.integers(0, 10_000))
def test_instants_round_trip_as_utc(seeded, submitted, hours):
    run = Run(id="job-1", batch_id="b1", reason="fault_retry", cause="infra_fault",
              source_job="slurm:123", state="NODE_FAIL", submitted_at=submitted,
              started_at=submitted + timedelta(hours=hours), ended_at=None, gpus=8,
              review_class="unforeseeable_fault")
    seeded.upsert_runs([run])
    (back,) = seeded.runs("b1")
    assert back == run
    assert seeded.verify_figures()[0] == []
    assert back.submitted_at.utcoffset() == timedelta(0)
    assert back.submitted_at.tzinfo is UTC


def test_naive_datetimes_are_refused(seeded):
    with pytest.raises(ValueError, match="timezone-aware"):
        ImportRecord("slurm", "sacct.txt", SHA, 1, 1, 0, 0, None, datetime(2024, 5, 1, 12))
    rec = ImportRecord("slurm", "sacct.txt", SHA, 1, 1, 0, 0, None, datetime.now(UTC))
    object.__setattr__(rec, "imported_at", datetime(2024, 5, 1, 12))  # past the domain check
    with pytest.raises(StatementError, match="naive datetime"):
        seeded.record_import(rec)
    assert seeded.imports() == []


def test_floats_are_refused_as_money(seeded):
    line = CostLine("compute", "billed", "contract", AmountRange("1", "1", "1", "USD"),
                    Provenance(SHA, 1, "r"), batch_id="b1")
    object.__setattr__(line, "quantity", 0.1)  # past the domain check
    with pytest.raises(BadInput, match="cost_lines.quantity of row 1: refusing float"):
        seeded.replace_cost_lines([line], summary={})


def test_text_the_backends_disagree_on_is_refused_on_both(seeded):
    """NUL characters (PostgreSQL refuses, SQLite stores) and over-long VARCHARs (PostgreSQL
    refuses, SQLite stores) are refused everywhere, before reaching the database."""
    ok = CostLine("compute", "billed", "contract", AmountRange("1", "1", "1", "USD"),
                  Provenance(SHA, 1, "r"), batch_id="b1")
    seeded.replace_cost_lines([ok], summary={})
    for field, value in (("detail", "a\x00b"), ("unit", "u" * 65)):
        bad = CostLine("compute", "billed", "contract", AmountRange("1", "1", "1", "USD"),
                       Provenance(SHA, 2, "r"), batch_id="b1", **{field: value})
        with pytest.raises(BadInput, match=f"cost_lines.{field} of row 2"):
            seeded.replace_cost_lines([ok, bad], summary={})
    with pytest.raises(StatementError, match="NUL"):
        seeded.upsert_runs([Run("job\x00", "b1", "planned_experiment")])
    assert seeded.cost_lines() == [ok] and seeded.runs() == []


def test_records_round_trip(seeded):
    assert seeded.get_batch("b1") == make_batch("b1")
    assert [b.id for b in seeded.list_batches()] == ["b1", "b2"]
    assert [p.id for p in seeded.projects()] == ["p1"]
    rec = ImportRecord("focus", "bill-2024-05.csv", SHA, rows_read=10, accepted=7,
                       duplicates=2, quarantined=1, quarantine_file="quarantine/x.csv",
                       imported_at=datetime(2024, 6, 1, 8, 30, 0, 123456, tzinfo=UTC))
    assert seeded.record_import(rec)
    assert seeded.imports() == [rec]
    body = {"gpus": 64, "hours": {"low": "100", "high": "180"}, "assumptions": ["mfu 0.4"]}
    plan_id = seeded.add_plan("b1", "plan", body)
    (plan,) = seeded.plans("b1")
    assert plan["id"] == plan_id and plan["stage"] == "plan" and plan["body"] == body
    assert plan["created_at"].tzinfo is UTC
    assert seeded.plans("b2") == []


def test_upserts_replace_by_key(seeded):
    changed = make_batch("b1")
    changed = type(changed)(key=changed.key, team="platform", owner="wang", name="renamed",
                            task_type="qlora", max_rounds=None)
    seeded.upsert_batch(changed)
    assert seeded.get_batch("b1") == changed
    run = Run(id="job-9", batch_id="b1", reason="planned_experiment")
    seeded.upsert_runs([run])
    seeded.upsert_runs([Run(id="job-9", batch_id="b2", reason="param_tuning", gpus=4)])
    assert seeded.runs("b1") == []
    assert [r.reason for r in seeded.runs()] == ["param_tuning"]


def test_summary_json_keeps_decimals_as_text(seeded):
    seeded.replace_cost_lines([], summary={"billed": Decimal("10.50"), "day": date(2024, 5, 1)})
    latest = seeded.latest_attribution()
    assert latest["summary"] == {"billed": "10.50", "day": "2024-05-01"}
    assert latest["created_at"].tzinfo is UTC


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=10)
    | st.floats(allow_nan=False, allow_infinity=False) | decimals,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


@EXAMPLES
@given(summary=st.dictionaries(st.text(max_size=8), json_values, max_size=5))
def test_any_summary_verifies_after_the_database_round_trip(seeded, summary):
    seeded.replace_cost_lines([], summary=summary)
    assert seeded.verify_figures()[0] == []
