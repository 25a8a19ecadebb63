"""A quarantine reason or a row flag that quotes a price is restricted like the price itself.

A copy of the demo gets a FOCUS bill with two bad rows — one accepted with flags on its unit prices
(ListUnitPrice ``¥391.83``, ContractedUnitPrice ``317,29``: each note quotes the value), one
quarantined (BilledCost ``abc``; its raw text carries ContractedUnitPrice 405.17) — and an invoice
with an amount written ``¥4,127.73`` (quarantined, the reason quotes it). With tokens required:
an engineer's and a viewer's bytes of ``/imports/{id}/quarantine`` (HTML en / zh-CN, JSON, CSV) and
of the flagged row's source page hold none of the prices, yet still name the columns; the invoice
amount (vendor_amount) is the engineer's to see and not the viewer's; finance sees everything, and
its responses that showed a restricted field are audited."""

from __future__ import annotations

import csv
import io
import shutil

import pytest

from tests.web.roles_ws import run_cli

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

J = {"accept": "application/json"}
PRICES = ("391.83", "317.29", "317,29", "405.17")  # the bill's unit prices as written and as the notes fix them
AMOUNT = ("4,127.73", "4127.73")  # the invoice's amount


@pytest.fixture(scope="module")
def ws(web_demo, tmp_path_factory):
    root = tmp_path_factory.mktemp("qaccess") / "ws"
    shutil.copytree(web_demo, root)
    with open(root / "data" / "bill-focus.csv", encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    flagged, bad = list(rows[1]), list(rows[2])
    flagged[head.index("ListUnitPrice")], flagged[head.index("ContractedUnitPrice")] = "¥391.83", "317,29"
    bad[head.index("BilledCost")], bad[head.index("ContractedUnitPrice")] = "abc", "405.17"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([head, flagged, bad])
    (root / "bad-focus.csv").write_text(out.getvalue(), encoding="utf-8")
    run_cli("--workspace", root, "import", "focus", root / "bad-focus.csv")
    with open(root / "data" / "vendor-invoices.csv", encoding="utf-8", newline="") as f:
        inv = list(csv.reader(f))
    row = list(inv[1])
    row[inv[0].index("amount")], row[inv[0].index("invoice_id")] = "¥4,127.73", "Q-1"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([inv[0], row])
    (root / "bad-invoice.csv").write_text(out.getvalue(), encoding="utf-8")
    run_cli("--workspace", root, "import", "invoice", root / "bad-invoice.csv")
    toks = {who: run_cli("--workspace", root, "token", "create", "--role", who).strip().splitlines()[-1]
            for who in ("finance", "engineer", "viewer")}
    return root, toks


@pytest.fixture(scope="module")
def app(ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(ws[0], require_token=True)) as c:
        yield c


def _h(tok):
    return {"Authorization": f"Bearer {tok}"}


def _ids(app, tok):
    rows = app.get("/imports", headers={**_h(tok), **J}).json()["imports"]
    return (next(r["id"] for r in rows if r["file"].endswith("bad-focus.csv")),
            next(r["id"] for r in rows if r["file"].endswith("bad-invoice.csv")))


def _bytes(app, tok, ident):
    """Every form of the quarantine page: (name, text)."""
    path = f"/imports/{ident}/quarantine"
    out = []
    for name, url, params, headers in (("json", path, {}, J), ("html-en", path, {"lang": "en"}, {}),
                                       ("html-zh", path, {"lang": "zh-CN"}, {}),
                                       ("csv", f"{path}.csv", {}, {})):
        r = app.get(url, params=params, headers={**_h(tok), **headers})
        assert r.status_code == 200, (name, r.text[:300])
        out.append((name, r.text))
    return out


@pytest.mark.parametrize("who", ["engineer", "viewer"])
def test_no_price_in_the_quarantine_page_of_a_role_that_may_not_see_prices(app, ws, who):
    tok = ws[1][who]
    bill, invoice = _ids(app, tok)
    for name, text in _bytes(app, tok, bill):
        assert not [p for p in PRICES if p in text], (who, name)
        assert "ListUnitPrice" in text and "ContractedUnitPrice" in text, (who, name)  # which column to fix
        assert ("受限" if name == "html-zh" else "restricted") in text, (who, name)
    m = app.get(f"/imports/{bill}/quarantine", headers={**_h(tok), **J}).json()
    f = m["flagged_rows"][0]
    assert {f[k] for k in ("reason", "reason_zh", "remedy", "remedy_zh")} == {"restricted"}
    assert f["columns"] == ["ListUnitPrice", "ContractedUnitPrice"]
    q = m["quarantined_rows"][0]
    assert q["reason"].startswith("BilledCost") and q["raw"] == "restricted"  # a bill amount's reason stays
    assert m["access"]["withheld"]["unit_price"] == 5  # the flag's reason and remedy in both languages, the raw row
    source = app.get(f["href"], headers={**_h(tok), **J}).json()
    assert source["values"]["flags"] == "restricted"  # the same notes, on the source row's page
    assert not [p for p in PRICES if p in app.get(f["href"], headers=_h(tok)).text]
    for name, text in _bytes(app, tok, invoice):  # an invoice's amount: vendor_amount
        assert bool([a for a in AMOUNT if a in text]) is (who == "engineer"), (who, name)


def test_finance_sees_the_prices_and_the_reveal_is_audited(app, ws):
    from trainledger.service import Workspace

    tok = ws[1]["finance"]
    bill, invoice = _ids(app, tok)
    with Workspace.open(ws[0]) as wsp:
        before = len(wsp.ledger.audit_log())
    for name, text in _bytes(app, tok, bill):
        assert all(p in text for p in ("391.83", "317,29", "405.17")), name
    f = app.get(f"/imports/{bill}/quarantine", headers={**_h(tok), **J}).json()["flagged_rows"][0]
    assert "ListUnitPrice: not a number: '¥391.83'" in f["reason"] and "317,29" in f["reason_zh"]
    rows = list(csv.DictReader(io.StringIO(app.get(f"/imports/{invoice}/quarantine.csv", headers=_h(tok)).text)))
    assert [(r["status"], r["columns"]) for r in rows] == [("quarantined", "amount")]
    assert "¥4,127.73" in rows[0]["reason"] and "4127.73" in rows[0]["remedy"]
    with Workspace.open(ws[0]) as wsp:
        new = [e for e in wsp.ledger.audit_log()[before:] if e["action"] == "reveal_restricted"]
    assert any(e["object"] == f"/imports/{bill}/quarantine.csv" for e in new)
    assert any(e["object"] == f"/imports/{bill}/quarantine" for e in new)


def test_a_batch_scoped_token_may_not_download_the_quarantine(app, ws):
    root, toks = ws
    scoped = run_cli("--workspace", root, "token", "create", "--role", "finance", "--batch",
                     "csa-sft-2026-11-a").strip().splitlines()[-1]
    bill, _ = _ids(app, toks["finance"])
    assert app.get(f"/imports/{bill}/quarantine.csv", headers={**_h(scoped), **J}).status_code == 403
    assert app.get(f"/imports/{bill}/quarantine.csv", headers=J).status_code == 401


def test_note_kind_reads_the_column_a_note_is_about():
    from trainledger.report.field_kinds import note_kind, quarantine_row

    assert note_kind("ContractedUnitPrice: not a number: '3,17.29'", "bill_lines") == "unit_price"
    assert note_kind("单价：不是数字：'x'", "bill_lines") == "unit_price"
    assert note_kind("BilledCost: not a number: 'abc'", "bill_lines") is None
    assert note_kind("amount: not a number: '¥1'", "external_services") == "vendor_amount"
    assert note_kind("amount: not a number: '¥1'", "bill_lines") is None
    assert note_kind("rate: not a number: 'x'", "labor_entries") == "labor_rate"
    assert note_kind("ContractedUnitPrice is empty", "bill_lines") is None  # no value quoted
    row = quarantine_row({"reason": "a: b, ListPrice: x", "notes": ["a: b", "ListPrice: x"], "raw": "r"}, "jobs")
    assert row["reason"].kind == "unit_price" and row["raw"].kind == "unit_price"
    assert row["columns"] == ["a", "ListPrice"]
