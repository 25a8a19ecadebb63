"""The balance view (天平) of a batch sheet: resource consumption against delivery investment, with
the assumptions drawer's sensitivity underneath. Built from the sheet dict alone (pure; no ledger).

    left        what the batch consumed: compute (GPU-hours and money per basis and currency),
                storage (GiB-months and money per basis), labor hours (internal basis), external
                services (per currency, with evidence)
    right       what it delivered: earned value per basis (``plan_vs_actual``), reusable assets with
                their monthly carrying cost, unknowns removed (range before → measured after, and
                how much the range shrank), lessons from failed work (the retry chains' cost)
    sensitivity per assumption, how far the balance's money moves (per basis and currency, never
                summed) when it goes to its low or high — read from the ranges the sheet already
                carries; ``None`` ("not modelled") where the sheet has no range to read it from

Money stays decimal text per basis and currency; nothing here adds two bases.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from trainledger import fmt
from trainledger.model.vocab import rank

Z = Decimal(0)


def _d(x: Any) -> Decimal:
    return fmt.dec(x) or Z


def _money_rows(acc: dict[tuple[str, str], dict[str, Decimal]]) -> list[dict[str, Any]]:
    b = rank("basis")
    return [{"basis": basis, "currency": cur, **{k: format(x, "f") for k, x in a.items()}}
            for (basis, cur), a in sorted(acc.items(), key=lambda kv: (b(kv[0][0]), kv[0][1]))]


def _add(a: dict[str, Decimal], m: dict[str, str]) -> None:
    for k in ("low", "expected", "high"):
        a[k] += _d(m.get(k, m["expected"]))


def consumption(s: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    compute: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    hours: dict[str, Decimal] = defaultdict(Decimal)
    for r in s.get("compute_by_state", []):
        hours[r["basis"]] += _d(r["gpu_hours"] if r["gpu_hours"] is not None else r.get("view_gpu_hours"))  # K7
        for m in r.get("amounts", []) if r.get("valued", True) else []:
            _add(compute[(r["basis"], m["currency"])], m)
    comp = _money_rows(compute)
    for row in comp:
        row["gpu_hours"] = format(hours[row["basis"]], "f")
    for basis in sorted(set(hours) - {r["basis"] for r in comp}, key=rank("basis")):  # hours with no price
        comp.append({"basis": basis, "currency": "", "gpu_hours": format(hours[basis], "f"), "expected": None})
    storage: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    gib: dict[str, Decimal] = defaultdict(Decimal)
    for r in s.get("storage_by_class", []):
        gib[r["basis"]] += _d(r["gib_months"])
        for m in r.get("cost", []):
            _add(storage[(r["basis"], m["currency"])], m)
    stor = _money_rows(storage)
    for row in stor:
        row["gib_months"] = format(gib[row["basis"]], "f")
    labor: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    labor_hours = sum((_d(p["hours"]) for p in s.get("labor_by_phase", [])), Z)
    for p in s.get("labor_by_phase", []):
        for m in p.get("cost", []):
            _add(labor[("internal", m["currency"])], m)
    lab = _money_rows(labor) or [{"basis": "internal", "currency": "", "expected": None}]
    for row in lab:
        row["hours"] = format(labor_hours, "f")
    ext: dict[tuple[str, str], dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for e in s.get("external", []):
        _add(ext[(e["evidence"], e["currency"])], e)
    external = [{"evidence": k[0], "currency": k[1], **{n: format(x, "f") for n, x in a.items()}}
                for k, a in sorted(ext.items(), key=lambda kv: (rank("evidence")(kv[0][0]), kv[0][1]))]
    return {"compute": comp, "storage": stor, "labor": lab, "external": external}


def investment(s: dict[str, Any]) -> dict[str, Any]:
    p = s.get("plan_vs_actual") or {}
    ev = [r for r in p.get("ev", []) if _d(r["expected"]) or _d(r["high"])]
    carrying: dict[str, Decimal] = defaultdict(Decimal)
    for a in p.get("reusable_assets", []):
        carrying[a["currency"]] += _d(a["monthly_cost"])
    unknowns = []
    for u in p.get("unknowns_removed", []):
        before = _d(u["before"]["high"]) - _d(u["before"]["low"])
        unknowns.append({**u, "width_before": format(before, "f"),
                         "shrank": "1" if before else None})  # measured after: a point, the range is gone
    lessons: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for c in s.get("retry_chains", []):
        for m in c["failure_cost"]:  # what the failures cost (not the progress their checkpoints kept)
            lessons[(m.get("basis", "billed"), m["currency"])] += _d(m["amount"])
    return {"planned": bool(p), "earned_value": ev,
            "assets": {"count": len(p.get("reusable_assets", [])),
                       "monthly": [{"currency": c, "amount": format(x, "f")} for c, x in sorted(carrying.items())]},
            "unknowns": unknowns,
            "lessons": {"chains": len(s.get("retry_chains", [])),
                        "lost_gpu_hours": format(sum((_d(c["lost_gpu_hours"]) for c in s.get("retry_chains", [])), Z),
                                                 "f"),
                        "cost": [{"basis": b, "currency": c, "amount": format(x, "f")}
                                 for (b, c), x in sorted(lessons.items(), key=lambda kv: (rank("basis")(kv[0][0]),
                                                                                           kv[0][1]))]}}


def _moves(ranges: list[dict[str, str]], basis: str) -> list[dict[str, str]]:
    acc: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for m in ranges:
        _add(acc[m["currency"]], m)
    return [{"basis": basis, "currency": c, "low": format(a["low"] - a["expected"], "f"),
             "high": format(a["high"] - a["expected"], "f")} for c, a in sorted(acc.items())]


def sensitivity(s: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per assumption: ``moves`` (per basis and currency: low − expected, high − expected) or
    ``None`` when not modelled. Storage prices move one range together on the sheet, so they get one
    joint row, and each tier says it is not modelled alone."""
    out = []
    storage_seen = False
    for a in s.get("assumptions", []):
        name = a["name"]
        moves = None
        if name.startswith("value of a queued GPU-hour"):
            moves = _moves([r for r in s.get("totals_by_basis", []) if r["basis"] == "queued"], "queued")
        elif name.startswith("labor rate: "):
            role = name.removeprefix("labor rate: ")
            moves = _moves([m for p in s.get("labor_by_phase", []) for r in p.get("roles", []) if r["role"] == role
                            for m in r.get("cost", [])], "internal") or None
        elif name.startswith("storage price "):
            storage_seen = True
        out.append({"name": name, "low": a.get("low"), "high": a.get("high"), "unit": a.get("unit"),
                    "evidence": a["evidence"], "moves": moves, "joint": False})
    if storage_seen:
        ranges = [m for r in s.get("storage_by_class", []) if r["basis"] == "estimate" for m in r.get("cost", [])]
        out.append({"name": "storage prices (all tiers together)", "low": None, "high": None, "unit": None,
                    "evidence": "assumed", "moves": _moves(ranges, "estimate") or None, "joint": True})
    return out


def build(s: dict[str, Any]) -> dict[str, Any]:
    return {"left": consumption(s), "right": investment(s), "sensitivity": sensitivity(s)}


def of_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """``sheet`` with its ``balance``: as ``build_sheet`` made it (report/sheet.py ``with_balance``), or —
    a sheet built by hand or read back without one — built here once from its full figures; the
    gate (report/access.py ``for_role``) marks and resolves it with the rest of the sheet."""
    if isinstance(sheet.get("balance"), dict):
        return sheet
    from trainledger.report.access import for_role

    return {**sheet, "balance": build(for_role(sheet)[0])}
