"""The cross-batch report (``trainledger report``): what a monthly budget review needs, as one view model.

``build(wsp, Scope)`` reads the latest attribution's cost lines (ledger), dates each one from the
lake row it came from (``dating.py``), and returns a ``CrossReport`` — a tree of frozen dataclasses
holding exact ``Decimal`` figures; the renderers (``cross_render.py``, ``cross_xlsx.py``) only format.

* ``spend`` — per period (a month, or the whole batch with ``--by batch``), project, batch, basis and
  currency. Bases are never added together; a line without a date is in period ``undated``.
* ``batches`` — per batch: its totals per basis and currency as the batch sheet states them (cash
  exact; an estimate's figure rounded to the minor unit per evidence level, as ``report/sheet.py``
  does), its effective and rework shares of the GPU time held, and its plan vs actual.
* ``totals`` — per basis and currency: the sum of the batches' figures (so it equals the sum of the
  batches' sheets, exactly, when no date window is given).
* ``unattributed`` — the workspace's unattributed money per period, reason, basis and currency: the
  cash of bills and invoices (basis ``billed``), and owned or reserved capacity no job held or held
  by jobs without a batch on its own basis (``amortized``, ``rate_card``) — never summed across bases.
* ``noncash`` — the bases no bill reconciles (internal labor, storage estimates, queued time) per
  period, reason, basis and currency: their lines without a batch, unattributed or spread by a declared
  shared pool (``pool``), with quantity and money range (engine/unattributed.py).
* ``control`` — per currency, the engine's billed = attributed + unattributed, and the same two
  parts summed here from the lines (they must agree).
* ``labor_control`` — per currency, the engine's timesheet hours = on batches + shared pools +
  unattributed, and the same parts summed here from the lines, whatever the window.
* ``capacity_control`` — per owned or reserved capacity, its cost for the attribution's window =
  attributed + no job held + held by jobs without a batch (+ held by jobs not imported, with an
  occupancy series), on its basis (the engine's record).
* ``undated_outside`` — with a date window, the batches' lines that have no date (no window holds
  them; without a window they are in period ``undated``).
* ``stale`` — the lake changed since the attribution these figures are of (report/freshness.py):
  said at the top of every format (md, html, json ``stale``, the workbook's README).
* ``curves`` — per batch with a plan: cumulative actual spend by day (by week past ``DAILY_MAX``
  days) per plan basis and currency, with the plan's total and the EAC low / expected / high of
  ``review/status.py`` (through ``review.service.status``; nothing of it is recomputed here).

Plan vs actual and the curves are to date (a plan does not know months); the date window filters the
spend, shares and unattributed figures. Days and months are the workspace zone's (``zone``:
``workspace.timezone``, default UTC); a bill row that carries its billing period
(FOCUS BillingPeriodStart, a Chinese bill's 账期) is in that period's month (``dating.py``). A window
of whole months (``--from 2026-11 --to 2026-12``) holds the lines of those months; any other window
the lines of its days.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from trainledger.engine import unattributed
from trainledger.engine.capacity_dating import KEY as CAPACITY_DAYS
from trainledger.errors import BadInput
from trainledger.model import CASH_BASES, Basis, CostLine
from trainledger.model.money import minor_quantum
from trainledger.report import freshness
from trainledger.report import sheet_compute as sc
from trainledger.report.dating import When, line_dates, month_of
from trainledger.report.sheet import effective_share, not_valued

BY = ("month", "batch")
UNDATED = "undated"
DAILY_MAX = 62  # days: a longer batch's curve goes by week
CASH = frozenset(str(b) for b in CASH_BASES)
CAPACITY_BASES = (Basis.AMORTIZED, Basis.RATE_CARD)  # owned / reserved capacity's cost no batch holds
SCHEMA = "trainledger.report/1"


@dataclass(frozen=True)
class Scope:
    project: str | None = None
    start: date | None = None  # inclusive, a day of the workspace zone
    end: date | None = None  # inclusive, a day of the workspace zone
    by: str = "month"

    @property
    def monthly(self) -> bool:
        """The window is whole months: it holds lines by their month (a bill's billing month)."""
        return (self.start is None or self.start.day == 1) and (
            self.end is None or (self.end + timedelta(days=1)).day == 1)

    def holds(self, when: When | None) -> bool:
        if self.start is None and self.end is None:
            return True
        if when is None:
            return False  # an undated line cannot be placed in a window; listed apart (``undated``)
        if self.monthly:
            return ((self.start is None or when.month >= month_of(self.start))
                    and (self.end is None or when.month <= month_of(self.end)))
        return (self.start is None or when.day >= self.start) and (self.end is None or when.day <= self.end)


@dataclass(frozen=True)
class Figure:
    """One amount per basis and currency: low / expected / high (equal for cash)."""

    basis: str
    currency: str
    low: Decimal
    expected: Decimal
    high: Decimal
    lines: int = 0
    roles: frozenset[str] = frozenset()  # the labor roles whose cost this figure sums (report/cross_access.py)
    guarded: bool = False  # withheld beside the other labor figures shown: they would give a rate back
    invoice: bool = False  # an invoice is part of it: the rest is shown, so it gives the invoice back (L13)

    @property
    def cash(self) -> bool:
        return self.basis in CASH

    @property
    def kind(self) -> str | None:
        """The restricted kind of this figure's amounts: one role's labor cost is that role's rate
        times its hours (labor_cost_person), several roles' summed is labor_cost_phase — one person's
        too when the rate guard withholds it (``guarded``, report/rate_guard.py); None for anything
        that is not labor."""
        if not self.roles:
            return "vendor_amount" if self.invoice else None
        return "labor_cost_person" if len(self.roles) == 1 or self.guarded else "labor_cost_phase"


@dataclass(frozen=True)
class SpendCell:
    period: str  # "2026-11", a batch id (``--by batch``) or ``undated``
    project: str
    batch: str
    figure: Figure


@dataclass(frozen=True)
class Share:
    """A part of the GPU time held (and of its money) per basis and currency. ``unclassified_gpu_hours``:
    held time with no progress signal (its state assumed, report/sheet.py ``effective_share``): not in
    the base of an effective share, shown beside it; 0 for the rework share (its base is all time held)."""

    basis: str
    currency: str
    gpu_hours: Decimal
    part_gpu_hours: Decimal
    amount: Decimal
    part_amount: Decimal
    unclassified_gpu_hours: Decimal = Decimal(0)

    @property
    def base_gpu_hours(self) -> Decimal:
        return self.gpu_hours - self.unclassified_gpu_hours

    @property
    def share(self) -> Decimal | None:
        """part ÷ base, to 4 places; None (unknown, never 0 %) when the base is empty — for an
        effective share: no GPU time with a progress signal."""
        got = effective_share(self.part_gpu_hours, self.gpu_hours, self.unclassified_gpu_hours)
        return None if got is None else got.quantize(Decimal("0.0001"))


@dataclass(frozen=True)
class PlanRow:
    """review/'s plan, AC, EV, EAC (low, expected, high) and variance parts for one basis and currency."""

    basis: str
    currency: str
    plan: tuple[Decimal, Decimal, Decimal]
    ac: tuple[Decimal, Decimal, Decimal]
    ev: tuple[Decimal, Decimal, Decimal] | None  # None: unknown (no useful work measured), never 0
    eac: tuple[Decimal, Decimal, Decimal] | None
    parts: tuple[tuple[str, Decimal], ...]  # price, volume, efficiency, rework, other, not_split (review.variance)


@dataclass(frozen=True)
class BatchRow:
    batch: str
    project: str
    name: str
    team: str
    first: date | None
    last: date | None
    totals: tuple[Figure, ...]
    effective: tuple[Share, ...]
    rework: tuple[Share, ...]
    plan_version: int | None = None
    plan: tuple[PlanRow, ...] = ()
    labor_kind: str | None = None  # the restricted kind of its labor (internal) plan rows and curves


@dataclass(frozen=True)
class UnattributedCell:
    period: str
    reason: str
    currency: str
    amount: Decimal
    lines: int
    basis: str = "billed"  # cash; or an owned / reserved capacity's basis (amortized, rate_card)


@dataclass(frozen=True)
class NoncashCell:
    """The unattributed lines of a non-cash basis (internal labor, storage estimates, queued time:
    engine/unattributed.py) per period and reason, or those a declared shared pool spreads (``pool``,
    a view beside the direct cost): their quantity (hours, GiB-months, GPU-hours) and money range. A
    labor cell's money takes its roles' kind (``Figure.kind``, report/cross_access.py)."""

    period: str
    reason: str
    pool: str  # the policy that spreads these lines; "" for the unattributed
    unit: str
    quantity: Decimal
    figure: Figure


@dataclass(frozen=True)
class LaborControl:
    """The timesheet's hours = on batches + shared pools + unattributed, as the engine checked it
    (``labor_hours`` of the summary) beside the same parts summed here from the ledger's lines."""

    currency: str
    timesheet_hours: Decimal
    batches_hours: Decimal
    pooled_hours: Decimal
    unattributed_hours: Decimal
    difference: Decimal
    batches_lines: Decimal
    pooled_lines: Decimal
    unattributed_lines: Decimal


@dataclass(frozen=True)
class CapacityControl:
    """One capacity's conservation, as ``attribute`` prints it: total = attributed + unheld +
    held by jobs without a batch (``difference`` must be 0)."""

    capacity: str
    basis: str
    currency: str
    total: Decimal
    attributed: Decimal
    unheld: Decimal
    job_without_batch: Decimal
    difference: Decimal
    held_not_imported: Decimal = Decimal(0)  # held by jobs an occupancy series saw but no dump holds


@dataclass(frozen=True)
class ControlRow:
    currency: str
    billed_total: Decimal
    attributed: Decimal
    unattributed: Decimal
    difference: Decimal
    attributed_lines: Decimal  # the same parts, summed here from the ledger's lines
    unattributed_lines: Decimal


@dataclass(frozen=True)
class CurvePoint:
    day: date  # the last day of the step (a week's Sunday, by week)
    cumulative: Decimal


@dataclass(frozen=True)
class SpendCurve:
    batch: str
    basis: str
    currency: str
    step: str  # day | week
    points: tuple[CurvePoint, ...]
    undated: Decimal
    plan: tuple[Decimal, Decimal, Decimal]
    eac: tuple[Decimal, Decimal, Decimal] | None  # None: unknown (no useful work measured)

    @property
    def actual(self) -> Decimal:
        return (self.points[-1].cumulative if self.points else Decimal(0)) + self.undated


@dataclass(frozen=True)
class CrossReport:
    scope: Scope
    attribution_id: int | None
    as_of: str | None
    periods: tuple[str, ...]
    spend: tuple[SpendCell, ...]
    batches: tuple[BatchRow, ...]
    totals: tuple[Figure, ...]
    effective_by_period: tuple[tuple[str, Share], ...]
    unattributed: tuple[UnattributedCell, ...]
    control: tuple[ControlRow, ...]
    curves: tuple[SpendCurve, ...] = field(default=())
    undated_outside: tuple[SpendCell, ...] = ()  # with a date window: the lines no window can hold
    zone: str = "UTC"  # the zone of the days and months (dating.zone)
    capacity_control: tuple[CapacityControl, ...] = ()
    stale: dict | None = None  # the lake changed since the attribution (report/freshness.py ``check``)
    noncash: tuple[NoncashCell, ...] = ()  # the non-cash bases' bucket, windowed as ``unattributed``
    labor_control: tuple[LaborControl, ...] = ()  # the timesheet's hours, whatever the window


# -- arguments -----------------------------------------------------------------------------------

_MONTH = re.compile(r"^\d{4}-\d{2}$")


def parse_day(text: str | None, option: str, *, end: bool = False) -> date | None:
    """``YYYY-MM-DD``, or ``YYYY-MM`` (its first day; its last with ``end``)."""
    if text is None:
        return None
    try:
        if _MONTH.match(text):
            first = date.fromisoformat(text + "-01")
            return (first.replace(day=28) + timedelta(days=4)).replace(day=1) - timedelta(days=1) if end else first
        return date.fromisoformat(text)
    except ValueError:
        raise BadInput(f"{option} {text!r} is not a date",
                       remedy="write YYYY-MM-DD or YYYY-MM, e.g. --from 2026-11 --to 2026-11-30") from None


def scope(wsp, project: str | None, start: str | None, end: str | None, by: str) -> Scope:
    """The report's scope, checked: a known project, dates that parse, start ≤ end."""
    if project is not None and project not in {p.id for p in wsp.config.projects}:
        known = ", ".join(sorted(p.id for p in wsp.config.projects)) or "none declared"
        raise BadInput(f"no project {project!r} in {wsp.config.path}",
                       remedy=f"use one of: {known} (the [[projects]] of the workspace file)")
    s, e = parse_day(start, "--from"), parse_day(end, "--to", end=True)
    if s and e and s > e:
        raise BadInput(f"--from {start} is after --to {end}", remedy="swap them")
    if by not in BY:
        raise BadInput(f"--by {by!r}", remedy=f"use one of {', '.join(BY)}")
    return Scope(project, s, e, by)


# -- the build -----------------------------------------------------------------------------------

def _q(d: Decimal, cur: str) -> Decimal:
    return d.quantize(minor_quantum(cur), ROUND_HALF_EVEN)


def counted(ln: CostLine) -> bool:
    """A line of a basis total: what the batch sheet's ``totals_by_basis`` holds (no allocation view,
    no quantity without a price)."""
    return ln.basis is not Basis.ALLOCATED and not not_valued(ln)


class _Sum:
    def __init__(self) -> None:
        self.v: dict = defaultdict(lambda: [Decimal(0), Decimal(0), Decimal(0), 0])
        self.roles: dict = defaultdict(set)
        self.hours: dict = defaultdict(lambda: defaultdict(Fraction))
        self.invoices: set = set()  # the keys an external service's (invoice's) line is part of

    def add(self, key, ln: CostLine) -> None:
        a = self.v[key]
        a[0] += ln.amount.low
        a[1] += ln.amount.expected
        a[2] += ln.amount.high
        a[3] += 1
        if ln.category == "external":
            self.invoices.add(key)
        if ln.category == "labor":  # detail: phase/role
            role = ln.detail.partition("/")[2] or ln.detail
            self.roles[key].add(role)
            if not not_valued(ln):  # the hours the figure's labor money is over (report/rate_guard.py)
                self.hours[key][role] += Fraction(ln.quantity or 0)


def _labor_rows(acc: _Sum) -> list[dict]:
    """The forms (report/rate_guard.py) of ``acc``'s labor figures of several roles, one per
    figure as printed (its keys but the evidence: ``_figures`` sums over it)."""
    rows: dict[tuple, dict] = defaultdict(dict)
    for key, hrs in acc.hours.items():
        *head, basis, _ev, cur = key
        if basis == "internal":
            row = rows[(*head, cur)]
            for role, h in hrs.items():
                row[(role, cur)] = row.get((role, cur), Fraction(0)) + h
    return [r for r in rows.values() if len(r) > 1]


def _guarded(figs: tuple[Figure, ...], hide: bool) -> tuple[Figure, ...]:
    return tuple(replace(f, guarded=True) if hide and f.roles else f for f in figs)


def _figures(acc: _Sum, keys, *, sheet_rounding: bool) -> tuple[Figure, ...]:
    """``keys`` → (basis, evidence, currency) groups; summed per (basis, currency). With
    ``sheet_rounding`` a non-cash group is rounded to the minor unit before it is added, as the
    sheet rounds each of its rows."""
    out: dict[tuple[str, str], list] = {}
    for key in keys:
        basis, _ev, cur = key[-3:]
        lo, ex, hi, n = acc.v[key]
        if sheet_rounding and basis not in CASH:
            lo, ex, hi = _q(lo, cur), _q(ex, cur), _q(hi, cur)
        o = out.setdefault((basis, cur), [Decimal(0), Decimal(0), Decimal(0), 0, frozenset(), False])
        o[0], o[1], o[2], o[3] = o[0] + lo, o[1] + ex, o[2] + hi, o[3] + n
        o[4] = o[4] | frozenset(acc.roles.get(key, ()))
        o[5] = o[5] or key in acc.invoices
    from trainledger.model.vocab import rank

    r = rank("basis")
    return tuple(Figure(b, c, *out[(b, c)][:5], invoice=out[(b, c)][5])
                 for b, c in sorted(out, key=lambda k: (r(k[0]), k[1])))


def shares(lines: list[tuple[CostLine, bool]]) -> tuple[tuple[Share, ...], tuple[Share, ...]]:
    """(effective, rework) shares of the GPU time held, per basis and currency. ``lines``: (line,
    is the line rework — review/actuals.rework_lines); held time is each primary compute line once
    (sheet_compute.primary). The effective share is over the time held with a progress signal (the
    batch sheet's rule), the unclassified hours beside it; the rework share over all time held."""
    acc: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 7)
    for ln, rework in lines:
        if not ln.run_id or not sc.primary(ln):
            continue
        a = acc[(str(ln.basis), ln.currency)]
        q, m = ln.quantity or Decimal(0), ln.amount.expected
        a[0] += q
        a[1] += m
        if ln.detail == "effective":
            a[2] += q
            a[3] += m
        elif ln.detail == "unclassified":
            a[6] += q
        if rework:
            a[4] += q
            a[5] += m
    keys = sorted(acc)
    return (tuple(Share(b, c, acc[(b, c)][0], acc[(b, c)][2], acc[(b, c)][1], acc[(b, c)][3], acc[(b, c)][6])
                  for b, c in keys),
            tuple(Share(b, c, acc[(b, c)][0], acc[(b, c)][4], acc[(b, c)][1], acc[(b, c)][5]) for b, c in keys))


def _month(when: When | None) -> str:
    return UNDATED if when is None else when.month


def build(wsp, sc_: Scope) -> CrossReport:
    from trainledger.engine.conservation import reason_of
    from trainledger.review.actuals import rework_lines
    from trainledger.review.service import _explained

    cfg = wsp.config
    batches = [b for b in cfg.batches if sc_.project is None or b.project == sc_.project]
    wanted = {b.id for b in batches}
    lines = wsp.ledger.cost_lines()
    runs = {r.id: r for r in wsp.ledger.runs()}
    att = wsp.ledger.latest_attribution() or {}
    summary = att.get("summary") if isinstance(att.get("summary"), dict) else {}
    dates = line_dates(wsp, lines, runs, summary.get(CAPACITY_DAYS) or {})
    explained = _explained(wsp)
    retry_of = {k: str(v["retry_of"]) for k, v in explained.items() if v.get("retry_of")}
    reworked = rework_lines(lines, list(runs.values()), retry_of, explained)  # the review bridge's rework

    spend, per_batch, outside, unatt = _Sum(), _Sum(), _Sum(), defaultdict(lambda: [Decimal(0), 0])
    span: dict[str, list[date]] = defaultdict(list)
    by_batch_lines: dict[str, list[tuple[CostLine, bool]]] = defaultdict(list)
    by_period_lines: dict[str, list[tuple[CostLine, bool]]] = defaultdict(list)
    ctl: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0), Decimal(0)])
    pooled = unattributed.pooled_by(dict(cfg.raw.get("allocation") or {}), str(cfg.path),
                                    summary.get("allocation") or [])
    noncash, noncash_qty = _Sum(), defaultdict(Decimal)
    labor_ctl: dict[str, list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)  # batches, pools, unattributed
    for i, ln in enumerate(lines):
        when = dates[i]
        day = when.day if when is not None else None
        if ln.basis in CASH_BASES:  # the workspace's control: every line, whatever the scope
            ctl[ln.currency][0 if ln.batch_id else 1] += ln.amount.expected
        if ln.category == "labor" and ln.basis is Basis.INTERNAL and ln.provenance.source_kind == "timesheet":
            labor_ctl[ln.currency][0 if ln.batch_id else 1 if pooled(ln) else 2] += ln.quantity or 0
        if unattributed.in_bucket(ln) and sc_.holds(when):  # a non-cash basis's bucket: pooled or unattributed
            key = (_month(when), reason_of(ln)[0], pooled(ln) or "", ln.unit, str(ln.basis), "", ln.currency)
            noncash.add(key, ln)
            noncash_qty[key] += ln.quantity or 0
        if not sc_.holds(when):
            if when is None and ln.batch_id in wanted and counted(ln):  # not in any window: listed apart
                outside.add((ln.batch_id, str(ln.basis), str(ln.evidence), ln.currency), ln)
            continue
        if ln.batch_id is None:
            basis = "billed" if ln.basis in CASH_BASES else str(ln.basis) if ln.basis in CAPACITY_BASES else None
            if basis is not None and (basis == "billed" or counted(ln)):
                u = unatt[(_month(when), reason_of(ln)[0], basis, ln.currency)]
                u[0] += ln.amount.expected
                u[1] += 1
            continue
        if ln.batch_id not in wanted or not counted(ln):
            continue
        period = _month(when) if sc_.by == "month" else ln.batch_id
        key = (str(ln.basis), str(ln.evidence), ln.currency)
        spend.add((period, ln.batch_id, *key), ln)
        per_batch.add((ln.batch_id, *key), ln)
        if day is not None:
            span[ln.batch_id].append(day)
        rw = reworked[i]
        by_batch_lines[ln.batch_id].append((ln, rw))
        by_period_lines[period].append((ln, rw))

    from trainledger.report.rate_guard import guard

    g = guard(wsp)  # the totals, or the figures by period beside what is shown, may give a rate back
    hide_totals = "total" in g.withheld
    hide_periods = hide_totals or g.adds(_labor_rows(spend) + _labor_rows(outside))
    cells = []
    periods = sorted({k[0] for k in spend.v}, key=lambda p: (p == UNDATED, p))
    if sc_.by == "batch":
        periods = [b.id for b in batches if any(k[0] == b.id for k in spend.v)]
    for p in periods:
        for b in batches:
            for f in _guarded(_figures(spend, [k for k in spend.v if k[0] == p and k[1] == b.id],
                                       sheet_rounding=False), hide_periods):
                cells.append(SpendCell(p, b.project, b.id, f))
    rows, curves_of = [], []
    for b in batches:
        eff, rew = shares(by_batch_lines.get(b.id, []))
        days = span.get(b.id) or [None]
        got = _status(wsp, b.id)
        version, plan_rows = _plan(got)
        if got is not None:
            mine = [(ln, d) for ln, d in zip(lines, dates, strict=True) if ln.batch_id == b.id]
            curves_of.extend(curves(wsp, b.id, got[0], dated=mine))
        totals_b = _guarded(_figures(per_batch, [k for k in per_batch.v if k[0] == b.id], sheet_rounding=True),
                            hide_totals)
        rows.append(BatchRow(b.id, b.project, b.name, b.team, min(days) if days[0] else None,
                             max(days) if days[0] else None, totals_b, eff, rew, version, plan_rows,
                             _labor_kind(totals_b, got)))
    totals = _add(f for r in rows for f in r.totals)
    eff_period = tuple((p, s) for p in periods for s in shares(by_period_lines.get(p, []))[0])
    un = tuple(UnattributedCell(p, r, c, v[0], v[1], basis) for (p, r, basis, c), v in
               sorted(unatt.items(), key=lambda kv: ((kv[0][0] == UNDATED, kv[0][0]), kv[0][2] != "billed",
                                                     kv[0][2], -abs(kv[1][0]), kv[0][1:])))
    capacity = tuple(CapacityControl(str(rec["capacity"]), str(rec["basis"]), str(rec["currency"]),
                                     *(Decimal(str(rec.get(k) or 0)) for k in (
                                         "total", "attributed", "unheld", "job_without_batch", "difference",
                                         "held_not_imported")))
                     for rec in summary.get("conservation_capacity") or [] if isinstance(rec, dict))
    # labor money of the workspace's bucket is withheld from a role that may not see rates (report/noncash.py)
    nc = tuple(NoncashCell(p, reason, pool, unit, noncash_qty[key],
                           _guarded(_figures(noncash, [key], sheet_rounding=False), True)[0])
               for key in sorted(noncash.v, key=lambda k: ((k[0] == UNDATED, k[0]), k[4], k[6], k[2] != "", k[1], k[2]))
               for p, reason, pool, unit in [key[:4]])
    labor = tuple(LaborControl(str(rec["currency"]), *(Decimal(str(rec[k])) for k in (
        "timesheet_hours", "batches_hours", "pooled_hours", "unattributed_hours", "difference")),
        *labor_ctl.get(str(rec["currency"]), (Decimal(0),) * 3)) for rec in summary.get("labor_hours") or [])
    control = []
    for rec in summary.get("conservation", []):
        cur = rec["currency"]
        control.append(ControlRow(cur, *(Decimal(rec[k]) for k in ("billed_total", "attributed", "unattributed",
                                                                   "difference")), *ctl.get(cur, (Decimal(0),) * 2)))
    return CrossReport(sc_, att.get("id"), summary.get("as_of"), tuple(periods), tuple(cells), tuple(rows), totals,
                       eff_period, un, tuple(control), tuple(curves_of),
                       tuple(SpendCell(UNDATED, b.project, b.id, f) for b in batches
                             for f in _guarded(_figures(outside, [k for k in outside.v if k[0] == b.id],
                                                        sheet_rounding=False), hide_periods)),
                       str(cfg.timezone), capacity, freshness.check(wsp), nc, labor)


def _add(figs) -> tuple[Figure, ...]:
    acc: dict[tuple[str, str], list] = {}
    for f in figs:
        a = acc.setdefault((f.basis, f.currency), [Decimal(0), Decimal(0), Decimal(0), 0, frozenset(), False])
        a[0], a[1], a[2], a[3] = a[0] + f.low, a[1] + f.expected, a[2] + f.high, a[3] + f.lines
        a[4] = a[4] | f.roles
        a[5] = a[5] or f.invoice
    from trainledger.model.vocab import rank

    r = rank("basis")
    return tuple(Figure(b, c, *acc[(b, c)][:5], invoice=acc[(b, c)][5])
                 for b, c in sorted(acc, key=lambda k: (r(k[0]), k[1])))


def _labor_kind(totals: tuple[Figure, ...], got: tuple[dict, dict] | None) -> str:
    """The kind of a batch's labor plan rows and curves: one role's cost (labor_cost_person) when its
    labor so far is at most one role, or its plan has at most one labor line, or the status says so
    (``labor_kind``: one valued role in the plan though others have timesheets); else labor_cost_phase."""
    roles = frozenset().union(*(f.roles for f in totals))
    if got is not None and got[0].get("labor_kind") == "labor_cost_person":  # review/status.py's rule (G10)
        return "labor_cost_person"
    planned = sum(1 for ln in (got[1].get("lines", []) if got else []) if str(ln.get("line", "")).startswith(
        ("labor:", "unplanned:labor")))
    return "labor_cost_person" if len(roles) <= 1 or (got is not None and planned <= 1) else "labor_cost_phase"


def _trip(d: dict) -> tuple[Decimal, Decimal, Decimal]:
    return Decimal(d["low"]), Decimal(d["expected"]), Decimal(d["high"])


def _status(wsp, batch_id: str) -> tuple[dict, dict] | None:
    from trainledger.ledger import review_repo
    from trainledger.review import service

    if not review_repo.plan_versions(wsp.ledger, batch_id):
        return None
    return service.status(wsp, batch_id), service.review(wsp, batch_id)


def _plan(got: tuple[dict, dict] | None) -> tuple[int | None, tuple[PlanRow, ...]]:
    """Plan rows from review.service's (status, review) of a batch, or none without a plan."""
    if got is None:
        return None, ()
    st, rv = got
    var = {(v["basis"], v["currency"]): v for v in rv["variance"]}
    out = []
    for p in st["plan"]:
        key = (p["basis"], p["currency"])
        pick = {k: next((x for x in st[k] if (x["basis"], x["currency"]) == key), None) for k in ("ac", "ev", "eac")}
        v = var.get(key, {})
        # no AC entry: nothing spent (0); no EV / EAC entry: unknown — never an EAC of 0 below the AC
        figs = (_trip(pick[k]) if pick[k] else ((Decimal(0),) * 3 if k == "ac" else None) for k in ("ac", "ev", "eac"))
        out.append(PlanRow(*key, _trip(p), *figs,
                           tuple((k, Decimal(v.get(k) or "0"))
                                 for k in ("price", "volume", "efficiency", "rework", "other", "not_split"))))
    return st["plan_version"], tuple(out)


def curves(wsp, batch_id: str, status: dict | None = None,
           dated: list[tuple[CostLine, When | None]] | None = None) -> tuple[SpendCurve, ...]:
    """The batch's cumulative spend per plan basis and currency, with the plan total and the EAC range
    of ``review.service.status`` (given, or read); none for a batch without a plan. ``dated``: the
    batch's lines with their days, when the caller has them already."""
    if status is None:
        got = _status(wsp, batch_id)
        if got is None:
            return ()
        status = got[0]
    if dated is None:
        lines = wsp.ledger.cost_lines(batch_id)
        dated = list(zip(lines, line_dates(wsp, lines, {r.id: r for r in wsp.ledger.runs(batch_id)}), strict=True))
    dated = [(ln, d) for ln, d in dated if ln.basis is not Basis.ALLOCATED]
    out = []
    eac = {(x["basis"], x["currency"]): _trip(x) for x in status["eac"]}
    for p in status["plan"]:
        key = (p["basis"], p["currency"])
        daily: dict[date, Decimal] = defaultdict(Decimal)
        undated = Decimal(0)
        for ln, when in dated:
            if (str(ln.basis), ln.currency) != key:
                continue  # the same lines review/actuals.collect counts in AC (all but the allocation view)
            if when is None:
                undated += ln.amount.expected
            else:
                daily[when.day] += ln.amount.expected  # a day of the workspace zone
        if not daily and not undated:
            continue
        step = "day"
        if daily and (max(daily) - min(daily)).days > DAILY_MAX:
            step, weekly = "week", defaultdict(Decimal)
            for d, v in daily.items():
                weekly[d + timedelta(days=6 - d.weekday())] += v
            daily = weekly
        run, pts = Decimal(0), []
        for d in sorted(daily):
            run += daily[d]
            pts.append(CurvePoint(d, run))
        plan = _trip(p)
        if plan[2] <= 0:
            continue  # nothing planned on this basis: no curve to hold against it (the table shows its AC)
        out.append(SpendCurve(batch_id, *key, step, tuple(pts), undated, plan, eac.get(key)))
    return tuple(out)


def text(d: Decimal) -> str:
    """Exact decimal text, never scientific notation; a withheld figure (report/access.py) as its word."""
    return d if isinstance(d, str) else format(d, "f")


def trip_json(t: tuple[Decimal, Decimal, Decimal] | None) -> dict[str, str] | None:
    """A range as JSON; None (null) for an unknown one."""
    return None if t is None else {"low": text(t[0]), "expected": text(t[1]), "high": text(t[2])}


def curve_json(c: SpendCurve) -> dict:
    """A curve as the JSON contract and the charts (report/charts.py ``spend_curve``) read it."""
    return {"batch": c.batch, "basis": c.basis, "currency": c.currency, "step": c.step,
            "points": [{"day": p.day.isoformat(), "cumulative": text(p.cumulative)} for p in c.points],
            "undated": text(c.undated), "actual": text(c.actual), "plan": trip_json(c.plan), "eac": trip_json(c.eac)}
