"""Review 3, G12: the zh-CN pages say in Chinese what the tool itself wrote — an alert's kind, a plan
version's source and default reason, a cost line's unit, an import's drop reason — while the JSON
keeps the codes and the stored English as they were."""

from __future__ import annotations

import shutil

import pytest

from tests.web.roles_ws import run_cli

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

J = {"accept": "application/json"}
A = "csa-sft-2026-11-a"


@pytest.fixture(scope="module")
def root(web_demo, tmp_path_factory):
    """A copy of the demo whose timesheet is re-imported with --replace and no reason: the tool
    writes the drop reason itself."""
    root = tmp_path_factory.mktemp("zhcodes") / "ws"
    shutil.copytree(web_demo, root)
    sheet = root / "data" / "timesheet.csv"
    old = next(r for r in run_json(root, "imports", "list") if r["path"].endswith("timesheet.csv"))
    again = root / "timesheet-again.csv"
    lines = sheet.read_text(encoding="utf-8").splitlines()
    again.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # another file: one row fewer
    run_cli("--workspace", root, "import", "timesheet", again, "--replace", old["id"])
    return root


@pytest.fixture(scope="module")
def app(root):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(root)) as c:
        yield c


def run_json(root, *args):
    import json

    return json.loads(run_cli("--workspace", root, *args, "--json"))


def _page(app, path, lang):
    r = app.get(path, params={"lang": lang})
    assert r.status_code == 200, r.text[:500]
    return r.text


def test_alert_kinds_are_words_not_codes(app):
    kinds = {a["kind"] for a in app.get("/alerts", headers=J).json()["alerts"]}
    assert "spend" in kinds  # the JSON keeps the code
    zh, en = _page(app, "/alerts", "zh-CN"), _page(app, "/alerts", "en")
    assert "<td>spend</td>" not in zh and "<td>支出阈值</td>" in zh
    assert "<td>spend bound</td>" in en


def test_plan_source_and_default_reason_in_chinese(app):
    plans = app.get(f"/batches/{A}/status", headers=J).json()["plans"]
    assert plans[0]["source"] == "estimate"
    zh = _page(app, f"/batches/{A}/status", "zh-CN")
    assert "<td>estimate</td>" not in zh and "<td>估算</td>" in zh


def test_run_units_in_chinese(app):
    run = next(r for r in app.get(f"/batches/{A}", headers=J).json()["runs"])
    zh = _page(app, f"/batches/{A}/runs/{run['id']}", "zh-CN")
    assert "gpu_hour" not in zh and " 卡时</td>" in zh
    assert "gpu hour" in _page(app, f"/batches/{A}/runs/{run['id']}", "en")


def test_the_drop_reason_the_tool_wrote_is_said_in_chinese(app):
    dropped = [r for r in app.get("/imports", headers=J).json()["imports"] if r["status"] == "dropped"]
    assert dropped and dropped[0]["drop_reason"].startswith("replaced by the import of ")  # stored English
    zh = _page(app, "/imports", "zh-CN")
    assert "replaced by the import of" not in zh and "的导入替换" in zh
    assert "replaced by the import of" in _page(app, "/imports", "en")


def test_stored_sentences_translate_by_template():
    from trainledger.i18n import ZH, localize

    assert localize("first baseline", ZH) == "首个基线"
    assert localize("baseline from the review of llm-x", ZH) == "基于 llm-x 复盘的基线"
    assert localize("replaced by the import of a.csv, b.csv", ZH) == "已被 a.csv, b.csv 的导入替换"


def _post_decision(app, lang, **fields):
    path = f"/batches/{A}/decisions"
    tok = app.get("/api/csrf").json()["csrf"]
    r = app.post(path, headers=J, data={"csrf": tok, "reason": "r", "by": "li.na", **fields})
    page = app.post(path, params={"lang": lang}, data={"csrf": tok, "reason": "r", "by": "li.na", **fields})
    return r, page


def test_an_override_without_approver_is_refused_in_the_forms_words(app):
    r, page = _post_decision(app, "zh-CN", action="stop")
    assert r.status_code == 400 and page.status_code == 400
    err = r.json()["error"]
    assert "--approver" not in err["remedy"] and "second approver" in err["remedy"]
    assert "--approver" not in err["remedy_zh"] and "第二审批人" in err["remedy_zh"]
    assert "“停止”" in err["message_zh"] and "“缩小”" in err["message_zh"]  # the actions' words, not codes
    assert "stop" not in err["message_zh"] and "shrink" not in err["message_zh"]
    assert "--approver" not in page.text and "第二审批人" in page.text


def test_a_next_review_before_the_decision_date_is_refused_in_both_languages(app, root):
    from trainledger.service import Workspace

    with Workspace.open(root) as wsp:
        before = len(wsp.ledger.audit_log())
    r, page = _post_decision(app, "zh-CN", action="continue", next_review="2000-01-01")
    assert r.status_code == 400 and page.status_code == 400
    err = r.json()["error"]
    assert "2000-01-01 is before the decision's date" in err["message"]
    assert "早于决策日期" in err["message_zh"] and "不早于决策日期" in err["remedy_zh"]
    assert "早于决策日期" in page.text
    with Workspace.open(root) as wsp:
        assert len(wsp.ledger.audit_log()) == before  # nothing written


def test_decide_on_the_command_line_refuses_a_past_next_review(root):
    from click.testing import CliRunner

    from trainledger.cli import cli

    args = ["--workspace", str(root), "decide", A, "--action", "continue", "--reason", "r", "--by", "li.na",
            "--next-review", "2000-01-01"]
    for lang, words in (("en", "is before the decision's date"), ("zh-CN", "早于决策日期")):
        r = CliRunner().invoke(cli, ["--lang", lang, *args])
        assert r.exit_code != 0 and words in r.output, r.output
