"""The estimate report (``Estimate.to_dict()``, `trainledger estimate --role`) as each role may see it:
its labor lines and totals, and the price inputs of its assumptions drawer and sensitivity table."""

from __future__ import annotations

from typing import Any

from trainledger.model.restricted import ADMIN, Disclosure, check_role, resolve, restrict

LABOR_PRICE = "price labor:"


def _price_kind(name: str) -> str | None:
    """An estimate's price input: a labor rate (``price labor:ROLE``) or a unit price (``price ITEM``)."""
    if name.startswith(LABOR_PRICE):
        return "labor_rate"
    return "unit_price" if name.startswith("price ") else None


def mark_estimate(d: dict[str, Any]) -> dict[str, Any]:
    """An estimate report (``Estimate.to_dict()``) with its sensitive fields wrapped: each labor line
    (one role in one phase: its hours × its rate) is labor_cost_person; the labor totals are
    labor_cost_phase over several roles, labor_cost_person when one role makes them; the price
    inputs of the assumptions drawer and the sensitivity table (range, value, and the note that
    quotes the rate card) are labor_rate or unit_price."""
    out = dict(d)
    cost = dict(d.get("cost") or {})
    labor_lines = cost.get("labor_lines") or {}
    cost["labor_lines"] = {k: {p: restrict(v.get(p), "labor_cost_person") for p in v} for k, v in labor_lines.items()}

    def total(x: dict | None, n: int) -> dict | None:
        kind = "labor_cost_person" if n == 1 else "labor_cost_phase"
        return None if x is None else {p: restrict(v, kind) for p, v in x.items()}

    if "labor" in cost:
        cost["labor"] = total(cost["labor"], len(labor_lines))
    out["cost"] = cost
    final = dict(d.get("cost_final_run") or {})
    if "labor" in final:
        final["labor"] = total(final["labor"], sum(1 for k in labor_lines if k.startswith("run:")))
        out["cost_final_run"] = final
    kvp = d.get("known_vs_placeholder")
    if isinstance(kvp, dict) and isinstance(kvp.get("mean"), dict) and "labor" in kvp["mean"]:
        kind = "labor_cost_person" if len(labor_lines) == 1 else "labor_cost_phase"
        out["known_vs_placeholder"] = dict(kvp, mean=dict(kvp["mean"], labor=restrict(kvp["mean"]["labor"], kind)))
    drawer = []
    for a in d.get("assumptions") or []:
        kind = _price_kind(str(a.get("name", "")))
        drawer.append(dict(a, **{k: restrict(a[k], kind) for k in ("low", "high", "value", "value_zh", "note",
                                                                    "note_zh") if k in a}) if kind else a)
    out["assumptions"] = drawer
    sens = []
    for s in d.get("sensitivity") or []:
        kind = _price_kind(str(s.get("name", "")))
        sens.append(dict(s, **{k: restrict(s[k], kind) for k in ("input_p10", "input_p90") if k in s}) if kind else s)
    out["sensitivity"] = sens
    return out


def estimate_for(d: dict[str, Any], role: str = ADMIN, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """The estimate report as ``role`` may see it (``access`` added when something was withheld)."""
    check_role(role)
    e, seen = resolve(mark_estimate(d), role, lang)
    if seen.withheld:
        e["access"] = seen.as_dict()
    return e, seen
