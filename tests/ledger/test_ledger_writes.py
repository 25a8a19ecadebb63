"""Writes are idempotent where promised, atomic, and refuse what the ledger does not know."""

from __future__ import annotations

import time
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from trainledger.errors import BadInput, NotFound
from trainledger.ledger import ImportRecord
from trainledger.model import AmountRange, CostLine, Project, Provenance, Run

from .conftest import make_batch

SHA = "a" * 64


def line(row: int, batch_id: str | None = "b1", amount: str = "12.34") -> CostLine:
    return CostLine(
        category="compute", basis="billed", evidence="contract",
        amount=AmountRange(amount, amount, amount, "USD"),
        provenance=Provenance(SHA, row, "rule:wckey"),
        batch_id=batch_id, run_id=f"job-{row}", detail="effective",
        reason="" if batch_id else "no batch label", unit="gpu_hour",
    )


def test_record_import_is_idempotent_per_hash_and_kind(seeded):
    rec = ImportRecord("slurm", "sacct-may.txt", SHA, 100, 97, 0, 3, "q/sacct-may.csv",
                       datetime(2024, 6, 1, tzinfo=UTC))
    audited = len(seeded.audit_log())
    assert seeded.record_import(rec) is True
    assert seeded.record_import(rec) is False
    assert seeded.record_import(replace(rec, path="renamed.txt", accepted=1)) is False
    assert seeded.imports() == [rec]
    assert len(seeded.audit_log()) == audited + 1  # the repeats changed nothing
    other_kind = replace(rec, kind="k8s")  # same bytes read as another format is another import
    assert seeded.record_import(other_kind) is True
    assert len(seeded.imports()) == 2


def test_replace_cost_lines_replaces_and_keeps_history(seeded):
    first = seeded.replace_cost_lines([line(1), line(2, None)], summary={"run": 1})
    second = seeded.replace_cost_lines([line(3, "b2")], summary={"run": 2})
    assert second > first
    assert seeded.cost_lines() == [line(3, "b2")]
    assert seeded.latest_attribution()["id"] == second
    assert seeded.latest_attribution()["summary"] == {"run": 2}


def test_replace_cost_lines_can_replace_runs_in_the_same_transaction(seeded):
    r1 = Run(id="job-1", batch_id="b1", reason="planned_experiment")
    r2 = Run(id="job-2", batch_id="b2", reason="fault_retry", cause="infra_fault")
    seeded.replace_cost_lines([line(1)], summary={}, runs=[r1, r2])
    assert seeded.runs() == [r1, r2]
    # a rule change moved job-2 out of every batch: it leaves the runs table with its lines
    seeded.replace_cost_lines([line(1)], summary={}, runs=[r1])
    assert seeded.runs() == [r1] and seeded.runs("b2") == []
    # without ``runs`` the runs table is left alone
    seeded.replace_cost_lines([], summary={})
    assert seeded.runs() == [r1]
    # a refused run leaves lines and runs as they were
    with pytest.raises(NotFound, match="b9"):
        seeded.replace_cost_lines([line(5)], summary={}, runs=[Run(id="x", batch_id="b9", reason="data_fix")])
    assert seeded.runs() == [r1] and seeded.cost_lines() == []


def test_cost_line_filters(seeded):
    lines = [line(1, "b1"), line(2, None), line(3, "b2"), line(4, "b1")]
    seeded.replace_cost_lines(lines, summary={})
    assert seeded.cost_lines() == lines
    assert seeded.cost_lines("b1") == [lines[0], lines[3]]
    assert seeded.cost_lines(unattributed=True) == [lines[1]]
    assert seeded.cost_lines("b2", unattributed=True) == [lines[1], lines[2]]
    with pytest.raises(NotFound):
        seeded.cost_lines("nope")


@pytest.mark.parametrize("bad", ["constraint", "unknown_batch"])
def test_replace_cost_lines_is_atomic(seeded, bad):
    before = [line(1), line(2, None)]
    kept = seeded.replace_cost_lines(before, summary={"run": "good"})
    audited = len(seeded.audit_log())
    new = [line(i, "b2") for i in range(1, 25_001)]
    if bad == "constraint":
        # Past the domain check: unattributed without a reason breaks the table's CHECK.
        object.__setattr__(new[15_000], "batch_id", None)
        expected = BadInput
    else:
        new[15_000] = line(15_001, "ghost")
        expected = NotFound
    with pytest.raises(expected) as err:  # fails in the second chunk, after 10k were inserted
        seeded.replace_cost_lines(new, summary={"run": "bad"})
    if bad == "unknown_batch":
        assert "ghost" in str(err.value) and err.value.remedy
    assert seeded.cost_lines() == before
    assert seeded.latest_attribution()["id"] == kept
    assert len(seeded.audit_log()) == audited
    assert seeded.verify_audit_chain() == []


def test_unknown_batch_is_not_found_with_a_remedy(seeded):
    with pytest.raises(NotFound) as err:
        seeded.get_batch("b404")
    assert "b404" in err.value.message
    assert "upsert_batch" in err.value.remedy and "b1" in err.value.remedy
    assert isinstance(err.value, LookupError)
    for call in (lambda: seeded.plans("b404"), lambda: seeded.decisions("b404"),
                 lambda: seeded.add_plan("b404", "plan", {}),
                 lambda: seeded.add_decision("b404", "stop", "why"),
                 lambda: seeded.upsert_runs([Run("j", "b404", "planned_experiment")])):
        with pytest.raises(NotFound, match="b404"):
            call()
    with pytest.raises(NotFound, match="upsert_project"):
        seeded.upsert_batch(make_batch("b9", project="p404"))


def test_plans_and_decisions(seeded):
    with pytest.raises(BadInput, match="plan stage"):
        seeded.add_plan("b1", "budget", {})
    with pytest.raises(BadInput, match="continue, shrink, stop, retarget"):
        seeded.add_decision("b1", "pause", "why")
    with pytest.raises(BadInput, match="list of items"):
        seeded.add_decision("b1", "stop", "why", reusable_assets="ckpt-3")
    for stage in ("plan", "execution", "review"):
        seeded.add_plan("b1", stage, {"stage": stage})
    assert [p["stage"] for p in seeded.plans("b1")] == ["plan", "execution", "review"]
    d1 = seeded.add_decision(
        "b1", "shrink", "loss plateaued at round 2",
        reusable_assets=("cleaned data clean-v3", "ckpt round 2"),
        unknowns_removed=["lora r16 is enough"], next_to_verify=["eval on May tickets"],
        author="li.wei")
    d2 = seeded.add_decision("b1", "stop", "goal met")
    first, second = seeded.decisions("b1")
    assert (first["id"], second["id"]) == (d1, d2)
    assert first["reusable_assets"] == ["cleaned data clean-v3", "ckpt round 2"]
    assert first["unknowns_removed"] == ["lora r16 is enough"]
    assert first["next_to_verify"] == ["eval on May tickets"]
    assert (first["kind"], first["author"]) == ("shrink", "li.wei")
    assert second["author"] == "tester"  # defaults to the ledger's actor


def test_every_mutation_is_audited(ledger):
    ledger.upsert_project(Project("p1", "bot", "deflect tickets"))
    ledger.upsert_batch(make_batch("b1"))
    ledger.upsert_runs([Run("j1", "b1", "planned_experiment")])
    ledger.record_import(ImportRecord("slurm", "x", SHA, 1, 1, 0, 0))
    ledger.replace_cost_lines([line(1)], summary={})
    ledger.upsert_prices([])  # nothing to change: nothing to audit
    ledger.add_plan("b1", "plan", {})
    ledger.add_decision("b1", "continue", "on track")
    ledger.audit("someone", "export", "report:b1", {"format": "xlsx"})
    actions = [e["action"] for e in ledger.audit_log()]
    assert actions == ["upgrade", "upsert_project", "upsert_batch", "upsert_runs",
                       "record_import", "replace_cost_lines", "add_plan", "add_decision",
                       "export"]
    log = ledger.audit_log()
    assert log[-1]["actor"] == "someone" and log[1]["actor"] == "tester"


def test_hundred_thousand_lines_in_one_replace(seeded):
    lines = [line(i, ("b1", "b2", None)[i % 3], f"{i}.{i % 97:02d}") for i in range(1, 100_001)]
    t0 = time.perf_counter()
    seeded.replace_cost_lines(lines, summary={"lines": len(lines)})
    written = time.perf_counter() - t0
    back = seeded.cost_lines()
    assert len(back) == 100_000 and back[0] == lines[0] and back[-1] == lines[-1]
    assert written < 30, f"replace_cost_lines took {written:.1f}s for 100k lines"


def test_an_unchanged_upsert_writes_nothing(seeded):
    before = len(seeded.audit_log())
    seeded.upsert_project(Project(id="p1", name="support bot", goal="deflect tickets", owner="zhang.min"))
    seeded.upsert_batch(make_batch("b1"))
    assert len(seeded.audit_log()) == before
    seeded.upsert_batch(replace(make_batch("b1"), owner="someone.else"))
    assert len(seeded.audit_log()) == before + 1 and seeded.get_batch("b1").owner == "someone.else"
