"""The cross-batch report (report/cross.py ``CrossReport``) as each role may see it.

A figure of labor cost (basis internal) is labor_cost_person when it sums one role's lines — a batch,
or a batch's month, whose labor is one person's — else labor_cost_phase; a batch's labor plan rows and
spend curve take the batch's kind (``BatchRow.labor_kind``); a total across batches is withheld with
any batch it sums (the total minus the others would give it away). The report cached for every role
(``cross_by_role``, the dashboard's ``/report``) is each role's own copy (model/restricted.py ``ByRole``).
"""

from __future__ import annotations

from trainledger.model.restricted import ADMIN, Disclosure, Withheld, allows, check_role, is_withheld
from trainledger.report.labor_kinds import strictest


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
                  undated_outside=tuple(replace(c, figure=fig(c.figure)) for c in r.undated_outside),
                  noncash=tuple(replace(c, figure=fig(c.figure)) for c in r.noncash))  # labor: its roles' kind
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
