"""Which figures of the plan, status and review view models are restricted (review/service.py,
report/plan_section.py, the dashboard's status, alerts and decisions pages): ``mark_plan`` wraps them,
``plan_for`` resolves a status or review for a role (``status --role``, ``review --role``).

A variance line of one labor role is that role's cost; an unknown removed or a lesson whose name is a
price or a rate keeps its range restricted; a plan line's price is labor_rate or unit_price; every
figure of the internal basis (plan / AC / EV / EAC, the bridge, a spend curve, an alert's value and
text) takes the record's ``labor_kind`` (report/labor_kinds.py; ``mark_internal``). The dashboard's
pages of alerts and decisions (web/pages.py) name each alert's and decision's ``labor_kind`` (its plan
version's, report/plan_section.py ``with_kinds``); an alert's text is shown with its figures masked
(report/text_mask.py ``restrict_text``). The AC, EAC, variance and alerts of a basis and currency an
invoice is part of are vendor_amount (report/vendor_kinds.py ``mark_vendor``, from ``mark_plan``).
"""

from __future__ import annotations

import re
from typing import Any

from trainledger.model.restricted import ADMIN, Disclosure, check_role, resolve, restrict
from trainledger.report.field_kinds import mark_prices
from trainledger.report.labor_kinds import labor_kind_of, strictest
from trainledger.report.text_mask import restrict_text
from trainledger.report.vendor_kinds import mark_vendor

PRICE_NAME = re.compile(r"\b(price|rate)s?\b", re.I)
LINE_MONEY = ("plan", "actual", "price", "volume", "efficiency", "rework", "other", "not_split")


def _unknown_kind(name: str) -> str | None:
    if not PRICE_NAME.search(name):
        return None
    return "labor_rate" if name.startswith("labor") else "unit_price"


def mark_plan(obj: Any) -> Any:
    """Plan, status and review view models (review/service.py, report/plan_section.py), marked: a
    variance line of one labor role (``labor:ROLE``) is that role's cost (plan and actual are hours ×
    its rates); an unknown removed or a lesson whose
    name is a price or a rate keeps its range and measured value restricted. ``unplanned:labor`` (the
    roles the plan did not have) is restricted as one role's cost: it often is one role. A status or
    review (or a page holding one) that names its ``labor_kind`` has its internal figures marked so
    (``mark_internal``); so has any record inside it that names its own (an alert, a decision of an
    older plan version: web/pages.py, report/plan_section.py) — the stricter of the two. The figures an
    invoice is part of (the record's ``vendor_groups``) are vendor_amount: report/vendor_kinds.py."""
    kind = labor_kind_of(obj)
    out = mark_internal(_older_alerts(_mark_plan(_ac_apart(obj))), kind)
    return mark_vendor(_ac_back(out, obj, kind))  # an invoice's groups (report/vendor_kinds.py)


def _holders(obj: Any) -> list[tuple[str | None, dict]]:
    """The status records in ``obj`` (itself, or a page's ``status``) that hold an AC list."""
    if not isinstance(obj, dict):
        return []
    return [(where, x) for where, x in ((None, obj), ("status", obj.get("status")))
            if isinstance(x, dict) and isinstance(x.get("ac"), list)]


def _ac_apart(obj: Any) -> Any:
    """``obj`` without its AC lists: they are marked by their own kind (``_ac_back``)."""
    out = obj
    for where, x in _holders(obj):
        bare = {k: v for k, v in x.items() if k != "ac"}
        out = bare if where is None else {**out, where: bare}
    return out


def _ac_back(out: Any, obj: Any, kind: str | None) -> Any:
    """The AC lists put back in their place, their internal rows marked ``ac_labor_kind`` (the actual
    total's kind: review/status.py ``ac_labor_kind``, the sheet's totals rule); a record naming none
    keeps the status' ``labor_kind`` (fail closed)."""
    for where, x in _holders(obj):
        ac_kind = x.get("ac_labor_kind") or strictest(kind, x.get("labor_kind"))
        marked = mark_internal(x["ac"], ac_kind)
        holder = out if where is None else out[where]
        placed = {k: (marked if k == "ac" else holder[k]) for k in x if k == "ac" or k in holder}
        placed.update({k: v for k, v in holder.items() if k not in placed})
        out = placed if where is None else {**out, where: placed}
    return out


def _older_alerts(obj: Any) -> Any:
    """A status (``status --role``) lists the alerts of every plan version: one that names no
    ``labor_kind`` of its own (web/pages.py and report/plan_section.py name it) quotes the figures as
    they were when it was raised — a snapshot of the hours then (report/rate_guard.py), and an older
    version's kind is not known here: one person's cost (fail closed)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("alerts"), list) or "plan_version" not in obj:
        return obj
    return {**obj, "alerts": [dict(a, labor_kind="labor_cost_person") if isinstance(a, dict) and
                              "labor_kind" not in a else a for a in obj["alerts"]]}


INTERNAL_MONEY = ("low", "expected", "high", "plan", "actual", "price", "volume", "efficiency", "rework",
                  "other", "not_split", "ac", "ev", "eac", "value", "undated")
INTERNAL_ALERT = re.compile(r"^[a-z_]+:internal:")  # an alert on the internal basis ("spend:internal:CNY:50")


def mark_internal(obj: Any, kind: str | None) -> Any:
    """Every figure of the internal basis (labor) marked ``kind`` (or the stricter ``labor_kind`` a
    record names for itself and what it holds): a record with ``basis`` internal — plan / AC / EV /
    EAC, the variance by basis, a plan version's totals, a decision's cost to go and sunk cost, a
    spend curve's points, plan and EAC — its amounts (or each amount of a range under one); an alert
    on the internal basis, its value and bound, and each figure its text and driver quote (in both
    languages; the words stay: ``restrict_text``)."""
    if isinstance(obj, list):
        return [mark_internal(x, kind) for x in obj]
    if not isinstance(obj, dict):
        return obj
    kind = strictest(kind, obj.get("labor_kind"))
    out = {k: mark_internal(v, kind) for k, v in obj.items()}
    if not kind:
        return out
    if out.get("basis") == "internal" and not ("id" in out and "unit" in out and "line" not in out):
        # (a plan line's inputs — price, quantity per Mtoken, fixed quantity — are no total: _mark_plan)
        for k in INTERNAL_MONEY:
            if isinstance(out.get(k), dict):
                out[k] = {x: restrict(y, kind) for x, y in out[k].items()}
            elif k in out:
                out[k] = restrict(out[k], kind)
        if isinstance(out.get("points"), list):  # a spend curve: the cumulative internal cost per day
            # a day's step is that day's timesheet rows, often one person's hours × one rate, whatever
            # roles the batch has (review 7 L15: 11 h on 11-03 and a step of 4,180 gave 380.00)
            step = strictest(kind, "labor_cost_person")
            out["points"] = [dict(p, cumulative=restrict(p.get("cumulative"), step)) if isinstance(p, dict) else p
                             for p in out["points"]]
    if isinstance(out.get("key"), str) and INTERNAL_ALERT.match(out["key"]):
        for k in ("value", "plan"):
            if k in out:
                out[k] = restrict(out[k], kind)
        if "bound" in out:  # eac_high's bound is the plan's high; a spend bound's "50 %" stays
            out["bound"] = restrict_text(out["bound"], kind, "en")
        for k in ("text", "driver"):  # both quote the basis' figures
            if isinstance(out.get(k), dict):
                out[k] = {x: restrict_text(y, kind, x) for x, y in out[k].items()}
            elif isinstance(out.get(k), str):
                out[k] = restrict_text(out[k], kind, "en")
    return out


def _mark_plan(obj: Any) -> Any:
    if isinstance(obj, list):
        return [_mark_plan(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {k: _mark_plan(v) for k, v in obj.items()}
    line = out.get("line")
    if isinstance(line, str) and line.startswith(("labor:", "unplanned:labor")):
        kind = "labor_cost_person"  # unplanned:labor too: it may be one role's hours
        for k in LINE_MONEY:
            if k in out:
                out[k] = restrict(out[k], kind)
        for k in ("efficiency_by_state", "rework_by"):
            if isinstance(out.get(k), dict):
                out[k] = {x: restrict(y, kind) for x, y in out[k].items()}
    if "price" in out and "id" in out and "unit" in out and "line" not in out:  # a plan line's inputs
        out["price"] = restrict(out["price"], "labor_rate" if out.get("category") == "labor" else "unit_price")
    name = out.get("name")
    if isinstance(name, str) and ("before" in out or "after" in out) and (kind := _unknown_kind(name)):
        for side in ("before", "after"):
            if isinstance(out.get(side), dict):
                out[side] = {k: restrict(v, kind) if k in ("low", "expected", "high", "value") else v
                             for k, v in out[side].items()}
        if "width_before" in out:
            out["width_before"] = restrict(out["width_before"], kind)
    return out


def plan_for(obj: dict[str, Any], role: str = ADMIN, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """A status or review view model (review/service.py) as ``role`` may see it."""
    import json

    check_role(role)
    shown, seen = resolve(mark_prices(mark_plan(json.loads(json.dumps(obj, default=str)))), role, lang)
    if seen.withheld:
        shown["access"] = seen.as_dict()
    return shown, seen
