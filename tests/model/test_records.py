from datetime import UTC, date, datetime
from decimal import Decimal

import pytest

from trainledger.model import (
    AmountRange,
    Assumption,
    AttributionKey,
    CostLine,
    FailureCause,
    LaborEntry,
    PriceEntry,
    Provenance,
    ReviewClass,
    Run,
    StorageObject,
    label,
)

SHA = "a" * 64


def key(**kw):
    base = dict(project="p1", goal="g", data_snapshot="ds1", data_processing_version="v1",
                model_version="m1", code_version="c1", config_version="cfg1", batch_id="b1")
    base.update(kw)
    return AttributionKey(**base)


def test_key_rejects_empty_fields_and_bad_ids():
    with pytest.raises(ValueError, match="data_snapshot"):
        key(data_snapshot=" ")
    with pytest.raises(ValueError, match="batch id"):
        key(batch_id="has space")


def test_run_requires_aware_times_and_suggests_review_class():
    with pytest.raises(ValueError, match="timezone-aware"):
        Run(id="r1", batch_id="b1", reason="fault_retry", started_at=datetime(2026, 1, 1))
    r = Run(id="r1", batch_id="b1", reason="fault_retry", cause="config_error",
            started_at=datetime(2026, 1, 1, tzinfo=UTC))
    assert r.cause is FailureCause.CONFIG_ERROR
    assert r.suggested_review_class is ReviewClass.AVOIDABLE_REWORK
    assert Run(id="r2", batch_id="b1", reason="fault_retry", cause="goal_change").suggested_review_class is None
    with pytest.raises(ValueError):
        Run(id="r3", batch_id="b1", reason="because")


def test_unattributed_cost_line_must_say_why():
    amt = AmountRange(Decimal(1), Decimal(1), Decimal(1), "USD")
    prov = Provenance(SHA, 3, "rule-x", "focus")
    with pytest.raises(ValueError, match="reason"):
        CostLine(category="compute", basis="billed", evidence="contract", amount=amt, provenance=prov)
    line = CostLine(category="compute", basis="billed", evidence="contract", amount=amt, provenance=prov,
                    reason="no_rule_matched")
    assert line.exact.amount == Decimal(1)
    with pytest.raises(ValueError, match="sha256"):
        Provenance("abc", 1, "r")


def test_storage_governance_flags():
    obj = StorageObject(path="oss://b/x", size_bytes=10, storage_class="cache", owner="", purpose="")
    assert obj.governance_flags == ("no_owner", "no_purpose", "no_retention_or_review_date")
    ok = StorageObject(path="oss://b/y", size_bytes=10, storage_class="checkpoint", owner="a",
                       purpose="recovery", review_at=date(2027, 1, 1))
    assert ok.governance_flags == ()


def test_labor_recurrence_follows_phase_unless_given():
    e = LaborEntry(day=date(2026, 11, 2), person="x", role="data_prep", activity="clean", phase="build",
                   hours=Decimal(3))
    assert e.recurrence == "one_time"
    assert LaborEntry(day=date(2026, 11, 2), person="x", role="vendor", activity="a", phase="run",
                      hours=Decimal(1)).recurrence == "ongoing"


def test_price_and_assumption_honesty():
    p = PriceEntry(item="gpu_hour:h800", unit="gpu_hour", price="50", currency="CNY", source="quote",
                   effective=date(2026, 1, 1), expires=date(2026, 6, 30))
    assert p.is_stale(date(2026, 7, 1)) and not p.is_stale(date(2026, 3, 1))
    with pytest.raises(ValueError, match="source"):
        PriceEntry(item="x", unit="gpu_hour", price="1", currency="CNY", source=" ", effective=date(2026, 1, 1))
    with pytest.raises(ValueError, match="owner"):
        Assumption(name="rate", evidence="assumed", source="guess", value="1")
    a = Assumption(name="rate", evidence="assumed", source="guess", low="1", high="2", owner="fin")
    assert a.as_dict() == {"name": "rate", "evidence": "assumed", "source": "guess", "low": "1",
                           "high": "2", "owner": "fin"}


def test_labels_are_bilingual():
    assert label("fault_retry", "zh-CN") == "故障重试"
    assert label("allocated_idle", "zh-CN") == "已分配未使用"
    assert label("fault_retry") == "fault retry"
