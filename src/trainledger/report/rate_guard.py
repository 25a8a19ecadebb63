"""Would the labor money a role is shown give a labor rate back? (review 7 L12)

Every labor figure is a linear form over the rate card: a phase's cost is Σ (the phase's hours of a
role × its rate), a batch's internal total the same over all its hours, the plan Σ (a role's planned
hours × its plan rate), each part of the variance split (volume, efficiency, rework, what is not
split) Σ (a role's hours of that part × its rate). A role that may see ``labor_cost_phase`` but not
``labor_rate`` (``engineer``) is shown the hours and those sums; with enough of them it solves for
the rates — in the shipped demo 8 phase costs, the plan and the rework variance over 6 roles gave every
rate exactly. A rate r is given back by a set of forms exactly when its unit vector lies in their row
space (``identified``: exact elimination over ``Fraction``, no float).

``guard(wsp)`` collects every such form the workspace publishes at ``labor_cost_phase`` — over every
batch it holds (a token scoped to one batch sees fewer: the decision is conservative) — and coarsens
until no rate is identified, trying in turn (``CANDIDATES``): nothing withheld; the phase costs; the
plan's figures; both; and last every labor figure (the batch totals too). A withheld group's figures
take ``labor_cost_person`` wherever they are decided (report/labor_kinds.py for the sheet's phases and
totals, review/service.py for a status' and review's ``labor_kind`` and ``ac_labor_kind``,
report/plan_section.py for older plan versions, web/views.py's batches list, report/cross.py), so every
renderer masks them, and the sheet names why (``rate_guard``, ``NOTE``).

The forms, by group (``forms``):

    phase   per batch, phase and currency, when the phase has more than one valued role (one role's
            phase is labor_cost_person already): the hours of each role in it
    total   per batch and currency, when the batch has more than one valued role: all its hours per
            role (the sheet's totals, the status' AC, the balance's labor, the batches list, the cross
            report's batch and its sum over batches); and per batch, evidence and currency (the cross
            report's figures split by evidence)
    plan    per plan version shown at labor_cost_phase (plan_section.labor_kinds' rule): its planned
            hours per role in each scenario (plan low / expected / high, the plan versions' totals, EV =
            plan × a share, the spend curve's plan); for the latest version the variance by basis:
            actual, volume, efficiency, rework, not split (the part ``price`` is 0 once the plan's and
            the actual rate are taken as one unknown), from ``review.variance.split_line`` at a price of 1
            (each part is price × hours: at 1 it is the hours), and the unplanned roles' hours (their
            volume: the hours outside the rework phase; their rework: the rework phase's). EAC is AC
            plus the work left at a cost per unit of AC or of the plan: in the span of the two.

The scenarios' rates and a plan's and the actuals' rate of one role are taken as one unknown per
(role, currency): if a rate is identified with separate unknowns it is identified with them merged
(the merged forms are the images of the separate ones), so merging only withholds more. A form
counted that a page does not print only withholds more, too. Not forms of today's hours, and so
withheld from such a role whatever the guard decides (report/plan_section.py ``with_kinds``,
report/plan_access.py): an alert's and a decision's figures — a snapshot of the hours when they were
made. The cross report's monthly figures are forms over a month's hours: report/cross.py checks them
against the published forms (``Guard.adds``) and withholds them when they would give a rate.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import dataclass, field, replace
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

Key = tuple[str, str]  # (role, currency): one unknown rate
Row = dict[Key, Fraction]

GROUPS = ("phase", "plan", "total")
CANDIDATES: tuple[tuple[str, ...], ...] = ((), ("phase",), ("plan",), ("phase", "plan"), GROUPS)
PERSON = "labor_cost_person"
REWORK_PHASE = "rework"


def identified(rows: list[Row]) -> set[Key]:
    """The unknowns whose unit vector lies in the row space of ``rows`` (exact: Gauss-Jordan over
    ``Fraction``): each is the value of a combination of the figures."""
    basis: dict[Key, Row] = {}
    for r in rows:
        v = _reduced(r, basis)
        if not v:
            continue
        pivot = min(v)
        inv = 1 / v[pivot]
        v = {k: x * inv for k, x in v.items()}
        for p, row in basis.items():  # keep the basis fully reduced: each pivot in its own row only
            c = row.get(pivot)
            if c:
                basis[p] = _minus(row, v, c)
        basis[pivot] = v
    keys = {k for r in rows for k in r}
    return {k for k in keys if not _reduced({k: Fraction(1)}, basis)}


def _minus(a: Row, b: Row, c: Fraction) -> Row:
    out = dict(a)
    for k, x in b.items():
        y = out.get(k, Fraction(0)) - c * x
        if y:
            out[k] = y
        else:
            out.pop(k, None)
    return out


def _reduced(r: Row, basis: dict[Key, Row]) -> Row:
    v = {k: x for k, x in r.items() if x}
    for p, row in basis.items():
        c = v.get(p)
        if c:
            v = _minus(v, row, c)
    return v


@dataclass(frozen=True)
class Guard:
    """What the guard withholds (groups of ``GROUPS``), and the forms it still publishes."""

    withheld: tuple[str, ...] = ()
    published: tuple[Row, ...] = field(default=(), repr=False)
    found: tuple[Key, ...] = ()  # the rates the full publication would have given back

    def kind(self, group: str, kind: str | None) -> str | None:
        """``kind`` of a figure of ``group``, or one person's cost when the guard withholds the group."""
        if kind is None or group not in self.withheld:
            return kind
        return PERSON

    def adds(self, rows: list[Row]) -> bool:
        """True when ``rows`` published beside what the guard publishes would give a rate back."""
        return bool(rows) and bool(identified([*self.published, *rows]))

    def as_dict(self) -> dict[str, Any] | None:
        """The sheet's ``rate_guard`` (None: nothing withheld)."""
        return {"withheld": list(self.withheld)} if self.withheld else None


NONE = Guard()


def decide(forms: dict[str, list[Row]]) -> Guard:
    """The first of ``CANDIDATES`` whose published forms identify no rate."""
    every = [r for g in GROUPS for r in forms.get(g, [])]
    found = tuple(sorted(identified(every)))
    for cand in CANDIDATES:
        rows = [r for g in GROUPS if g not in cand for r in forms.get(g, [])]
        if not identified(rows):
            return Guard(cand, tuple(rows), found)
    return Guard(GROUPS, (), found)  # not reached: the last candidate publishes nothing


def forms(wsp) -> dict[str, list[Row]]:
    """Every labor form the workspace publishes at labor_cost_phase, by group (module docstring)."""
    hours: dict[tuple[str, str, str, str, str], Fraction] = defaultdict(Fraction)  # batch, cur, phase, role, ev
    for batch, cur, detail, evidence, qty, valued in wsp.ledger.labor_hours():
        phase, _, role = detail.partition("/")
        if valued:
            hours[(batch, cur, phase, role or detail, evidence)] += Fraction(qty)
    out: dict[str, list[Row]] = {g: [] for g in GROUPS}
    batches = sorted({k[0] for k in hours})
    for b in batches:
        mine = {k: v for k, v in hours.items() if k[0] == b}
        roles = {k[3] for k in mine}
        for phase in sorted({k[2] for k in mine}):
            if len({k[3] for k in mine if k[2] == phase}) > 1:  # report/labor_kinds.py phase_kind
                out["phase"] += _rows(mine, lambda k, p=phase: k[2] == p)
        if len(roles) > 1:  # labor_kinds.totals_kind, web/views.py batches, review/status.py ac_labor_kind
            out["total"] += _rows(mine, lambda k: True)
        for ev in sorted({k[4] for k in mine}):  # the cross report's figures by evidence (cross.Figure.kind)
            if len({k[3] for k in mine if k[4] == ev}) > 1:
                out["total"] += _rows(mine, lambda k, e=ev: k[4] == e)
    out["plan"] = plan_forms(wsp, hours)
    return out


def _rows(hours: dict, keep) -> list[Row]:
    """One row per currency: the hours per role of the keys ``keep`` selects."""
    by_cur: dict[str, Row] = defaultdict(dict)
    for (_b, cur, _ph, role, _ev), h in hours.items():
        if keep((_b, cur, _ph, role, _ev)):
            by_cur[cur][(role, cur)] = by_cur[cur].get((role, cur), Fraction(0)) + h
    return [r for _c, r in sorted(by_cur.items()) if r]


def plan_forms(wsp, hours: dict) -> list[Row]:
    """The plan group's forms of every batch with a plan (module docstring)."""
    from trainledger.ledger import review_repo
    from trainledger.review import service
    from trainledger.review.plan import SCENARIOS, Plan, Rng
    from trainledger.review.status import labor_kind
    from trainledger.review.variance import split_line

    out: list[Row] = []
    by_batch: dict[str, list[dict]] = defaultdict(list)
    for row in review_repo.plan_versions(wsp.ledger):
        by_batch[row["batch_id"]].append(row)
    for b, versions in sorted(by_batch.items()):
        for i, row in enumerate(versions):
            plan = Plan.from_dict(row["body"])
            labor = [pl for pl in plan.lines if pl.category == "labor" and str(pl.basis) == "internal"
                     and any(pl.price.get(s) for s in SCENARIOS)]
            valued = {pl.role or pl.id for pl in plan.lines
                      if str(pl.basis) == "internal" and any(pl.price.get(s) for s in SCENARIOS)}
            if len(valued) == 1:  # plan_section.labor_kinds: one person's cost already
                continue
            act = service.actuals(wsp, plan)
            if labor_kind(plan, act) == PERSON:
                continue
            for s in SCENARIOS:
                out += _per_cur([((pl.role or pl.id, pl.currency), Fraction(pl.quantity(plan.work, s)))
                                 for pl in labor])
            if i != len(versions) - 1:
                continue  # an older version: its totals only (the variance is the latest's)
            parts: dict[str, list] = defaultdict(list)  # the variance by basis: each part, per currency
            recorded = {cur for (_b, cur, *_r) in hours if _b == b}
            for pl in labor:
                a = act.planned.get(pl.id)
                one = split_line(replace(pl, price=Rng.point(Decimal(1))), plan.work.expected, a, act.work,
                                 act.work_known, pl.currency in recorded)
                for part in ("volume", "efficiency", "rework", "not_split"):
                    parts[part].append(((pl.role or pl.id, pl.currency), Fraction(getattr(one, part))))
                if a is not None:
                    parts["actual"].append(((pl.role or pl.id, pl.currency),
                                            Fraction(one.quantities["actual_quantity"])))
            planned = {(pl.role, pl.currency) for pl in plan.lines if pl.category == "labor"}
            for (_b, cur, phase, role, _ev), h in sorted(hours.items()):
                if _b == b and (role, cur) not in planned:  # unplanned labor: its rework phase, the rest volume
                    parts["rework" if phase == REWORK_PHASE else "volume"].append(((role, cur), h))
                    parts["actual"].append(((role, cur), h))
            for _part, items in sorted(parts.items()):
                out += _per_cur(items)
    return out


def _per_cur(items: list) -> list[Row]:
    by_cur: dict[str, Row] = defaultdict(dict)
    for key, q in items:
        if q:
            by_cur[key[1]][key] = by_cur[key[1]].get(key, Fraction(0)) + q
    return [r for _c, r in sorted(by_cur.items()) if r]


_CACHE: dict[tuple, Guard] = {}
_LOCK = threading.Lock()
MAX_CACHED = 16


def guard(wsp) -> Guard:
    """The workspace's guard, decided once per ledger state (its audit head: every import,
    attribution, plan and decision appends an entry) and configuration file."""
    try:
        head = wsp.ledger.audit_head()
        cfg = Path(wsp.config.path)
        st = cfg.stat()
        key = (str(wsp.ledger.url), head, str(cfg), st.st_size, st.st_mtime_ns)
    except (AttributeError, OSError):
        key = None
    if key is not None:
        with _LOCK:
            hit = _CACHE.get(key)
        if hit is not None:
            return hit
    g = decide(forms(wsp))
    if key is not None:
        with _LOCK:
            if len(_CACHE) >= MAX_CACHED:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = g
    return g
