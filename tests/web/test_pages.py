"""The ledger's pages and the two writes, in process: imports (counts as `imports list` gives them,
the identity accepted + duplicates + quarantined = rows read), one import's quarantine (a real bad
row, its reason in both languages, its raw text), alerts with the decision that closed each, plan
versions and the AC / EV / EAC ranges of the status page, decisions; then writes — refused without
the session's CSRF token (403, both languages), refused for a role that may not make them, and
when accepted the same records and audit entries the CLI's `decide` / `runs confirm` make."""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal

import pytest

from tests.web.roles_ws import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

J = {"accept": "application/json"}
A, B = "csa-sft-2026-11-a", "csa-sft-2026-11-b"
BAD_ROW = "zz,not-a-date,xx,yy,zz,1,2"


@pytest.fixture(scope="module")
def ws(web_demo, tmp_path_factory):
    """A copy of the demo (the writes change it) with one more timesheet import: three rows the
    demo already has (duplicates) and one cut short (quarantined)."""
    root = tmp_path_factory.mktemp("pages") / "ws"
    shutil.copytree(web_demo, root)
    lines = (web_demo / "data" / "timesheet.csv").read_text(encoding="utf-8").splitlines()[:4]
    bad = root / "bad-timesheet.csv"
    bad.write_text("\n".join([*lines, BAD_ROW]) + "\n", encoding="utf-8")
    run_cli("--workspace", root, "import", "timesheet", bad)
    return root


@pytest.fixture(scope="module")
def app(ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(ws)) as c:
        yield c


def _json(app, path, **kw):
    r = app.get(path, headers=J, **kw)
    assert r.status_code == 200, r.text[:500]
    return r.json()


def _bad_import(app):
    return next(r for r in _json(app, "/imports")["imports"] if r["file"].endswith("bad-timesheet.csv"))


def test_imports_page_is_the_cli_list_and_every_count_adds_up(app, ws):
    m = _json(app, "/imports")
    cli = json.loads(run_cli("--workspace", ws, "imports", "list", "--json"))
    assert [(r["id"], r["kind"], r["sha256"], r["rows_read"], r["accepted"], r["duplicates"], r["quarantined"],
             r["status"]) for r in m["imports"]] == \
        [(r["id"], r["kind"], r["sha256"], r["rows_read"], r["accepted"], r["duplicates"], r["quarantined"],
          r["status"]) for r in cli]
    for r in m["imports"]:
        assert r["accepted"] + r["duplicates"] + r["quarantined"] == r["rows_read"] and r["counts_add_up"]
    bad = _bad_import(app)
    assert (bad["rows_read"], bad["accepted"], bad["duplicates"], bad["quarantined"]) == (4, 0, 3, 1)
    for lang, live in (("en", ">live<"), ("zh-CN", ">有效<")):
        html = app.get("/imports", params={"lang": lang}).text
        assert f'href="/imports/{bad["id"]}/quarantine"' in html and bad["sha256"] in html
        assert live in html.replace('<td class="status">', ">")


def test_quarantine_page_shows_the_row_its_reason_in_the_page_language_and_its_raw_text(app):
    bad = _bad_import(app)
    m = _json(app, f"/imports/{bad['id']}/quarantine")
    [row] = m["quarantined_rows"]
    assert row["row"] == 4 and row["raw"] == BAD_ROW and row["file"].endswith("bad-timesheet.csv")
    assert row["reason"] == "has 7 fields, the header has 8"
    assert re.search(r"[\u4e00-\u9fff]", row["reason_zh"]) and "7" in row["reason_zh"]
    en = app.get(f"/imports/{bad['id']}/quarantine", params={"lang": "en"}).text
    zh = app.get(f"/imports/{bad['id']}/quarantine", params={"lang": "zh-CN"}).text
    assert row["reason"] in en and row["reason"] not in zh and row["reason_zh"] in zh
    assert BAD_ROW in en and BAD_ROW in zh
    flagged = _json(app, "/imports/" + next(r["id"] for r in _json(app, "/imports")["imports"]
                                            if r["kind"] == "storage") + "/quarantine")["flagged_rows"]
    assert flagged and all(f["href"].startswith("/sources/") for f in flagged)
    r = app.get("/imports/0123456789ab/quarantine", headers=J)
    assert r.status_code == 404 and "/imports" in r.json()["error"]["remedy"]


def test_alerts_open_and_closed_with_the_deciding_decision(app, ws):
    m = _json(app, "/alerts")
    cli = json.loads(run_cli("--workspace", ws, "alerts", "--json"))
    assert [(a["id"], a["open"], a["answered_by"]) for a in m["alerts"]] == \
        [(a["id"], a["open"], a["answered_by"]) for a in cli]
    closed = [a for a in m["alerts"] if not a["open"]]
    assert closed and m["closed"] == len(closed) and m["open"] == len(m["alerts"]) - len(closed)
    for a in closed:
        assert a["decision_href"] == f"/batches/{a['batch']}/decisions#decision-{a['answered_by']}"
    only_b = _json(app, "/alerts", params={"batch": B})
    assert only_b["alerts"] and {a["batch"] for a in only_b["alerts"]} == {B}
    zh = app.get("/alerts", params={"lang": "zh-CN"}).text
    assert closed[0]["text"]["zh-CN"] in zh and "已由决策处理" in zh
    assert app.get("/alerts", params={"batch": "nope"}, headers=J).status_code == 404


def test_status_page_has_plan_versions_and_ranges_per_basis(app, ws):
    from trainledger.review import service
    from trainledger.service import Workspace

    m = _json(app, f"/batches/{B}/status")
    with Workspace.open(ws) as wsp:
        st, plans = service.status(wsp, B), service.plans(wsp, B)
    assert [p["version"] for p in m["plans"]] == [p["version"] for p in plans] == [1]
    assert m["plans"][0]["totals"] == json.loads(json.dumps(plans[0]["totals"]))
    for r in m["ranges"]:
        for k in ("plan", "ac", "ev", "eac"):
            src = next(x for x in st[k] if (x["basis"], x["currency"]) == (r["basis"], r["currency"]))
            assert r[k] == {f: src[f] for f in ("low", "expected", "high")}
    assert Decimal(m["ranges"][0]["ac"]["low"]) <= Decimal(m["ranges"][0]["ac"]["high"])
    html = app.get(f"/batches/{B}/status", params={"lang": "zh-CN"}).text
    assert "完工估算 EAC" in html and "挣值 EV" in html and 'class="plan-version"' in html
    assert f'href="/batches/{B}/decisions"' in html


def test_batch_page_links_status_decisions_and_alerts(app):
    html = app.get(f"/batches/{A}").text
    for href in (f"/batches/{A}/status", f"/batches/{A}/decisions", f"/alerts?batch={A}"):
        assert f'href="{href}"' in html
    nav = app.get("/batches").text
    assert 'href="/imports"' in nav and 'href="/alerts"' in nav


def _csrf(app, path):
    html = app.get(path, params={"lang": "en"}).text
    return re.search(r'name="csrf" value="([0-9a-f]{64})"', html).group(1)


def test_a_write_without_or_with_a_wrong_csrf_token_is_403_in_both_languages(app, ws):
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        before = len(wsp.ledger.audit_log())
    form = {"action": "continue", "reason": "x", "by": "li.na"}
    for extra in ({}, {"csrf": "0" * 64}):
        r = app.post(f"/batches/{B}/decisions", data={**form, **extra}, headers=J)
        assert r.status_code == 403, r.text
        err = r.json()["error"]
        assert "CSRF" in err["message"] and "CSRF" in err["message_zh"] and err["code"] == "csrf"
        assert re.search(r"[\u4e00-\u9fff]", err["message_zh"]) and re.search(r"[\u4e00-\u9fff]", err["remedy_zh"])
        page = app.post(f"/batches/{B}/decisions", data={**form, **extra}, params={"lang": "zh-CN"})
        assert page.status_code == 403 and "写入被拒绝" in page.text
    from starlette.testclient import TestClient

    with TestClient(app.app) as elsewhere:  # the same server, another session
        assert elsewhere.get("/api/csrf").json()["csrf"] != _csrf(app, f"/batches/{B}/decisions")
        other = elsewhere.post(f"/batches/{B}/decisions", headers=J,
                               data={**form, "csrf": _csrf(app, f"/batches/{B}/decisions")})
        assert other.status_code == 403 and other.json()["error"]["code"] == "csrf"  # bound to its session
    with Workspace.open(ws) as wsp:
        assert len(wsp.ledger.audit_log()) == before  # nothing written


def test_a_decision_from_the_form_is_the_clis_decision_and_is_audited(app, ws):
    from trainledger.service import Workspace

    tok = _csrf(app, f"/batches/{B}/decisions")
    open_ids = [a["id"] for a in _json(app, f"/batches/{B}/decisions")["open_alerts"]][:2]
    r = app.post(f"/batches/{B}/decisions", follow_redirects=False,
                 data={"csrf": tok, "action": "continue", "reason": "gate reached; continue", "by": "li.na",
                       "answers": [str(i) for i in open_ids]})
    assert r.status_code == 303 and r.headers["location"] == f"/batches/{B}/decisions"
    m = _json(app, f"/batches/{B}/decisions")
    d = m["decisions"][-1]
    assert (d["action"], d["by"], d["answers"], d["reason"]) == ("continue", "li.na", open_ids,
                                                               "gate reached; continue")
    assert [c["id"] for c in d["closes"]] == open_ids and not set(open_ids) & {a["id"] for a in m["open_alerts"]}
    shown = json.loads(run_cli("--workspace", ws, "alerts", "--batch", B, "--json"))
    assert {a["id"]: a["answered_by"] for a in shown if a["id"] in open_ids} == {i: d["id"] for i in open_ids}
    with Workspace.open(ws) as wsp:
        log = wsp.ledger.audit_log()
        assert not wsp.ledger.verify_audit_chain()
        from trainledger.ledger.review_repo import verify_records

        assert not verify_records(wsp.ledger)
    decide, web = log[-2], log[-1]
    assert (decide["actor"], decide["action"], decide["object"]) == ("li.na", "decide", f"batch:{B}")
    assert decide["detail"]["decision_id"] == d["id"] and decide["detail"]["answers"] == open_ids
    assert (web["actor"], web["action"], web["detail"]["decision_id"]) == ("local", "web_write", d["id"])
    again = app.post(f"/batches/{B}/decisions", headers=J,
                     data={"csrf": tok, "action": "continue", "reason": "r", "by": "li.na",
                           "answers": str(open_ids[0])})
    assert again.status_code == 400 and "already answered" in again.json()["error"]["message"]
    override = app.post(f"/batches/{B}/decisions", headers=J,
                        data={"csrf": tok, "action": "stop", "reason": "r", "by": "li.na"})
    assert override.status_code == 400 and "second approver" in override.json()["error"]["remedy"]  # the service's rule


def test_a_cause_confirmation_as_json_with_the_header(app, ws):
    tok = app.get("/api/csrf").json()["csrf"]
    r = app.post(f"/batches/{A}/runs/a-r01/cause", json={"cause": "infra_fault", "by": "zhao.min", "note": "T-7"},
                 headers={**J, "X-CSRF-Token": tok})
    assert r.status_code == 201, r.text
    import getpass

    from trainledger.service import Workspace

    local = f"local:{getpass.getuser()}"  # the local user on loopback, whatever the body's by says
    assert r.json()["cause"] == "infra_fault" and local in r.json()["cause_source"]
    assert "zhao.min" not in r.json()["cause_source"]
    with Workspace.open(ws) as wsp:
        confirmed, web = wsp.ledger.audit_log()[-2:]
    got = (confirmed["actor"], confirmed["detail"]["by"], confirmed["detail"]["via"]["role"])
    assert got == (local, local, "admin")
    assert (web["actor"], web["detail"]["by"], web["detail"]["stated_by"]) == ("local", local, "zhao.min")
    page = app.get(f"/batches/{A}/runs/a-r02").text
    assert f"<code>{local}</code>" in page and 'name="by"' not in page.split('class="confirm"')[1].split("</form>")[0]
    runs = json.loads(run_cli("--workspace", ws, "runs", "list", "--json"))
    assert runs["a-r01"]["cause"] == "infra_fault" and runs["a-r01"]["cause_evidence"] == "measured"
    run = _json(app, f"/batches/{A}/runs/a-r01")["run"]
    assert run["cause"] == "infra_fault"  # the sheet follows the confirmation
    wrong = app.post(f"/batches/{B}/runs/a-r01/cause", json={"cause": "infra_fault", "by": "z"},
                     headers={**J, "X-CSRF-Token": tok})
    assert wrong.status_code == 404  # a run is confirmed under its own batch
    bad = app.post(f"/batches/{A}/runs/a-r01/cause", json={"cause": "gremlins", "by": "z"},
                   headers={**J, "X-CSRF-Token": tok})
    assert bad.status_code == 400 and "infra_fault" in bad.json()["error"]["remedy"]


def test_forms_are_on_the_pages_with_their_token(app):
    for path, action in ((f"/batches/{B}/decisions", f"/batches/{B}/decisions"),
                         (f"/batches/{A}/runs/a-r02", f"/batches/{A}/runs/a-r02/cause")):
        html = app.get(path, params={"lang": "zh-CN"}).text
        assert f'method="post" action="{action}"' in html and 'name="csrf"' in html


def test_a_body_too_long_or_not_an_object_is_400_and_writes_nothing(app):
    big = app.post(f"/batches/{B}/decisions", content=b"reason=" + b"x" * 70000,
                   headers={**J, "content-type": "application/x-www-form-urlencoded"})
    assert big.status_code == 400 and "more than" in big.json()["error"]["message"]
    for body in (b"[1, 2]", b"{not json"):
        r = app.post(f"/batches/{B}/decisions", content=body, headers={**J, "content-type": "application/json"})
        assert r.status_code == 400 and r.json()["error"]["remedy"]
