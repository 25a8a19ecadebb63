"""Tamper evidence covers the figures: an edited, inserted or deleted cost line, run or
attribution summary is found by ``verify_figures`` on every backend, named by its position."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
from sqlalchemy import create_engine, delete, insert, select, update

from trainledger.ledger import figures
from trainledger.ledger.schema import attributions, cost_lines, figure_digests, runs
from trainledger.model import AmountRange, CostLine, Provenance, Run

SHA = "b" * 64


def line(row: int, amount: str, batch_id: str | None = "b1") -> CostLine:
    return CostLine(category="compute", basis="billed", evidence="contract",
                    amount=AmountRange(amount, amount, amount, "CNY"),
                    provenance=Provenance(SHA, row, "rule:wckey"), batch_id=batch_id,
                    run_id=f"job-{row}", detail="effective", quantity=Decimal("2.5"),
                    reason="" if batch_id else "no batch label", unit="gpu_hour")


def run(i: int, batch: str = "b1") -> Run:
    return Run(f"job-{i}", batch, "planned_experiment", state="COMPLETED", gpus=8,
               started_at=datetime(2026, 11, 2, 8, i, tzinfo=UTC))


@pytest.fixture
def attributed(seeded):
    lines = [line(1, "10.00"), line(2, "20.10"), line(3, "0.30", None), line(4, "1E+2")]
    seeded.replace_cost_lines(lines, summary={"conservation": [{"currency": "CNY", "difference": "0.00"}]},
                              runs=[run(1), run(2), run(3, "b2")])
    return seeded


def tamper(db_url, stmt):
    engine = create_engine(db_url)
    try:
        with engine.begin() as conn:
            conn.execute(stmt)
    finally:
        engine.dispose()


def test_untouched_figures_verify_and_the_digest_is_stable(attributed):
    problems, proof = attributed.verify_figures()
    assert problems == [] and proof["verified"]
    assert len(proof["figures_digest"]) == 64 and proof["attribution_id"] == attributed.latest_attribution()["id"]
    assert proof["audit_head_hash"] == attributed.audit_log()[-1]["hash"]
    assert attributed.verify_figures()[1] == proof  # deterministic


def test_an_edited_amount_names_the_attribution_and_the_line(attributed, db_url):
    tamper(db_url, update(cost_lines).where(cost_lines.c.source_row == 2).values(expected="2010.00"))
    problems, proof = attributed.verify_figures()
    (p,) = problems
    aid = attributed.latest_attribution()["id"]
    assert f"attribution {aid}" in p and "cost line 2 " in p and "2010.00 CNY" in p
    assert not proof["verified"] and proof["figures_digest"] is None


def test_the_same_value_written_with_other_digits_is_a_change(attributed, db_url):
    """The sheet prints the digits stored (10.00, not 10.0): a rewrite of them is an edit."""
    tamper(db_url, update(cost_lines).where(cost_lines.c.source_row == 1).values(expected="10.0"))
    (p,) = attributed.verify_figures()[0]
    assert "cost line 1 " in p


@pytest.mark.parametrize("column, value", [("batch_id", "b2"), ("detail", "setup"), ("currency", "USD"),
                                           ("quantity", "25"), ("source_row", 99), ("reason", "moved")])
def test_any_column_of_a_line_counts(attributed, db_url, column, value):
    tamper(db_url, update(cost_lines).where(cost_lines.c.source_row == 1).values({column: value}))
    (p,) = attributed.verify_figures()[0]
    assert "cost line 1 " in p


def test_deleted_and_inserted_lines_are_found(attributed, db_url):
    tamper(db_url, delete(cost_lines).where(cost_lines.c.source_row == 3))
    (p,) = attributed.verify_figures()[0]
    assert "cost line 3 " in p and "(3 stored, 4 written)" in p
    aid = attributed.latest_attribution()["id"]
    for row in (3, 77):
        values = {c: v for c, v in figures_row(line(row, "0.30", None), aid).items()}
        tamper(db_url, insert(cost_lines).values(values))
    (p,) = attributed.verify_figures()[0]
    assert "(5 stored, 4 written)" in p


def figures_row(ln, aid):
    from trainledger.ledger.rows import cost_line_row

    return cost_line_row(ln, aid)


def test_an_edited_run_is_named(attributed, db_url):
    tamper(db_url, update(runs).where(runs.c.id == "job-2").values(gpus=64))
    (p,) = attributed.verify_figures()[0]
    assert "run 'job-2'" in p and "64 GPUs" in p


def test_an_edited_summary_is_found(attributed, db_url):
    tamper(db_url, update(attributions).values(summary={"conservation": [{"currency": "CNY",
                                                                          "difference": "0.00"}], "x": 1}))
    (p,) = attributed.verify_figures()[0]
    assert "summary" in p and "edited" in p


def test_a_forged_later_attribution_is_found(attributed, db_url):
    tamper(db_url, insert(attributions).values(created_at=datetime.now(UTC), actor="m", summary={}))
    (p,) = attributed.verify_figures()[0]
    assert "latest attribution row is" in p


def test_rewritten_fingerprints_still_fail_less_precisely(attributed, db_url):
    tamper(db_url, update(cost_lines).where(cost_lines.c.source_row == 2).values(expected="2010.00"))
    tamper(db_url, update(figure_digests).where(figure_digests.c.name == "cost_lines")
           .values(fingerprints="0" * 32))
    (p,) = attributed.verify_figures()[0]
    assert "cannot be named" in p


def test_edited_fingerprints_alone_are_reported(attributed, db_url):
    tamper(db_url, update(figure_digests).where(figure_digests.c.name == "runs").values(fingerprints="x"))
    (p,) = attributed.verify_figures()[0]
    assert "figure_digests" in p and "still match" in p


def test_legitimate_writes_keep_the_figures_verified(attributed):
    attributed.upsert_runs([run(2, "b2"), run(9)])  # a later audited change of runs records a new digest
    assert attributed.verify_figures()[0] == []
    attributed.replace_cost_lines([line(1, "5.00")], summary={})
    assert attributed.verify_figures()[0] == []


def test_digest_written_equals_digest_read_back(attributed):
    with attributed._read() as conn:
        stored = conn.execute(select(figure_digests.c.digest).where(figure_digests.c.name == "cost_lines")).scalar()
        assert figures.digest_of(figures.table_fingerprints(conn, "cost_lines")) == stored


def test_an_empty_ledger_verifies(ledger):
    problems, proof = ledger.verify_figures()
    assert problems == [] and proof["verified"] and proof["attribution_id"] is None


def test_fingerprints_cannot_be_fooled_by_moving_text_between_columns():
    cols = ("detail", "unit", "reason")
    rows = [{"detail": "a,1:sb", "unit": "c", "reason": ""}, {"detail": "a", "unit": "b,1:sc", "reason": ""},
            {"detail": "a", "unit": "", "reason": None}, {"detail": "a", "unit": None, "reason": ""},
            {"detail": "1", "unit": 1, "reason": ""}]
    fps = figures.fingerprints(rows, cols)
    assert len(set(fps)) == len(rows)
    assert figures.fingerprint({"x": Decimal("1.10")}, ["x"]) != figures.fingerprint({"x": Decimal("1.1")}, ["x"])
    assert figures.fingerprint({"x": Decimal("1")}, ["x"]) != figures.fingerprint({"x": 1}, ["x"])


def test_an_attribution_from_before_digests_is_reported_unverifiable(seeded, db_url):
    """A ledger migrated from revision 0001 holds attributions whose entries carry no digest."""
    tamper(db_url, insert(attributions).values(created_at=datetime.now(UTC), actor="old", summary={}))
    seeded.audit("old", "replace_cost_lines", "attribution:1", {"lines": 0, "replaced": 0, "runs": None})
    (p,) = seeded.verify_figures()[0]
    assert "before the ledger recorded figure digests" in p and "trainledger attribute" in p
    seeded.replace_cost_lines([line(1, "1.00")], summary={})  # the documented way out
    assert seeded.verify_figures()[0] == []


def test_an_attribution_committed_during_verification_is_no_false_alarm(attributed, db_url, monkeypatch):
    """Verification reads the chain and the tables from one snapshot (REPEATABLE READ on PostgreSQL)."""
    from trainledger.ledger import Ledger

    real, raced = figures.table_digest, []

    def racing(conn, name):
        if not raced:  # after the chain was read, before the tables are: another writer commits
            raced.append(name)
            with Ledger(db_url, actor="other") as other:
                other.replace_cost_lines([line(9, "9.99")], summary={"other": True})
        return real(conn, name)

    monkeypatch.setattr(figures, "table_digest", racing)
    problems, proof = attributed.verify_figures()
    assert raced and problems == []
    assert proof["attribution_id"] == attributed.latest_attribution()["id"] - 1  # the state before the race
    monkeypatch.undo()
    assert attributed.verify_figures()[0] == []


def test_runs_inserted_behind_the_ledgers_back_are_found(seeded, db_url):
    tamper(db_url, insert(runs).values(id="ghost", batch_id="b1", reason="planned_experiment", source_job="",
                                       state="COMPLETED", gpus=8))
    (p,) = seeded.verify_figures()[0]
    assert "1 runs that no audited write recorded" in p


def test_the_inlined_row_fingerprint_is_the_fingerprint():
    """``table_digest`` fingerprints a row's tuple (``_row_fingerprint``): the same text as ``fingerprint``
    of its mapping, for every type a column holds, a later column's null left out and any other null kept."""
    from datetime import UTC, datetime, timedelta, timezone
    from decimal import Decimal

    from trainledger.ledger import figures

    cols = ("a", "gpu_share", "b", "c", "d", "e", "f", "g", "h", "import_key")
    rows = [
        ("训练", None, Decimal("1.10"), 7, True, None, datetime(2026, 11, 1, 8, tzinfo=timezone(timedelta(hours=8))),
         {"k": [1, "x"]}, "", None),
        ("", Decimal("0.5"), Decimal("-0E-8"), -3, False, "x", datetime(2026, 11, 1, tzinfo=UTC), None, "é" * 3, "k1"),
    ]
    later = frozenset(i for i, c in enumerate(cols) if c in figures.LATER_COLUMNS)
    for row in rows:
        assert figures._row_fingerprint(row, later) == figures.fingerprint(dict(zip(cols, row, strict=True)), cols)
    assert figures._row_fingerprint(rows[0], later) != figures._row_fingerprint(rows[0], frozenset())
