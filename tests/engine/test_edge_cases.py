"""Cases a real cluster produces that the first engine got wrong (found in review, kept here)."""

from datetime import timedelta
from decimal import Decimal

from trainledger.engine import Facts, attribute
from trainledger.model import Basis, PriceEntry
from trainledger.model.vocab import ComputeState as S

from .factories import T0, at, bill, event, job, price_lookup


def _cash(result, **where):
    return sum(ln.amount.expected for ln in result.lines
               if ln.basis in (Basis.BILLED, Basis.CAPACITY_UNHELD)
               and all(getattr(ln, k) == v for k, v in where.items()))


def test_a_running_job_pays_for_the_hours_it_holds(config):
    facts = Facts(jobs=(job("100", start=at(0), end=None, state="RUNNING", gpus=8),),
                  bill_lines=(bill(at(0)),))
    result = attribute(facts, config, price_lookup, T0.date())
    assert _cash(result, batch_id="b1") == Decimal("80.00")
    assert any(p.kind == "open_job" for p in result.problems)


def test_progress_is_matched_to_jobs_by_time_as_well_as_by_key(config):
    # a failed job and its retry log under one tracker run id "R"
    jobs = (job("100", start=at(0), end=at(60), state="FAILED", tags='{"run": "R"}', row=1),
            job("101", start=at(70), end=at(130), tags='{"run": "R"}', row=2))
    ev = tuple(event("R", m, "step", step=m) for m in range(10, 56, 5)) + (
        event("R", 30, "checkpoint_saved", step=30, duration_s=60),
        *(event("R", m, "step", step=m) for m in range(80, 126, 5)))
    result = attribute(Facts(jobs=jobs, progress_events=ev), config, price_lookup, T0.date())
    first = {s.state for s in result.runs["100"].segments}
    second = {s.state for s in result.runs["101"].segments}
    assert S.LOST_PROGRESS in first and S.HANG in first
    assert S.EFFECTIVE in second and S.LOST_PROGRESS not in second


def test_progress_logged_on_another_clock_is_reported_not_guessed(config):
    jobs = (job("100", start=at(0), end=at(60)),)
    ev = tuple(event("100", 480 + m, "step", step=m) for m in range(0, 60, 5))  # 8 hours off
    result = attribute(Facts(jobs=jobs, progress_events=ev), config, price_lookup, T0.date())
    assert {s.state for s in result.runs["100"].segments} == {S.UNCLASSIFIED}
    assert any(p.kind == "progress_outside_allocation" for p in result.problems)


def test_cpu_only_nodes_are_not_idle_gpu_capacity(config):
    facts = Facts(jobs=(job("100", start=at(0), end=at(60), gpus=0, nodes="cpu1"),),
                  bill_lines=(bill(at(0), resource="cpu1"),))
    result = attribute(facts, config, price_lookup, T0.date())
    assert _cash(result, basis=Basis.CAPACITY_UNHELD) == 0
    assert result.conservation[0]["difference"] == "0.00"


def _storage(path, snap, row, size=1024**3, written="2026-09-01"):
    return {"path": path, "size_bytes": size, "storage_class": "checkpoint", "tier": "standard", "owner": "o",
            "purpose": "p", "retention_until": None, "review_at": None, "last_modified": written,
            "snapshot_date": snap, "batch": "b1", "source_sha256": "4" * 64, "row": row, "flags": "[]"}


def _gb_month(item, on, unit):
    if item == "storage:standard" and unit == "gb_month":
        return PriceEntry(item=item, unit="gb_month", price=Decimal("1"), currency="CNY", source="list",
                          effective=T0.date() - timedelta(days=365))
    return None


def test_monthly_inventories_charge_each_month_once(config):
    rows = (_storage("oss://b/x", "2026-10-01", 1), _storage("oss://b/x", "2026-10-31", 2))
    result = attribute(Facts(storage_objects=rows), config, _gb_month, T0.date())
    months = sum(ln.quantity for ln in result.lines if ln.category == "storage")
    assert months == Decimal(60) / (Decimal(730) / 24)  # 09-01 → 10-31, not 30 + 60 days


def test_unknown_batch_and_future_writes_are_reported(config):
    rows = (_storage("oss://b/y", "2026-10-01", 1, written="2026-10-05") | {"batch": "b-typo"},)
    result = attribute(Facts(storage_objects=rows), config, _gb_month, T0.date())
    kinds = {p.kind for p in result.problems}
    assert {"unknown_batch", "modified_after_snapshot"} <= kinds


def test_jobs_of_two_clusters_and_requeued_allocations_all_pay(config):
    a = job("1000", start=at(0), end=at(60), gpus=4, row=1) | {"cluster": "east"}
    b = job("1000", start=at(0), end=at(60), gpus=4, row=2, nodes="n2") | {"cluster": "west"}
    first = job("2000", start=at(0), end=at(30), gpus=4, row=3, nodes="n3", state="REQUEUED")
    again = job("2000", start=at(30), end=at(60), gpus=4, row=4, nodes="n3")
    bills = (bill(at(0), row=1), bill(at(0), resource="n2", row=2), bill(at(0), resource="n3", row=3))
    result = attribute(Facts(jobs=(a, b, first, again), bill_lines=bills), config, price_lookup, T0.date())
    assert set(result.runs) == {"east/1000", "west/1000", "2000", "2000@20261102T003000Z"}
    # each node-hour: 4 of 8 GPUs held all hour → half of 80.00 to b1, half idle
    assert _cash(result, batch_id="b1") == Decimal("120.00")
    assert len({info.run.id for info in result.runs.values()}) == 4


def test_a_default_wckey_marked_with_a_star_still_names_its_batch(config):
    result = attribute(Facts(jobs=(job("1", start=at(0), end=at(60), wckey="*b1"),)), config, price_lookup,
                       T0.date())
    assert result.runs["1"].batch_id == "b1"


def test_bills_naming_nodes_by_fqdn_or_not_at_all(config):
    jobs = (job("1", start=at(0), end=at(60), gpus=8),)
    fqdn = bill(at(0)) | {"resource_id": "i-2ze0abc", "resource_name": "n1.cluster.internal"}
    result = attribute(Facts(jobs=jobs, bill_lines=(fqdn,)), config, price_lookup, T0.date())
    assert _cash(result, batch_id="b1") == Decimal("80.00")
    other = bill(at(0)) | {"resource_id": "i-2ze0abc", "resource_name": None}
    result = attribute(Facts(jobs=jobs, bill_lines=(other,)), config, price_lookup, T0.date())
    assert any(p.kind == "no_node_on_bill" and "n1" in p.message for p in result.problems)


def test_a_rule_on_a_field_that_does_not_exist_is_reported(config):
    from dataclasses import replace as dc_replace

    from trainledger.workspace import Rule

    bad = dc_replace(config, rules=(*config.rules, Rule(id="typo", source="slurm", field="wc_key", match="template")))
    result = attribute(Facts(jobs=(job("1", start=at(0), end=at(60)),)), bad, price_lookup, T0.date())
    (p,) = [p for p in result.problems if p.kind == "unknown_rule_field"]
    assert "wc_key" in p.message and "wckey" in p.message
