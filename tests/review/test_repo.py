"""Plan versions, alerts and decision records in the ledger, on every backend."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from tests.ledger.conftest import make_batch
from trainledger.errors import BadInput
from trainledger.ledger import Ledger
from trainledger.ledger import review_repo as repo
from trainledger.ledger.schema import alerts
from trainledger.model import Project


@pytest.fixture
def led(db_url):
    with Ledger.open(db_url, actor="tester") as ledger:
        ledger.upsert_project(Project(id="p1", name="P", goal="g", owner="o"))
        ledger.upsert_batch(make_batch("b1"))
        ledger.upsert_batch(make_batch("b2"))
        yield ledger


def _decide(led, batch, answers):
    return repo.add_decision_record(led, batch, kind="continue", rationale="r", author="a", reusable_assets=[],
                                    unknowns_removed=[], next_to_verify=[], body={"answers": answers})


def test_versions_alerts_and_answers(led):
    p1, v1 = repo.add_plan_version(led, "b1", {"reason": "first", "lines": []})
    p2, v2 = repo.add_plan_version(led, "b1", {"reason": "second", "lines": []})
    assert (v1, v2) == (1, 2) and p2 != p1
    assert repo.add_plan_version(led, "b2", {"reason": "b2"})[1] == 1  # versions count per batch
    rows = repo.plan_versions(led, "b1")
    assert [r["body"]["version"] for r in rows] == [1, 2] and rows[0]["body"]["reason"] == "first"
    new = repo.add_alerts(led, "b1", p2, [{"key": "spend:50", "kind": "spend"}, {"key": "rounds", "kind": "rounds"}])
    assert len(new) == 2
    assert repo.add_alerts(led, "b1", p2, [{"key": "spend:50", "kind": "spend"}]) == []  # raised once per version
    other = repo.add_alerts(led, "b2", repo.plan_versions(led, "b2")[0]["id"], [{"key": "x", "kind": "spend"}])
    d1 = _decide(led, "b1", [new[0]])
    assert repo.decision_rows(led, "b1")[0]["id"] == d1
    with pytest.raises(BadInput, match="already answered"):
        _decide(led, "b1", [new[0]])
    with pytest.raises(BadInput, match="not an alert of this batch"):
        _decide(led, "b1", other)
    assert len(repo.decision_rows(led)) == 1  # refused decisions wrote nothing
    assert repo.verify_records(led) == [] and led.verify_audit_chain() == []
    actions = [e["action"] for e in led.audit_log()]
    assert actions.count("plan_version") == 3 and actions.count("raise_alert") == 3 and actions.count("decide") == 1


def test_an_edited_alert_is_named(led):
    pid, _ = repo.add_plan_version(led, "b1", {"reason": "first"})
    (aid,) = repo.add_alerts(led, "b1", pid, [{"key": "k", "kind": "spend", "value": "1"}])
    with led._write() as conn:
        conn.execute(update(alerts).where(alerts.c.id == aid).values(body={"key": "k", "kind": "spend", "value": "2"}))
    problems = repo.verify_records(led)
    assert len(problems) == 1 and f"alert {aid}" in problems[0]
