"""A stage that raises becomes a ``stage_failed`` problem and attribution goes on with the other
stages (engine/guard.py); the failed stage's cash is in the unattributed bucket, so conservation
still holds and says why."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from trainledger.engine import Facts, assets, attribute, compute
from trainledger.errors import ConfigError
from trainledger.model import Basis
from trainledger.report import problems_i18n as pi

from .factories import T0, at, bill, job, price_lookup

SHA_INV = "4" * 64


def invoice(amount="12.34", batch="b1", row=1):
    return {"invoice_id": f"INV-{row}", "vendor": "acme", "date": date(2026, 11, 2), "amount": amount,
            "currency": "CNY", "stage": "delivery", "description": "labelling", "batch": batch,
            "source_sha256": SHA_INV, "row": row}


def facts(**kw) -> Facts:
    return Facts(jobs=(job("100", start=at(0), end=at(60)),),
                 bill_lines=(bill(at(0), row=1), bill(at(0), amount="5.55", resource="nat-gw", row=2)),
                 external_services=(invoice(),), **kw)


def boom(*args, **kwargs):
    raise RuntimeError("boom")


def failed(result):
    return [p for p in result.problems if p.kind == "stage_failed"]


def reasons(record) -> dict[tuple[str, str], str]:
    return {(r["reason"], r["detail"]): r["amount"] for r in record["unattributed_by_reason"]}


def test_a_failing_bill_stage_leaves_its_money_unattributed_and_the_rest_runs(config, monkeypatch):
    monkeypatch.setattr(compute, "_index", boom)  # the real bill stage raises part-way
    result = attribute(facts(), config, price_lookup, T0.date())
    (p,) = failed(result)
    assert p.detail["stage"] == "bill_stage" and p.detail["error"] == "RuntimeError: boom"
    assert p.detail["where"].startswith("test_stage_guard.py:") and p.detail["rows"] == 2
    (cny,) = result.conservation
    assert (cny["billed_total"], cny["attributed"], cny["unattributed"], cny["difference"]) == (
        "97.89", "12.34", "85.55", "0.00")  # the invoice is still attributed by the external stage
    assert reasons(cny) == {("stage_failed", "bill_stage"): "85.55"}
    assert not [p for p in result.problems if p.kind == "conservation"]
    bucket = [ln for ln in result.lines if ln.reason == "stage_failed: bill_stage"]
    assert sorted(ln.provenance.row for ln in bucket) == [1, 2]
    assert {ln.category for ln in bucket} == {"compute"}  # the sheet section stays the bill row's


def test_with_commitments_the_effective_cost_view_conserves_too(config, monkeypatch):
    monkeypatch.setattr(compute, "_index", boom)
    rows = (replace_row(bill(at(0), row=1), effective_cost="60.00"), bill(at(0), amount="5.55", row=2))
    result = attribute(Facts(bill_lines=rows), config, price_lookup, T0.date())
    (amortized,) = result.conservation_amortized
    assert (amortized["billed_total"], amortized["unattributed"], amortized["difference"]) == (
        "65.55", "65.55", "0.00")
    assert {ln.basis for ln in result.lines if ln.reason.startswith("stage_failed")} == {
        Basis.BILLED, Basis.EFFECTIVE_COST}


def replace_row(row, **kw):
    return {**row, **kw}


def test_the_frame_engines_bill_stage_is_guarded_as_the_bill_stage(config, monkeypatch):
    from trainledger.engine.frame import stage as frame_stage

    monkeypatch.setattr(frame_stage, "connect", boom)
    result = attribute(facts(), config, price_lookup, T0.date(), engine="duckdb")
    (p,) = failed(result)
    assert p.detail["stage"] == "bill_stage"
    assert result.conservation[0]["difference"] == "0.00"
    assert reasons(result.conservation[0]) == {("stage_failed", "bill_stage"): "85.55"}


def test_a_failing_external_stage_leaves_the_invoices_unattributed(config, monkeypatch):
    monkeypatch.setattr(assets, "_batch", boom)
    result = attribute(facts(), config, price_lookup, T0.date())
    (p,) = failed(result)
    assert p.detail["stage"] == "external_stage" and p.detail["rows"] == 1
    (cny,) = result.conservation
    assert cny["difference"] == "0.00"
    assert reasons(cny)[("stage_failed", "external_stage")] == "12.34"
    b1 = sum((ln.amount.expected for ln in result.lines if ln.batch_id == "b1" and ln.basis is Basis.BILLED),
             Decimal(0))
    assert b1 > 0  # the bill stage still attributed job 100's node-hour


def test_a_stage_without_cash_fails_with_only_its_problem(config, monkeypatch):
    import trainledger.engine as engine

    def queued_stage(facts, ctx):
        raise KeyError("gpus")

    monkeypatch.setattr(engine, "STAGES", tuple(queued_stage if s is compute.queued_stage else s
                                                for s in engine.STAGES))
    base = attribute(facts(), config, price_lookup, T0.date())
    assert base.problems and failed(base)[0].detail == {
        "stage": "queued_stage", "error": "KeyError: 'gpus'", "where": failed(base)[0].detail["where"], "rows": 0}
    assert base.conservation[0]["difference"] == "0.00"
    assert not [ln for ln in base.lines if ln.basis is Basis.QUEUED]


def test_an_expected_error_still_stops_the_run(config, monkeypatch):
    def bad(*a, **k):
        raise ConfigError("capacity c1: missing key 'nodes'", remedy="see docs/workspace.md, [[capacity]]")

    monkeypatch.setattr(compute, "_index", bad)
    with pytest.raises(ConfigError):
        attribute(facts(), config, price_lookup, T0.date())


def test_without_a_failure_nothing_changes(config):
    result = attribute(facts(), config, price_lookup, T0.date())
    assert not failed(result)
    assert not [ln for ln in result.lines if "stage_failed" in ln.reason]


def test_the_problem_reads_in_both_languages(config, monkeypatch):
    monkeypatch.setattr(compute, "_index", boom)
    (p,) = failed(attribute(facts(), config, price_lookup, T0.date()))
    zh = pi.message(p.as_dict(), "zh-CN")
    assert "bill_stage" in zh and "RuntimeError: boom" in zh and "未归属桶" in zh and "缺陷" in zh
    assert pi.message(p.as_dict(), "en") == p.message  # the template says what the engine said


def test_any_stage_like_object_declares_its_own_fallback(config, monkeypatch):
    """guard.py knows no stage by name: a new stage — here a frozen object of the test's own, not a
    guard.Stage — that raises gets exactly what its ``fallback`` declares, under its ``name``."""
    import dataclasses
    import inspect

    import trainledger.engine as engine
    from trainledger.engine import guard
    from trainledger.engine.context import StageOutput

    @dataclasses.dataclass(frozen=True)
    class InvoiceStage:  # attributes the invoices in place of external_stage, and breaks
        name: str = "invoice_stage"

        def __call__(self, facts, ctx):
            raise ValueError("bad vendor code")

        def fallback(self, facts, ctx):
            owed = [guard.Owed(r, "invoice", "external", Basis.BILLED, Decimal(r["amount"]))
                    for r in facts.external_services]
            return StageOutput(tuple(guard.failed_line(self.name, o) for o in owed))

    monkeypatch.setattr(engine, "STAGES", tuple(InvoiceStage() if s is assets.external_stage else s
                                                for s in engine.STAGES))
    result = attribute(facts(), config, price_lookup, T0.date())
    (p,) = failed(result)
    assert p.detail["stage"] == "invoice_stage" and p.detail["error"] == "ValueError: bad vendor code"
    assert p.detail["rows"] == 1
    (cny,) = result.conservation
    assert cny["difference"] == "0.00"
    assert reasons(cny)[("stage_failed", "invoice_stage")] == "12.34"
    (line,) = [ln for ln in result.lines if ln.reason == "stage_failed: invoice_stage"]
    assert (line.category, line.provenance.source_kind, line.provenance.row) == ("external", "invoice", 1)
    source = inspect.getsource(guard)
    assert "compute" not in source and "bill_stage" not in source and "external_stage" not in source


def test_a_stage_declares_what_it_owes_in_each_view(config):
    """The bill stage's own declaration: every row, whole, in the billed view and, with
    commitments, the bill's effective-cost one (what its fallback puts in the bucket)."""
    rows = (replace_row(bill(at(0), row=1), effective_cost="60.00"), bill(at(0), amount="5.55", row=2))
    out = compute.bill_stage.fallback(Facts(bill_lines=rows), None)
    assert sorted((ln.provenance.row, str(ln.basis), str(ln.amount.expected)) for ln in out.lines) == [
        (1, "billed", "80.00"), (1, "effective_cost", "60.00"), (2, "billed", "5.55"), (2, "effective_cost", "5.55")]
    assert {ln.reason for ln in out.lines} == {"stage_failed: bill_stage"} and not out.problems


def test_a_fallback_that_raises_too_leaves_the_gap_to_conservation(config, monkeypatch):
    import dataclasses

    import trainledger.engine as engine

    @dataclasses.dataclass(frozen=True)
    class Broken:
        name: str = "invoice_stage"

        def __call__(self, facts, ctx):
            raise ValueError("stage")

        def fallback(self, facts, ctx):
            raise ValueError("fallback")

    monkeypatch.setattr(engine, "STAGES", tuple(Broken() if s is assets.external_stage else s
                                                for s in engine.STAGES))
    result = attribute(facts(), config, price_lookup, T0.date())
    assert failed(result)[0].detail["rows"] == 0
    assert result.conservation[0]["difference"] != "0.00"  # the invoice is missing, and conservation says so
    assert [p for p in result.problems if p.kind == "conservation"]
