"""The plan baseline as data: ``Plan`` and its lines, built from an estimate spec or a review.

A plan line prices one kind of quantity (GPU-hours, labor hours) for one basis and currency::

    planned quantity  Q = Σ fixed[state] + W × Σ efficiency[state] + Σ rework[reason]
    planned cost      C = price × Q            (each of low / expected / high, bound by bound)

``W`` is the plan's volume driver: useful work in millions of tokens (tokens × rounds).
``efficiency`` is quantity per Mtoken by compute state (or labor phase); ``fixed`` is one-time
quantity (labor build); ``rework`` is the rerun allowance by run reason. All exact ``Decimal``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from trainledger.errors import BadInput
from trainledger.model import Basis, DecisionKind, Evidence, RunReason
from trainledger.pricebook import UNITS

SCHEMA = "trainledger.plan/1"
WORK_UNIT = "Mtoken"
# the price book's person-month (21 days x 8 h): one definition for the estimator, the plan and decide
HOURS_PER_PERSON_MONTH = UNITS["person_month"][1]  # 168
REWORK_REASONS = (RunReason.FAULT_RETRY.value, RunReason.DATA_FIX.value, RunReason.EVAL_REWORK.value)
ACTIONS = (*(k.value for k in DecisionKind), "review")
METRICS = ("spend_share", "eac_over_plan", "efficiency_variance_share", "rework_share", "same_cause_max",
           "work_done", "rounds_used_share", "curve_gap")
_COND = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|>|<|==)\s*(-?\d+(?:\.\d+)?)\s*$")
SCENARIOS = ("low", "expected", "high")
DEFAULT_BOUNDS = {"spend_pct": ["50", "80", "100"], "eac_high_over_plan_high": True, "rounds_at_max": True}


@dataclass(frozen=True)
class Rng:
    low: Decimal
    expected: Decimal
    high: Decimal

    def __post_init__(self) -> None:
        for k in SCENARIOS:
            object.__setattr__(self, k, Decimal(str(getattr(self, k))))
        if not self.low <= self.expected <= self.high:
            raise ValueError(f"need low <= expected <= high, got {self.low} / {self.expected} / {self.high}")

    @classmethod
    def point(cls, v: Decimal) -> Rng:
        return cls(v, v, v)

    @classmethod
    def zero(cls) -> Rng:
        return cls(Decimal(0), Decimal(0), Decimal(0))

    def get(self, scenario: str) -> Decimal:
        return getattr(self, scenario)

    def as_dict(self) -> dict[str, str]:
        return {k: format(getattr(self, k), "f") for k in SCENARIOS}

    @classmethod
    def parse(cls, raw: Any, what: str) -> Rng:
        """``[low, expected, high]``, a table with those keys, or one number (a point)."""
        try:
            if isinstance(raw, dict):
                vals = [raw["low"], raw.get("expected", raw.get("mode")), raw["high"]]
            elif isinstance(raw, list | tuple):
                if len(raw) != 3:
                    raise ValueError("give [low, expected, high]")
                vals = list(raw)
            else:
                vals = [raw, raw, raw]
            return cls(*(Decimal(str(v)) for v in vals))
        except (KeyError, ValueError, ArithmeticError) as exc:
            raise BadInput(f"{what}: not a low / expected / high range: {raw!r} ({exc})",
                           remedy="write [low, expected, high], e.g. [0.02, 0.05, 0.1]") from None


def _rngs(d: dict) -> dict[str, Rng]:
    return {k: Rng(**{s: Decimal(v[s]) for s in SCENARIOS}) for k, v in d.items()}


@dataclass(frozen=True)
class PlanLine:
    id: str
    category: str  # compute | labor
    basis: Basis
    currency: str
    unit: str  # gpu_hour | hour
    price: Rng
    price_meta: dict  # item, effective, source, evidence, owner
    efficiency: dict[str, Rng]  # quantity per Mtoken of useful work, by state / phase
    fixed: dict[str, Rng] = field(default_factory=dict)  # one-time quantity by state / phase
    rework: dict[str, Rng] = field(default_factory=dict)  # rerun quantity allowance by reason
    role: str = ""  # labor lines: the role they price
    evidence: dict = field(default_factory=dict)  # per part: {"efficiency": {...}, "rework": {...}}

    def quantity(self, work: Rng, s: str) -> Decimal:
        return (sum((r.get(s) for r in self.fixed.values()), Decimal(0))
                + work.get(s) * sum((r.get(s) for r in self.efficiency.values()), Decimal(0))
                + sum((r.get(s) for r in self.rework.values()), Decimal(0)))

    def cost(self, work: Rng) -> Rng:
        return Rng(*(self.price.get(s) * self.quantity(work, s) for s in SCENARIOS))

    def as_dict(self) -> dict:
        return {"id": self.id, "category": self.category, "basis": str(self.basis), "currency": self.currency,
                "unit": self.unit, "role": self.role, "price": {**self.price.as_dict(), **self.price_meta},
                "efficiency": {k: v.as_dict() for k, v in self.efficiency.items()},
                "fixed": {k: v.as_dict() for k, v in self.fixed.items()},
                "rework": {k: v.as_dict() for k, v in self.rework.items()},
                "evidence": self.evidence}

    @classmethod
    def from_dict(cls, d: dict) -> PlanLine:
        price = dict(d["price"])
        rng = Rng(*(Decimal(price.pop(s)) for s in SCENARIOS))
        return cls(id=d["id"], category=d["category"], basis=Basis(d["basis"]), currency=d["currency"],
                   unit=d["unit"], role=d.get("role", ""), price=rng, price_meta=price,
                   efficiency=_rngs(d["efficiency"]), fixed=_rngs(d.get("fixed", {})),
                   rework=_rngs(d.get("rework", {})), evidence=d.get("evidence", {}))


@dataclass(frozen=True)
class Plan:
    batch: str
    version: int
    reason: str
    author: str
    source: dict
    work: Rng  # useful work, Mtoken
    work_evidence: dict
    lines: tuple[PlanLine, ...]
    max_rounds: int | None
    bounds: dict
    gates: tuple[dict, ...]
    rules: tuple[dict, ...]
    assumptions: tuple[dict, ...]
    shrink_factor: Decimal = Decimal("0.5")
    retention_months: Decimal = Decimal(3)
    curves: tuple[dict, ...] = ()  # a named progress metric's planned curve over the work fraction

    def totals(self) -> dict[tuple[str, str], Rng]:
        """Planned cost per (basis, currency), bound by bound."""
        out: dict[tuple[str, str], Rng] = {}
        for ln in self.lines:
            key = (str(ln.basis), ln.currency)
            c = ln.cost(self.work)
            prev = out.get(key)
            out[key] = c if prev is None else Rng(*(prev.get(s) + c.get(s) for s in SCENARIOS))
        return out

    def as_dict(self) -> dict:
        return {"schema": SCHEMA, "batch": self.batch, "version": self.version, "reason": self.reason,
                "author": self.author, "source": self.source,
                "work": {"unit": WORK_UNIT, **self.work.as_dict(), **self.work_evidence},
                "lines": [ln.as_dict() for ln in self.lines], "max_rounds": self.max_rounds,
                "bounds": self.bounds, "gates": list(self.gates), "rules": list(self.rules),
                "assumptions": list(self.assumptions), "shrink_factor": format(self.shrink_factor, "f"),
                "retention_months": format(self.retention_months, "f"), "curves": list(self.curves)}

    @classmethod
    def from_dict(cls, d: dict) -> Plan:
        work = dict(d["work"])
        rng = Rng(*(Decimal(work.pop(s)) for s in SCENARIOS))
        work.pop("unit", None)
        return cls(batch=d["batch"], version=int(d["version"]), reason=d.get("reason", ""),
                   author=d.get("author", ""), source=d.get("source", {}), work=rng, work_evidence=work,
                   lines=tuple(PlanLine.from_dict(x) for x in d["lines"]), max_rounds=d.get("max_rounds"),
                   bounds=d.get("bounds", DEFAULT_BOUNDS), gates=tuple(d.get("gates", ())),
                   rules=tuple(d.get("rules", ())), assumptions=tuple(d.get("assumptions", ())),
                   shrink_factor=Decimal(d.get("shrink_factor", "0.5")),
                   retention_months=Decimal(d.get("retention_months", "3")), curves=tuple(d.get("curves", ())))


def parse_condition(text: str, where: str) -> tuple[str, str, Decimal]:
    m = _COND.match(str(text))
    if not m or m.group(1) not in METRICS:
        raise BadInput(f"{where}: cannot read the condition {text!r}",
                       remedy=f"write 'METRIC OP NUMBER' with OP one of > >= < <= == and METRIC one of"
                              f" {', '.join(METRICS)}")
    return m.group(1), m.group(2), Decimal(m.group(3))


def holds(cond: tuple[str, str, Decimal], metrics: dict[str, Decimal]) -> bool:
    name, op, bound = cond
    v = metrics.get(name)
    if v is None:
        return False
    return {">": v > bound, ">=": v >= bound, "<": v < bound, "<=": v <= bound, "==": v == bound}[op]


def governance(table: dict, where: str, batch_max_rounds: int | None) -> dict:
    """Validate the spec's ``[plan]`` table: bounds, gates, rules, assumptions, max rounds."""
    known = {"max_rounds", "reason", "bounds", "gates", "rules", "assumptions", "rework", "labor_rework",
             "shrink_factor", "retention_months", "storage", "curves", "shrink",
             "compute_share"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise BadInput(f"{where}: [plan] has unknown keys {unknown}", remedy=f"use {', '.join(sorted(known))}")
    bounds = {**DEFAULT_BOUNDS, **table.get("bounds", {})}
    bounds["spend_pct"] = [format(Decimal(str(x)), "f") for x in bounds["spend_pct"]]
    gates = []
    for i, g in enumerate(table.get("gates", []), 1):
        if "at_work" not in g:
            raise BadInput(f"{where}: [[plan.gates]] #{i} has no at_work (fraction of the planned work)")
        frac = Decimal(str(g["at_work"]))
        if not Decimal(0) < frac <= Decimal(1):
            raise BadInput(f"{where}: gate #{i} at_work must be in (0, 1], got {frac}")
        gates.append({"id": str(g.get("id", f"g{i}")), "at_work": format(frac, "f"),
                      "min_spend": format(Decimal(str(g.get("min_spend", "0"))), "f")})
    rules = []
    for i, r in enumerate(table.get("rules", []), 1):
        rid = str(r.get("id", f"r{i}"))
        action = str(r.get("action", ""))
        if action not in ACTIONS:
            raise BadInput(f"{where}: rule {rid}: action {action!r}", remedy=f"use one of {', '.join(ACTIONS)}")
        when = r.get("when", [])
        when = [when] if isinstance(when, str) else list(when)
        if not when:
            raise BadInput(f"{where}: rule {rid} has no conditions (when = [...])")
        for c in when:
            parse_condition(c, f"{where}: rule {rid}")
        rules.append({"id": rid, "when": [str(c) for c in when], "action": action})
    assumptions = []
    for i, a in enumerate(table.get("assumptions", []), 1):
        if not a.get("name") or not a.get("owner"):
            raise BadInput(f"{where}: [[plan.assumptions]] #{i} needs a name and an owner",
                           remedy="a high-risk assumption without an owner is nobody's to confirm")
        assumptions.append({"name": str(a["name"]), "owner": str(a["owner"]),
                            "value": str(a.get("value", "")), "evidence": str(Evidence(a.get("evidence", "assumed"))),
                            "risk": str(a.get("risk", "high")), "source": str(a.get("source", ""))})
    max_rounds = table.get("max_rounds", batch_max_rounds)
    return {"bounds": bounds, "gates": tuple(gates), "rules": tuple(rules), "assumptions": tuple(assumptions),
            "max_rounds": None if max_rounds is None else int(max_rounds),
            "shrink_factor": Decimal(str(table.get("shrink_factor", "0.5"))),
            "retention_months": Decimal(str(table.get("retention_months", "3"))),
            "curves": tuple(_curve(c, i, where) for i, c in enumerate(table.get("curves", []), 1))}


def _curve(c: dict, i: int, where: str) -> dict:
    """``[[plan.curves]] metric = "loss", better = "lower", points = [[0.25, 1.2], [1.0, 0.6]]``:
    the metric's planned value at fractions of the planned work (linear in between)."""
    metric, better = str(c.get("metric", "")), str(c.get("better", "lower"))
    try:
        pts = sorted((Decimal(str(f)), Decimal(str(v))) for f, v in c.get("points", []))
    except (TypeError, ValueError, ArithmeticError):
        pts = []
    if not metric or better not in ("lower", "higher") or not pts or any(not 0 <= f <= 1 for f, _ in pts):
        raise BadInput(f"{where}: [[plan.curves]] #{i} needs metric, better = lower|higher and points"
                       " [[work fraction 0..1, value], ...]", remedy='e.g. metric = "loss", points = [[0.5, 0.9]]')
    return {"metric": metric, "better": better, "points": [[format(f, "f"), format(v, "f")] for f, v in pts]}


def planned_on_curve(curve: dict, fraction: Decimal) -> Decimal:
    pts = [(Decimal(f), Decimal(v)) for f, v in curve["points"]]
    if fraction <= pts[0][0]:
        return pts[0][1]
    for (f0, v0), (f1, v1) in zip(pts, pts[1:], strict=False):
        if fraction <= f1:
            return v0 + (v1 - v0) * (fraction - f0) / (f1 - f0) if f1 > f0 else v1
    return pts[-1][1]
