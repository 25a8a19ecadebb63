"""Execution: AC, EV, EAC, rounds, GPU-hours by state, gates and the alerts they raise (pure).

Per plan basis and currency (figures of different bases are never added):

* **AC** — the actual lines' low / expected / high.
* **EV** — planned value of the useful work done: plan × min(Wa / Wp, 1), truncated to the minor
  unit, so EV never exceeds the plan.
* **EAC** — AC + remaining work (Wp − Wa, per scenario) × cost per unit: expected at the cost per
  unit measured so far; low at the lower of that and the plan's low per unit; high at the higher of
  it and the plan's high per unit. With no work measured yet: AC + the plan.

Useful work **unknown** (no progress log with token counts, ``Actuals.work_known`` False) is not
zero work: EV, EAC, gates and the metrics resting on them (``eac_over_plan``,
``efficiency_variance_share``, ``curve_gap``) are not computed, so no rule holds on them; in place of
the EAC overrun alert a batch with spend gets a ``work_unknown`` notice (en + zh-CN) saying what
cannot be judged and how to fix it. Hard money caps (``spend_pct``) still fire: money against money.
"""

from __future__ import annotations

import hashlib
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.ledger.audit import canonical, jsonable
from trainledger.model.money import minor_quantum
from trainledger.review.actuals import Actuals
from trainledger.review.capacity_plan import COMPUTE_PREFIX
from trainledger.review.plan import SCENARIOS, Plan, Rng, holds, parse_condition, planned_on_curve
from trainledger.review.texts import Term, both, line_label, t
from trainledger.review.variance import LineVariance, folded_states, overhead_folded, text

# The parts of each alert's and driver's text (review/texts.py) that are money: what a role that may
# not see the basis' figures reads masked (report/text_mask.py). Every other part — the work done and
# planned, hours, rounds, shares, a rate in hours per Mtoken — stays: the same output prints them.
MONEY_PARTS: dict[str, tuple[str, ...]] = {
    "alert_spend": ("value", "plan"), "alert_eac": ("value", "plan"), "alert_unplanned": ("value",),
    "alert_work_unknown": ("value", "plan"), "alert_rounds": (), "alert_gate": (), "alert_obsolete": (),
    "drv_unknown": (), "drv_efficiency": ("amount",), "drv_eff_rate": ("amount",), "drv_eff_fixed": ("amount",),
    "drv_rework_labor": ("amount",), "drv_rework": ("amount",), "drv_price": ("amount", "pa", "pp"),
    "drv_unplanned": ("amount",), "drv_volume": ("amount",)}
HALF = Decimal("0.5")
FAILURE_STATES = frozenset(("hang", "lost_progress"))  # shown beside the rework row, not in the planned overhead


def _q(d: Decimal, cur: str, rounding=ROUND_HALF_EVEN) -> Decimal:
    return d.quantize(minor_quantum(cur), rounding)


def _r(d: Rng, cur: str) -> dict[str, str]:
    return {s: text(d.get(s), cur) for s in SCENARIOS}


def groups(plan: Plan, act: Actuals) -> dict[tuple[str, str], dict]:
    """(basis, currency) → plan Rng, AC Rng."""
    out: dict[tuple[str, str], dict] = {}
    for key, rng in plan.totals().items():
        out[key] = {"plan": rng, "ac": Rng.zero()}
    for pl in plan.lines:
        a = act.planned.get(pl.id)
        if a is not None:
            g = out[(str(pl.basis), pl.currency)]
            g["ac"] = Rng(*(g["ac"].get(s) + a.ac.get(s) for s in SCENARIOS))
    for (_cat, basis, cur), a in act.unplanned.items():
        g = out.setdefault((basis, cur), {"plan": Rng.zero(), "ac": Rng.zero()})
        g["ac"] = Rng(*(g["ac"].get(s) + a.ac.get(s) for s in SCENARIOS))
    return out


def earned(plan_rng: Rng, work: Rng, done: Decimal, cur: str) -> Rng:
    """EV = plan × the share of the planned work done (at most 1), rounded as the plan is, so that work
    done at or past the plan earns the plan to the cent (review 7 L4: truncation printed 137,469.80
    beside a plan of 137,469.81)."""
    wp = work.expected
    f = min(done / wp, Decimal(1)) if wp > 0 else Decimal(0)
    return Rng(*(_q(plan_rng.get(s) * f, cur) for s in SCENARIOS))


def at_completion(plan_rng: Rng, ac: Rng, work: Rng, done: Decimal, cur: str) -> Rng:
    if done <= 0 or plan_rng.expected == 0:
        return Rng(*(_q(ac.get(s) + plan_rng.get(s), cur) for s in SCENARIOS))
    measured = ac.expected / done
    per = {s: plan_rng.get(s) / work.get(s) if work.get(s) > 0 else Decimal(0) for s in SCENARIOS}
    left = {s: max(work.get(s) - done, Decimal(0)) for s in SCENARIOS}
    low = ac.low + left["low"] * min(measured, per["low"])
    exp = ac.expected + left["expected"] * measured
    high = ac.high + left["high"] * max(measured, per["high"])
    return Rng(_q(low, cur), _q(max(exp, low), cur), _q(max(high, exp), cur))


def is_compute(line_id: str) -> bool:
    """A plan compute line: ``compute`` (billed) or ``compute:<basis>`` (capacity_plan.py)."""
    return line_id == "compute" or line_id.startswith(COMPUTE_PREFIX)


def metrics(plan: Plan, act: Actuals, lines: list[LineVariance], ev_eac: dict) -> dict[str, Decimal]:
    """Figures stop rules may name (plan.METRICS), from the compute line when there is one."""
    m: dict[str, Decimal] = {}
    wp = plan.work.expected
    if act.work_known:  # an unknown work figure is no metric (a rule on it does not hold)
        m["work_done"] = act.work / wp if wp > 0 else Decimal(0)
    comps = [lv for lv in lines if is_compute(lv.line) and lv.plan > 0]
    # one compute line per basis (capacity_plan.py): a rule holds when any basis meets it, bases never added
    if comps:
        m["spend_share"] = max(lv.actual / lv.plan for lv in comps)  # money against money, whatever the work
        if act.work_known:  # EAC and the efficiency split rest on the work done: unknown is not 0
            m["efficiency_variance_share"] = max(lv.efficiency / lv.plan for lv in comps)
            over = [ev_eac[(lv.basis, lv.currency)]["eac"].expected / lv.plan - 1 for lv in comps
                    if (lv.basis, lv.currency) in ev_eac]
            if over:
                m["eac_over_plan"] = max(over)
    acts = [a for k, a in act.planned.items() if is_compute(k)]
    qty = sum((a.quantity for a in acts), Decimal(0))  # GPU-hours add up across bases; money does not
    if qty > 0:
        m["rework_share"] = sum((a.rework_quantity for a in acts), Decimal(0)) / qty
    # each failure's cause as the sheet shows it (confirmed, recorded or suggested), not only the ones a
    # job wrote in its Comment (review 6 K16); exploration is why a run ran, not a repeated error
    causes: dict[str, int] = {}
    for cause in act.failure_causes.values():
        if cause != "exploration":
            causes[cause] = causes.get(cause, 0) + 1
    m["same_cause_max"] = Decimal(max(causes.values(), default=0))
    if plan.max_rounds:
        m["rounds_used_share"] = Decimal(len(act.rounds)) / Decimal(plan.max_rounds)
    gaps = [c["gap"] for c in curves(plan, act) if c["gap"] is not None] if act.work_known else []
    if gaps:
        m["curve_gap"] = max(Decimal(g) for g in gaps)
    return m


def curves(plan: Plan, act: Actuals) -> list[dict]:
    """Each planned metric curve at the work done: planned value, latest actual, and the gap
    (positive = behind plan: above a lower-is-better curve, below a higher-is-better one)."""
    out = []
    frac = min(act.work / plan.work.expected, Decimal(1)) if plan.work.expected > 0 else Decimal(0)
    for c in plan.curves:
        planned = planned_on_curve(c, frac)
        actual = act.latest_metrics.get(c["metric"])
        gap = None
        if actual is not None and planned != 0:
            gap = ((actual - planned) if c["better"] == "lower" else (planned - actual)) / abs(planned)
            gap = gap.quantize(Decimal("0.0001"))
        out.append({"metric": c["metric"], "better": c["better"], "work_fraction": format(frac.quantize(
            Decimal("0.0001")), "f"), "planned": format(planned, "f"),
            "actual": None if actual is None else format(actual, "f"),
            "gap": None if gap is None else format(gap, "f")})
    return out


def verdict(plan: Plan, m: dict[str, Decimal]) -> dict:
    for rule in plan.rules:
        conds = [parse_condition(c, f"rule {rule['id']}") for c in rule["when"]]
        if all(holds(c, m) for c in conds):
            return {"action": rule["action"], "rule": rule["id"], "when": rule["when"]}
    return {"action": "continue", "rule": None, "when": []}


def driver(group: list[LineVariance], act: Actuals, plan: Plan) -> dict[str, str]:
    """The variance part that moved this basis and currency most, in words (en + zh-CN), explained
    by the plan line and the state, reason or price that moved most inside it."""
    parts = {k: sum((getattr(lv, k) for lv in group), Decimal(0)) for k in ("price", "volume", "efficiency", "rework")}
    part = max(parts, key=lambda k: (abs(parts[k]), k))
    lv = max(group, key=lambda x: (abs(getattr(x, part)), x.line))
    cur = lv.currency
    plan_total = sum((x.plan for x in group), Decimal(0))
    share = f"{(parts[part] / plan_total * 100).quantize(Decimal('1'), ROUND_HALF_EVEN):+}%" if plan_total else "n/a"
    amt = f"{_q(parts[part], cur):+,} {cur}"  # thousands separators, as every amount on the sheet
    unit = Term(lv.quantities.get("unit", ""))
    pl = next((p for p in plan.lines if p.id == lv.line), None)
    a = act.planned.get(lv.line)
    if part == "efficiency" and pl is not None and a is not None and a.quantity > 0 and lv.efficiency_by_state:
        state = max(lv.efficiency_by_state, key=lambda s: (abs(lv.efficiency_by_state[s]), s))
        if state in pl.efficiency and act.work > 0:
            actual = overhead_folded(a.by_state, pl.efficiency, pl.fixed).get(state, Decimal(0))
            return both("drv_eff_rate", amount=amt, share=share, state=Term(state), unit=unit,
                        rate=(actual / act.work).quantize(Decimal("0.0001")),
                        plan=pl.efficiency[state].expected.quantize(Decimal("0.0001")))
        if state in pl.fixed:
            return both("drv_eff_fixed", amount=amt, share=share, state=Term(state), unit=unit,
                        qty=a.by_state.get(state, Decimal(0)).quantize(Decimal("0.01")),
                        plan=pl.fixed[state].expected.quantize(Decimal("0.01")))
        pct = f"{(a.by_state.get(state, Decimal(0)) / a.quantity * 100).quantize(Decimal('0.1'))} %"
        return both("drv_efficiency", amount=amt, share=share, state=Term(state), pct=pct, unit=unit)
    if part == "rework" and a is not None and a.rework:
        (reason, cause), qty = max(a.rework.items(), key=lambda kv: (kv[1], kv[0]))
        if pl is not None and pl.category == "labor":
            return both("drv_rework_labor", amount=amt, share=share, role=Term(cause),
                        qty=f"{qty.quantize(Decimal('0.01'))}")
        return both("drv_rework", amount=amt, share=share, reason=Term(reason), cause=Term(cause),
                    qty=f"{qty.quantize(Decimal('0.01'))}", unit=unit)
    if part == "price" and pl is not None and a is not None and a.quantity > 0:
        pa = (a.ac.expected / a.quantity).quantize(Decimal("0.0001"))
        return both("drv_price", amount=amt, share=share, pa=pa, pp=pl.price.expected, unit=unit)
    return both("drv_volume", amount=amt, share=share, wa=act.work.quantize(Decimal("0.01")),
                wp=plan.work.expected.quantize(Decimal("0.01")))


def labor_kind(plan: Plan, act: Actuals) -> str:
    """The restricted kind of the internal (labor) figures — plan, AC, EV, EAC, the variance by basis
    (report/plan_access.py ``mark_internal``): one role's cost (``labor_cost_person``) when one valued
    role makes the plan's internal total or one role has actuals (an unplanned labor line counts as
    one: which roles it holds is not known), as the sheet and the cross report rule; else several
    roles' (``labor_cost_phase``). Divided by the plan's hours per Mtoken, one role's total is its rate."""
    internal = [pl for pl in plan.lines if str(pl.basis) == "internal"]
    planned = {pl.role or pl.id for pl in internal if any(pl.price.get(s) for s in SCENARIOS)}
    actual = {pl.role or pl.id for pl in internal if (a := act.planned.get(pl.id)) is not None and a.lines}
    unplanned = any(a.lines for (cat, basis, _c), a in act.unplanned.items() if cat == "labor" or basis == "internal")
    n_actual = len(actual) + unplanned
    several = len(planned) != 1 and n_actual != 1 and (len(planned) + n_actual) > 0
    return "labor_cost_phase" if several else "labor_cost_person"


def ac_labor_kind(plan: Plan, act: Actuals) -> str:
    """The restricted kind of the internal AC alone: the batch's actual labor cost, the figure the
    sheet's totals show — several roles' (``labor_cost_phase``) when more than one role has actual
    lines (a planned role and the unplanned labor line are two), else one role's. Unlike
    ``labor_kind`` it does not follow the plan: a one-role plan makes its plan, EV and EAC one
    person's (÷ hours = the rate) but not the actual total of several roles (review 4 H2 leftover)."""
    internal = [pl for pl in plan.lines if str(pl.basis) == "internal"]
    actual = {pl.role or pl.id for pl in internal if (a := act.planned.get(pl.id)) is not None and a.lines}
    unplanned = any(a.lines for (cat, basis, _c), a in act.unplanned.items() if cat == "labor" or basis == "internal")
    return "labor_cost_phase" if len(actual) + unplanned > 1 else "labor_cost_person"


def vendor_of(plan: Plan, act: Actuals) -> dict[str, list]:
    """Which figures hold an external service's invoice (report/vendor_kinds.py marks them vendor_amount):
    ``vendor_groups``, the basis and currency of each AC an invoice is part of, and ``vendor_lines``,
    the variance lines it is matched to (a plan line of category external, or ``unplanned:external``)."""
    held = {(str(pl.basis), pl.currency) for pl in plan.lines
            if pl.category == "external" and (a := act.planned.get(pl.id)) is not None and a.lines}
    held |= {(b, c) for (cat, b, c), a in act.unplanned.items() if cat == "external" and a.lines}
    return {"vendor_groups": [{"basis": b, "currency": c} for b, c in sorted(held)],
            "vendor_lines": sorted({pl.id for pl in plan.lines if pl.category == "external"} | {"unplanned:external"})}


def build(plan: Plan, plan_id: int, act: Actuals, lines: list[LineVariance]) -> dict:
    """The status object (``status --json``) and the alert candidates (``_alerts``, not shown)."""
    g = groups(plan, act)
    figs: dict[tuple[str, str], dict] = {}
    for (basis, cur), x in sorted(g.items()):
        figs[(basis, cur)] = {"plan": x["plan"], "ac": x["ac"],
                              "ev": earned(x["plan"], plan.work, act.work, cur),
                              "eac": at_completion(x["plan"], x["ac"], plan.work, act.work, cur)}

    # a basis nothing was recorded on (no timesheet): its AC 0 is not measured (variance.split's note)
    unrecorded = {(lv.basis, lv.currency) for lv in lines if lv.note == "not_recorded"}

    def listing(k: str) -> list[dict]:
        if k in ("ev", "eac") and not act.work_known:  # they rest on the work done: unknown, not 0
            return []
        return [{"basis": b, "currency": c, **_r(v[k], c),
                 **({"recorded": False, "why_not_recorded": both("note_not_recorded")}
                    if k in ("ac", "eac") and (b, c) in unrecorded else {})} for (b, c), v in figs.items()
                if (b, c) in shown]

    # a basis neither planned nor spent on (0 on both sides, every scenario) is no row of the status
    shown = {key for key, v in figs.items() if any(v["plan"].get(s) or v["ac"].get(s) for s in SCENARIOS)}

    m = metrics(plan, act, lines, figs)
    gates = []
    rec = verdict(plan, m)
    for gate in plan.gates:
        reached = (act.work_known and act.work >= Decimal(gate["at_work"]) * plan.work.expected
                   and spent(plan, figs, Decimal(gate["min_spend"])))
        gates.append({"id": gate["id"], "at_work": gate["at_work"], "min_spend": gate["min_spend"],
                      "reached": reached, "verdict": rec if reached else None})
    hours = _hours_by_state(plan, act)
    used = len(act.rounds)
    status = {"batch": plan.batch, "plan_version": plan.version, "plan_id": plan_id,
              "plan": listing("plan"), "ac": listing("ac"), "ev": listing("ev"), "eac": listing("eac"),
              "rounds": {"used": used, "max": plan.max_rounds},
              "work": {"unit": "Mtoken", "done": format(act.work, "f") if act.work_known else None,
                       "known": act.work_known, **plan.work.as_dict(),
                       **({} if act.work_known else {"why_unknown": both("work_unknown")})},
              "gpu_hours_by_state": hours,
              "metrics": {k: format(v.quantize(Decimal("0.000001")), "f") for k, v in sorted(m.items())},
              "curves": curves(plan, act),
              "gates": gates}
    snapshot = hashlib.sha256(canonical(jsonable(status)).encode()).hexdigest()
    status["evidence_sha256"] = snapshot
    status["labor_kind"] = labor_kind(plan, act)  # after the snapshot: not a figure, the alerts' evidence stays
    status["ac_labor_kind"] = ac_labor_kind(plan, act)  # the internal AC's own (the sheet's totals rule)
    status.update(vendor_of(plan, act))  # not figures either: which groups an invoice is part of
    status["_alerts"] = _candidates(plan, act, lines, figs, gates, used, snapshot)
    return status


def spent(plan: Plan, figs: dict, min_spend: Decimal) -> bool:
    """A gate's ``min_spend`` reached: the AC of the basis compute is planned on (billed: every
    currency's, as ever). With compute planned on several bases (owned and reserved capacity) it is
    apportioned to them by their planned expected cost, and each basis must reach its part — so no
    sum of different bases is ever formed."""
    comps = [p for p in plan.lines if is_compute(p.id)]
    bases = sorted({str(p.basis) for p in comps}) or ["billed"]
    if len(bases) == 1:
        return sum((v["ac"].expected for (b, _c), v in figs.items() if b == bases[0]), Decimal(0)) >= min_spend
    planned = {p.id: p.cost(plan.work).expected for p in comps}
    whole = sum(planned.values(), Decimal(0))
    for p in comps:
        ac = figs.get((str(p.basis), p.currency), {}).get("ac")
        part = min_spend * planned[p.id] / whole if whole > 0 else min_spend
        if (ac.expected if ac is not None else Decimal(0)) < part:
            return False
    return True


def _hours_by_state(plan: Plan, act: Actuals) -> list[dict]:
    """GPU-hours by state (any spend basis) against the compute lines' planned GPU-hours (summed:
    hours add up across bases). The plan's ``overhead`` stands for the measured states it does not
    name (variance.folded_states): its actual is their sum, each listed in its ``states`` (a detail,
    not a row of its own), so the rows add up to the runs' GPU-hours. With a rework allowance planned
    a failure's hang and lost progress keep their own rows, beside the rework row that measures them."""
    comps = [p for p in plan.lines if is_compute(p.id)]
    eff: dict[str, Decimal] = {}
    fixed: set[str] = set()
    for p in comps:
        fixed |= set(p.fixed)
        for k, r in p.efficiency.items():
            eff[k] = eff.get(k, Decimal(0)) + r.expected
    measured = act.gpu_hours_by_state
    if any(p.rework for p in comps):  # a failure's hang and lost progress are what the rework row measures
        fixed |= FAILURE_STATES
    fold = folded_states(measured, eff, fixed)
    hours = overhead_folded(measured, eff, fixed)
    rows = []
    for s in sorted(set(hours) | set(eff)):
        e = eff.get(s)
        rows.append({"state": s, "actual": format(hours.get(s, Decimal(0)), "f"),
                     "planned_for_work_done": format(act.work * e, "f") if e is not None else None,
                     "planned_at_completion": format(plan.work.expected * e, "f") if e is not None else None})
        if s == "overhead" and fold:
            rows[-1]["states"] = [{"state": x, "actual": format(measured[x], "f")} for x in fold]
    if any(p.rework for p in comps):
        done = sum((a.rework_quantity for k, a in act.planned.items() if is_compute(k)), Decimal(0))
        rows.append({"state": "rework (reruns)", "actual": format(done, "f"), "planned_for_work_done": None,
                     "planned_at_completion": format(sum((r.expected for p in comps for r in p.rework.values()),
                                                         Decimal(0)), "f")})
    return rows


def _candidates(plan, act, lines, figs, gates, used, snapshot) -> list[dict]:
    out = []
    by_key: dict[tuple[str, str], list[LineVariance]] = {}
    for lv in lines:
        by_key.setdefault((lv.basis, lv.currency), []).append(lv)
    for (basis, cur), f in figs.items():
        pe = f["plan"].expected
        if pe <= 0:
            if f["ac"].expected > 0:  # money where the plan has none: no share of a 0 plan to bound it
                out.append(_unplanned_alert(basis, cur, f["ac"].expected, act, snapshot))
            continue
        group = by_key.get((basis, cur))
        if not act.work_known:  # the spend itself is known; what drove it is not
            drv = both("drv_unknown")
        else:
            drv = driver(group, act, plan) if group else {"en": "", "zh-CN": ""}
        share = f["ac"].expected / pe * 100
        for b in plan.bounds.get("spend_pct", []):
            if share >= Decimal(b):
                out.append({"key": f"spend:{basis}:{cur}:{b}", "kind": "spend", "bound": f"{b} %",
                            "value": format(f["ac"].expected, "f"), "plan": format(pe, "f"),
                            "basis": basis, "currency": cur, "driver": drv, "evidence_sha256": snapshot,
                            "text": both("alert_spend", basis=Term(basis), currency=cur,
                                         value=_q(f["ac"].expected, cur), bound=b, plan=_q(pe, cur))})
        if plan.bounds.get("eac_high_over_plan_high", True) and not act.work_known and f["ac"].expected > 0:
            # an EV-based alert cannot be judged: a notice saying so, never an overrun computed from EV = 0
            out.append({"key": f"work_unknown:{basis}:{cur}", "kind": "work_unknown", "bound": "",
                        "value": format(f["ac"].expected, "f"), "plan": format(pe, "f"),
                        "basis": basis, "currency": cur, "driver": both("work_unknown"),
                        "evidence_sha256": snapshot,
                        "text": both("alert_work_unknown", basis=Term(basis), currency=cur,
                                     value=_q(f["ac"].expected, cur), plan=_q(pe, cur))})
        if (plan.bounds.get("eac_high_over_plan_high", True) and act.work_known
                and f["eac"].high > f["plan"].high):
            out.append({"key": f"eac_high:{basis}:{cur}", "kind": "eac_high", "bound": format(f["plan"].high, "f"),
                        "value": format(f["eac"].high, "f"), "plan": format(f["plan"].high, "f"),
                        "basis": basis, "currency": cur, "driver": drv, "evidence_sha256": snapshot,
                        "text": both("alert_eac", basis=Term(basis), currency=cur, value=f["eac"].high,
                                     plan=_q(f["plan"].high, cur))})
    if plan.bounds.get("rounds_at_max", True) and plan.max_rounds and used >= plan.max_rounds:
        out.append({"key": "rounds", "kind": "rounds", "bound": str(plan.max_rounds), "value": str(used),
                    "driver": {"en": "", "zh-CN": ""}, "evidence_sha256": snapshot,
                    "text": both("alert_rounds", value=used, bound=plan.max_rounds)})
    for gate in gates:
        if gate["reached"]:
            v = gate["verdict"]["action"]
            out.append({"key": f"gate:{gate['id']}", "kind": "gate", "bound": gate["at_work"], "value":
                        format(act.work, "f"), "verdict": gate["verdict"], "driver": {"en": "", "zh-CN": ""},
                        "evidence_sha256": snapshot, "text": both("alert_gate", id=gate["id"], verdict=Term(v))})
    return out


def _unplanned_alert(basis: str, cur: str, value: Decimal, act: Actuals, snapshot: str) -> dict:
    """Spend on a basis and currency the plan has nothing for (``unplanned``), driven by its largest kind."""
    kinds = {cat: a.ac.expected for (cat, b, c), a in act.unplanned.items() if (b, c) == (basis, cur)}
    cat = max(kinds, key=lambda k: (kinds[k], k)) if kinds else "other"
    amt = f"{_q(kinds.get(cat, value), cur):,} {cur}"
    return {"key": f"unplanned:{basis}:{cur}", "kind": "unplanned", "bound": "0", "value": format(value, "f"),
            "plan": "0", "basis": basis, "currency": cur, "evidence_sha256": snapshot,
            "driver": {lang: t("drv_unplanned", lang, line=line_label(f"unplanned:{cat}", lang), amount=amt)
                       for lang in ("en", "zh-CN")},
            "text": both("alert_unplanned", basis=Term(basis), currency=cur, value=_q(value, cur))}
