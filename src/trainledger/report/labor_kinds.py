"""The kind of a labor figure (model/restricted.py): one person's cost or a phase's. A labor total that
sums one valued role is that role's rate times its hours, so it is as restricted as one person's cost
(labor_cost_person); a total over several roles is labor_cost_phase.

    strictest, labor_kind_of   the kind the fewest roles may see; a status or review's ``labor_kind``
    phase_kind                 a labor phase's cost: one role's when at most one of its roles is valued,
                               or when the workspace's phase costs shown together would give a rate back
                               (report/rate_guard.py; the sheet's ``rate_guard`` names what it withholds)
    mark_labor_totals          the sheet's ``totals_by_basis`` labor (internal) rows: one role's cost when
                               the batch has one valued role (or its internal total splits by evidence),
                               else labor_cost_phase — applied by the sheet's gate (report/access.py
                               ``for_role``) and by every page handing the sheet out (web/views.py), not by
                               ``mark_sheet``
"""

from __future__ import annotations

from typing import Any

from trainledger.model.restricted import restrict
from trainledger.report.field_kinds import AMOUNT_KEYS

KIND_ORDER = ("labor_cost_person", "labor_cost_phase")  # the strictest first


def strictest(*kinds: str | None) -> str | None:
    """The kind the fewest roles may see among ``kinds`` (None: none named)."""
    return next((k for k in KIND_ORDER if k in kinds), None)


def labor_kind_of(obj: Any) -> str | None:
    """The ``labor_kind`` (review/status.py) of a status or review view model, or of a page holding
    them (web/views.py ``plan_status``): the strictest of those it names."""
    if not isinstance(obj, dict):
        return None
    return strictest(*(x.get("labor_kind") for x in (obj, obj.get("status"), obj.get("review"))
                       if isinstance(x, dict)))


def guarded(sheet: dict[str, Any] | None) -> tuple[str, ...]:
    """The groups of labor figures the sheet's ``rate_guard`` withholds (report/rate_guard.py)."""
    g = (sheet or {}).get("rate_guard")
    return tuple(g.get("withheld") or ()) if isinstance(g, dict) else ()


def phase_kind(p: dict[str, Any], withheld: tuple[str, ...] = ()) -> str:
    """A labor phase's cost: one role's when at most one of its roles is valued, else the phase's —
    one person's too when the guard withholds the phase costs (``withheld``: ``guarded``)."""
    valued = sum(1 for r in p.get("roles", []) if r.get("cost"))
    return "labor_cost_phase" if valued > 1 and "phase" not in withheld else "labor_cost_person"


def mark_labor_totals(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with its ``totals_by_basis`` labor rows marked (``_labor_totals``, with the plan's
    AC kind: the same figure as the plan's AC): done by the gate and by every page that hands the
    sheet out (web/views.py), not by ``mark_sheet`` — the sheet's own totals stay plain figures for
    the code that reads them."""
    if "totals_by_basis" not in sheet:
        return sheet
    pva = sheet.get("plan_vs_actual") if isinstance(sheet.get("plan_vs_actual"), dict) else {}
    totals = _labor_totals(sheet["totals_by_basis"] or [], sheet.get("labor_by_phase") or [],
                           pva.get("ac_labor_kind"), guarded(sheet))
    return {**sheet, "totals_by_basis": totals}


def _labor_totals(totals: list[dict[str, Any]], phases: list[dict[str, Any]],
                  plan_ac_kind: str | None = None, withheld: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """``totals_by_basis`` with its labor (internal) rows marked: one role's cost when the batch has at
    most one valued role, or when the internal basis splits over several evidence rows (which roles
    each holds is not in the sheet: fail closed); else labor_cost_phase, as a phase of several roles."""
    kind = strictest(totals_kind(totals, phases, withheld), plan_ac_kind)
    if kind is None:
        return totals
    return [dict(r, **{k: restrict(r.get(k), kind) for k in AMOUNT_KEYS if k in r})
            if r.get("basis") == "internal" else r for r in totals]


def totals_kind(totals: list[dict[str, Any]], phases: list[dict[str, Any]],
                withheld: tuple[str, ...] = ()) -> str | None:
    """The kind of the sheet's internal totals (``_labor_totals``; None: it has none): one person's
    too when the guard withholds the batch totals (``withheld``)."""
    rows = [r for r in totals if r.get("basis") == "internal"]
    if not rows:
        return None
    roles = {r.get("role") for p in phases for r in p.get("roles", []) if r.get("cost")}
    one = len(roles) <= 1 or len(rows) > 1 or "total" in withheld
    return "labor_cost_person" if one else "labor_cost_phase"
