"""Roles end to end: an engineer's token never sees a labor rate or a rate-derived cost — in any page,
JSON view model, sheet download (md, json, html, csv, xlsx) or CLI rendering — and finance does;
401 / 403; every revealing response to a token is in the audit chain, which still verifies."""

from __future__ import annotations

import json
import re
from decimal import Decimal

import pytest

from tests.web.roles_ws import BATCH_A, BATCH_B, leaks, run_cli, secrets, xlsx_text
from trainledger.report.xlsx import LINE_AT

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def app(rates_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(rates_ws[0], require_token=True)) as c:
        yield c


@pytest.fixture(scope="module")
def needles(rates_ws):
    root, rates = rates_ws
    found = secrets(root, rates)
    assert len(found) > 40  # rates, per-role costs and labor lines
    return found


def _bearer(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


def _labor_ids(root):
    from trainledger.service import Workspace
    from trainledger.web.views import line_ids

    with Workspace.open(root) as wsp:
        lines = wsp.ledger.cost_lines()
    return [(i, ln) for i, ln in zip(line_ids(lines), lines, strict=True) if ln.category == "labor"]


def _paths(root, batch: str) -> list[str]:
    labor = [(i, ln) for i, ln in _labor_ids(root) if ln.batch_id == batch]
    line_id, ln = labor[0]
    imp = line_id.split("-")[0]
    return [f"/batches/{batch}", f"/batches/{batch}/runs/a-r01", f"/batches/{batch}/status", f"/lines/{line_id}",
            f"/sources/{imp}/{ln.provenance.row}"]


def _everything(app, root, tok: str, batch: str = BATCH_A) -> dict[str, str]:
    """Every representation one token can fetch of ``batch``: its pages as HTML and as JSON, the
    batch page in zh-CN too, and the sheet in every download format (the workbook as its XML)."""
    out = {}
    pages = _paths(root, batch)
    for path, forms in zip(pages, (("html", "json"), ("json",), ("html", "json"), ("html",), ("html", "json")),
                           strict=True):
        for form in forms:
            headers = {**_bearer(tok), **({"Accept": "application/json"} if form == "json" else {})}
            r = app.get(path, params={"lang": "en"}, headers=headers)
            assert r.status_code == 200, (path, r.text[:300])
            assert r.headers["content-type"].startswith("application/json" if form == "json" else "text/html")
            out[f"{path} {form}{' en' if form == 'html' else ''}"] = r.text
    out[f"/batches/{batch} html zh-CN"] = app.get(f"/batches/{batch}", params={"lang": "zh-CN"},
                                                  headers=_bearer(tok)).text
    for fmt, lang in (("md", "en"), ("html", "zh-CN"), ("csv", "en"), ("xlsx", "en")):
        r = app.get(f"/batches/{batch}/sheet.{fmt}", params={"lang": lang}, headers=_bearer(tok))
        assert r.status_code == 200, (fmt, r.text[:300])
        out[f"sheet.{fmt}"] = xlsx_text(r.content) if fmt == "xlsx" else r.text
    return out


@pytest.mark.parametrize("who", ["engineer", "viewer"])
def test_no_rate_or_rate_derived_cost_reaches_an_engineer_or_a_viewer(app, rates_ws, tokens, needles, who):
    root, rates = rates_ws
    docs = _everything(app, root, tokens[0][who])
    found = {name: leaks(text, needles) for name, text in docs.items()}
    assert not {k: v for k, v in found.items() if v}, found
    assert "restricted" in docs["/batches/csa-sft-2026-11-a json"]
    assert "受限" in docs["/batches/csa-sft-2026-11-a html zh-CN"] and "受限" in docs["sheet.html"]
    assert "restricted" in docs["sheet.xlsx"] and "restricted" in docs["sheet.csv"]
    hours = json.loads(docs["/batches/csa-sft-2026-11-a json"])["sheet"]["labor_by_phase"]
    assert all(p["hours"] != "restricted" for p in hours)  # hours are never restricted
    if who == "engineer":  # an engineer sees labor cost per phase of several roles; a viewer does not
        assert any(isinstance(p["cost"], list) for p in hours)
    else:
        assert all(p["cost"] == "restricted" for p in hours if p["cost"])


def test_finance_sees_every_rate_and_rate_derived_cost(app, rates_ws, tokens):
    root, rates = rates_ws
    h = _bearer(tokens[0]["finance"])
    docs = {"json": app.get(f"/batches/{BATCH_A}", headers={**h, "Accept": "application/json"}).text,
            "html": app.get(f"/batches/{BATCH_A}", params={"lang": "zh-CN"}, headers=h).text,
            "md": app.get(f"/batches/{BATCH_A}/sheet.md", headers=h).text,
            "xlsx": xlsx_text(app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=h).content),
            "csv": app.get(f"/batches/{BATCH_A}/sheet.csv", headers=h).text}
    for role, (low, _exp, high) in rates.items():  # the sheet shows each rate's range
        for d in (low, high):
            for name in ("json", "html", "md", "xlsx"):
                assert leaks(docs[name], {d}), (role, d, name)
    per_line = [ln for _, ln in _labor_ids(root) if ln.batch_id == BATCH_A]
    assert per_line and all(leaks(docs["csv"], {ln.amount.expected}) for ln in per_line)
    for role_row in json.loads(docs["json"])["sheet"]["labor_by_phase"][0]["roles"]:
        assert leaks(docs["md"], {Decimal(role_row["cost"][0]["expected"])})
    assert not any(w in text for text in docs.values() for w in ("restricted", "受限"))


def test_the_cli_renders_for_a_role(rates_ws, needles, tmp_path):
    root, rates = rates_ws
    for fmt in ("md", "json", "html", "csv"):
        eng = run_cli("--workspace", root, "sheet", BATCH_A, "--format", fmt, "--role", "engineer")
        assert not leaks(eng, needles), fmt
    assert leaks(run_cli("--workspace", root, "sheet", BATCH_A), needles)  # the local user is admin
    for role, expect in (("engineer", False), ("finance", True)):
        out = tmp_path / f"{role}.xlsx"
        run_cli("--workspace", root, "sheet", BATCH_A, "--format", "xlsx", "--out", out, "--role", role)
        assert bool(leaks(xlsx_text(out.read_bytes()), needles)) is expect


def test_an_engineer_workbook_has_no_check_over_withheld_lines(rates_ws, tmp_path):
    from openpyxl import load_workbook

    root, _ = rates_ws
    out = tmp_path / "e.xlsx"
    run_cli("--workspace", root, "sheet", BATCH_A, "--format", "xlsx", "--out", out, "--role", "engineer")
    wb = load_workbook(out)
    summary = {(r[0].value, r[2].value): r for r in wb["Summary"].iter_rows(min_row=2) if r[0].value}
    internal = summary[("internal", "CNY")]
    assert internal[7].value is None and "restricted" in internal[6].value  # no SUMIFS over hidden lines
    billed = next(r for k, r in summary.items() if k[0] == "billed")
    assert str(billed[7].value).startswith("=SUMIFS(")  # the other bases keep their live check
    labor = [r for r in wb["Lines"].iter_rows(min_row=2) if r[0].value == "labor"]
    at = LINE_AT["for_formulas"] - 1  # the column SUMIFS adds: empty for a hidden line
    assert labor and all(r[4].value == "restricted / 受限" and r[at].value is None for r in labor)
    assert all(isinstance(r[7].value, int | float) for r in labor)  # hours stay


def test_without_a_token_or_with_a_bad_one_401(app, tokens):
    toks, _ = tokens
    for headers in ({}, {"Authorization": "Bearer nonsense"}, {"Authorization": "Basic abc"},
                    _bearer(toks["expired"]), _bearer(toks["revoked"]),
                    _bearer(toks["finance"][:-2] + ("AA" if not toks["finance"].endswith("AA") else "BB"))):
        for path in ("/batches", f"/batches/{BATCH_A}", f"/batches/{BATCH_A}/sheet.xlsx"):
            r = app.get(path, headers={**headers, "Accept": "application/json"})
            assert r.status_code == 401, (headers, path)
            assert r.headers["WWW-Authenticate"].startswith("Bearer")
            assert r.json()["error"]["remedy"]
    r = app.get("/batches", headers={"Accept": "application/json", **_bearer(toks["expired"])})
    assert "expired" in r.json()["error"]["message"]
    assert r.json()["error"]["message_zh"].endswith("已过期")  # no English state word (review 5 J11)
    r = app.get("/batches", headers={"Accept": "application/json", **_bearer(toks["revoked"])})
    assert "revoked" in r.json()["error"]["message"] and r.json()["error"]["message_zh"].endswith("已吊销")
    assert app.get("/api/openapi.json").status_code == 200  # the API's description needs no token


def test_a_batch_scoped_token_gets_403_elsewhere(app, rates_ws, tokens):
    root, _ = rates_ws
    tok = tokens[0]["engineer_a"]
    b_line = next(i for i, ln in _labor_ids(root) if ln.batch_id == BATCH_B)
    for path in (f"/batches/{BATCH_B}", f"/batches/{BATCH_B}/status", f"/batches/{BATCH_B}/sheet.csv",
                 "/report", f"/lines/{b_line}", f"/sources/{b_line.split('-')[0]}/{b_line.split('-')[1]}"):
        r = app.get(path, headers={**_bearer(tok), "Accept": "application/json"})
        assert r.status_code == 403, (path, r.status_code)
        err = r.json()["error"]
        assert BATCH_A in err["message"] and BATCH_A in err["message_zh"]
        # review 4 H10: the Chinese message has no English clause inside it
        assert not re.search(r"\b(is|a page|across|unattributed)\b", err["message_zh"]), err["message_zh"]
        assert ("跨批次（或未归属成本）的页面" if path == "/report" else f"属于批次 '{BATCH_B}'") in err["message_zh"]
    r = app.get("/batches", headers={**_bearer(tok), "Accept": "application/json"})
    assert [b["id"] for b in r.json()["batches"]] == [BATCH_A]
    r = app.get(f"/batches/{BATCH_B}", headers=_bearer(tokens[0]["engineer"]))  # unscoped: every batch
    assert r.status_code == 200
    assert app.get(f"/batches/{BATCH_B}", headers=_bearer(tokens[0]["viewer"])).status_code == 200


def test_revealing_responses_are_audited_and_the_chain_verifies(app, rates_ws, tokens):
    from trainledger.service import Workspace

    root, _ = rates_ws
    toks, ids = tokens
    with Workspace.open(root) as wsp:
        before = len(wsp.ledger.audit_log())
    app.get(f"/batches/{BATCH_A}", headers=_bearer(toks["finance"]))
    app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=_bearer(toks["finance"]))
    app.get(f"/batches/{BATCH_A}", headers=_bearer(toks["viewer"]))  # a viewer is shown nothing restricted
    with Workspace.open(root) as wsp:
        new = wsp.ledger.audit_log()[before:]
        assert not wsp.ledger.verify_audit_chain()
    assert [(e["actor"], e["action"], e["object"]) for e in new] == [
        (f"token:{ids['finance']}", "reveal_restricted", f"/batches/{BATCH_A}"),
        (f"token:{ids['finance']}", "reveal_restricted", f"/batches/{BATCH_A}/sheet.xlsx")]
    # labor rates revealed: the 12 of the sheet, the plan's 3 labor lines (plan_lines[].price) and the 12 of the
    # balance's drawer (its 6 labor rates' low and high, sheet["balance"]["sensitivity"])
    assert new[0]["detail"]["role"] == "finance" and new[0]["detail"]["revealed"]["labor_rate"] == 27
    assert new[1]["detail"]["revealed"]["labor_cost_person"] >= 1  # the workbook's labor lines
    log = run_cli("--workspace", root, "audit")
    assert "chain intact" in log or "哈希链完整" in log  # the demo workspace speaks zh-CN


def test_token_changes_are_audited_without_the_secret(rates_ws, tokens):
    from trainledger.service import Workspace

    root, _ = rates_ws
    toks, ids = tokens
    with Workspace.open(root) as wsp:
        log = wsp.ledger.audit_log()
    created = {e["object"] for e in log if e["action"] == "token_create"}
    assert {f"token:{ids[n]}" for n in ("finance", "engineer", "engineer_a", "viewer", "revoked", "expired")} <= created
    assert [e["object"] for e in log if e["action"] == "token_revoke"] == [f"token:{ids['revoked']}"]
    dumped = json.dumps([e["detail"] for e in log])
    assert not any(t.split("_", 2)[2] in dumped for t in toks.values())
    listed = run_cli("--workspace", root, "token", "list", "--json")
    assert not any(t.split("_", 2)[2] in listed for t in toks.values())
    states = {r["id"]: r["state"] for r in json.loads(listed)}
    assert states[ids["revoked"]] == "revoked" and states[ids["expired"]] == "expired"
    assert states[ids["finance"]] == "active"


def test_loopback_without_a_token_is_the_local_admin_and_not_audited(rates_ws, tokens, needles):
    from starlette.testclient import TestClient

    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    root, _ = rates_ws
    with Workspace.open(root) as wsp:
        before = len(wsp.ledger.audit_log())
    with TestClient(create_app(root)) as c:
        r = c.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"})
        assert r.status_code == 200 and leaks(r.text, needles) and "access" not in r.json()
        e = c.get(f"/batches/{BATCH_A}", headers={**_bearer(tokens[0]["engineer"]), "Accept": "application/json"})
        assert e.json()["access"]["role"] == "engineer" and not leaks(e.text, needles)  # a token still counts
        assert c.get("/batches", headers=_bearer(tokens[0]["expired"])).status_code == 401
    with Workspace.open(root) as wsp:  # only the token's response (it saw labor cost per phase)
        assert [e["actor"] for e in wsp.ledger.audit_log()[before:]] == [f"token:{tokens[1]['engineer']}"]


def test_the_other_batches_table_stays_in_a_tokens_scope(app, tokens):
    """The workbook's Control lists the other batches (the engine's attributed per batch) for a token of
    every batch; a token limited to batch A sees no other batch there: one value per currency, said so."""
    import io

    from openpyxl import load_workbook

    from trainledger.report.xlsx import H

    def control(tok: str) -> list:
        r = app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=_bearer(tok))
        assert r.status_code == 200
        return [c.value for row in load_workbook(io.BytesIO(r.content))["Control"].iter_rows() for c in row]

    everyone, scoped = control(tokens[0]["engineer"]), control(tokens[0]["engineer_a"])
    assert H("other_batches_table") in everyone and BATCH_B in everyone
    assert H("other_batches_table") not in scoped and BATCH_B not in scoped
    assert any(isinstance(v, str) and v.startswith("other batches: the engine's attributed") for v in scoped)
    # the labor-hours control: this batch's row, the others folded into one row of their sum
    assert "other batches (1) / 其他批次（1 个）" in scoped and "other batches (1) / 其他批次（1 个）" not in everyone


def test_a_scoped_token_reads_the_other_batches_hours_as_one_row(app, tokens):
    """The sheet's labor-hours control lists hours per batch; a token limited to batch A reads batch A's
    row and one row of the others' sum, so the control still adds up and batch B is not named."""
    from decimal import Decimal

    def labor(tok: str) -> list[dict]:
        r = app.get(f"/batches/{BATCH_A}", headers={**_bearer(tok), "Accept": "application/json"})
        assert r.status_code == 200
        return r.json()["sheet"]["conservation"]["labor_hours"]

    everyone, scoped = labor(tokens[0]["engineer"]), labor(tokens[0]["engineer_a"])
    assert len(everyone) == len(scoped) >= 1
    for full, mine in zip(everyone, scoped, strict=True):
        assert {x["batch"] for x in full["by_batch"]} >= {BATCH_A, BATCH_B}
        assert BATCH_B not in json.dumps(mine)
        assert [x.get("batch") for x in mine["by_batch"]] == [BATCH_A, None]
        other = next(x for x in full["by_batch"] if x["batch"] != BATCH_A)
        assert mine["by_batch"][1] == {"other_batches": len(full["by_batch"]) - 1, "hours": other["hours"]}
        assert sum(Decimal(x["hours"]) for x in mine["by_batch"]) == Decimal(full["batches_hours"])


def test_the_rate_guards_note_reaches_an_engineers_page(app, tokens):
    """The CLI's ``sheet --role engineer --format json`` names what the rate guard withheld in
    ``access.rate_guard``; the page's JSON and HTML say so too, and the sheet itself carries no record."""
    from trainledger.report.access import guard_note

    def page(tok: str, accept: str = "application/json", lang: str = "en"):
        r = app.get(f"/batches/{BATCH_A}?lang={lang}", headers={**_bearer(tok), "Accept": accept})
        assert r.status_code == 200
        return r

    eng, fin = page(tokens[0]["engineer"]).json(), page(tokens[0]["finance"]).json()
    assert "rate_guard" not in eng["sheet"] and "rate_guard" not in fin["sheet"]
    assert eng["access"]["rate_guard"]["note"] == guard_note("en") and eng["access"]["rate_guard"]["withheld"]
    assert "rate_guard" not in (fin.get("access") or {})
    for lang in ("en", "zh-CN"):
        html = page(tokens[0]["engineer"], "text/html", lang).text
        assert guard_note(lang) in html and guard_note(lang) not in page(tokens[0]["finance"], "text/html", lang).text
