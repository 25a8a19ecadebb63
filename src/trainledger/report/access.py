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

The cross-batch report (``cross_for_role``, report/cross.py's view model): a figure of labor cost
(basis internal) is labor_cost_person when it sums one role's lines — a batch, or a batch's month,
whose labor is one person's — else labor_cost_phase; a batch's labor plan rows and spend curve take
the batch's kind (``BatchRow.labor_kind``); a total across batches is withheld with any batch it sums
(the total minus the others would give it away).

A cost line (``line_fields``): a labor line's amounts are labor_cost_person (one timesheet row), an
external line's vendor_amount. A source row (``source_values``): unit-price and rate columns are
unit_price; its ``flags`` when a note quotes such a column. A quarantined or flagged row
(``quarantine_row``): its reason and remedy when they quote a unit price or rate (unit_price, or
labor_rate in a labor table) or an invoice's amount (vendor_amount); its raw text for a bill or an
invoice, or when its reason quotes one. The balance view (``balance_for``) is built from the full
sheet (``build_sheet`` puts it in the sheet as ``balance``) and marked by ``mark_balance`` (also from
``mark_sheet``): its labor money, external money and each assumption's sensitivity follow the fields
they come from, its earned value on the internal basis as the plan section's.

The dashboard's pages of alerts and decisions (web/pages.py) name each alert's and decision's
``labor_kind`` (its plan version's, report/plan_section.py ``with_kinds``); an alert's text is
shown with its figures masked (``restrict_text``). The cross report cached for every role
(``cross_by_role``) is each role's own copy (model/restricted.py ``ByRole``).
"""

from __future__ import annotations

import re
from typing import Any

from trainledger.model.restricted import (
    ADMIN,
    Disclosure,
    Restricted,
    Withheld,
    allows,
    check_role,
    is_withheld,
    resolve,
    restrict,
)

PRICE_ASSUMPTIONS = ("value of a queued GPU-hour", "storage price ", "price ", "capacity price", "rate card")
LABOR_RATE = "labor rate: "
PRICE_COLUMN = re.compile(r"(unit_?price|price|rate)$", re.I)
# A bill row's price terms beside its charge: list and contracted cost, a discount. With the row's
# quantity (FOCUS PricingQuantity 1 on an hourly node row) each is the list or contract price, and
# their gap the discount (review 7 L1), so they are unit_price wherever a source row is shown.
PRICE_TERM_COLUMN = re.compile(r"((list|contracted)_?cost|discount\w*|官网价\w*|原价\w*|优惠\w*|折扣\w*)$", re.I)
AMOUNT_KEYS = ("low", "expected", "high")


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
    older plan version: web/pages.py, report/plan_section.py) — the stricter of the two."""
    kind = labor_kind_of(obj)
    out = mark_internal(_older_alerts(_mark_plan(_ac_apart(obj))), kind)
    return _ac_back(out, obj, kind)


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
    """A status (``status --role``) lists the alerts of every plan version: one raised on an older
    version that names no ``labor_kind`` of its own (web/pages.py and report/plan_section.py name it)
    quotes that version's figures, whose kind is not known here — one person's cost (fail closed)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("alerts"), list) or "plan_version" not in obj:
        return obj
    return {**obj, "alerts": [dict(a, labor_kind="labor_cost_person") if isinstance(a, dict) and
                              "labor_kind" not in a and a.get("plan_version") != obj["plan_version"] else a
                              for a in obj["alerts"]]}


INTERNAL_MONEY = ("low", "expected", "high", "plan", "actual", "price", "volume", "efficiency", "rework",
                  "other", "not_split", "ac", "ev", "eac", "value", "undated")
INTERNAL_ALERT = re.compile(r"^[a-z_]+:internal:")  # an alert on the internal basis ("spend:internal:CNY:50")
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


def masked(text: Any, lang: str) -> Any:
    """``text`` with the money it quotes replaced by the word "restricted" / "受限" (report/text_mask.py:
    an alert's or a driver's money parts; its work, hours, rounds and shares stay)."""
    from trainledger.report import text_mask

    return text_mask.masked(text, lang)


def restrict_text(text: Any, kind: str, lang: str) -> Any:
    """A text that quotes restricted figures: a role that may not see them reads it with its money
    masked (``masked``), the rest of the sentence kept; a text without money stays as it is."""
    if not isinstance(text, str) or isinstance(text, Withheld) or (shown := masked(text, lang)) == text:
        return text
    return Restricted(text, kind, shown)


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


def mark_sheet(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with its sensitive fields wrapped (a shallow copy of what changes)."""
    s = dict(sheet)
    labor = []
    for p in s.get("labor_by_phase") or []:
        roles = [dict(r, cost=restrict(r.get("cost"), "labor_cost_person")) for r in p.get("roles", [])]
        labor.append(dict(p, cost=restrict(p.get("cost"), _phase_kind(p)), roles=roles))
    s["labor_by_phase"] = labor
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
                         totals_kind(s.get("totals_by_basis") or [], sheet.get("labor_by_phase") or []))
        s["plan_vs_actual"] = mark_plan(dict(pva, ac_labor_kind=both) if both else pva)
    if isinstance(s.get("balance"), dict):  # built from the full sheet (report/balance.py): marked as its sources
        s["balance"] = mark_balance(s["balance"], sheet)
    return mark_prices(s)


def _phase_kind(p: dict[str, Any]) -> str:
    """A labor phase's cost: one role's when at most one of its roles is valued, else the phase's."""
    valued = sum(1 for r in p.get("roles", []) if r.get("cost"))
    return "labor_cost_phase" if valued > 1 else "labor_cost_person"


def mark_labor_totals(sheet: dict[str, Any]) -> dict[str, Any]:
    """The sheet with its ``totals_by_basis`` labor rows marked (``_labor_totals``, with the plan's
    AC kind: the same figure as the plan's AC): done by the gate and by every page that hands the
    sheet out (web/views.py), not by ``mark_sheet`` — the sheet's own totals stay plain figures for
    the code that reads them."""
    if "totals_by_basis" not in sheet:
        return sheet
    pva = sheet.get("plan_vs_actual") if isinstance(sheet.get("plan_vs_actual"), dict) else {}
    totals = _labor_totals(sheet["totals_by_basis"] or [], sheet.get("labor_by_phase") or [],
                           pva.get("ac_labor_kind"))
    return {**sheet, "totals_by_basis": totals}


def _labor_totals(totals: list[dict[str, Any]], phases: list[dict[str, Any]],
                  plan_ac_kind: str | None = None) -> list[dict[str, Any]]:
    """``totals_by_basis`` with its labor (internal) rows marked: one role's cost when the batch has at
    most one valued role, or when the internal basis splits over several evidence rows (which roles
    each holds is not in the sheet: fail closed); else labor_cost_phase, as a phase of several roles."""
    kind = strictest(totals_kind(totals, phases), plan_ac_kind)
    if kind is None:
        return totals
    return [dict(r, **{k: restrict(r.get(k), kind) for k in AMOUNT_KEYS if k in r})
            if r.get("basis") == "internal" else r for r in totals]


def totals_kind(totals: list[dict[str, Any]], phases: list[dict[str, Any]]) -> str | None:
    """The kind of the sheet's internal totals (``_labor_totals``; None: it has none)."""
    rows = [r for r in totals if r.get("basis") == "internal"]
    if not rows:
        return None
    roles = {r.get("role") for p in phases for r in p.get("roles", []) if r.get("cost")}
    return "labor_cost_person" if len(roles) <= 1 or len(rows) > 1 else "labor_cost_phase"


def _mark_invoices(cons: dict[str, Any]) -> dict[str, Any]:
    """The conservation records with an invoice's row of the unattributed bucket (its detail names the
    invoice: one vendor amount) marked vendor_amount; the bucket's totals stay."""
    out = dict(cons)
    for key in ("by_currency", "amortized_by_currency"):
        if isinstance(cons.get(key), list):
            out[key] = [dict(r, unattributed_by_reason=[
                dict(x, amount=restrict(x.get("amount"), "vendor_amount"))
                if str(x.get("detail", "")).startswith(INVOICE_DETAIL) else x
                for x in r.get("unattributed_by_reason") or []]) if isinstance(r, dict) and
                "unattributed_by_reason" in r else r for r in cons[key]]
    return out


UNIT_PRICE_KEY = re.compile(r"(^|_)(price_per_|unit_price$)")


def mark_prices(obj: Any) -> Any:
    """Every field named as a unit price, wherever it is (``price_per_gpu_hour``, ``…_price_per_gib_month``,
    ``unit_price``): its value — or a ``{amount, currency}``'s amount — is unit_price."""
    if isinstance(obj, list):
        return [mark_prices(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        if isinstance(k, str) and UNIT_PRICE_KEY.search(k):
            out[k] = dict(v, amount=restrict(v.get("amount"), "unit_price")) if isinstance(v, dict) \
                else restrict(v, "unit_price")
        else:
            out[k] = mark_prices(v)
    return out


def for_role(sheet: dict[str, Any], role: str = ADMIN, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """The sheet as ``role`` may see it, and what that showed and withheld. ``access`` is added when
    something was withheld (the JSON says so; Markdown and HTML print ``note``)."""
    check_role(role)
    s, d = resolve(mark_labor_totals(mark_sheet(sheet)), role, lang)
    if d.withheld:
        s["access"] = d.as_dict()
    return s, d


LINE_KINDS = {"labor": "labor_cost_person", "external": "vendor_amount"}
INVOICE_DETAIL = "invoice "  # an invoice's reason detail (engine/assets.py): its amount is the vendor's


def pool_kind(category: str, source_basis: str) -> str | None:
    """The kind of an allocation pool (and of a batch's share of it) drawn from ``category`` lines of
    ``source_basis``: an invoice's money is vendor_amount; labor (or internal cost, which is labor) is
    labor_cost_phase — a pool sums the timesheet rows of several people."""
    cats = set(category.split("+")) if category else set()
    if "external" in cats:
        return "vendor_amount"
    if "labor" in cats or source_basis == "internal":
        return "labor_cost_phase"
    return None


def line_kind(ln) -> str | None:
    if ln.category == "allocation":  # provenance.rule = allocation/<policy>/<category> (engine/allocation.py)
        return pool_kind(ln.provenance.rule.split("/")[2] if ln.provenance.rule.count("/") >= 2 else "",
                         ln.detail.rpartition("/")[2])
    return LINE_KINDS.get(ln.category)


def line_withheld(ln, role: str) -> bool:
    """True when ``role`` may not see this ``CostLine``'s amounts (the workbook's Lines, the CSV)."""
    kind = line_kind(ln)
    return kind is not None and not allows(role, kind)


def lines_disclosure(lines: list, role: str) -> Disclosure:
    """What listing ``lines`` whole (the workbook's Lines, the CSV) shows and withholds for ``role``."""
    d = Disclosure(role)
    for ln in lines:
        kind = line_kind(ln)
        if kind:
            (d.revealed if allows(role, kind) else d.withheld)[kind] += 1
    return d


def line_fields(d: dict[str, Any], line) -> dict[str, Any]:
    """A cost line's dict (web/views.py ``line_dict``) with its amounts marked; ``line`` is the
    ``CostLine`` (or its category)."""
    kind = LINE_KINDS.get(line) if isinstance(line, str) else line_kind(line)
    if not kind:
        return d
    return dict(d, **{k: restrict(d.get(k), kind) for k in AMOUNT_KEYS if k in d})


def source_values(values: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    """A source row's values (lake or raw file) with unit-price and rate columns marked, and an
    invoice's amount; its ``flags`` too when a note quotes one of them (``note_kind``)."""
    if values is None:
        return None
    out = {}
    for k, v in values.items():
        if PRICE_COLUMN.search(key := k.replace(" ", "")) or (kind != "invoice" and PRICE_TERM_COLUMN.search(key)):
            out[k] = restrict(v, "unit_price")
        elif kind == "invoice" and k.lower() in ("amount", "amount_text"):
            out[k] = restrict(v, "vendor_amount")
        elif k == "flags" and isinstance(v, str) and (nk := notes_kind(_flag_notes(v), _table(kind))):
            out[k] = restrict(v, nk)
        else:
            out[k] = v
    return out


# --- a quarantined or flagged row's reason (web/pages.py quarantine, a source row's flags) ---------
NOTE_COLUMN = re.compile(r"\s*([^:：]{1,80}?)\s*[:：]")  # "ContractedUnitPrice: not a number: '3,17.29'"
ZH_PRICE_COLUMN = re.compile(r"(单价|费率|价格)")
RAW_KINDS = {"bill_lines": "unit_price", "external_services": "vendor_amount"}  # a whole raw row of these tables
STRICTEST = ("labor_rate", "unit_price", "labor_cost_person", "vendor_amount")  # the fewest roles see the first
REASON_KEYS = ("reason", "reason_zh", "remedy", "remedy_zh")


def note_column(note: str) -> str | None:
    """The column a quarantine reason or a row flag is about (its label before the colon), if any."""
    m = NOTE_COLUMN.match(note)
    return m.group(1) if m else None


def note_kind(note: str, table: str | None) -> str | None:
    """The restricted kind of a reason or flag that quotes a sensitive column's value: a unit-price or
    rate column (``ContractedUnitPrice``, ``ListPrice``, ``单价``) is unit_price — labor_rate in a labor
    table —, an invoice's amount vendor_amount; None for any other column."""
    col = note_column(note)
    if col is None:
        return None
    flat = col.replace(" ", "")
    if PRICE_COLUMN.search(flat) or ZH_PRICE_COLUMN.search(flat):
        return "labor_rate" if table == "labor_entries" else "unit_price"
    if table == "external_services" and flat.lower() in ("amount", "amount_text"):
        return "vendor_amount"
    return None


def notes_kind(notes: list[str], table: str | None) -> str | None:
    """The strictest kind among ``notes``' (a reason is one note, a flagged row's reason joins them)."""
    kinds = {k for n in notes if (k := note_kind(n, table))}
    return next((k for k in STRICTEST if k in kinds), None)


def quarantine_row(row: dict[str, Any], table: str | None) -> dict[str, Any]:
    """A quarantined or flagged row of an import (web/pages.py) marked for every renderer: its reason
    and remedy, both languages, when they quote a sensitive column's value (``note_kind``), and its
    raw text when the table's rows carry prices or amounts (``RAW_KINDS``) or the reason quotes one;
    ``columns`` (the columns the reason names) stays readable, so a role that may not see the value
    still learns which column to fix."""
    notes = [str(n) for n in row.get("notes") or []] or [str(row.get("reason") or "")]
    kind = notes_kind(notes, table)
    out = dict(row, columns=[c for n in notes if (c := note_column(n))])
    out.pop("notes", None)
    if kind:
        out.update({k: restrict(row[k], kind) for k in REASON_KEYS if row.get(k) is not None})
    raw_kind = next((k for k in STRICTEST if k in {kind, RAW_KINDS.get(table or "")}), None)
    if "raw" in row and raw_kind:
        out["raw"] = restrict(row["raw"], raw_kind)
    return out


def _flag_notes(text: str) -> list[str]:
    import json

    try:
        notes = json.loads(text) if text.startswith("[") else [text]
    except ValueError:
        return [text]
    return [str(n) for n in notes] if isinstance(notes, list) else [text]


def _table(kind: str) -> str | None:
    from trainledger.ingest import KIND_TABLES

    return KIND_TABLES.get(kind)


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
    labor_kind = "labor_cost_person" if any(_phase_kind(p) == "labor_cost_person" for p in phases) \
        else "labor_cost_phase"
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


def cross_for_role(r, role: str = ADMIN, lang: str = "en"):
    """The cross-batch report (``report.cross.CrossReport``) as ``role`` may see it, and what that
    showed and withheld: a withheld figure's low / expected / high (a plan row's every amount) are
    ``Withheld``; a withheld batch's labor spend curve is left out (its points are that cost)."""
    from dataclasses import replace

    check_role(role)
    d = Disclosure(role)

    def seen(kind: str | None) -> bool:
        if kind is None:
            return True
        (d.revealed if allows(role, kind) else d.withheld)[kind] += 1
        return allows(role, kind)

    def fig(f, force: str | None = None):
        if seen(force or f.kind):
            return f
        w = Withheld(force or f.kind, lang)
        return replace(f, low=w, expected=w, high=w)

    def plan_row(p, kind: str | None):
        if p.basis != "internal" or seen(kind):
            return p
        w = Withheld(kind, lang)
        return replace(p, plan=(w,) * 3, ac=(w,) * 3, ev=(w,) * 3, eac=(w,) * 3,
                       parts=tuple((k, w) for k, _x in p.parts))

    batches, hidden = [], {}
    for b in r.batches:
        totals = tuple(fig(f) for f in b.totals)
        hidden.update({(f.basis, f.currency): f.kind for f in totals if is_withheld(f.expected)})
        batches.append(replace(b, totals=totals, plan=tuple(plan_row(p, b.labor_kind) for p in b.plan)))
    kinds = {b.batch: b.labor_kind for b in r.batches}
    # an internal curve's daily steps are per-person costs (review 7 L15), whatever the batch's labor kind
    curves = tuple(c for c in r.curves if c.basis != "internal" or seen(strictest(kinds.get(c.batch),
                                                                                   "labor_cost_person")))
    out = replace(r, spend=tuple(replace(c, figure=fig(c.figure)) for c in r.spend), batches=tuple(batches),
                  totals=tuple(fig(f, hidden.get((f.basis, f.currency))) for f in r.totals), curves=curves,
                  undated_outside=tuple(replace(c, figure=fig(c.figure)) for c in r.undated_outside))
    return out, d


def cross_by_role(r, lang: str = "en", *, html: bool = False):
    """The cross-batch report for a role-independent view model (the dashboard's ``/report``, cached
    before the role is known, web/views.py): its JSON contract — or its HTML page — in each role's own
    copy (``ByRole``: ``resolve`` hands every role its copy, and counts what that withheld). Admin and
    finance see the same figures: one copy serves both."""
    from trainledger.model.restricted import FINANCE, ROLES, ByRole
    from trainledger.report import cross_render

    copies, seen = {}, {}
    for role in ROLES:
        if role == ADMIN:
            continue
        _shown, d = cross_for_role(r, role, lang)
        copies[role] = cross_render.to_html(r, lang, role) if html else cross_render.as_json(r, role)
        seen[role] = d
    copies[ADMIN], seen[ADMIN] = copies[FINANCE], Disclosure(ADMIN, seen[FINANCE].revealed.copy())
    return ByRole(copies, seen)


def withheld(value: Any) -> bool:
    """True for a field this role's copy does not show (renderers print it as it is)."""
    return is_withheld(value)


def may_see(role: str, kind: str) -> bool:
    return allows(role, kind)


LABOR_PRICE = "price labor:"
PCT = ("p10", "p50", "p90")


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


def plan_for(obj: dict[str, Any], role: str = ADMIN, lang: str = "en") -> tuple[dict[str, Any], Disclosure]:
    """A status or review view model (review/service.py) as ``role`` may see it."""
    import json

    check_role(role)
    shown, seen = resolve(mark_prices(mark_plan(json.loads(json.dumps(obj, default=str)))), role, lang)
    if seen.withheld:
        shown["access"] = seen.as_dict()
    return shown, seen
