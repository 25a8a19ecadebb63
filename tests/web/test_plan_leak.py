"""A plan with one labor role never gives an engineer or a viewer that role's rate (#10, review 3 G10).

The demo's batch A gets a plan v2 holding only ``labor:training_engineering`` at a distinctive
317.43 CNY/h and 40,000 Mtoken of planned work (so EV < plan and a decision's cost to go is not 0);
its alerts are checked and a decision answers them. Then the plan's internal total is hours × 317.43:
divided by the plan's hours it is the rate, and so are EV, the variance parts of the internal basis,
a spend alert's text and a decision's cost to go. Every copy an engineer or a viewer can fetch —
the batch sheet in md, json, html, xlsx (every XML part) and csv, the dashboard's batch, status,
decisions, alerts and report pages (HTML and JSON), ``status`` / ``review`` / ``report --role`` —
holds none of those figures (exact, rounded, with separators); finance's copies hold them, so the
search can fail. Figures equal to the internal actual cost are left out of the search: the actuals
are six roles' timesheets, which an engineer's sheet shows as a phase total.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import zipfile
from decimal import Decimal

import pytest

from tests.web.roles_ws import run_cli
from trainledger.demo.scenario import BATCH_A

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

RATE = Decimal("317.43")
ROLE = "labor:training_engineering"
PAGES = ("/batches", f"/batches/{BATCH_A}", f"/batches/{BATCH_A}/status", f"/batches/{BATCH_A}/decisions",
         "/alerts", f"/alerts?batch={BATCH_A}", "/report")
FORMATS = ("md", "json", "html", "csv", "xlsx")


@pytest.fixture(scope="module")
def one_role(web_demo, tmp_path_factory):
    """A copy of the demo with the one-role plan v2, its alerts and a decision answering them."""
    from trainledger.review import service
    from trainledger.review.plan import Plan, Rng
    from trainledger.service import Workspace

    root = tmp_path_factory.mktemp("plan-leak") / "ws"
    shutil.copytree(web_demo, root)
    with Workspace.open(root) as wsp:
        _pid, plan = service.latest_plan(wsp, BATCH_A)
        body = plan.as_dict()
        line = next(x for x in body["lines"] if x["id"] == ROLE)
        line["price"] = {**line["price"], **Rng(RATE, RATE, RATE).as_dict()}
        body["lines"] = [x for x in body["lines"] if x["category"] != "labor" or x["id"] == ROLE]
        body["work"] = {**body["work"], "low": "30000", "expected": "40000", "high": "50000"}
        service._store(wsp, Plan.from_dict(body), "one labor role (#10)")
        answered = service.check(wsp, BATCH_A)
        service.decide(wsp, BATCH_A, action="stop", reason="one role", by="alice", approver="bob", answers=answered)
    return root


def _variants(x: str) -> set[str]:
    d = Decimal(x)
    q = d.quantize(Decimal("0.01"))
    return {x, f"{q:f}", f"{q:,f}"}


@pytest.fixture(scope="module")
def searched(one_role) -> tuple[set[str], dict]:
    return _secrets(one_role)


def _secrets(root) -> tuple[set[str], dict]:
    """Every rendering of the figures that give the rate away, from finance's own JSON."""
    from trainledger.review import service
    from trainledger.service import Workspace

    st = json.loads(run_cli("--workspace", root, "status", BATCH_A, "--role", "finance", "--json"))
    rv = json.loads(run_cli("--workspace", root, "review", BATCH_A, "--role", "finance", "--json"))
    with Workspace.open(root) as wsp:
        decision = service.decisions(wsp, BATCH_A)[-1]
    figures = [r[k] for part in ("plan", "ev", "eac") for r in st[part] if r["basis"] == "internal"
               for k in ("low", "expected", "high")]
    figures += [v[p] for v in rv["variance"] if v["basis"] == "internal" for p in ("plan", "price", "volume",
                                                                                    "efficiency")]
    figures += [c[k] for o in decision["options"] for c in o["cost_to_go"] if c["basis"] == "internal"
                for k in ("low", "expected", "high")]
    seen_as_phase = set().union(*(_variants(r[k]) for r in st["ac"] if r["basis"] == "internal"
                                  for k in ("low", "expected", "high")))
    secrets = {v for f in figures if abs(Decimal(f)) >= 100 for v in _variants(f)} - seen_as_phase
    kept = [f for f in figures if abs(Decimal(f)) >= 100 and _variants(f) - seen_as_phase]
    return secrets | {str(RATE)}, {"status": st, "decision": decision, "figures": kept}


def _unzipped(data: bytes) -> str:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "\n".join(z.read(n).decode("utf-8", "replace") for n in z.namelist())


@pytest.fixture(scope="module")
def copies(one_role):
    """Everything each role can fetch about batch A, by role: the sheet as the dashboard's downloads
    and ``sheet --role`` write it (report/render.py, xlsx.py, csv_lines.py over one built sheet), the
    dashboard's pages (one app: the view models are built once and resolved per role), and the
    ``status`` / ``review`` / ``report --role`` JSON."""
    from starlette.testclient import TestClient

    from trainledger.report import cross, cross_render
    from trainledger.report.csv_lines import to_csv
    from trainledger.report.plan_access import plan_for
    from trainledger.report.render import render
    from trainledger.report.xlsx import build_workbook
    from trainledger.review import service
    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    with Workspace.open(one_role) as wsp:
        sheet, lines = wsp.sheet(BATCH_A), wsp.ledger.cost_lines(BATCH_A)
        st, rv = service.status(wsp, BATCH_A), service.review(wsp, BATCH_A)
        rep = cross.build(wsp, cross.scope(wsp, None, None, None, "month"))
    out: dict[str, dict] = {}
    with TestClient(create_app(one_role, require_token=True)) as c:
        for role in ("finance", "engineer", "viewer"):
            got = out[role] = {}
            for fmt in ("md", "json", "html"):
                for lang in ("en", "zh-CN"):
                    got[f"sheet.{fmt} {lang}"] = render(sheet, fmt, lang, role)
            got["sheet.csv"] = to_csv(lines, role)
            buf = io.BytesIO()
            build_workbook(sheet, lines, role).wb.save(buf)
            got["xlsx bytes"], got["sheet.xlsx"] = buf.getvalue(), _unzipped(buf.getvalue())
            got["status --json"] = json.dumps(plan_for(st, role)[0], ensure_ascii=False)
            got["review --json"] = json.dumps(plan_for(rv, role)[0], ensure_ascii=False)
            got["report --json"] = cross_render.to_json(rep, role)
            tok = run_cli("--workspace", one_role, "token", "create", "--role", role).strip().splitlines()[-1]
            h = {"Authorization": f"Bearer {tok}"}
            for path in PAGES:
                for accept in ("text/html", "application/json"):
                    r = c.get(path, headers={**h, "accept": accept})
                    assert r.status_code == 200, (path, r.text[:300])
                    got[f"{path} {accept}"] = r.text
            r = c.get(f"/batches/{BATCH_A}/sheet.xlsx", headers=h)  # the download: the same workbook
            assert r.status_code == 200
            got["download xlsx"] = _unzipped(r.content)
    return out


def test_finance_sees_the_figures_searched_for(searched, copies):
    """The search below can fail: each figure (in one of its renderings) is in finance's copies."""
    secrets, fin = searched
    assert fin["status"]["labor_kind"] == "labor_cost_person" and len(secrets) >= 20
    plan = next(r for r in fin["status"]["plan"] if r["basis"] == "internal")
    assert Decimal(plan["expected"]) > 0  # one role's hours × 317.43: 317.43 × (16.8 h + 40,000 × 0.001222 h)
    shown = "\n".join(v for v in copies["finance"].values() if isinstance(v, str))
    assert plan["expected"] in shown and f"{Decimal(plan['expected']).quantize(Decimal('0.01')):,f}" in shown
    assert str(RATE) in copies["finance"]["sheet.json en"] and str(RATE) in copies["finance"]["sheet.xlsx"]
    missing = [f for f in fin["figures"] if not {v for v in _variants(f) if v in shown}]
    assert not missing, missing


@pytest.mark.parametrize("role", ["engineer", "viewer"])
def test_engineer_and_viewer_never_see_the_one_roles_totals(searched, copies, role):
    secrets, _fin = searched
    leaks = {name: sorted(s for s in secrets if s in text)
             for name, text in copies[role].items() if isinstance(text, str)}
    assert not {k: v for k, v in leaks.items() if v}
    _withheld_but_readable(copies[role], role)


def _withheld_but_readable(copies: dict, role: str) -> None:
    """What the restricted copy says instead: the word, the sentence around it, the rest intact."""
    import openpyxl

    sheet = json.loads(copies["sheet.json en"])["plan_vs_actual"]
    internal = next(r for r in sheet["plan"] if r["basis"] == "internal")
    assert internal["expected"] == "restricted" and sheet["labor_kind"] == "labor_cost_person"
    billed = next(r for r in sheet["plan"] if r["basis"] == "billed")
    assert Decimal(billed["expected"]) > 0  # the other bases stay
    alerts = json.loads(copies[f"/alerts?batch={BATCH_A} application/json"])["alerts"]
    spend = next(a for a in alerts if a["key"] == "spend:internal:CNY:50" and a["plan_version"] == 2)
    assert spend["text"]["en"].startswith("internal CNY: actual restricted reached 50 % of plan expected restricted")
    assert "受限" in spend["text"]["zh-CN"] and "50 %" in spend["text"]["zh-CN"]
    decision = json.loads(copies[f"/batches/{BATCH_A}/decisions application/json"])["decisions"][-1]
    go = next(c for o in decision["options"] if o["action"] == "continue" for c in o["cost_to_go"]
              if c["basis"] == "internal")
    assert go["expected"] == "restricted"
    html = copies["sheet.html en"]
    chart = html[html.index('id="chart-spend-csa-sft-2026-11-a-internal-CNY"'):]
    chart = chart[:chart.index("</svg>")]
    assert 'class="restricted"' in chart and 'class="plan"' not in chart and 'class="eac"' not in chart
    assert "restricted for this role, not drawn" in html[html.index('id="chart-bridge-internal-CNY"'):]
    wb = openpyxl.load_workbook(io.BytesIO(copies["xlsx bytes"]))
    row = next(r for r in wb["Variance"].iter_rows(min_row=2) if r[0].value == "internal")
    assert all(c.value == "restricted" for c in row[2:15]), role
    billed_row = next(r for r in wb["Variance"].iter_rows(min_row=2) if r[0].value == "billed")
    assert str(billed_row[10].value).startswith("=")  # the other rows keep their live formulas
    cell = re.compile(rf"(?<![A-Z0-9$])\$?[A-Z]{{1,3}}\${{0,1}}{row[0].row}(?!\d)")
    reading = [c.value for r in wb["Variance"].iter_rows() for c in r
               if isinstance(c.value, str) and c.value.startswith("=") and cell.search(c.value)]
    assert not reading, "no formula reads the withheld row"


def test_an_older_one_role_version_keeps_its_alerts_restricted():
    """An alert quotes the figures of the plan version it was raised on: a version of one labor role
    stays one person's cost though the latest plan has several (and an unknown version fails closed).
    An alert of the latest version is one person's cost too: it quotes the figures as they were when it
    was raised, a snapshot of the hours then (report/rate_guard.py, review 7 L12)."""
    from trainledger.model.restricted import resolve
    from trainledger.report.plan_access import mark_plan
    from trainledger.report.plan_section import with_kinds

    def alert(version):
        return {"key": "spend:internal:CNY:50", "plan_version": version, "value": "2013.98", "bound": "50 %",
                "text": {"en": "internal CNY: actual 1,007.00 reached 50 % of plan expected 2,013.98",
                         "zh-CN": "内部人力 CNY：实际 1,007.00 已达计划预期 2,013.98 的 50 %"}}

    kinds = {1: "labor_cost_person", 2: "labor_cost_phase"}
    page = {"labor_kind": "labor_cost_phase", "alerts": with_kinds([alert(1), alert(2), alert(None)], kinds,
                                                                    "labor_cost_phase")}
    eng, seen = resolve(mark_plan(page), "engineer")
    old, latest, unknown = eng["alerts"]
    assert old["text"]["en"] == "internal CNY: actual restricted reached 50 % of plan expected restricted"
    assert old["text"]["zh-CN"] == "内部人力 CNY：实际 受限 已达计划预期 受限 的 50 %"
    assert old["value"] == "restricted" and old["bound"] == "50 %"
    assert latest["text"] == old["text"] and latest["value"] == "restricted"  # a snapshot: withheld as well
    assert latest["bound"] == "50 %"
    assert unknown["value"] == "restricted"
    assert seen.withheld["labor_cost_person"] == 9
    fin, _ = resolve(mark_plan(page), "finance")
    assert [a["text"] for a in fin["alerts"]] == [alert(v)["text"] for v in (1, 2, None)]


@pytest.mark.parametrize("role", ["engineer", "viewer"])
def test_the_actual_labor_total_is_shown_alike_in_totals_and_plan(copies, role):
    """The plan's internal AC is the batch's actual labor — the figure the totals show. Both follow the
    actuals' roles (six here: a phase's cost, which an engineer may see), not the one-role plan: an
    engineer sees both, a viewer neither (review 4 H2 leftover: the AC was withheld beside the total)."""
    sheet = json.loads(copies[role]["sheet.json en"])
    total = next(r for r in sheet["totals_by_basis"] if r["basis"] == "internal")
    ac = next(r for r in sheet["plan_vs_actual"]["ac"] if r["basis"] == "internal")
    assert [ac[k] for k in ("low", "expected", "high")] == [total[k] for k in ("low", "expected", "high")]
    st = json.loads(copies[role]["status --json"])
    page = json.loads(copies[role][f"/batches/{BATCH_A}/status application/json"])["status"]
    for got in (st, page):
        row = next(r for r in got["ac"] if r["basis"] == "internal")
        assert row["expected"] == ac["expected"], (role, row)
        assert next(r for r in got["plan"] if r["basis"] == "internal")["expected"] == "restricted"
        assert next(r for r in got["ev"] if r["basis"] == "internal")["expected"] == "restricted"
    if role == "engineer":
        assert Decimal(ac["expected"]) > 0 and st["ac_labor_kind"] == "labor_cost_phase"
    else:
        assert ac["expected"] == "restricted"


def test_a_one_role_actual_withholds_both():
    """The other way round: when the totals rule says one person (here the internal total splits by
    evidence), the plan's AC is withheld with it, whatever the status named."""
    from trainledger.report.access import for_role

    rows = [{"basis": "internal", "evidence": e, "cash": False, "low": x, "expected": x, "high": x,
             "currency": "CNY", "lines": 1} for e, x in (("measured", "400.00"), ("assumed", "600.00"))]
    sheet = {"totals_by_basis": rows,
             "labor_by_phase": [{"phase": "run", "cost": [], "roles": [{"role": "a", "cost": [{"expected": "1"}]},
                                                                      {"role": "b", "cost": [{"expected": "1"}]}]}],
             "plan_vs_actual": {"plan_version": 1, "labor_kind": "labor_cost_phase",
                                "ac_labor_kind": "labor_cost_phase",
                                "ac": [{"basis": "internal", "currency": "CNY", "low": "1000.00",
                                        "expected": "1000.00", "high": "1000.00"}]}}
    eng, _ = for_role(sheet, "engineer")
    assert eng["plan_vs_actual"]["ac"][0]["expected"] == "restricted"
    assert {r["expected"] for r in eng["totals_by_basis"]} == {"restricted"}
    fin, _ = for_role(sheet, "finance")
    assert fin["plan_vs_actual"]["ac"][0]["expected"] == "1000.00"
