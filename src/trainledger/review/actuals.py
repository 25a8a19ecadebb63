"""What a batch actually spent and did, in the plan's terms (pure: no ledger, no lake).

* **Useful work** (Mtoken): per run that is not a rerun, the tokens between its start (0, or the
  step it resumed from) and its last step — or, for a failed run, its last saved checkpoint (the
  rest is redone). Token counters are cumulative per run, so this is steps x tokens per step.
* Each cost line is matched to a plan line (compute: category and basis; labor: the role) or kept
  as **unplanned** by (category, basis, currency). A line of a rerun (reason fault_retry, data_fix,
  eval_rework) or of the labor phase ``rework`` is **rework** quantity, keyed by reason and
  failure cause; every other line's quantity counts by its state (compute state, labor phase).
  Each line's quantity is read at 1e-6 of its unit (``QTY``), so the split's figures stay short;
  the split is exact over those quantities.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from trainledger.engine.timeline import FAILED_STATES
from trainledger.model import CostLine, Run
from trainledger.review.plan import REWORK_REASONS, Plan, PlanLine, Rng

MTOKEN = Decimal(1_000_000)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
QTY = Decimal("0.000001")  # quantities are read at 1e-6 of their unit (3.6 ms of a GPU-hour)


@dataclass
class LineActual:
    """One plan line's actuals, accumulated line by line while ``collect`` runs (then only read)."""

    amount: list = field(default_factory=lambda: [Decimal(0)] * 3)  # low, expected, high
    by_state: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    by_state_amount: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    rework: dict[tuple[str, str], Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    rework_amount: Decimal = Decimal(0)
    lines: int = 0

    def add(self, ln: CostLine, state: str, rework_key: tuple[str, str] | None) -> None:
        a = ln.amount
        self.amount = [self.amount[0] + a.low, self.amount[1] + a.expected, self.amount[2] + a.high]
        q = (ln.quantity or Decimal(0)).quantize(QTY)
        if rework_key is None:
            self.by_state[state] += q
            self.by_state_amount[state] += a.expected
        else:
            self.rework[rework_key] += q
            self.rework_amount += a.expected
        self.lines += 1

    @property
    def ac(self) -> Rng:
        return Rng(*self.amount)

    @property
    def quantity(self) -> Decimal:
        return sum(self.by_state.values(), Decimal(0)) + sum(self.rework.values(), Decimal(0))

    @property
    def rework_quantity(self) -> Decimal:
        return sum(self.rework.values(), Decimal(0))


@dataclass(frozen=True)
class Actuals:
    work: Decimal  # Mtoken of useful work done
    work_by_run: dict[str, Decimal]
    planned: dict[str, LineActual]  # by plan line id
    unplanned: dict[tuple[str, str, str], LineActual]  # (category, basis, currency)
    runs: list[Run]
    gpu_hours_by_state: dict[str, Decimal]
    latest_metrics: dict[str, Decimal] = field(default_factory=dict)  # last logged value per metric name


def useful_tokens(run: Run, events: list[dict]) -> Decimal:
    steps = [e for e in events if e.get("event") == "step" and e.get("step") is not None]
    with_tokens = [e for e in steps if e.get("tokens") is not None and int(e["step"]) > 0]
    if not with_tokens:
        return Decimal(0)
    ref = max(with_tokens, key=lambda e: int(e["step"]))
    per_step = Decimal(int(ref["tokens"])) / Decimal(int(ref["step"]))
    resumes = [int(e["step"]) for e in events if e.get("event") == "resume" and e.get("step") is not None]
    start = min(resumes) if resumes else 0
    end = max(int(e["step"]) for e in steps)
    if run.state.split(" ")[0].upper() in FAILED_STATES:
        saved = [int(e["step"]) for e in events if e.get("event") == "checkpoint_saved"
                 and e.get("step") is not None and int(e["step"]) <= end]
        end = max(saved) if saved else start
    return max(end - start, 0) * per_step


def _events_of(run: Run, progress: list[dict]) -> list[dict]:
    keys = {run.id, run.source_job}
    lo, hi = run.started_at, run.ended_at
    out = []
    for e in progress:
        if str(e.get("run")) not in keys:
            continue
        ts = e.get("ts")
        if ts is not None and lo is not None and ts < lo:
            continue
        if ts is not None and hi is not None and ts > hi:
            continue
        out.append(e)
    return out


def is_rework(run: Run | None) -> bool:
    return run is not None and str(run.reason) in REWORK_REASONS


def _match(plan: Plan, ln: CostLine) -> PlanLine | None:
    for pl in plan.lines:
        if pl.category != ln.category or str(pl.basis) != str(ln.basis) or pl.currency != ln.currency:
            continue
        if pl.category == "labor" and ln.detail.partition("/")[2] != pl.role:
            continue
        return pl
    return None


def collect(plan: Plan, lines: list[CostLine], runs: list[Run], progress: list[dict],
            beyond_retention: frozenset[tuple[str, int]] = frozenset()) -> Actuals:
    """``beyond_retention``: (source sha256, row) of inventory rows kept past their retention date —
    their GiB-months are storage rework ("retention beyond plan")."""
    by_run = {r.id: r for r in runs}
    work_by_run: dict[str, Decimal] = {}
    for r in runs:
        if not is_rework(r):
            tok = useful_tokens(r, _events_of(r, progress))
            if tok:
                work_by_run[r.id] = tok / MTOKEN
    planned: dict[str, LineActual] = defaultdict(LineActual)
    unplanned: dict[tuple[str, str, str], LineActual] = defaultdict(LineActual)
    hours: dict[str, Decimal] = defaultdict(Decimal)
    for ln in lines:
        if str(ln.basis) == "allocated":  # an allocation policy's view of idle or shared cost, not spend
            continue
        if ln.category == "compute":
            state = ln.detail or "unclassified"
            run = by_run.get(ln.run_id or "")
            key = (str(run.reason), str(run.cause or "none")) if is_rework(run) else None
            if str(ln.basis) == "billed":
                hours[state] += (ln.quantity or Decimal(0)).quantize(QTY)
        elif ln.category == "labor":
            phase, _, role = ln.detail.partition("/")
            state = phase
            key = ("rework", role) if phase == "rework" else None
        elif ln.category == "storage":
            state = ln.detail or "storage"
            held = (ln.provenance.source_sha256, ln.provenance.row) in beyond_retention
            key = ("retention", state) if held else None
        else:
            state, key = ln.detail or ln.category, None
        pl = _match(plan, ln)
        target = planned[pl.id] if pl is not None else unplanned[(ln.category, str(ln.basis), ln.currency)]
        target.add(ln, state, key)
    return Actuals(work=sum(work_by_run.values(), Decimal(0)), work_by_run=work_by_run, planned=dict(planned),
                   unplanned=dict(unplanned), runs=list(runs), gpu_hours_by_state=dict(hours),
                   latest_metrics=_latest_metrics(runs, progress))


def _latest_metrics(runs: list[Run], progress: list[dict]) -> dict[str, Decimal]:
    """The newest value of each numeric field in the step events' ``extra`` of the non-rerun runs."""
    keys = {k for r in runs if not is_rework(r) for k in (r.id, r.source_job)}
    best: dict[str, tuple] = {}
    for e in progress:
        extra = e.get("extra")
        if e.get("event") != "step" or not extra or str(e.get("run")) not in keys:
            continue
        try:
            values = json.loads(extra) if isinstance(extra, str) else dict(extra)
        except ValueError:
            continue
        for name, v in values.items():
            if isinstance(v, int | float) and not isinstance(v, bool):
                when = e.get("ts") or EPOCH
                if name not in best or when >= best[name][0]:
                    best[name] = (when, Decimal(repr(v)))
    return {k: v for k, (_w, v) in best.items()}


def measured_rates(plan: Plan, act: Actuals) -> dict[str, dict]:
    """Per plan line: measured quantity per Mtoken by state, rework per Mtoken by reason and the
    average price paid (cash lines only) — what the next baseline takes in place of the priors."""
    out: dict[str, dict] = {}
    if act.work <= 0:
        return out
    q = Decimal("0.000001")
    for pl in plan.lines:
        a = act.planned.get(pl.id)
        if a is None:
            continue
        fixed_states = set(pl.fixed)
        if not pl.efficiency and len(fixed_states) == 1:  # a one-time quantity by any state (storage)
            eff, fixed = {}, {next(iter(fixed_states)): sum(a.by_state.values(), Decimal(0))}
        else:
            eff = {s: (v / act.work).quantize(q) for s, v in sorted(a.by_state.items()) if s not in fixed_states}
            fixed = {s: a.by_state.get(s, Decimal(0)) for s in fixed_states}
        rework: dict[str, Decimal] = defaultdict(Decimal)
        for (reason, _cause), v in a.rework.items():
            rework[reason] += v
        price = None
        if pl.category == "compute" and a.quantity > 0:
            price = (a.ac.expected / a.quantity).quantize(q)
        out[pl.id] = {"efficiency": eff, "fixed": fixed,
                      "rework_per_unit": {k: (v / act.work).quantize(q) for k, v in sorted(rework.items())},
                      "price": price}
    return out
