"""G5: an alert raised while useful work was unknown is retired / restated once work is known."""

from __future__ import annotations

from trainledger.demo.scenario import BATCH_A
from trainledger.ledger import review_repo
from trainledger.review import service, variance
from trainledger.review import status as _status
from trainledger.review.texts import both
from trainledger.service import Workspace


def test_work_unknown_alert_is_retired_and_a_stale_driver_restated_once_work_is_known(ws):
    with Workspace.open(ws) as wsp:
        _pid, v1 = service.latest_plan(wsp, BATCH_A)
        plan_id, plan = service._store(wsp, v1, "the same baseline again: a plan version without alerts")
        act = service.actuals(wsp, plan)
        assert act.work_known  # the demo's batch A has its progress log
        st = _status.build(plan, plan_id, act, variance.split(plan, act))
        cand = next(a for a in st["_alerts"] if a["kind"] == "spend")
        # as raised before the progress log was imported: the notice, and a spend alert whose driver
        # said the work was unknown
        old = [{"key": "work_unknown:billed:CNY", "kind": "work_unknown", "bound": "", "value": "1",
                "driver": both("work_unknown"), "text": {"en": "work unknown", "zh-CN": "工作量未知"},
                "plan_version": plan.version},
               {**cand, "driver": both("drv_unknown"), "plan_version": plan.version}]
        ids = review_repo.add_alerts(wsp.ledger, BATCH_A, plan_id, old)
        assert len(ids) == 2
        service.check(wsp, BATCH_A)
        by_id = {a["id"]: a for a in service.alerts(wsp, BATCH_A)}
        notice, spend = by_id[ids[0]], by_id[ids[1]]
        assert not notice["open"] and notice["answered_by"] is None
        assert "obsolete" in notice["retired"]["en"] and "过时" in notice["retired"]["zh-CN"]
        assert ids[0] not in {a["id"] for a in service.alerts(wsp, BATCH_A, open_only=True)}
        # the spend alert stays open, its driver restated from the current figures (no "unknown")
        assert spend["open"] and spend["driver"] == cand["driver"] != both("drv_unknown")
        retired = [e for e in wsp.ledger.audit_log() if e["action"] == "retire_alert"]
        assert [e["detail"]["alert_id"] for e in retired] == [ids[0]]  # audited, once
        service.check(wsp, BATCH_A)
        assert len([e for e in wsp.ledger.audit_log() if e["action"] == "retire_alert"]) == 1
        assert len([e for e in wsp.ledger.audit_log() if e["action"] == "restate_alert"]) == 1
        assert not wsp.ledger.verify_audit_chain()
