"""The ledger's pages and writes per role, with tokens required: in process and in Debian's Chromium.

The roles workspace (tests/web/roles_ws.py: distinctive labor rates) gets one more bill import with
a quarantined row whose unit prices are distinctive too (317.29, 391.83). An engineer or a viewer
sees no rate, no rate-derived cost and not that row's raw text on any new page (HTML en / zh-CN and
JSON); finance sees the raw row. Writes: a decision is admin / finance, a cause confirmation admin /
engineer; any other role gets 403, a batch-scoped token 403 outside its batch; each accepted write
is audited under the token that sent it. In Chromium: the pages in both languages for finance and
engineer, finance records a decision through the form, the same form without its CSRF token is
refused, and an engineer confirms a cause through the run page's form.
"""

from __future__ import annotations

import csv
import io
import re
import socket
import threading
import time

import pytest

from tests.web.roles_ws import BATCH_A, BATCH_B, leaks, run_cli, secrets

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

J = {"accept": "application/json"}
PRICES = ("317.29", "391.83")  # the quarantined bill row's unit prices


@pytest.fixture(scope="module")
def ws(rates_ws, tmp_path_factory):
    """The roles workspace plus a bill file: one row the demo has, one quarantined (BilledCost 'abc')."""
    root, rates = rates_ws
    with open(root / "data" / "bill-focus.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    head, bad = rows[0], list(rows[1])
    bad[head.index("BilledCost")] = "abc"
    bad[head.index("ContractedUnitPrice")], bad[head.index("ListUnitPrice")] = PRICES
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([head, rows[1], bad])
    path = tmp_path_factory.mktemp("bad-bill") / "bad-focus.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    run_cli("--workspace", root, "import", "focus", path)
    return root, rates


@pytest.fixture(scope="module")
def needles(ws):
    return secrets(*ws)


@pytest.fixture(scope="module")
def app(ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(ws[0], require_token=True)) as c:
        yield c


def _h(tok):
    return {"Authorization": f"Bearer {tok}"}


def _bad_id(client, tok):
    imports = client.get("/imports", headers={**_h(tok), **J}).json()["imports"]
    return next(r["id"] for r in imports if r["file"].endswith("bad-focus.csv"))


def _pages(bad):
    return ["/imports", f"/imports/{bad}/quarantine", "/alerts", f"/batches/{BATCH_A}/decisions",
            f"/batches/{BATCH_A}/status", f"/batches/{BATCH_A}/runs/a-r01"]


@pytest.mark.parametrize("who", ["engineer", "viewer"])
def test_no_rate_nor_a_bill_rows_prices_on_the_new_pages(app, tokens, needles, who):
    tok = tokens[0][who]
    bad = _bad_id(app, tok)
    for path in _pages(bad):
        for headers, lang in ((J, "en"), ({}, "en"), ({}, "zh-CN")):
            r = app.get(path, params={"lang": lang}, headers={**_h(tok), **headers})
            assert r.status_code == 200, (path, r.text[:300])
            assert not leaks(r.text, needles), (path, lang, leaks(r.text, needles))
            assert not any(p in r.text for p in PRICES), (path, lang)
    row = app.get(f"/imports/{bad}/quarantine", headers={**_h(tok), **J}).json()["quarantined_rows"][0]
    assert row["raw"] == "restricted" and row["reason"].startswith("BilledCost")  # the reason stays
    zh = app.get(f"/imports/{bad}/quarantine", params={"lang": "zh-CN"}, headers=_h(tok)).text
    assert "受限" in zh


def test_finance_sees_the_quarantined_bill_row(app, tokens):
    tok = tokens[0]["finance"]
    bad = _bad_id(app, tok)
    row = app.get(f"/imports/{bad}/quarantine", headers={**_h(tok), **J}).json()["quarantined_rows"][0]
    assert all(p in row["raw"] for p in PRICES) and row["row"] == 2


def _csrf(client, tok):
    return client.get("/api/csrf", headers=_h(tok)).json()["csrf"]


def test_who_may_write_what(app, ws, tokens):
    from trainledger.service import Workspace

    toks, ids = tokens
    decision = {"action": "continue", "reason": "gate reached", "by": "li.na"}
    cause = {"cause": "infra_fault", "by": "zhao.min", "note": "T-9"}
    with Workspace.open(ws[0]) as wsp:
        before = len(wsp.ledger.audit_log())
    for who, path, body in (("engineer", f"/batches/{BATCH_B}/decisions", decision),
                            ("viewer", f"/batches/{BATCH_B}/decisions", decision),
                            ("finance", f"/batches/{BATCH_A}/runs/a-r01/cause", cause),
                            ("viewer", f"/batches/{BATCH_A}/runs/a-r01/cause", cause)):
        r = app.post(path, data={**body, "csrf": _csrf(app, toks[who])}, headers={**_h(toks[who]), **J})
        assert r.status_code == 403, (who, path, r.text)
        assert r.json()["error"]["code"] == "role" and re.search(r"[\u4e00-\u9fff]", r.json()["error"]["message_zh"])
    r = app.post(f"/batches/{BATCH_B}/runs/b-r01/cause", data={**cause, "csrf": _csrf(app, toks["engineer_a"])},
                 headers={**_h(toks["engineer_a"]), **J})
    assert r.status_code == 403 and r.json()["error"]["code"] is None  # outside its batch
    finance_tok = _csrf(app, toks["finance"])
    r = app.post(f"/batches/{BATCH_B}/decisions", data={**decision, "csrf": _csrf(app, toks["engineer"])},
                 headers={**_h(toks["finance"]), **J})
    assert r.status_code == 403 and r.json()["error"]["code"] == "csrf"  # the token is bound to the bearer
    with Workspace.open(ws[0]) as wsp:
        assert len(wsp.ledger.audit_log()) == before  # nothing written so far
    r = app.post(f"/batches/{BATCH_B}/decisions", data={**decision, "approver": "wang.lei", "csrf": finance_tok},
                 headers={**_h(toks["finance"]), **J})
    assert r.status_code == 201, r.text
    fin = f"token:{ids['finance']}"  # the decider is the token, not the typed li.na; the approver as stated by it
    assert (r.json()["by"], r.json()["approver"]) == (fin, f"wang.lei (as stated by {fin})")
    r = app.post(f"/batches/{BATCH_A}/runs/a-r01/cause", data={**cause, "csrf": _csrf(app, toks["engineer_a"])},
                 headers={**_h(toks["engineer_a"]), **J})
    assert r.status_code == 201, r.text
    with Workspace.open(ws[0]) as wsp:
        new = [(e["actor"], e["action"]) for e in wsp.ledger.audit_log()[before:]]
        assert not wsp.ledger.verify_audit_chain()
    eng = f"token:{ids['engineer_a']}"  # who confirmed is the token, not the typed zhao.min (kept as stated)
    assert new == [(f"token:{ids['finance']}", "decide"), (f"token:{ids['finance']}", "web_write"),
                   (eng, "confirm_cause"), (eng, "web_write")]
    with Workspace.open(ws[0]) as wsp:
        confirmed, web = wsp.ledger.audit_log()[-2:]
    assert confirmed["detail"]["by"] == eng and confirmed["detail"]["via"] == {"role": "engineer",
                                                                             "token": ids["engineer_a"]}
    assert (web["detail"]["by"], web["detail"]["stated_by"], web["detail"]["role"]) == (eng, "zhao.min", "engineer")
    assert eng in r.json()["cause_source"] and "zhao.min" not in r.json()["cause_source"]
    page = app.get(f"/batches/{BATCH_A}/runs/a-r01", headers=_h(toks["engineer_a"])).text
    form = page[page.index('class="confirm"'):page.index("</form>", page.index('class="confirm"'))]
    assert 'name="by"' not in form and f"<code>{eng}</code>" in page  # shown, not typed


# --- in Debian's Chromium ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def served(ws):
    uvicorn = pytest.importorskip("uvicorn")
    from trainledger.web.app import create_app

    host = "127.0.0.1"
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(ws[0], require_token=True), host=host, port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://{host}:{port}"
    server.should_exit = True
    thread.join(timeout=5)


HEADINGS = {"en": ("Imports", "Alerts", "Decisions"), "zh-CN": ("导入记录", "预警", "决策记录")}


@pytest.mark.browser
def test_new_pages_in_chromium_for_finance_and_engineer(served, ws, tokens, needles, app):
    from tests.web.test_browser import _in_chromium

    root = ws[0]
    bad = _bad_id(app, tokens[0]["finance"])
    seen: dict[tuple[str, str, str], tuple[int, str, str]] = {}

    def steps(page):
        for who in ("finance", "engineer"):
            page.set_extra_http_headers(_h(tokens[0][who]))
            for lang in ("en", "zh-CN"):
                page.goto(f"{served}/batches/{BATCH_A}?lang={lang}")
                page.locator("a.decisions-link").first.click()  # linked from the batch page
                page.wait_for_url(f"**/batches/{BATCH_A}/decisions")
                for path in _pages(bad):
                    resp = page.goto(f"{served}{path}")
                    seen[(who, lang, path)] = (resp.status, page.locator("body").inner_text(), page.content())
                    assert page.locator("html").get_attribute("lang") == lang
                page.goto(f"{served}/imports")
                page.locator("a.nav-alerts").click()
                page.wait_for_url("**/alerts")
                page.screenshot(path=str(root / f"alerts-{who}-{lang}.png"), full_page=True)

    _in_chromium(steps)
    for (who, lang, path), (status, shown, html) in seen.items():
        assert status == 200, (who, lang, path)
        heading = dict(zip(("/imports", "/alerts", f"/batches/{BATCH_A}/decisions"), HEADINGS[lang], strict=True))
        if path in heading:
            assert heading[path] in shown, (who, lang, path)
        if who == "engineer":
            assert not leaks(shown, needles) and not leaks(html, needles), (lang, path)
            assert not any(p in html for p in PRICES), (lang, path)
    assert all(p in seen[("finance", "en", f"/imports/{bad}/quarantine")][1] for p in PRICES)
    assert "受限" in seen[("engineer", "zh-CN", f"/imports/{bad}/quarantine")][1]
    forms = seen[("finance", "en", f"/batches/{BATCH_A}/decisions")][2]
    assert 'class="decide"' in forms  # finance may decide; the engineer is told who may
    assert 'class="decide"' not in seen[("engineer", "en", f"/batches/{BATCH_A}/decisions")][2]
    assert "admin, finance" in seen[("engineer", "en", f"/batches/{BATCH_A}/decisions")][1]


@pytest.mark.browser
def test_writes_through_the_browser_forms(served, ws, tokens, app):
    from tests.web.test_browser import _in_chromium
    from trainledger.service import Workspace

    root = ws[0]
    toks, ids = tokens
    with Workspace.open(root) as wsp:
        before = len(wsp.ledger.audit_log())
    out: dict[str, object] = {}

    def steps(page):
        page.set_extra_http_headers(_h(toks["finance"]))
        page.goto(f"{served}/batches/{BATCH_B}/decisions?lang=zh-CN")
        # refused: the same form with its CSRF field removed
        page.evaluate("document.querySelector('form.decide input[name=csrf]').remove()")
        page.fill("form.decide textarea[name=reason]", "no token")
        out["acting"] = page.locator("form.decide p.acting").inner_text()  # no free-text decider with a token
        with page.expect_navigation():
            page.click("form.decide button[type=submit]")
        out["refused"] = page.locator("h1").inner_text()
        # accepted: the form as served
        page.goto(f"{served}/batches/{BATCH_B}/decisions?lang=zh-CN")
        page.select_option("form.decide select[name=action]", "continue")
        page.fill("form.decide textarea[name=reason]", "关口已到，按计划继续")
        boxes = page.locator("form.decide input[name=answers]")
        out["ticked"] = [boxes.nth(i).get_attribute("value") for i in range(min(2, boxes.count()))]
        for i in range(len(out["ticked"])):
            boxes.nth(i).check()
        with page.expect_navigation():
            page.click("form.decide button[type=submit]")
        out["after"] = page.url
        out["last"] = page.locator("section.decision").last.inner_text()
        page.screenshot(path=str(root / "decided-zh-CN.png"), full_page=True)
        # an engineer confirms a cause on the run page
        page.set_extra_http_headers(_h(toks["engineer"]))
        page.goto(f"{served}/batches/{BATCH_A}/runs/a-r03?lang=en")
        page.select_option("form.confirm select[name=cause]", "data_quality")
        out["confirmer"] = page.locator("p.confirmer").inner_text()  # who confirms: the token, read-only
        out["by_fields"] = page.locator("form.confirm input[name=by]").count()
        with page.expect_navigation():
            page.click("form.confirm button[type=submit]")
        out["run_url"], out["cause"] = page.url, page.locator("td.cause-now").inner_text()

    _in_chromium(steps)
    assert "写入被拒绝" in out["refused"]
    assert f"token:{ids['finance']}" in out["acting"]
    assert out["after"].endswith(f"/batches/{BATCH_B}/decisions") and "关口已到，按计划继续" in out["last"]
    assert out["ticked"] and all(i in out["last"] for i in out["ticked"])
    assert out["run_url"].endswith(f"/batches/{BATCH_A}/runs/a-r03") and out["cause"] == "data quality"
    assert f"token:{ids['engineer']}" in out["confirmer"] and "engineer" in out["confirmer"]
    assert out["by_fields"] == 0
    with Workspace.open(root) as wsp:
        new = wsp.ledger.audit_log()[before:]
        assert not wsp.ledger.verify_audit_chain()
    reveals = [e for e in new if e["action"] == "reveal_restricted"]  # the decisions page's internal figures
    new = [e for e in new if e["action"] != "reveal_restricted"]
    assert [(e["actor"], e["action"]) for e in new] == [  # the refused post wrote nothing
        (f"token:{ids['finance']}", "decide"), (f"token:{ids['finance']}", "web_write"),
        (f"token:{ids['engineer']}", "confirm_cause"), (f"token:{ids['engineer']}", "web_write")]
    assert new[2]["detail"]["via"] == {"role": "engineer", "token": ids["engineer"]}
    assert [int(i) for i in out["ticked"]] == new[0]["detail"]["answers"]
    assert {e["actor"] for e in reveals} <= {f"token:{ids['finance']}", f"token:{ids['engineer']}"}


# --- the command line: status, review and estimate for a role -------------------------------------

def test_status_review_and_estimate_print_for_a_role(ws, needles):
    import json
    from decimal import Decimal

    from trainledger.pricebook import SAMPLE_PRICE_BOOK

    root, rates = ws
    book = str(SAMPLE_PRICE_BOOK)  # it has the data items the workspace's book lacks
    est = ["--workspace", root, "estimate", "--task", "full_finetune", "--params", "7B", "--tokens", "1B",
           "--gpu", "a100-80gb", "--price-book", book, "--seed", "7", "--samples", "2000"]
    for cmd in (["status", BATCH_A], ["review", BATCH_A]):
        for lang in ("en", "zh-CN"):
            eng = run_cli("--workspace", root, *cmd, "--role", "engineer", "--lang", lang)
            assert not leaks(eng, needles), (cmd, lang, leaks(eng, needles))
        admin = json.loads(run_cli("--workspace", root, *cmd, "--json"))
        eng = json.loads(run_cli("--workspace", root, *cmd, "--json", "--role", "engineer"))
        assert "access" not in admin
        if cmd[0] == "review":
            labor = [ln for ln in eng["lines"] if ln["line"].startswith("labor:")]
            assert labor and all(ln["actual"] == "restricted" for ln in labor)
            assert eng["access"]["withheld"]["labor_cost_person"] >= len(labor)
            fin = run_cli("--workspace", root, "review", BATCH_A, "--role", "finance", "--lang", "en")
            assert "restricted" not in fin and re.search(r"labor:\w+ — efficiency by state: \w+ -?[\d,]+\.\d\d", fin)
            part = next(v for ln in admin["lines"] if ln["line"].startswith("labor:")
                        for v in ln["efficiency_by_state"].values() if Decimal(v))
            assert format(Decimal(part).quantize(Decimal("0.01")), ",f") in fin  # a labor role's own figure
            assert format(Decimal(part).quantize(Decimal("0.01")), ",f") not in run_cli(
                "--workspace", root, "review", BATCH_A, "--role", "engineer", "--lang", "en")
            assert "受限" in run_cli("--workspace", root, "review", BATCH_A, "--role", "viewer", "--lang", "zh-CN")
    def first_json(text):  # the report; the warnings and the access note follow it on stderr
        return json.JSONDecoder().raw_decode(text[text.index("{"):])[0]

    fin = first_json(run_cli(*est, "--format", "json", "--role", "finance"))
    eng = first_json(run_cli(*est, "--format", "json", "--role", "engineer"))
    assert "access" not in fin and eng["access"]["withheld"]["labor_rate"] >= 1
    rate_texts = {str(x) for r in rates.values() for x in r}
    fin_rates = [a for a in fin["assumptions"] if a["name"].startswith("price labor:")]
    assert fin_rates and any(x in a["note"] for a in fin_rates for x in rate_texts)  # finance: the rate card
    for name in fin["cost"]["labor_lines"]:
        assert set(eng["cost"]["labor_lines"][name].values()) == {"restricted"}
        assert all(isinstance(v, float) for v in fin["cost"]["labor_lines"][name].values())
    assert not any(x in json.dumps(eng) for x in rate_texts)
    for fmt in ("md", "html"):
        out = run_cli(*est, "--format", fmt, "--role", "engineer", "--lang", "zh-CN" if fmt == "html" else "en")
        assert not any(x in out for x in rate_texts), fmt
        assert ("受限" if fmt == "html" else "restricted") in out
    assert fin["cost"]["total"] == eng["cost"]["total"]  # the totals are never restricted
