"""The dashboard in process: every path in HTML and JSON, drill-down links, 404s, languages, binding."""

from __future__ import annotations

import csv
import json
import re
from decimal import Decimal

import pytest

from trainledger.errors import BadInput
from trainledger.web import text
from trainledger.web.app import OPENAPI, check_host

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

J = {"accept": "application/json"}
BATCH = "csa-sft-2026-11-a"


def _json(client, path):
    r = client.get(path, headers=J)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json")
    return r.json()


def _html(client, path, **kw):
    r = client.get(path, **kw)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/html")
    return r.text


def _hrefs(html, prefix):
    return re.findall(r'href="(' + re.escape(prefix) + r'[^"?]*)"', html)


@pytest.fixture(scope="module")
def chain(client):
    """batch → run → line → source row, followed through the HTML links."""
    batches = _html(client, "/batches")
    batch = next(h for h in _hrefs(batches, "/batches/") if h.endswith(BATCH))
    page = _html(client, batch)
    run = _hrefs(page, f"/batches/{BATCH}/runs/")[0]
    run_page = _html(client, run)
    line = _hrefs(run_page, "/lines/")[0]
    line_page = _html(client, line)
    source = _hrefs(line_page, "/sources/")[0]
    return {"batch": batch, "run": run, "line": line, "source": source, "source_html": _html(client, source)}


def test_batches_lists_the_demo_batches_with_totals_per_basis(client, web_demo):
    m = _json(client, "/batches")
    ids = [b["id"] for b in m["batches"]]
    assert ids == ["csa-sft-2026-11-a", "csa-sft-2026-11-b"]
    from trainledger.service import Workspace

    with Workspace.open(web_demo) as wsp:  # each basis total equals the ledger's lines, exactly
        lines = [ln for ln in wsp.ledger.cost_lines(BATCH)]
    a = m["batches"][0]
    for tot in a["totals_by_basis"]:
        mine = [ln for ln in lines if str(ln.basis) == tot["basis"] and ln.currency == tot["currency"]]
        assert Decimal(tot["expected"]) == sum(ln.amount.expected for ln in mine)
        assert tot["lines"] == len(mine)
    assert len({(t["basis"], t["currency"]) for t in a["totals_by_basis"]}) == len(a["totals_by_basis"])


def test_batch_page_is_the_sheet_view_model_and_embeds_the_sheet(client, web_demo):
    m = _json(client, f"/batches/{BATCH}")
    sheet = m["sheet"]
    assert sheet["batch"]["id"] == BATCH and sheet["ledger"]["verified"] is True
    assert [r["id"] for r in m["runs"]] == [r["id"] for r in sheet["runs"]]
    html = _html(client, f"/batches/{BATCH}?lang=en")
    assert "Batch cost sheet" in html  # report/render.py's heading, embedded
    assert html.count("<html") == 1 and html.count("</body>") == 1
    for r in m["runs"]:
        assert f'href="{r["href"]}"' in html


def test_run_page_groups_its_lines_by_state_and_shows_the_retry_chain(client):
    m = _json(client, f"/batches/{BATCH}/runs/a-r01")
    assert m["run"]["id"] == "a-r01"
    assert [c["attempts"] for c in m["retry_chains"]] == [["a-r01", "a-r02"]]
    for g in m["by_state"]:
        assert g["lines"] and all(ln["run"] == "a-r01" for ln in g["lines"])
        for tot in g["totals"]:
            mine = [ln for ln in g["lines"] if (ln["basis"], ln["currency"]) == (tot["basis"], tot["currency"])]
            assert Decimal(tot["expected"]) == sum(Decimal(ln["expected"]) for ln in mine)
    html = _html(client, f"/batches/{BATCH}/runs/a-r01")
    assert 'href="/batches/csa-sft-2026-11-a/runs/a-r02"' in html  # the retry chain links on


def test_drill_down_batch_run_line_source(client, chain):
    line = _json(client, chain["line"])
    assert chain["line"] == f"/lines/{line['id']}"
    p = line["provenance"]
    assert len(p["source_sha256"]) == 64 and p["rule"] and p["row"] >= 1
    assert chain["source"] == p["href"] == f"/sources/{p['import']}/{p['row']}"
    src = _json(client, chain["source"])
    assert src["source_sha256"] == p["source_sha256"] and src["row"] == p["row"]
    assert p["rule"] in src["rules"] and line["id"] in [ln["id"] for ln in src["lines"]]
    assert src["file"] in chain["source_html"] and p["rule"] in chain["source_html"]


def test_source_row_values_equal_the_raw_demo_file(client, web_demo, chain):
    src = _json(client, chain["source"])
    assert src["kind"] == "focus"
    with open(web_demo / "data" / "bill-focus.csv", newline="", encoding="utf-8-sig") as f:
        raw = list(csv.DictReader(f))[src["row"] - 1]
    assert src["raw"] == raw  # the row as the file has it, by its header
    assert src["values"]["billed_cost"] == raw["BilledCost"]  # and the lake's parsed row is the same row
    assert src["values"]["resource_id"] == raw["ResourceId"]
    assert src["values"]["charge_description"] == raw["ChargeDescription"]
    for k, val in raw.items():
        assert f'data-field="{k}">' in chain["source_html"]
        if val and "<" not in val and "&" not in val and '"' not in val:
            assert val in chain["source_html"]


def test_every_line_of_a_run_resolves_and_names_its_source(client):
    m = _json(client, f"/batches/{BATCH}/runs/a-r02")
    ids = [ln["id"] for g in m["by_state"] for ln in g["lines"]]
    assert len(ids) == len(set(ids)) > 0
    for ln in m["by_state"][0]["lines"][:5]:
        assert _json(client, ln["href"])["expected"] == ln["expected"]


def test_report_keeps_bases_apart(client):
    m = _json(client, "/report")
    assert [b["id"] for b in m["batches"]] == ["csa-sft-2026-11-a", "csa-sft-2026-11-b"]
    sheet = _json(client, f"/batches/{BATCH}")["sheet"]
    assert m["conservation"]["by_currency"] == sheet["conservation"]["by_currency"]  # the sheet's own check
    for c in m["conservation"]["by_currency"]:
        assert Decimal(c["billed_total"]) == Decimal(c["attributed"]) + Decimal(c["unattributed"])
    html = _html(client, "/report?lang=zh-CN")
    assert "按口径与币种合计（各批次之和）" in html and "控制：账单 = 已归属 + 未归属" in html  # report/cross_render.py
    assert 'id="fig-chart-spend-csa-sft-2026-11-a-billed-CNY"' in html  # spend against plan, with its numbers
    cross = m["report"]  # report/cross.py's JSON contract, as `trainledger report --format json` prints it
    assert [(c["currency"], c["billed_total"]) for c in cross["control"]] == \
        [(c["currency"], c["billed_total"]) for c in m["conservation"]["by_currency"]]
    early = _json(client, "/report?to=2026-11-05&by=batch")["report"]
    assert early["scope"]["to"] == "2026-11-05" and early["periods"] == ["csa-sft-2026-11-a"]  # b starts 11-06
    bad = client.get("/report?from=2026-13", headers={"Accept": "application/json"})
    assert bad.status_code == 400 and "YYYY-MM" in bad.json()["error"]["remedy"]


def test_status_page_is_the_review_view_models(client, web_demo):
    from trainledger.review import service as review
    from trainledger.service import Workspace

    m = _json(client, f"/batches/{BATCH}/status")
    with Workspace.open(web_demo) as wsp:
        st, rv = review.status(wsp, BATCH), review.review(wsp, BATCH)
    assert m["no_plan"] is None
    assert m["status"]["plan_version"] == st["plan_version"] and m["status"]["ac"] == st["ac"]
    assert [a["id"] for a in m["status"]["alerts"]] == [a["id"] for a in st["alerts"]]
    assert m["review"]["variance"] == json.loads(json.dumps(rv["variance"], default=str))
    assert len(m["decisions"]) >= 1
    batch_page = _html(client, f"/batches/{BATCH}")
    assert f'href="/batches/{BATCH}/status"' in batch_page
    html = _html(client, f"/batches/{BATCH}/status?lang=zh-CN")
    assert "计划与执行状态" in html and '<html lang="zh-CN">' in html


@pytest.mark.parametrize("path, words", [
    ("/batches/no-such-batch/status", "trainledger batch list"),
    ("/batches/no-such-batch", "trainledger batch list"),
    (f"/batches/{BATCH}/runs/no-such-run", f"/batches/{BATCH}"),
    ("/lines/000000000000-1-0", "IMPORT-ROW-N"),
    ("/sources/0123456789ab/1", "trainledger imports list"),
    ("/nowhere", "/batches"),
])
def test_unknown_ids_are_404_with_a_remedy(client, path, words):
    r = client.get(path, headers=J)
    assert r.status_code == 404
    assert words in r.json()["error"]["remedy"]
    h = client.get(path + "?lang=en")
    assert h.status_code == 404 and "text/html" in h.headers["content-type"]
    assert words.replace("`", "") in h.text.replace("`", "") and "remedy" in h.text


def test_a_row_past_the_end_or_not_a_number_says_what_to_give(client, chain):
    imp = chain["source"].split("/")[2]
    r = client.get(f"/sources/{imp}/999999", headers=J)
    assert r.status_code == 404 and "rows run 1.." in r.json()["error"]["remedy"]
    r = client.get(f"/sources/{imp}/x", headers=J)
    assert r.status_code == 400 and "numbered from 1" in r.json()["error"]["remedy"]


def test_only_the_two_writes_take_post(client):
    for method in ("post", "put", "delete"):
        assert getattr(client, method)("/batches").status_code == 405
        assert getattr(client, method)(f"/batches/{BATCH}").status_code == 405
    assert client.put(f"/batches/{BATCH}/decisions").status_code == 405


def test_language_query_then_cookie_then_accept_language(client):
    client.cookies.clear()
    zh = client.get("/batches", headers={"accept-language": "zh-CN,zh;q=0.9,en;q=0.5"})
    assert '<html lang="zh-CN">' in zh.text and "训练批次" in zh.text
    en = client.get("/batches?lang=en", headers={"accept-language": "zh-CN"})
    assert '<html lang="en">' in en.text and "Training batches" in en.text
    assert en.cookies.get(text.COOKIE) == "en" or text.COOKIE in en.headers.get("set-cookie", "")
    # the cookie now wins over Accept-Language
    again = client.get("/batches", headers={"accept-language": "zh-CN"})
    assert '<html lang="en">' in again.text
    client.cookies.clear()
    assert text.choose(None, None, "fr, zh;q=0.8, en;q=0.9") == "en"
    assert text.choose(None, "zh-CN", "en") == "zh-CN"
    assert text.choose("zh", "en", "en") == "zh-CN"
    assert text.choose(None, None, None, "zh-CN") == "zh-CN"


def test_every_message_exists_in_both_languages():
    for key, (en, zh) in text.TEXT.items():
        assert en.strip() and zh.strip(), key
        assert re.search(r"[\u4e00-\u9fff]", zh), f"{key}: the zh-CN text has no Chinese"
    assert text.t("basis", "zh-CN") == "口径" and text.t("unattributed", "zh-CN") == "未归属"


def test_openapi_documents_every_routed_path(client):
    doc = _json(client, "/api/openapi.json")
    assert doc == OPENAPI
    assert set(doc["paths"]) == {"/batches", "/batches/{batch}", "/batches/{batch}/runs/{run}", "/lines/{line}",
                                 "/sources/{import}/{row}", "/report", "/batches/{batch}/status",
                                 "/batches/{batch}/sheet.{fmt}", "/imports", "/imports/{import}/quarantine",
                                 "/imports/{import}/quarantine.csv",
                                 "/alerts", "/batches/{batch}/decisions", "/batches/{batch}/runs/{run}/cause",
                                 "/api/csrf"}
    for path, item in doc["paths"].items():
        for op in item.values():
            names = {p["name"] for p in op.get("parameters", []) if p["in"] == "path"}
            assert names == set(re.findall(r"{(\w+)}", path)), path
    assert {m for item in doc["paths"].values() for m in item} == {"get", "post"}
    assert sorted(p for p, item in doc["paths"].items() if "post" in item) == [
        "/batches/{batch}/decisions", "/batches/{batch}/runs/{run}/cause"]


@pytest.mark.parametrize("host", ["127.0.0.1", "::1", "localhost", "127.0.0.2"])
def test_loopback_binds_without_tokens(host):
    assert check_host(host, allow_remote=False) is False  # the local user is admin


def test_other_hosts_need_allow_remote_and_then_tokens():
    with pytest.raises(BadInput, match="not a loopback address"):
        check_host("0.0.0.0", allow_remote=False)
    assert check_host("192.168.1.5", allow_remote=True) is True  # every request needs a token


def test_an_error_page_speaks_the_page_language(client):
    """The JSON keeps the English and adds its Chinese; the zh-CN page shows only the Chinese."""
    body = client.get("/batches/no-such-batch", headers=J).json()["error"]
    assert body["message"] == "no batch 'no-such-batch'" and body["message_zh"] == "没有批次 'no-such-batch'"
    assert "trainledger batch list" in body["remedy_zh"] and "编号见" in body["remedy_zh"]
    page = client.get("/batches/no-such-batch?lang=zh-CN").text
    assert "没有批次 'no-such-batch'" in page.replace("&#39;", "'") and "no batch" not in page
