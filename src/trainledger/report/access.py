"""Which fields of the report view models are restricted (model/restricted.py), and the one gate
every renderer passes a view model through before printing it.

``mark_sheet(sheet)`` wraps the sheet's sensitive fields in ``Restricted``; ``build_sheet`` calls it,
and so does ``for_role`` (it is idempotent), so a sheet reloaded from JSON or built by hand is
marked too. ``for_role(sheet, role, lang)`` is what renderers print: every ``Restricted`` resolved
for the role (its value, or the word "restricted" / "受限"), plus ``access`` naming what was withheld.

Marked in the sheet:

    totals_by_basis[] (basis internal)      labor_cost_person when the batch has one valued role (or its
                                            internal total splits by evidence), else labor_cost_phase —
                                            marked by ``for_role`` (the gate), not by ``mark_sheet``
    labor_by_phase[].roles[].cost           labor_cost_person (hours × one role's rate)
    labor_by_phase[].cost                   labor_cost_phase, or labor_cost_person when the phase
                                            has one valued role (then it is that role's cost)
    plan_vs_actual                          ``mark_plan``: a labor role's variance line, a price
                                            or rate unknown; plan_lines[].price: labor_rate for a
                                            labor line, unit_price otherwise; its internal figures
                                            (plan / AC / EV / EAC, bridge, spend curve, alerts) by
                                            its ``labor_kind`` and each alert's own (``mark_internal``)
    assumptions[]                           low / high / value / note: the row's ``value_kind``
                                            (the engine sets it where a capacity's, price book's or
                                            contract's price is made: unit_price; a labor rate:
                                            labor_rate); a row stored without it, by its name
                                            (``labor rate: ROLE``, a price, a capacity's rate)
    any key named as a unit price           unit_price (``mark_prices``: price_per_gpu_hour of
                                            compute_by_state and capacity, price_per_gib_month …)
    external[]                              low / expected / high: vendor_amount
    allocation[] (pool, share)              ``pool_kind``: an invoice's pool vendor_amount, a labor
                                            (internal) pool labor_cost_phase
    conservation … unattributed_by_reason   an invoice's row (detail "invoice …"): vendor_amount
    conservation.by_currency[]              a currency an invoice is billed in (``invoiced``, or an
                                            invoice's row in its bucket): billed_total, attributed, the
                                            unattributed holding the invoice (vendor_kinds.py)

The balance view (``balance_for``) is built from the full sheet (``build_sheet`` puts it in the
sheet as ``balance``) and marked by ``mark_balance`` (also from ``mark_sheet``): its labor money,
external money and each assumption's sensitivity follow the fields they come from, its earned value
on the internal basis as the plan section's.

The other view models have their own modules, each marking and resolving its report the same way:

    field_kinds.py      the kind of a field by its name or its cost line: unit prices anywhere, a
                        cost line's amounts, a source row's columns, a quarantined row's reason
    labor_kinds.py      one person's labor cost or a phase's; the sheet's labor totals
    plan_access.py      plan, status and review (``mark_plan``, ``mark_internal``, ``plan_for``)
    text_mask.py        a text quoting restricted figures, masked for a role (``restrict_text``)
    cross_access.py     the cross-batch report (``cross_for_role``, ``cross_by_role``)
    estimate_access.py  the estimate report (``mark_estimate``, ``estimate_for``)
"""

from __future__ import annotations

import re
from typing import Any

from trainledger.model.restricted import ADMIN, Disclosure, allows, check_role, resolve, restrict
from trainledger.report.field_kinds import AMOUNT_KEYS, INVOICE_DETAIL, mark_prices, pool_kind
from trainledger.report.labor_kinds import (
    guarded,
    labor_kind_of,
    mark_labor_totals,
    phase_kind,
    strictest,
    totals_kind,
)
from trainledger.report.plan_access import mark_internal, mark_plan
from trainledger.report.vendor_kinds import mark_conservation

PRICE_ASSUMPTIONS = ("value of a queued GPU-hour", "storage price ", "price ", "capacity price", "rate card")
LABOR_RATE = "labor rate: "
CAPACITY_RATE = re.compile(r"^capacity \S+: (rate card|amortized hardware)")  # engine/capacity.py's rows


def _assumption_kind(a: dict[str, Any]) -> str | None:
    """A drawer row's restricted kind: the one the engine gave it where the price was made
    (``value_kind``); else, for an assumption stored before it did, by its name."""
    if a.get("value_kind"):
        return str(a["value_kind"])
    name = str(a.get("name", ""))
    if name.startswith(LABOR_RATE):
        return "labor_rate"
    if name.startswith(PRICE_ASSUMPTIONS) or " price" in name or CAPACITY_RATE.match(name):
        return "unit_price"
    return None


ASSUMPTION_VALUES = ("low", "high", "value", "value_zh", "note", "note_zh")  # a note quotes a price's inputs


def mark_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with its sensitive fields wrapped (a shallow copy of what changes)."""
    s = dict(sheet)
    withheld = guarded(sheet)  # the rate guard (report/rate_guard.py): what shown together gives a rate
    labor = []
    for p in s.get("labor_by_phase") or []:
        roles = [dict(r, cost=restrict(r.get("cost"), "labor_cost_person")) for r in p.get("roles", [])]
        labor.append(dict(p, cost=restrict(p.get("cost"), phase_kind(p, withheld)), roles=roles))
    s["labor_by_phase"] = labor
    if "totals_by_basis" in s:
        s["totals_by_basis"] = invoice_totals(s["totals_by_basis"], s.get("external"))
    if isinstance(s.get("sections"), list):
        s["sections"] = [invoice_sections(x) for x in s["sections"]]
    s["external"] = [dict(e, **{k: restrict(e.get(k), "vendor_amount") for k in AMOUNT_KEYS if k in e})
                     for e in s.get("external") or []]
    out = []
    for a in s.get("assumptions") or []:
        kind = _assumption_kind(a)
        out.append(dict(a, **{k: restrict(a[k], kind) for k in ASSUMPTION_VALUES if k in a}) if kind else a)
    s["assumptions"] = out
    if "allocation" in s:
        s["allocation"] = [dict(a, **{k: restrict(a.get(k), kind) for k in ("pool", "share") if k in a})
                           if (kind := pool_kind(str(a.get("category", "")), str(a.get("source_basis", ""))))
                           else a for a in s["allocation"] or []]
    if isinstance(s.get("conservation"), dict):
        s["conservation"] = _mark_invoices(s["conservation"])
    if s.get("plan_vs_actual"):  # its AC is the totals' actual labor: the stricter of the two rules, on both
        pva = s["plan_vs_actual"]
        both = strictest(pva.get("ac_labor_kind") or pva.get("labor_kind"),
                         totals_kind(s.get("totals_by_basis") or [], sheet.get("labor_by_phase") or [], withheld))
        s["plan_vs_actual"] = mark_plan(dict(pva, ac_labor_kind=both) if both else pva)
    if isinstance(s.get("balance"), dict):  # built from the full sheet (report/balance.py): marked as its sources
        s["balance"] = mark_balance(s["balance"], sheet)
    return mark_prices(s)


def invoice_totals(totals: Any, external: Any) -> Any:
    """The sheet's ``totals_by_basis`` with each row an invoice is part of marked vendor_amount (review
    7 L13): the rest of a cash total is printed beside it (the compute by state, the storage, a bill's
    tagged rows), so the total minus what is printed is the invoice — or it is the invoice alone. An
    invoice names its evidence and currency, not its basis: every row of those but the internal
    (labor, marked by its own rule) is taken."""
    if not isinstance(totals, list) or not external:
        return totals
    held = {(str(e.get("evidence")), str(e.get("currency"))) for e in external if isinstance(e, dict)}
    return [dict(r, **{k: restrict(r[k], "vendor_amount") for k in AMOUNT_KEYS if k in r})
            if isinstance(r, dict) and r.get("basis") != "internal"
            and (str(r.get("evidence")), str(r.get("currency"))) in held else r for r in totals]


def invoice_sections(row: Any) -> Any:
    """A currency's cash sections (``sections``): the external section is the invoices' sum, and the
    currency's total beside the others' sections gives it back: both vendor_amount (review 7 L13)."""
    if not isinstance(row, dict) or not any(isinstance(x, dict) and x.get("section") == "external"
                                            for x in row.get("sections") or []):
        return row
    return dict(row, total=restrict(row.get("total"), "vendor_amount"),
                sections=[dict(x, amount=restrict(x.get("amount"), "vendor_amount"))
                          if isinstance(x, dict) and x.get("section") == "external" else x
                          for x in row.get("sections") or []])


def _mark_invoices(cons: dict[str, Any]) -> dict[str, Any]:
    """The conservation records with an invoice's row of the unattributed bucket (its detail names the
    invoice: one vendor amount) marked vendor_amount, and the cash totals of a currency an invoice is
    billed in (report/vendor_kinds.py ``mark_conservation``)."""
    out = dict(cons)
    for key in ("by_currency", "amortized_by_currency"):
        if isinstance(cons.get(key), list):
            out[key] = [dict(r, unattributed_by_reason=[
                dict(x, amount=restrict(x.get("amount"), "vendor_amount"))
                if str(x.get("detail", "")).startswith(INVOICE_DETAIL) else x
                for x in r.get("unattributed_by_reason") or []]) if isinstance(r, dict) and
                "unattributed_by_reason" in r else r for r in cons[key]]
    if isinstance(out.get("by_currency"), list):  # an invoice's currency's totals give it back (L13)
        out["by_currency"] = mark_conservation(out["by_currency"])
    return out


def for_role(sheet: dict[str, Any], role: str = ADMIN, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """The sheet as ``role`` may see it, and what that showed and withheld. ``access`` is added when
    something was withheld (the JSON says so; Markdown and HTML print ``note``)."""
    check_role(role)
    s, d = resolve(mark_labor_totals(mark_sheet(sheet)), role, lang)
    guard = s.pop("rate_guard", None)  # what the rate guard withheld: named to a role it withheld from
    if d.withheld:
        s["access"] = d.as_dict()
        if guard and rate_guarded(role):
            s["access"]["rate_guard"] = {**guard, "note": guard_note(lang)}
    return s, d


def rate_guarded(role: str) -> bool:
    """True for a role the rate guard withholds from: it sees phase costs but not one person's cost."""
    return allows(role, "labor_cost_phase") and not allows(role, "labor_cost_person")


def guard_note(lang: str = "en") -> str:
    """Why labor figures of several roles are withheld (report/rate_guard.py), in ``lang``."""
    from trainledger.report.i18n import t

    return t("rate_guard_note", lang)


def guard_line(s: dict[str, Any]) -> str:
    """The rate guard's note of a resolved sheet (``for_role``), or "" — the Markdown and HTML notes."""
    acc = s.get("access") if isinstance(s.get("access"), dict) else {}
    g = acc.get("rate_guard") if isinstance(acc.get("rate_guard"), dict) else {}
    return str(g.get("note") or "")


def balance_for(full: dict[str, Any], role: str, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """The balance view (report/balance.py) of the full sheet, restricted as its sources are
    (``mark_balance``) and resolved for ``role``."""
    from trainledger.report import balance

    return resolve(mark_balance(balance.build(full), full), role, lang)


def mark_balance(bl: dict[str, Any], sheet: dict[str, Any]) -> dict[str, Any]:
    """A built balance view (report/balance.py ``build``) of ``sheet`` (full or already marked: the
    kinds are read from names and roles, never from values) with its fields marked: labor money as
    the phases' cost, external money vendor_amount, each assumption's low / high its drawer row's
    kind and a labor rate's moves one role's cost, its earned value on the internal basis as the
    plan section's (``mark_internal``), the unknowns as the plan's (``mark_plan``). Idempotent."""
    phases = [p for p in sheet.get("labor_by_phase") or [] if p.get("cost")]
    # the batch's labor total: one person's beside a one-role phase (the total minus the others gives
    # it), or when the rate guard withholds the totals (report/rate_guard.py)
    labor_kind = "labor_cost_person" if any(phase_kind(p) == "labor_cost_person" for p in phases) \
        or "total" in guarded(sheet) else "labor_cost_phase"
    left = dict(bl.get("left") or {})
    left["labor"] = [dict(r, **{k: restrict(r[k], labor_kind) for k in AMOUNT_KEYS if r.get(k) is not None})
                     for r in left.get("labor") or []]
    left["external"] = [dict(r, **{k: restrict(r[k], "vendor_amount") for k in AMOUNT_KEYS if k in r})
                        for r in left.get("external") or []]
    drawer = {str(a.get("name", "")): a for a in sheet.get("assumptions") or []}
    sens = []
    for r in bl.get("sensitivity") or []:
        kind = _assumption_kind(drawer.get(r["name"], r)) if not r.get("joint") else "unit_price"
        if kind:
            moves_kind = "labor_cost_person" if kind == "labor_rate" else None
            r = dict(r, low=restrict(r.get("low"), kind), high=restrict(r.get("high"), kind),
                     moves=restrict(r["moves"], moves_kind) if moves_kind else r["moves"])
        sens.append(r)
    plan_kind = labor_kind_of(sheet.get("plan_vs_actual"))  # EV internal of one role's plan: that role's cost
    right = dict(bl.get("right") or {})
    right.update(unknowns=mark_plan(right.get("unknowns") or []),
                 earned_value=mark_internal(right.get("earned_value") or [], plan_kind))
    return {**bl, "left": left, "right": right, "sensitivity": sens}
