"""Plan against actual, split exactly into price, volume, efficiency and rework (no leftover).

For one plan line with plan price ``Pp``, planned work ``Wp``, efficiency ``E = Σ E[state]``
(quantity per unit of work), fixed quantity ``F`` and rework allowance ``Rp``; and actuals: cost
``A``, useful work ``Wa``, non-rework quantity ``H = Σ H[state]`` and rework quantity ``Ra``
(``Qa = H + Ra``)::

    plan        = Pp × (F + Wp × E + Rp)
    price       = A − Pp × Qa                 = (Pa − Pp) × Qa   with Pa = A / Qa
    volume      = Pp × E × (Wa − Wp)          useful work done vs planned, at plan price and efficiency
    efficiency  = Pp × (H − F − Wa × E)       quantity per unit of work vs plan, by state
                  (a plan's ``overhead`` state stands for every measured state it does not name —
                  setup, checkpoint, allocated idle, unclassified: their H is summed into it)
    rework      = Pp × (Ra − Rp)              rerun quantity vs the allowance, by reason and cause

    other       = the compute money without GPU-hours (credits / refunds, adjustments, tax, tagged
                  non-GPU resources): its own part, so the price is only the usage lines' ``A − other``

    price + volume + efficiency + rework + other = A − plan      (exact in Decimal; no division)

With useful work unknown (no progress log) volume and efficiency cannot be told apart: they are
one ``not_split`` part. A basis with no cost line at all where the plan expects some (no timesheet
imported) is **not recorded**: its whole variance is ``not_split``, never a measured saving.

Rework is what ``review/actuals.py`` (with ``chains.py``) says it is: of a retry chain only the
failure — the failed attempts' time the batch did not keep and the reruns' way back — never a
rerun's new training, which counts as effective work. ``rework_by_kind`` splits a compute
line's rework quantity's cost by kind: the review class of the failure (``unforeseeable_fault`` for
an infra fault, ``avoidable_rework``, ``reasonable_exploration``, ``needs_review``), summing exactly
to ``Pp × Ra``: rework = Σ rework_by_kind − the allowance. Rework is valued at the **plan's price**:
the sheet's retry chains and the cross report's rework cost show the same GPU-hours at their
actual cost ``Pa × Ra``; the gap ``(Pa − Pp) × Ra`` is in ``price``, never in rework. (Labor
rework and storage kept past its retention have no kind: their ``rework_by`` says what they are.)

Every figure uses the plan's *expected* values and the actual lines' *expected* amounts. A cost of
a kind the plan has no line for is **unplanned**: plan 0, its rework lines under rework and the rest
under volume (work the plan did not foresee).
"""

from __future__ import annotations

import decimal
from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from trainledger.model.money import minor_quantum
from trainledger.review.actuals import Actuals, LineActual
from trainledger.review.plan import Plan, PlanLine

CTX = decimal.Context(prec=80)  # products of exact decimals stay exact far beyond money's needs
PARTS = ("price", "volume", "efficiency", "rework", "other", "not_split")


@dataclass(frozen=True)
class LineVariance:
    line: str
    basis: str
    currency: str
    plan: Decimal
    actual: Decimal
    price: Decimal
    volume: Decimal
    efficiency: Decimal
    rework: Decimal
    other: Decimal = Decimal(0)  # credits / refunds and compute money without GPU-hours (never price)
    not_split: Decimal = Decimal(0)  # what cannot be split: useful work unknown, or nothing recorded
    note: str = ""  # "work_unknown" or "not_recorded" when ``not_split`` holds the line's variance
    efficiency_by_state: dict[str, Decimal] = field(default_factory=dict)
    rework_by: dict[str, Decimal] = field(default_factory=dict)  # "reason" or "reason/cause"
    rework_by_kind: dict[str, Decimal] = field(default_factory=dict)  # review class (or labor / storage kind)
    quantities: dict[str, str] = field(default_factory=dict)

    @property
    def total(self) -> Decimal:
        return self.actual - self.plan


def split_line(pl: PlanLine, work_plan: Decimal, a: LineActual | None, work_done: Decimal,
               work_known: bool = True, recorded: bool = True) -> LineVariance:
    """``work_known`` False: volume and efficiency are one ``not_split`` remainder (no useful work to
    tell them apart); ``recorded`` False: nothing of this basis was recorded (no timesheet, no bill),
    so the whole variance is ``not_split`` — a missing record, never a measured saving."""
    with decimal.localcontext(CTX):
        a = a or LineActual()
        pp = pl.price.expected
        e = {k: r.expected for k, r in pl.efficiency.items()}
        f = {k: r.expected for k, r in pl.fixed.items()}
        rp = {k: r.expected for k, r in pl.rework.items()}
        e_tot, f_tot, rp_tot = (sum(x.values(), Decimal(0)) for x in (e, f, rp))
        plan = pp * (f_tot + work_plan * e_tot + rp_tot)
        actual = a.ac.expected
        other = a.other_amount
        h = sum(a.by_state.values(), Decimal(0))
        ra = a.rework_quantity
        price = actual - other - pp * (h + ra)
        volume = pp * e_tot * (work_done - work_plan)
        by_state = overhead_folded(a.by_state, e, f)
        eff_by: dict[str, Decimal] = {}
        for s in sorted(set(by_state) | set(e) | set(f)):
            eff_by[s] = pp * (by_state.get(s, Decimal(0)) - f.get(s, Decimal(0)) - work_done * e.get(s, Decimal(0)))
        efficiency = sum(eff_by.values(), Decimal(0))
        rw_by: dict[str, Decimal] = defaultdict(Decimal)
        for k, v in rp.items():
            rw_by[k] -= pp * v
        for (reason, cause), q in a.rework.items():
            rw_by[reason] += pp * q
            rw_by[f"{reason}/{cause}"] += pp * q  # detail inside its reason; not added twice below
        rework = sum((v for k, v in rw_by.items() if "/" not in k), Decimal(0))
        by_kind = {k: pp * q for k, q in sorted(a.rework_kind.items())}
        not_split, note = Decimal(0), ""
        if not recorded:
            not_split, note = actual - plan, "not_recorded"
            price = volume = efficiency = rework = other = Decimal(0)
            eff_by, rw_by, by_kind = {}, {}, {}
        elif not work_known and e:  # a line that scales with work (a one-time quantity does not)
            not_split, note = volume + efficiency, "work_unknown"
            volume = efficiency = Decimal(0)
            eff_by = {}
    return LineVariance(line=pl.id, basis=str(pl.basis), currency=pl.currency, plan=plan, actual=actual,
                        price=price, volume=volume, efficiency=efficiency, rework=rework, other=other,
                        not_split=not_split, note=note,
                        efficiency_by_state=eff_by, rework_by=dict(rw_by), rework_by_kind=by_kind,
                        quantities={"unit": pl.unit, "planned_work": format(work_plan, "f"),
                                    "work_done": format(work_done, "f"), "actual_quantity": format(h + ra, "f"),
                                    "rework_quantity": format(ra, "f"),
                                    "planned_quantity": format(f_tot + work_plan * e_tot + rp_tot, "f")})


def folded_states(states, efficiency, fixed) -> list[str]:
    """The measured states a plan's ``overhead`` stands for: every state the plan does not name
    (setup, checkpoint, allocated idle, unclassified …) when it plans an ``overhead`` efficiency;
    none when it plans no overhead or names each state itself (a plan from a review)."""
    if "overhead" not in efficiency:
        return []
    return sorted(s for s in states if s not in efficiency and s not in fixed)


def overhead_folded(by_state: dict[str, Decimal], efficiency, fixed) -> dict[str, Decimal]:
    """``by_state`` with the states ``folded_states`` names summed into ``overhead`` (exact)."""
    fold = folded_states(by_state, efficiency, fixed)
    if not fold:
        return dict(by_state)
    out = {s: v for s, v in by_state.items() if s not in fold}
    out["overhead"] = out.get("overhead", Decimal(0)) + sum((by_state[s] for s in fold), Decimal(0))
    return out


def split_unplanned(key: tuple[str, str, str], a: LineActual) -> LineVariance:
    category, basis, currency = key
    actual = a.ac.expected
    return LineVariance(line=f"unplanned:{category}", basis=basis, currency=currency, plan=Decimal(0),
                        actual=actual, price=Decimal(0), volume=actual - a.rework_amount - a.other_amount,
                        other=a.other_amount,
                        efficiency=Decimal(0), rework=a.rework_amount,
                        rework_by_kind=dict(sorted(a.rework_kind_amount.items())))


def split(plan: Plan, act: Actuals) -> list[LineVariance]:
    """A basis and currency with no cost line at all (planned or not) is not recorded (``split_line``)."""
    recorded = {(str(pl.basis), pl.currency) for pl in plan.lines
                if (act.planned.get(pl.id) or LineActual()).lines} | {(b, c) for (_k, b, c) in act.unplanned}
    out = [split_line(pl, plan.work.expected, act.planned.get(pl.id), act.work, act.work_known,
                      (str(pl.basis), pl.currency) in recorded) for pl in plan.lines]
    out += [split_unplanned(k, a) for k, a in sorted(act.unplanned.items())]
    return out


def text(d: Decimal, currency: str) -> str:
    """Exact decimal text: trailing zeros dropped down to the currency's minor unit, never a digit cut."""
    q = minor_quantum(currency)
    d = d.normalize()
    exp = d.as_tuple().exponent
    return format(d.quantize(q) if isinstance(exp, int) and exp > q.as_tuple().exponent else d, "f")


def by_basis(lines: list[LineVariance]) -> list[dict]:
    """One row per basis and currency: sums of the lines' exact parts (never across bases)."""
    acc: dict[tuple[str, str], dict[str, Decimal]] = {}
    for lv in lines:
        row = acc.setdefault((lv.basis, lv.currency), defaultdict(Decimal))
        for k in ("plan", "actual", *PARTS):
            row[k] += getattr(lv, k)
    return [{"basis": b, "currency": c, **{k: text(v[k], c) for k in ("plan", "actual", *PARTS)}}
            for (b, c), v in sorted(acc.items())]
