"""Review 2, F1 and F8: the plan's own rates and unit prices (``plan_vs_actual.plan_lines[].price``,
the workbook's plan-rate cells) never reach an engineer or a viewer; a viewer sees no invoice amount
and no labor pool of a phase (the unattributed bucket's invoice rows, the allocation pools and shares)."""

from __future__ import annotations

import io
import json
from decimal import Decimal

import pytest

from tests.web.roles_ws import BATCH_A, run_cli

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def app(rates_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(rates_ws[0], require_token=True)) as c:
        yield c


@pytest.fixture(scope="module")
def plan_prices(rates_ws):
    """The plan's prices as the admin sees them: line id → price text (e.g. labor:… → 380)."""
    from trainledger.report.access import for_role
    from trainledger.service import Workspace

    with Workspace.open(rates_ws[0]) as wsp:
        lines = for_role(wsp.sheet(BATCH_A), "finance")[0]["plan_vs_actual"]["plan_lines"]
    out = {pl["id"]: pl["price"] for pl in lines}
    assert any(k.startswith("labor:") for k in out) and "compute" in out
    return out


def _bearer(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


def _plan_prices_in_workbook(data: bytes) -> dict[str, object]:
    """Plan-rate rows of the Assumptions sheet ("ID: price …") whose value cell holds a number."""
    from openpyxl import load_workbook

    ws = load_workbook(io.BytesIO(data))["Assumptions"]
    return {r[0]: r[3] for r in ws.iter_rows(min_row=2, values_only=True)
            if r[0] and ": price" in str(r[0]) and isinstance(r[3], int | float)}


def _plan_lines(sheet: dict) -> list[dict]:
    return (sheet.get("plan_vs_actual") or {}).get("plan_lines") or []


@pytest.mark.parametrize("who", ["engineer", "viewer"])
def test_no_plan_price_in_the_sheet_json_or_workbook_of_an_engineer_or_viewer(app, rates_ws, tokens, plan_prices,
                                                                               who, tmp_path):
    root, _ = rates_ws
    h = _bearer(tokens[0][who])
    sheets = {"dashboard sheet.json": app.get(f"/batches/{BATCH_A}/sheet.json", headers=h).json(),
              "dashboard batch json": app.get(f"/batches/{BATCH_A}", headers={**h, "Accept": "application/json"}
                                              ).json()["sheet"],
              "cli json": json.loads(run_cli("--workspace", root, "sheet", BATCH_A, "--format", "json",
                                             "--role", who))}
    for name, s in sheets.items():
        lines = _plan_lines(s)
        assert lines, name
        assert all(pl["price"] == "restricted" for pl in lines), (name, [(p["id"], p["price"]) for p in lines])
        assert "restricted" not in {pl["efficiency"] for pl in lines}  # quantities stay visible
    out = tmp_path / f"{who}.xlsx"
    run_cli("--workspace", root, "sheet", BATCH_A, "--format", "xlsx", "--out", out, "--role", who)
    books = {"cli xlsx": out.read_bytes(),
             "dashboard xlsx": app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=h).content}
    for name, data in books.items():
        assert not _plan_prices_in_workbook(data), name
        from openpyxl import load_workbook

        wb = load_workbook(io.BytesIO(data))
        assert not [n for n in wb.defined_names if n.startswith("plan_") and n.endswith("_price")], name
        variance = [c.value for row in wb["Variance"].iter_rows() for c in row]
        assert not any(isinstance(v, str) and "Assumptions!" in v for v in variance), name  # no formula on a rate


def test_finance_keeps_the_plan_prices_and_the_live_bridge(app, tokens, plan_prices):
    h = _bearer(tokens[0]["finance"])
    s = app.get(f"/batches/{BATCH_A}/sheet.json", headers=h).json()
    assert {pl["id"]: pl["price"] for pl in _plan_lines(s)} == plan_prices
    book = _plan_prices_in_workbook(app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=h).content)
    assert {str(k).split(":")[0] if not str(k).startswith("labor:") else ":".join(str(k).split(":")[:2]):
            Decimal(str(v)) for k, v in book.items()} == {k: Decimal(v) for k, v in plan_prices.items()}


def _pooled_secrets(root) -> set[Decimal]:
    """What a viewer must not see of batch A: each invoice's amount in the unattributed bucket, and
    the pool and share of each allocation drawn from an invoice or from labor (finance's copy)."""
    from trainledger.report.access import for_role
    from trainledger.service import Workspace

    with Workspace.open(root) as wsp:
        s, _ = for_role(wsp.sheet(BATCH_A), "finance")
    found = {Decimal(x["amount"]) for r in s["conservation"]["by_currency"] for x in r["unattributed_by_reason"]
             if x["detail"].startswith("invoice ")}
    assert len(found) >= 2  # the demo's two unattributed invoices
    pools = [a for a in s["allocation"] if a["category"] in ("external", "labor")]
    assert {a["category"] for a in pools} == {"external", "labor"}
    found |= {Decimal(a[k]) for a in pools for k in ("pool", "share")}
    return found


def test_a_viewer_sees_no_invoice_amount_nor_a_labor_pool(app, rates_ws, tokens, tmp_path):
    from tests.web.roles_ws import numbers, xlsx_text

    root, _ = rates_ws
    needles = _pooled_secrets(root)
    docs = {}
    for who in ("viewer", "engineer", "finance"):
        h = _bearer(tokens[0][who])
        got = {"batch json": app.get(f"/batches/{BATCH_A}", headers={**h, "Accept": "application/json"}).text,
               "batch html": app.get(f"/batches/{BATCH_A}", params={"lang": "zh-CN"}, headers=h).text}
        for fmt in ("md", "json", "html", "csv", "xlsx"):
            r = app.get(f"/batches/{BATCH_A}/sheet.{fmt}", headers=h)
            assert r.status_code == 200, (who, fmt)
            got[f"sheet.{fmt}"] = xlsx_text(r.content) if fmt == "xlsx" else r.text
        docs[who] = got
    for fmt in ("md", "json", "csv"):
        docs["viewer"][f"cli {fmt}"] = run_cli("--workspace", root, "sheet", BATCH_A, "--format", fmt,
                                               "--role", "viewer")
    seen = {who: {k: sorted(str(n) for n in numbers(v) & needles) for k, v in d.items()} for who, d in docs.items()}
    assert not {k: v for k, v in seen["viewer"].items() if v}, seen["viewer"]
    for who in ("engineer", "finance"):  # both may see vendor amounts and a phase's labor cost
        assert set().union(*map(set, seen[who].values())) == {str(n) for n in needles}, who
    s = json.loads(docs["viewer"]["sheet.json"])
    assert {a["policy"]: a["share"] for a in s["allocation"] if a["category"] in ("external", "labor")} == {
        "onboarding-invoice": "restricted", "build-phase-labor": "restricted"}
    # the bucket and cash totals stay; the internal (labor) total is a phase's labor cost, which a viewer
    # may not see (report/labor_kinds.py _labor_totals)
    assert s["totals_by_basis"] and all((t["expected"] == "restricted") == (t["basis"] == "internal")
                                        for t in s["totals_by_basis"])


def test_the_batch_list_never_sums_allocated_shares_across_bases(app, rates_ws, tokens):
    """F17: /batches lists the direct totals per basis and, apart, the allocated shares per source
    basis and currency — each equal to the sheet's allocation rows of that basis, exactly."""
    from trainledger.report.access import for_role
    from trainledger.service import Workspace

    root, _ = rates_ws
    with Workspace.open(root) as wsp:
        s, _ = for_role(wsp.sheet(BATCH_A), "finance")
    by_basis: dict[tuple[str, str], Decimal] = {}
    for a in s["allocation"]:
        if not a["charged_to"]:
            key = (a["source_basis"], a["currency"])
            by_basis[key] = by_basis.get(key, Decimal(0)) + Decimal(a["share"])
    assert len({b for b, _ in by_basis}) >= 3  # cash, internal labor and an estimate: never one figure
    h = _bearer(tokens[0]["finance"])
    m = next(b for b in app.get("/batches", headers={**h, "Accept": "application/json"}).json()["batches"]
             if b["id"] == BATCH_A)
    assert "allocated" not in {t["basis"] for t in m["totals_by_basis"]}
    assert {t["basis"] for t in m["totals_by_basis"]} == {t["basis"] for t in s["totals_by_basis"]}
    got = {(x["source_basis"], x["currency"]): Decimal(x["expected"]) for x in m["allocated_by_source_basis"]}
    assert got == by_basis
    assert all(Decimal(x["expected"]) == Decimal(x["expected"]).quantize(Decimal("0.01"))
               for x in m["allocated_by_source_basis"] if x["source_basis"] in ("billed", "allocated_idle"))
    for lang, head in (("en", "source basis"), ("zh-CN", "来源口径")):
        html = app.get("/batches", params={"lang": lang}, headers=h).text
        assert head in html
    viewer = next(b for b in app.get("/batches", headers={**_bearer(tokens[0]["viewer"]),
                                                          "Accept": "application/json"}).json()["batches"]
                  if b["id"] == BATCH_A)
    shown = {x["source_basis"]: x["expected"] for x in viewer["allocated_by_source_basis"]}
    assert shown["internal"] == "restricted"  # the build phase's labor pool
    assert shown["estimate"] != "restricted"
