"""An engineer never gets a labor rate back from the labor money it is shown (review 7 L12), and a
viewer never gets a withheld invoice back from a total it is part of (L13).

L12: from the demo's two batch sheets, the status page and the cross report an engineer read every
phase cost over several roles with each role's hours, the batch totals, the plan's internal figures
(the plan at its 5 decimals, the rework and volume variance) and the planned hours per role; exact
least squares over them gave all six rates of ``[[labor_rates]]``. ``attack`` does that solve here
(exact, over ``Fraction``) from everything the engineer's copies print; with the guard
(report/rate_guard.py) no rate is determined, and with the guard switched off the same attack
recovers every rate — the test's own breakage, showing the attack is strong enough to matter.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning")]

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")
RATES = {"data_prep": 260, "training_engineering": 380, "platform_support": 310, "business_eval": 190,
         "project_coordination": 250, "vendor": 310}  # the demo's [[labor_rates]] expected rates
W = "restricted"


@pytest.fixture
def guard_cache():
    from trainledger.report import rate_guard

    rate_guard._CACHE.clear()
    yield rate_guard
    rate_guard._CACHE.clear()


def num(x) -> Fraction | None:
    if x is None or x == W or isinstance(x, bool):
        return None
    try:
        return Fraction(str(x))
    except (ValueError, ZeroDivisionError):
        return None


def engineer_copies(root, role: str = "engineer") -> dict:
    """Everything ``role`` is given of the demo's labor: both sheets (as ``sheet --format json``), each
    batch's status page (status and review, as ``/batches/B/status`` in JSON) and the cross report."""
    from trainledger.model.restricted import resolve
    from trainledger.report import access, cross, cross_render
    from trainledger.service import Workspace
    from trainledger.web import views

    with Workspace.open(root) as wsp:
        sheets = {b: json.loads(json.dumps(access.for_role(wsp.sheet(b), role)[0], default=str)) for b in BATCHES}
        status = {b: json.loads(json.dumps(resolve(views.plan_status(wsp, b), role)[0], default=str))
                  for b in BATCHES}
        report = json.loads(json.dumps(cross_render.as_json(cross.build(wsp, cross.Scope()), role), default=str))
        batches = json.loads(json.dumps(resolve(views.batches(wsp), role)[0], default=str))
    return {"sheets": sheets, "status": status, "cross": report, "batches": batches}


def equations(c: dict) -> list[tuple[dict[str, Fraction], Fraction]]:
    """(hours per role, amount) of every labor figure the copies print as a number (expected band)."""
    eqs = []
    for b, s in c["sheets"].items():
        total: dict[str, Fraction] = {}
        rework: dict[str, Fraction] = {}
        for p in s["labor_by_phase"]:
            h = {r["role"]: Fraction(r["hours"]) for r in p["roles"]}
            for r, x in h.items():
                total[r] = total.get(r, 0) + x
                if p["phase"] == "rework":
                    rework[r] = rework.get(r, 0) + x
            for cost in p["cost"] if isinstance(p["cost"], list) else []:
                if (v := num(cost.get("expected"))) is not None:
                    eqs.append((h, v))
        internal = [r for r in s["totals_by_basis"] if r["basis"] == "internal"]
        pva = s.get("plan_vs_actual") or {}
        figs = [r.get("expected") for r in internal]
        figs += [r.get("expected") for k in ("ac", "eac") for r in pva.get(k) or [] if r["basis"] == "internal"]
        figs += [r.get("expected") for r in (s.get("balance") or {}).get("left", {}).get("labor", [])]
        figs += [r["expected"] for bt in c["cross"].get("batches", []) if bt.get("batch") == b
                 for r in bt.get("totals", []) if r.get("basis") == "internal"]
        figs += [r["expected"] for bt in c["batches"]["batches"] if bt["id"] == b
                 for r in bt["totals_by_basis"] if r["basis"] == "internal"]
        eqs += [(total, v) for x in figs if (v := num(x)) is not None]
        if not pva:
            continue
        lines = {ln["line"]: ln for ln in pva["variance_lines"] if ln["basis"] == "internal"}
        plan_lines = {pl["id"]: pl for pl in pva["plan_lines"] if pl["basis"] == "internal"}
        planned = {k.partition(":")[2]: ln["quantities"] for k, ln in lines.items() if k.startswith("labor:")}
        plan_h = {r: Fraction(q["planned_quantity"]) for r, q in planned.items()}
        rework_h = {r: Fraction(q["rework_quantity"]) - Fraction(plan_lines[f"labor:{r}"]["rework_allowance"])
                    for r, q in planned.items()}
        unplanned = {r: x for r, x in total.items() if r not in planned}
        for r in unplanned:
            if r in rework:
                rework_h[r] = rework_h.get(r, 0) + rework[r]
        volume_h = {r: Fraction(plan_lines[f"labor:{r}"]["efficiency"]) * (Fraction(q["work_done"])
                                                                           - Fraction(q["planned_work"]))
                    for r, q in planned.items()}
        for r, x in unplanned.items():
            volume_h[r] = volume_h.get(r, 0) + x - rework.get(r, 0)
        variances = [v for v in pva.get("variance") or [] if v["basis"] == "internal"]
        st = c["status"][b]
        variances += [v for v in ((st.get("review") or {}).get("variance") or []) if v["basis"] == "internal"]
        plans = [r.get("expected") for r in pva.get("plan") or [] if r["basis"] == "internal"]
        plans += [r.get("expected") for r in ((st.get("status") or {}).get("plan") or []) if r["basis"] == "internal"]
        for v in variances:
            plans.append(v.get("plan"))
            for part, h in (("rework", rework_h), ("volume", volume_h)):
                if (x := num(v.get(part))) is not None:
                    eqs.append((h, x))
            if (x := num(v.get("actual"))) is not None:
                eqs.append((total, x))
        eqs += [(plan_h, v) for x in plans if (v := num(x)) is not None]
    return eqs


def solve(eqs) -> dict[str, Fraction]:
    """The unknowns the equations determine, exactly (Gauss-Jordan over Fraction on [A | y])."""
    roles = sorted({r for h, _ in eqs for r in h})
    rows = [[h.get(r, Fraction(0)) for r in roles] + [y] for h, y in eqs]
    pivots, i = [], 0
    for j in range(len(roles)):
        k = next((k for k in range(i, len(rows)) if rows[k][j] != 0), None)
        if k is None:
            continue
        rows[i], rows[k] = rows[k], rows[i]
        rows[i] = [x / rows[i][j] for x in rows[i]]
        for k2 in range(len(rows)):
            if k2 != i and rows[k2][j] != 0:
                f = rows[k2][j]
                rows[k2] = [a - f * b for a, b in zip(rows[k2], rows[i], strict=True)]
        pivots.append(j)
        i += 1
    out = {}
    for n, j in enumerate(pivots):
        if all(rows[n][m] == 0 for m in range(len(roles)) if m != j):
            out[roles[j]] = rows[n][-1]
    return out


def test_an_engineer_solves_no_rate_from_every_labor_figure_it_is_shown(demo_pristine, guard_cache):
    copies = engineer_copies(demo_pristine)
    eqs = equations(copies)
    assert len(eqs) >= 8, "the engineer still sees the phase costs and the batch totals"
    assert solve(eqs) == {}
    s = copies["sheets"][BATCHES[0]]
    assert s["access"]["rate_guard"]["withheld"], "the sheet names what the guard withheld, and why"
    assert "give a rate back" in s["access"]["rate_guard"]["note"]
    pva = s["plan_vs_actual"]
    assert [r["expected"] for r in pva["plan"] if r["basis"] == "internal"] == [W]  # the plan's 17156.73035


def test_without_the_guard_the_same_attack_recovers_every_rate(demo_pristine, guard_cache, monkeypatch):
    monkeypatch.setattr(guard_cache, "decide", lambda forms: guard_cache.NONE)
    got = solve(equations(engineer_copies(demo_pristine)))
    assert got == {r: Fraction(v) for r, v in RATES.items()}


def test_finance_sees_every_labor_figure_as_before(demo_pristine, guard_cache):
    fin = engineer_copies(demo_pristine, "finance")
    s = fin["sheets"][BATCHES[0]]
    assert "access" not in s and "rate_guard" not in s
    pva = s["plan_vs_actual"]
    assert [r["expected"] for r in pva["plan"] if r["basis"] == "internal"] == ["17156.73035"]
    assert [v["rework"] for v in pva["variance"] if v["basis"] == "internal"] == ["3225.00"]
    assert solve(equations(fin)) == {r: Fraction(v) for r, v in RATES.items()}  # finance may: it sees the rates


def test_the_guard_decides_on_the_demos_forms(demo_pristine, guard_cache):
    from trainledger.service import Workspace

    with Workspace.open(demo_pristine) as wsp:
        forms = guard_cache.forms(wsp)
        g = guard_cache.guard(wsp)
    every = [r for rows in forms.values() for r in rows]
    assert {k[0] for k in guard_cache.identified(every)} == set(RATES)  # all of them together: every rate
    assert g.withheld and not guard_cache.identified(list(g.published))
    assert len(forms["phase"]) == 4 and len(forms["total"]) >= 2


def test_identified_is_exact_row_space_membership(guard_cache):
    F = Fraction
    a, b, c = ("a", "X"), ("b", "X"), ("c", "X")
    ident = guard_cache.identified
    assert ident([{a: F(2), b: F(3)}]) == set()
    assert ident([{a: F(2), b: F(3)}, {a: F(1), b: F(1)}]) == {a, b}
    assert ident([{a: F(1), b: F(1), c: F(1)}, {a: F(1), b: F(1)}]) == {c}  # total minus a phase
    assert ident([{a: F(1, 3), b: F(2, 3)}, {a: F(2, 3), b: F(4, 3)}]) == set()  # proportional: rank 1
    assert ident([{a: F(5)}]) == {a}


def test_a_workspace_of_one_role_and_one_phase_behaves_as_today(guard_cache, monkeypatch):
    from decimal import Decimal

    from trainledger.report import access

    class Ledger:
        def labor_hours(self):
            return [("b1", "CNY", "run/training_engineering", "assumed", Decimal("12"), True)]

    class Wsp:
        ledger = Ledger()

    monkeypatch.setattr(guard_cache, "plan_forms", lambda wsp, hours: [])
    forms = guard_cache.forms(Wsp())
    assert forms == {"phase": [], "plan": [], "total": []}  # one role's figures: withheld by their own rule
    assert guard_cache.decide(forms).withheld == ()
    sheet = {"totals_by_basis": [{"basis": "internal", "evidence": "assumed", "low": "3000.00",
                                  "expected": "4560.00", "high": "5400.00", "currency": "CNY"}],
             "labor_by_phase": [{"phase": "run", "hours": "12", "cost": [{"expected": "4560.00", "currency": "CNY"}],
                                 "roles": [{"role": "training_engineering", "hours": "12",
                                            "cost": [{"expected": "4560.00", "currency": "CNY"}]}]}]}
    eng, d = access.for_role(sheet, "engineer")
    assert eng["labor_by_phase"][0]["cost"] == W and eng["totals_by_basis"][0]["expected"] == W
    assert "rate_guard" not in eng["access"]
    fin, _ = access.for_role(sheet, "finance")
    assert fin["totals_by_basis"][0]["expected"] == "4560.00"


def test_a_two_role_phase_with_its_total_stays_shown(guard_cache):
    F = Fraction
    forms = {"phase": [{("a", "X"): F(3), ("b", "X"): F(2)}], "total": [{("a", "X"): F(3), ("b", "X"): F(2)}],
             "plan": [{("a", "X"): F(10), ("b", "X"): F(1)}]}
    g = guard_cache.decide(forms)
    assert g.withheld == ("plan",)  # the plan beside the phase gives both rates; the phase alone none
    assert guard_cache.decide({"phase": forms["phase"], "total": forms["total"]}).withheld == ()


# --- L13: a viewer and a withheld invoice ------------------------------------------------------------

def test_a_viewer_cannot_read_the_invoice_from_the_total_it_is_part_of(demo_pristine, guard_cache):
    view = engineer_copies(demo_pristine, "viewer")
    fin = engineer_copies(demo_pristine, "finance")
    b = BATCHES[1]
    ext = {(e["evidence"], e["currency"]) for e in fin["sheets"][b]["external"]}
    assert ("contract", "USD") in ext  # LabelWorks' 3,400.00: the batch's only USD line
    for who, c in (("viewer", view), ("finance", fin)):
        s = c["sheets"][b]
        rows = [r for r in s["totals_by_basis"] if (r["evidence"], r["currency"]) in ext and r["basis"] != "internal"]
        assert rows
        sections = [x for row in s["sections"] for x in row["sections"] if x["section"] == "external"]
        listed = [r for bt in c["batches"]["batches"] if bt["id"] == b for r in bt["totals_by_basis"]
                  if r["basis"] == "billed"]
        crossed = [r for bt in c["cross"]["batches"] if bt.get("batch") == b for r in bt["totals"]
                   if r.get("basis") == "billed"]
        if who == "viewer":
            assert {r["expected"] for r in rows} == {W}
            assert {x["amount"] for x in sections} == {W}
            assert {r["total"] for r in s["sections"] if any(x["section"] == "external" for x in r["sections"])} == {W}
            assert {r["expected"] for r in listed} == {W} and {r["expected"] for r in crossed} == {W}
        else:
            assert "3400.00" in {r["expected"] for r in rows}
            assert {"6500.00", "3400.00"} <= {x["amount"] for x in sections}
            assert W not in {r["expected"] for r in listed} | {r["expected"] for r in crossed}
