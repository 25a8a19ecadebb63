"""Retarget from the dashboard: ``POST /batches/{batch}/decisions`` with ``action=retarget`` and
``child=B`` is ``trainledger decide BATCH --action retarget --child B`` — the same service call, so
the same checks (a child only with a retarget, a declared batch, an override's second approver),
the same ``decide`` audit entry plus one ``web_write`` naming the child. Batch B gets a second plan
version first (``plan B --from-review A``): the new decision must show B and that version (v2),
in process and in Debian's Chromium, in both languages."""

from __future__ import annotations

import json
import re
import shutil
from decimal import ROUND_HALF_EVEN, Decimal

import pytest

from tests.web.roles_ws import run_cli

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

J = {"accept": "application/json"}
A, B = "csa-sft-2026-11-a", "csa-sft-2026-11-b"


@pytest.fixture(scope="module")
def ws(web_demo, tmp_path_factory):
    """A copy of the demo (the writes change it) whose batch B has plan v2 from A's review."""
    root = tmp_path_factory.mktemp("retarget") / "ws"
    shutil.copytree(web_demo, root)
    run_cli("--workspace", root, "plan", B, "--from-review", A, "--reason", "rebaseline", "--by", "li.na")
    return root


@pytest.fixture(scope="module")
def app(ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(ws)) as c:
        yield c


def _csrf(app, path):
    return re.search(r'name="csrf" value="([0-9a-f]{64})"', app.get(path).text).group(1)


def _log(ws):
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        assert not wsp.ledger.verify_audit_chain()
        return wsp.ledger.audit_log()


def test_the_form_offers_retarget_and_every_other_batch_with_its_plan_version(app):
    m = app.get(f"/batches/{A}/decisions", headers=J).json()
    assert "retarget" in m["actions"]
    assert m["children"] == [{"batch": B, "plan_version": 2}]
    for lang, word in (("en", "child batch (retarget)"), ("zh-CN", "子批次（重定目标）")):
        html = app.get(f"/batches/{A}/decisions", params={"lang": lang}).text
        assert f'<option value="{B}">{B} · ' in html and "v2</option>" in html
        assert '<option value="retarget">' in html and word in html


def test_a_retarget_from_the_form_is_the_clis_decision_and_is_audited(app, ws):
    tok = _csrf(app, f"/batches/{A}/decisions")
    before = len(_log(ws))
    r = app.post(f"/batches/{A}/decisions", follow_redirects=False,
                 data={"csrf": tok, "action": "retarget", "child": B, "reason": "move to the fixed snapshot",
                       "by": "wang.lei", "approver": "li.na"})
    assert r.status_code == 303 and r.headers["location"] == f"/batches/{A}/decisions"
    d = app.get(f"/batches/{A}/decisions", headers=J).json()["decisions"][-1]
    assert (d["action"], d["child_batch"], d["by"], d["approver"]) == ("retarget", B, "wang.lei", "li.na")
    assert d["child"] == {"batch": B, "href": f"/batches/{B}", "status_href": f"/batches/{B}/status",
                          "plan_version": 2}
    retarget = next(o for o in d["options"] if o["action"] == "retarget")
    assert retarget["estimated_from"]["kind"] == "child_plan" and retarget["estimated_from"]["plan_version"] == 2
    shown = json.loads(run_cli("--workspace", ws, "plan", B, "--show", "--json"))  # B's v2 totals price it
    cent = Decimal("0.01")
    assert {(x["basis"], x["currency"], Decimal(x["expected"]).quantize(cent, ROUND_HALF_EVEN))
            for x in shown["totals"]} == {(x["basis"], x["currency"], Decimal(x["expected"]))
                                          for x in retarget["cost_to_go"]}
    assert d["assets_by_reference"]  # A's kept checkpoints go over by reference, as on the command line
    new = _log(ws)[before:]
    assert [(e["actor"], e["action"]) for e in new] == [("wang.lei", "decide"), ("local", "web_write")]
    assert new[1]["detail"]["child"] == B and new[1]["detail"]["action"] == "retarget"
    assert new[1]["detail"]["decision_id"] == d["id"] == new[0]["detail"]["decision_id"]
    for lang, plan_word in (("en", "its plan v2"), ("zh-CN", "其计划 v2")):
        html = app.get(f"/batches/{A}/decisions", params={"lang": lang}).text
        last = html[html.rindex('<section class="decision"'):]
        assert f'class="child-link" href="/batches/{B}"' in last and plan_word in last


def test_a_bad_retarget_is_refused_by_the_service_and_writes_nothing(app, ws):
    tok = _csrf(app, f"/batches/{A}/decisions")
    before = len(_log(ws))
    base = {"csrf": tok, "reason": "r", "by": "wang.lei", "approver": "li.na"}
    r = app.post(f"/batches/{A}/decisions", headers=J, data={**base, "action": "continue", "child": B})
    assert r.status_code == 400 and "--child" in r.json()["error"]["message"]  # the service's own rule
    r = app.post(f"/batches/{A}/decisions", headers=J, data={**base, "action": "retarget", "child": A})
    assert r.status_code == 400 and "another batch" in r.json()["error"]["message"]
    r = app.post(f"/batches/{A}/decisions", headers=J, data={**base, "action": "retarget", "child": "no-such"})
    assert r.status_code == 404 and r.json()["error"]["remedy"]
    r = app.post(f"/batches/{A}/decisions", headers=J, data={**base, "csrf": "0" * 64, "action": "retarget",
                                                             "child": B})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf"
    r = app.post(f"/batches/{A}/decisions", headers=J,
                 data={"csrf": tok, "reason": "r", "by": "wang.lei", "action": "retarget", "child": B})
    assert r.status_code == 400 and "second approver" in r.json()["error"]["remedy"]  # overrides the shrink
    assert len(_log(ws)) == before


def test_openapi_documents_the_retarget():
    from trainledger.web.app import OPENAPI

    body = OPENAPI["paths"]["/batches/{batch}/decisions"]["post"]["requestBody"]["content"]
    for kind in ("application/x-www-form-urlencoded", "application/json"):
        props = body[kind]["schema"]["properties"]
        assert "retarget" in props["action"]["enum"] and props["child"]["type"] == "string"


@pytest.mark.browser
def test_retarget_through_the_browser_form(ws, app):
    from tests.web.test_browser import _in_chromium, serve

    out: dict[str, object] = {}

    def steps(page):
        page.goto(f"{base}/batches/{A}/decisions?lang=zh-CN")
        page.select_option("form.decide select[name=action]", "retarget")
        page.select_option("form.decide select[name=child]", B)
        page.fill("form.decide textarea[name=reason]", "改用修复后的数据快照，重定目标到 B")
        page.fill("form.decide input[name=by]", "wang.lei")
        page.fill("form.decide input[name=approver]", "li.na")
        with page.expect_navigation():
            page.click("form.decide button[type=submit]")
        out["url"] = page.url
        last = page.locator("section.decision").last
        out["last"] = last.inner_text()
        out["plan"] = last.locator("a.child-plan").inner_text()
        page.screenshot(path=str(ws / "retarget-zh-CN.png"), full_page=True)
        last.locator("a.child-plan").click()
        page.wait_for_url(f"**/batches/{B}/status")
        out["status"] = page.locator("body").inner_text()

    with serve(ws) as base:
        _in_chromium(steps)
    assert str(out["url"]).endswith(f"/batches/{A}/decisions")
    assert "改用修复后的数据快照，重定目标到 B" in str(out["last"]) and "重定目标" in str(out["last"])
    assert out["plan"] == "其计划 v2" and B in str(out["last"])
    assert "rebaseline" in str(out["status"])  # the child's plan v2, one click away
