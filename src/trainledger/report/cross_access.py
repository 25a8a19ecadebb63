"""The cross-batch report (report/cross.py ``CrossReport``) as each role may see it.

A figure of labor cost (basis internal) is labor_cost_person when it sums one role's lines — a batch,
or a batch's month, whose labor is one person's — else labor_cost_phase; a batch's labor plan rows and
spend curve take the batch's kind (``BatchRow.labor_kind``); a total across batches is withheld with
any batch it sums (the total minus the others would give it away). A batch's plan row of a basis and
currency an invoice is part of has its AC, EAC and parts vendor_amount, its spend curve is left out, and
the control row of that currency withholds its bill total and attributed (review 7 L13). The report
cached for every role (``cross_by_role``, the dashboard's ``/report``) is each role's own copy
(model/restricted.py ``ByRole``).
"""

from __future__ import annotations

from trainledger.model.restricted import ADMIN, Disclosure, Withheld, allows, check_role, is_withheld
from trainledger.report.labor_kinds import strictest

VENDOR = "vendor_amount"


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

    def plan_row(p, kind: str | None, invoiced: set[tuple[str, str]]):
        if (p.basis, p.currency) in invoiced and not seen(VENDOR):  # its AC, EAC and parts hold the invoice
            w = Withheld(VENDOR, lang)
            p = replace(p, ac=(w,) * 3, eac=(w,) * 3 if p.eac is not None else None,
                        parts=tuple((k, w) for k, _x in p.parts))
        if p.basis != "internal" or seen(kind):
            return p
        w = Withheld(kind, lang)
        return replace(p, plan=(w,) * 3, ac=(w,) * 3, ev=(w,) * 3, eac=(w,) * 3,
                       parts=tuple((k, w) for k, _x in p.parts))

    batches, hidden = [], {}
    held = {(b.batch, f.basis, f.currency) for b in r.batches for f in b.totals if f.invoice}
    for b in r.batches:
        totals = tuple(fig(f) for f in b.totals)
        hidden.update({(f.basis, f.currency): f.kind for f in totals if is_withheld(f.expected)})
        mine = {(x, c) for bb, x, c in held if bb == b.batch}
        batches.append(replace(b, totals=totals, plan=tuple(plan_row(p, b.labor_kind, mine) for p in b.plan)))
    kinds = {b.batch: b.labor_kind for b in r.batches}
    # an internal curve's daily steps are per-person costs (review 7 L15), whatever the batch's labor kind;
    # a curve of an invoice's basis and currency is its AC by day (the invoice's date gives it back)
    curves = tuple(c for c in r.curves if (c.basis != "internal" or seen(strictest(kinds.get(c.batch),
                                                                                    "labor_cost_person")))
                   and ((c.batch, c.basis, c.currency) not in held or seen(VENDOR)))
    invoiced = {c for _b, _x, c in held}
    out = replace(r, spend=tuple(replace(c, figure=fig(c.figure)) for c in r.spend), batches=tuple(batches),
                  control=tuple(control_row(c, lang) if c.currency in invoiced and not seen(VENDOR) else c
                                for c in r.control),
                  totals=tuple(fig(f, hidden.get((f.basis, f.currency))) for f in r.totals), curves=curves,
                  undated_outside=tuple(replace(c, figure=fig(c.figure)) for c in r.undated_outside),
                  noncash=tuple(replace(c, figure=fig(c.figure)) for c in r.noncash))  # labor: its roles' kind
    return out, d


def control_row(c, lang: str = "en"):
    """A control row of a currency an invoice is billed in, as a role that may not see it reads it: its
    bill total and attributed (engine's and the lines') withheld — beside the batches' figures they give
    the invoice back; the unattributed and the difference kept (review 7 L13)."""
    from dataclasses import replace

    w = Withheld(VENDOR, lang)
    return replace(c, billed_total=w, attributed=w, attributed_lines=w)


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
