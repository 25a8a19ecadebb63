"""What a batch actually spent and did, in the plan's terms (pure: no ledger, no lake).

* **Useful work** (Mtoken): the furthest progress of each training counter, counted once. A run's
  progress spans its start (0, or the step it resumed from) to its last step — or, for a failed run,
  its last saved checkpoint (the rest is redone); steps x tokens per step. A retry that resumes
  continues its attempt's counter: runs joined by ``retry_of`` (or sharing one scheduler job, a
  requeue) are one counter, and the union of their spans is its work, so the rerun's new steps
  count and the steps it replays after a restore do not count twice. A rerun (fault_retry,
  data_fix, eval_rework) on no counter of a first-pass run adds no useful work. No step with a
  token count at all: the work is **unknown** (``Actuals.work_known`` False), not zero.
* Each cost line is matched to a plan line (compute: category and basis; labor: the role) or kept
  as **unplanned** by (category, basis, currency). **Rework** quantity, keyed by reason and failure
  cause and kept by kind (``LineActual.rework_kind``): of a retry chain on a first-pass counter,
  only the failure's time (``chains.py``: the failed attempts' time the batch did not keep and the
  reruns' setup / preemption recovery), of the kind its review class says (an infra fault is
  ``unforeseeable_fault``, not avoidable rework); a rerun whose work the batch does not count
  (reason fault_retry, data_fix, eval_rework, on no first-pass counter), whole; the labor phase
  ``rework``; storage kept past its retention. Every other line's quantity counts by its state
  (compute state, labor phase): a retry's new training is effective work.
  Each line's quantity is read at 1e-6 of its unit (``QTY``), so the split's figures stay short;
  the split is exact over those quantities.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from trainledger.engine.timeline import FAILED_STATES
from trainledger.model import CostLine, Run
from trainledger.review import chains
from trainledger.review.plan import REWORK_REASONS, Plan, PlanLine, Rng

MTOKEN = Decimal(1_000_000)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
QTY = Decimal("0.000001")  # quantities are read at 1e-6 of their unit (3.6 ms of a GPU-hour)
# compute lines that carry money but no GPU-hours: a price per GPU-hour is never made of them
OTHER_CHARGES = chains.MONEY_ONLY | {"tagged_resource"}


@dataclass
class LineActual:
    """One plan line's actuals, accumulated line by line while ``collect`` runs (then only read)."""

    amount: list = field(default_factory=lambda: [Decimal(0)] * 3)  # low, expected, high
    by_state: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    by_state_amount: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    rework: dict[tuple[str, str], Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    rework_amount: Decimal = Decimal(0)
    # compute rework's quantity and amount by kind: the review class of the failure or rerun
    rework_kind: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    rework_kind_amount: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    # compute money without GPU-hours (credits / refunds, adjustments, tax, tagged non-GPU resources):
    # part of the cost, never of the price per GPU-hour (``OTHER_CHARGES``)
    other: dict[str, Decimal] = field(default_factory=lambda: defaultdict(Decimal))
    lines: int = 0

    def add(self, ln: CostLine, state: str, rework_key: tuple[str, str] | None, kind: str | None = None) -> None:
        a = ln.amount
        self.amount = [self.amount[0] + a.low, self.amount[1] + a.expected, self.amount[2] + a.high]
        q = (ln.quantity or Decimal(0)).quantize(QTY)
        if ln.category == "compute" and state in OTHER_CHARGES:
            self.other[state] += a.expected
        elif rework_key is None:
            self.by_state[state] += q
            self.by_state_amount[state] += a.expected
        else:
            self.rework[rework_key] += q
            self.rework_amount += a.expected
            if kind is not None:
                self.rework_kind[kind] += q
                self.rework_kind_amount[kind] += a.expected
        self.lines += 1

    @property
    def ac(self) -> Rng:
        return Rng(*self.amount)

    @property
    def other_amount(self) -> Decimal:
        return sum(self.other.values(), Decimal(0))

    @property
    def usage_amount(self) -> Decimal:
        """The expected cost of the lines that carry the quantity (GPU-hours): the price's numerator."""
        return self.ac.expected - self.other_amount

    @property
    def quantity(self) -> Decimal:
        return sum(self.by_state.values(), Decimal(0)) + sum(self.rework.values(), Decimal(0))

    @property
    def rework_quantity(self) -> Decimal:
        return sum(self.rework.values(), Decimal(0))


# the bases a compute line's GPU-hours are spent on: the cloud bill, owned and reserved capacity (G16)
SPEND_BASES = ("billed", "amortized", "rate_card")


@dataclass(frozen=True)
class Actuals:
    work: Decimal  # Mtoken of useful work done
    work_by_run: dict[str, Decimal]
    planned: dict[str, LineActual]  # by plan line id
    unplanned: dict[tuple[str, str, str], LineActual]  # (category, basis, currency)
    runs: list[Run]
    gpu_hours_by_state: dict[str, Decimal]
    latest_metrics: dict[str, Decimal] = field(default_factory=dict)  # last logged value per metric name
    work_known: bool = True  # False: no run logged a step with tokens — the work is unknown, not 0
    rounds: tuple[str, ...] = ()  # the experiment rounds used (``rounds_used``), by first run id
    # run id → the cause of each failure, once: confirmed, recorded or suggested (engine/causes.explain); a
    # retry whose failed attempt carries a cause is that same failure, not a second one
    failure_causes: dict[str, str] = field(default_factory=dict)


def token_span(run: Run, events: list[dict]) -> tuple[Decimal, Decimal] | None:
    """(first, last) token of the run's counter it contributes, or None without a step with tokens."""
    steps = [e for e in events if e.get("event") == "step" and e.get("step") is not None]
    with_tokens = [e for e in steps if e.get("tokens") is not None and int(e["step"]) > 0]
    if not with_tokens:
        return None
    ref = max(with_tokens, key=lambda e: int(e["step"]))
    per_step = Decimal(int(ref["tokens"])) / Decimal(int(ref["step"]))
    resumes = [int(e["step"]) for e in events if e.get("event") == "resume" and e.get("step") is not None]
    start = min(resumes) if resumes else 0
    end = max(int(e["step"]) for e in steps)
    if run.state.split(" ")[0].upper() in FAILED_STATES:
        saved = [int(e["step"]) for e in events if e.get("event") == "checkpoint_saved"
                 and e.get("step") is not None and int(e["step"]) <= end]
        end = max(saved) if saved else start
    return start * per_step, max(end, start) * per_step


def useful_tokens(run: Run, events: list[dict]) -> Decimal:
    span = token_span(run, events)
    return span[1] - span[0] if span else Decimal(0)


def counters(runs: list[Run], retry_of: dict[str, str]) -> dict[str, str]:
    """Run id -> the id of its counter's first run: ``retry_of`` links and a shared scheduler job join."""
    parent = {r.id: r.id for r in runs}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: str, b: str) -> None:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    by_job: dict[str, str] = {}
    for r in runs:
        if base_job(r):
            join(r.id, by_job.setdefault(base_job(r), r.id))
        prev = retry_of.get(r.id)
        if prev in parent:
            join(r.id, prev)
    return {r.id: root(r.id) for r in runs}


# the run reasons that start an experiment round (seed 000: 最大试验轮数; docs/plan.md "rounds used")
ROUND_REASONS = ("planned_experiment", "param_tuning", "data_fix", "unrecorded")


def rounds_used(runs: list[Run], retry_of: dict[str, str] | None = None) -> tuple[str, ...]:
    """The experiment rounds a batch used, one per counter (``counters``): a training attempt
    (planned experiment, tuning trial, data-fix rerun, or a run of unrecorded reason) and the retries
    that continue it are one round; a fault retry joins the round it retries; evaluation runs (eval
    array tasks included) are not training rounds, nor is a job that never started (``started``).
    Returns each round's first run id."""
    chain = counters(runs, retry_of or {})
    return tuple(sorted({chain[r.id] for r in runs if str(r.reason) in ROUND_REASONS and started(r)}))


def started(run: Run) -> bool:
    """Whether the run ever ran: a PENDING job (no start) used nothing and is no round."""
    return run.started_at is not None and str(run.state).split(" ")[0].upper() != "PENDING"


def useful_work(runs: list[Run], progress: list[dict], retry_of: dict[str, str] | None = None
                ) -> tuple[dict[str, Decimal], bool]:
    """Useful Mtoken per run (the new part of its counter it reached, runs in start order) and whether
    any run logged a step with tokens (else the work is unknown)."""
    chain = counters(runs, retry_of or {})
    first_pass = {chain[r.id] for r in runs if not is_rework(r)}
    spans = {r.id: token_span(r, _events_of(r, progress)) for r in runs}
    known = any(v is not None for v in spans.values())
    covered: dict[str, list[tuple[Decimal, Decimal]]] = defaultdict(list)
    out: dict[str, Decimal] = {}
    order = sorted(runs, key=lambda r: (r.started_at or EPOCH, r.id))
    for r in order:
        span, c = spans[r.id], chain[r.id]
        if span is None or c not in first_pass:
            continue
        new = _uncovered(span, covered[c])
        covered[c].append(span)
        if new > 0:
            out[r.id] = new / MTOKEN
    return out, known


def _uncovered(span: tuple[Decimal, Decimal], done: list[tuple[Decimal, Decimal]]) -> Decimal:
    lo, hi = span
    length = hi - lo
    merged: list[list[Decimal]] = []
    for a, b in sorted((max(a, lo), min(b, hi)) for a, b in done):
        if b <= a:
            continue
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return length - sum((b - a for a, b in merged), Decimal(0))


def run_keys(run: Run) -> set[str]:
    """The ``run`` values of a run's progress events: its id, its job, and the job id without the
    restart suffix a requeued Slurm job gets (``5001@20261110T094500Z``: the counter logs as 5001)."""
    return {k for k in (run.id, run.source_job, base_job(run)) if k}


def base_job(run: Run) -> str:
    return run.source_job.partition("@")[0]


def _events_of(run: Run, progress: list[dict]) -> list[dict]:
    keys = run_keys(run)
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
            beyond_retention: frozenset[tuple[str, int]] = frozenset(),
            retry_of: dict[str, str] | None = None, explained: Mapping[str, Mapping] | None = None) -> Actuals:
    """``beyond_retention``: (source sha256, row) of inventory rows kept past their retention date —
    their GiB-months are storage rework ("retention beyond plan"); ``retry_of``: run id -> the run id
    of the attempt it retries (engine/causes.py), joining counters; ``explained``: run id ->
    engine/causes.explain's cause and review class (``run_causes.explained``), the kind of a failure."""
    by_run = {r.id: r for r in runs}
    retry_of = retry_of or {}
    explained = explained or {}
    work_by_run, work_known = useful_work(runs, progress, retry_of)
    chain = counters(runs, retry_of)
    first_pass = {chain[r.id] for r in runs if not is_rework(r)}
    chain_role = chains.roles(runs, retry_of, explained, {r.id for r in runs if chain[r.id] in first_pass})
    kept = {ln.run_id for ln in lines if ln.category == "compute" and ln.detail in chains.PROGRESS_STATES
            and (ln.quantity or 0) > 0}  # runs whose time made progress (a failed one's: before its checkpoint)
    planned: dict[str, LineActual] = defaultdict(LineActual)
    unplanned: dict[tuple[str, str, str], LineActual] = defaultdict(LineActual)
    hours: dict[str, Decimal] = defaultdict(Decimal)
    for ln in lines:
        if str(ln.basis) == "allocated":  # an allocation policy's view of idle or shared cost, not spend
            continue
        kind = None
        if ln.category == "compute":
            state = ln.detail or "unclassified"
            run = by_run.get(ln.run_id or "")
            key, kind = _compute_key(run, state, chain_role, kept, explained, runs, chain)
            if str(ln.basis) in SPEND_BASES and state not in OTHER_CHARGES:  # GPU-hours of any spend basis
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
        target.add(ln, state, key, kind)
    return Actuals(work=sum(work_by_run.values(), Decimal(0)), work_by_run=work_by_run, planned=dict(planned),
                   unplanned=dict(unplanned), runs=list(runs), gpu_hours_by_state=dict(hours),
                   latest_metrics=_latest_metrics(runs, progress), work_known=work_known,
                   rounds=rounds_used(runs, retry_of),
                   failure_causes=_failure_causes(runs, retry_of, explained))


def _failure_causes(runs: list[Run], retry_of: Mapping[str, str], explained: Mapping[str, Mapping]) -> dict[str, str]:
    by_run = {r.id: r for r in runs}
    out = {}
    for r in runs:
        cause = chains.cause_of(r, explained)
        attempt = by_run.get(retry_of.get(r.id) or (explained.get(r.id) or {}).get("retry_of") or "")
        if cause and not (attempt is not None and chains.cause_of(attempt, explained)):
            out[r.id] = cause
    return out


def _compute_key(run: Run | None, state: str, role: Mapping[str, chains.Role], kept: set[str],
                 explained: Mapping[str, Mapping], runs: list[Run] | None = None,
                 chain: dict[str, str] | None = None) -> tuple[tuple[str, str] | None, str | None]:
    """A compute line's rework key and kind (None, None when it is not rework): the failure's part of
    a retry chain, or a rerun whose work the batch does not count, whole."""
    if run is not None and run.id in role:
        r = role[run.id]
        return (r.key, r.review_class) if r.failure(state, run.id in kept) else (None, None)
    if is_rework(run):  # a requeue with no cause of its own takes its failed attempt's
        head = run if chains.cause_of(run, explained) or runs is None else _failed_before(run, runs, chain or {},
                                                                                          explained)
        key = (str(run.reason), chains.cause_of(head, explained) or "none")
        return key, chains.review_class(head, key[1], explained)
    return None, None


def rework_lines(lines: list[CostLine], runs: list[Run], retry_of: dict[str, str],
                 explained: Mapping[str, Mapping]) -> list[bool]:
    """Per line, whether it is compute rework as the variance bridge counts it (``collect``): the
    cross-batch report's rework share uses this, so "rework" means one thing everywhere."""
    by_run = {r.id: r for r in runs}
    chain = counters(runs, retry_of)
    first_pass = {chain[r.id] for r in runs if not is_rework(r)}
    role = chains.roles(runs, retry_of, explained, {r.id for r in runs if chain[r.id] in first_pass})
    kept = {ln.run_id for ln in lines if ln.category == "compute" and ln.detail in chains.PROGRESS_STATES
            and (ln.quantity or 0) > 0}
    return [ln.category == "compute" and _compute_key(by_run.get(ln.run_id or ""), ln.detail or "unclassified",
                                                      role, kept, explained, runs, chain)[0] is not None
            for ln in lines]


def _failed_before(run: Run, runs: list[Run], chain: dict[str, str], explained: Mapping[str, Mapping]) -> Run:
    """The failed attempt a rerun with no cause of its own continues: the latest failed run of its
    counter (a requeue's first allocation) that has a cause — confirmed, recorded or suggested
    (``run_causes.explained``); the rerun itself when there is none."""
    before = [r for r in runs if r.id != run.id and chain.get(r.id) == chain.get(run.id) and chains.failed(r)
              and chains.cause_of(r, explained) and (r.started_at or EPOCH) <= (run.started_at or EPOCH)]
    return max(before, key=lambda r: (r.started_at or EPOCH, r.id)) if before else run


def _latest_metrics(runs: list[Run], progress: list[dict]) -> dict[str, Decimal]:
    """The newest value of each numeric field in the step events' ``extra`` of the non-rerun runs."""
    keys = {k for r in runs if not is_rework(r) for k in run_keys(r)}
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
        if pl.category == "compute" and a.quantity > 0:  # the usage lines' price, credits kept out
            price = (a.usage_amount / a.quantity).quantize(q)
        out[pl.id] = {"efficiency": eff, "fixed": fixed,
                      "rework_per_unit": {k: (v / act.work).quantize(q) for k, v in sorted(rework.items())},
                      "price": price}
    return out
