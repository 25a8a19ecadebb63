"""Status and review never give an engineer or a viewer one role's labor rate (review3 G10).

A plan with one labor role: its internal total is that role's hours × its rate, and the plan's hours
per Mtoken are printed beside it, so plan internal ÷ (work × hours) is the rate. The demo's batch A
gets a plan v2 holding only ``labor:training_engineering`` at a distinctive 317.43 CNY/h; then the
internal plan / AC / EV / EAC, the variance by basis and the plan versions' totals are one person's
cost (review/status.py ``labor_kind``, report/plan_access.py ``mark_internal``) in ``status --role`` and
``review --role`` (text and JSON) and on the dashboard's status page (HTML and JSON): neither the
totals nor the rate are in an engineer's or a viewer's bytes, finance's hold them. The demo's own
plan (three roles) is withheld too, by the rate guard (review 7 L12); its AC stays, as the sheet's.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from tests.web.roles_ws import run_cli
from trainledger.demo.scenario import BATCH_A

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

RATE = Decimal("317.43")
ROLE = "labor:training_engineering"


def _one_role_plan(root) -> None:
    from trainledger.review import service
    from trainledger.review.plan import Plan, Rng
    from trainledger.service import Workspace

    with Workspace.open(root) as wsp:
        _pid, plan = service.latest_plan(wsp, BATCH_A)
        body = plan.as_dict()
        line = next(x for x in body["lines"] if x["id"] == ROLE)
        line["price"] = {**line["price"], **Rng(RATE, RATE, RATE).as_dict()}
        body["lines"] = [x for x in body["lines"] if x["category"] != "labor" or x["id"] == ROLE]
        service._store(wsp, Plan.from_dict(body), "one labor role (G10)")


def _figures(st: dict) -> list[str]:
    """The internal totals as the JSON and the text print them (exact and rounded, with separators)."""
    out = []
    kinds = ("plan", "ac", "ev", "eac") if st.get("ac_labor_kind") != "labor_cost_phase" else ("plan", "ev", "eac")
    for k in kinds:  # the AC of several roles' actuals is the sheet's phase total (status.py ac_labor_kind)
        for r in st[k]:
            if r["basis"] == "internal" and Decimal(r["expected"]):
                d = Decimal(r["expected"])
                out += [r["expected"], f"{d.quantize(Decimal('0.01')):,f}"]
    if "ac" not in kinds:  # a figure equal to that AC (an EAC with no work left) is no secret either
        ac = {x for r in st["ac"] if r["basis"] == "internal" for x in _two(r["expected"])}
        out = [f for f in out if f not in ac]
    return out


def _two(x: str) -> set[str]:
    d = Decimal(x)
    return {x, format(d.quantize(Decimal("0.01")), "f"), f"{d.quantize(Decimal('0.01')):,f}"}


def _client(root, role):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    tok = run_cli("--workspace", root, "token", "create", "--role", role).strip().splitlines()[-1]
    return TestClient(create_app(root, require_token=True)), {"Authorization": f"Bearer {tok}"}


def _outputs(root, role) -> list[str]:
    ws = ["--workspace", root]
    out = [run_cli(*ws, cmd, BATCH_A, "--role", role, *extra) for cmd in ("status", "review")
           for extra in ((), ("--json",), ("--lang", "zh-CN"))]
    client, h = _client(root, role)
    with client as c:
        for headers in ({}, {"accept": "application/json"}):
            r = c.get(f"/batches/{BATCH_A}/status", headers={**h, **headers})
            assert r.status_code == 200, r.text[:300]
            out.append(r.text)
    return out


def test_one_role_plan_hides_its_totals_and_rate(ws):
    _one_role_plan(ws)
    finance = json.loads(run_cli("--workspace", ws, "status", BATCH_A, "--role", "finance", "--json"))
    assert finance["labor_kind"] == "labor_cost_person"
    figures = _figures(finance)
    plan = next(r for r in finance["plan"] if r["basis"] == "internal")
    assert Decimal(plan["expected"]) > 0 and len(figures) >= 4  # plan and EV at least
    hours = Decimal(plan["expected"]) / RATE  # by hand: the plan's one role is hours × 317.43
    assert hours * RATE == Decimal(plan["expected"])
    for role in ("engineer", "viewer"):
        for text in _outputs(ws, role):
            assert str(RATE) not in text and not [f for f in figures if f in text], (role, text[:400])
        st = json.loads(run_cli("--workspace", ws, "status", BATCH_A, "--role", role, "--json"))
        assert next(r for r in st["plan"] if r["basis"] == "internal")["expected"] == "restricted"
        assert st["access"]["withheld"]["labor_cost_person"] >= 8
        rv = json.loads(run_cli("--workspace", ws, "review", BATCH_A, "--role", role, "--json"))
        assert all(v["plan"] == "restricted" for v in rv["variance"] if v["basis"] == "internal")
        billed = next(r for r in st["plan"] if r["basis"] == "billed")  # the other bases stay
        assert Decimal(billed["expected"]) > 0
    shown = "\n".join(_outputs(ws, "finance"))  # the same search finds them in finance's copies
    assert all(f in shown for f in figures)


def test_several_roles_plan_is_withheld_by_the_rate_guard_its_ac_stays(ws):
    """The demo's plan has three labor roles, but beside the phase costs its plan and variance give
    every rate back (review 7 L12): the rate guard (report/rate_guard.py) makes them one person's
    cost, so an engineer reads neither; the AC (the batch's labor total) stays, as the sheet's."""
    admin = json.loads(run_cli("--workspace", ws, "status", BATCH_A, "--json"))
    assert admin["labor_kind"] == "labor_cost_person" and admin["ac_labor_kind"] == "labor_cost_phase"
    figures = _figures(admin)
    assert figures
    ac = next(r["expected"] for r in admin["ac"] if r["basis"] == "internal")
    engineer = json.loads(run_cli("--workspace", ws, "status", BATCH_A, "--role", "engineer", "--json"))
    assert {r["expected"] for k in ("plan", "ev", "eac") for r in engineer[k]
            if r["basis"] == "internal"} == {"restricted"}
    assert engineer["access"]["withheld"]["labor_cost_person"] >= 4
    assert next(r["expected"] for r in engineer["ac"] if r["basis"] == "internal") == ac
    client, h = _client(ws, "engineer")
    with client as c:
        page = c.get(f"/batches/{BATCH_A}/status", headers={**h, "accept": "application/json"}).text
    assert not [f for f in figures if "," not in f and f in page] and ac in page
    viewer = run_cli("--workspace", ws, "status", BATCH_A, "--role", "viewer", "--json")
    assert not [f for f in figures if f in viewer]  # a viewer sees no labor cost (model/restricted.py)


def test_an_internal_alert_quotes_the_totals_so_it_is_marked_too():
    from trainledger.model.restricted import resolve
    from trainledger.report.plan_access import mark_plan

    def alert(basis):
        return {"key": f"spend:{basis}:CNY:50", "value": "2013.984",
                "text": {"en": f"{basis} CNY: actual 1,007.00 reached 50 % of plan expected 2,013.98"},
                "driver": {"en": "efficiency -1,360.80"}}

    st = {"labor_kind": "labor_cost_person", "alerts": [alert("internal"), alert("billed")],
          "ranges": [{"basis": "internal", "currency": "CNY", "plan": {"low": "1", "expected": "2", "high": "3"}}]}
    eng, d = resolve(mark_plan(st), "engineer")
    first = eng["alerts"][0]
    assert first["value"] == "restricted"  # the text keeps its words, each figure it quotes masked
    assert first["text"]["en"] == "internal CNY: actual restricted reached 50 % of plan expected restricted"
    assert first["driver"]["en"] == "efficiency restricted"
    assert eng["alerts"][1] == alert("billed") and eng["ranges"][0]["plan"]["expected"] == "restricted"
    assert d.withheld["labor_cost_person"] == 6
    fin, _ = resolve(mark_plan(st), "finance")  # the stored text, whole, for finance
    assert fin["alerts"][0] == alert("internal")
    several, _ = resolve(mark_plan({**st, "labor_kind": "labor_cost_phase"}), "engineer")
    assert several["alerts"][0] == alert("internal") and several["ranges"] == st["ranges"]
