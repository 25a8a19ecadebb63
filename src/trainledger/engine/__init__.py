"""The attribution engine: lake facts + workspace context → cost lines, problems, assumptions.

Data flow (``attribute``)::

    Facts (lake) ──► derive_runs (runs.py: batch by rule, reason/cause, compute-state timeline)
                 ──► STAGES, each (facts, context) -> StageOutput(lines, problems, assumptions):
                       bill_stage      FOCUS rows → batch by rule / split by GPU-seconds / unheld
                       capacity_stage  owned / reserved capacity → split the same way (rate card, amortized)
                       queued_stage    waiting GPU-hours (basis queued, never cash)
                       storage_stage   inventory × price book (basis estimate)
                       labor_stage     timesheet × rate ranges (basis internal)
                       external_stage  vendor invoices (basis billed)
                 ──► conservation.check (exact, per currency; a problem record when it fails;
                     the unattributed bucket by reason) and capacity.check (per capacity)
                 ──► allocation.allocate_views (declared policies; basis allocated, beside the direct cost)
                 ──► unattributed.noncash / labor_hours (the non-cash bases' bucket; timesheet hours control)
                 ──► storage_reconcile.cells (storage bills beside the inventory estimate, never summed)

    runs.py         jobs → runs (one per allocation, weighing their GPU-equivalents), progress matched
                    by key and time (events no job claims: progress_without_job), straggler shares from
                    worker_steps
    compute.py      bill_stage (billed and, with commitments, effective-cost views) and queued_stage
    capacity.py     capacity_stage: owned / reserved clusters (nodes, or a pool of a cluster's or a
                    virtual cluster's GPUs) at a rate card or amortised cost; money and GPU-hours
                    conserved per capacity (check)
    capacity_pools.py  which pool holds a run without nodes: its VC's (vc / queue / partition) or
                    its cluster's
    capacity_facts.py  a pool's GPUs from the imported capacity facts (import nodes), and what they
                    say against the workspace (which wins): conflicts, overlaps, unstated time
    capacity_period.py  runs holding a capacity outside its from / until (named, not valued)
    capacity_exact.py  a rate card's batch at rate × its GPU-hours to the cent; the remainder unheld
    capacity_queued.py  a capacity's jobs' queued GPU-hours at its own price (queued_rate / queued_item)
    capacity_source.py  a held capacity line's source: the job's row (its import), the capacity as its rule
    capacity_occupancy.py  a pool's occupancy series: unheld time split into held, jobs not imported
                    vs capacity no job held; demand left waiting while idle as an opportunity cost
    capacity_dating.py  when each capacity row (node-day) starts, kept in the summary so reports date
                    its lines (a ``--from/--to`` window holds its share of idle capacity)
    node_map.py     the node map ([[nodes]], and nodes imported from kubectl): bill resource ids → the host
                    names jobs name (every engine)
    causes.py       failure causes on the failed attempt, retry chains, repeated causes
    asof.py         where an open attempt is cut: --as-of, the export's time, or the latest fact
    tzcheck.py      whole-hour offsets between progress events and sacct windows
    straggler_workers.py  step times tied to a job of another worker count (steps_workers_mismatch)
    restated.py     bill rows of a later import restating an earlier import's (counted twice?)
    allocation.py   declared policies spreading idle and shared cost (basis allocated: a view)
    focus_export.py the split as FOCUS 1.3 allocation rows (``trainledger export focus-allocation``)
    assets.py       storage_stage, labor_stage, external_stage
    storage_reconcile.py  storage bill rows beside the inventory estimate per currency, month,
                    bucket / prefix and batch; the difference split into its parts (a view)
    summary_runs.py the summary's per-run parts as columns (facts, explanations, GPU-hours by state)
    conservation.py the exact per-currency check, per view (sums of lines or of their columns)
    unattributed.py the bucket of the bases no bill reconciles (internal, estimate, queued): pooled by a
                    policy or unattributed, by reason; the labor-hours control (timesheet = batches +
                    shared pools + unattributed)
    lines.py        cost lines held as columns (LineColumns, an Arrow table) and an attribution's
                    lines in order (Lines: tuples of CostLine and columns; a Sequence[CostLine])
    rules.py        attribution rules (exact / prefix / regex / template) and row tags
    timeline.py     one run's allocation → compute-state segments (weighted: straggler_wait)
    context.py      Facts (lake tables as Arrow behind Rows views), Context, RunInfo, Problem,
                    StageOutput, price lookups with staleness
    guard.py        Stage (a name, its function, the cash it owes); a stage that raises → a stage_failed
                    problem and its declared fallback (its cash unattributed); the run goes on
    history.py      actual/effective ratios of finished batches (calibrates the estimator)
    memory.py       freed Arrow / heap pages back to the system between ``attribute``'s stages
    frame/          the bill stage's split as Ibis expressions (DuckDB, Spark); tested against this one

The bill stage runs on the workspace's ``engine.backend`` (DuckDB by default, Spark, or this
plain Python, which stays as the oracle: ``frame/``); the derived runs and the other stages are
plain Python over lake rows on every engine. The facts are the lake's Arrow tables behind lazy row
views (``context.Rows``): a stage that walks rows gets dicts a chunk at a time, while the frame
bill stage and the whole-table checks (latest fact time, restatements, billed hours for the time-zone
check, bill totals, storage rows) read the columns, so no bill row is a dict on a frame backend.
On a frame backend the bill stage's lines stay
columns (``lines.py``) through conservation, the allocation drivers and the ledger write
(``ledger/bulk.py``); storage reconciliation, capacity checks and allocation pools get only the
lines they read, built. Where the whole ``attribute`` spends its time at scale, and what
it costs against a hand-written SQL: ``bench/bench_engine.py`` (``make bench-engine``); the split on
Spark local mode: ``bench/bench_spark.py`` (``make bench-spark``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from trainledger.engine import (
    capacity,
    capacity_dating,
    conservation,
    guard,
    node_map,
    restated,
    storage_reconcile,
    straggler_workers,
    unattributed,
)
from trainledger.engine.allocation import allocate_views
from trainledger.engine.asof import latest_fact_time
from trainledger.engine.assets import external_stage, labor_stage, storage_stage
from trainledger.engine.capacity import capacity_stage
from trainledger.engine.causes import explain
from trainledger.engine.compute import bill_stage, queued_stage
from trainledger.engine.context import Context, Facts, PriceLookup, Problem, RunInfo, Settings, StageOutput
from trainledger.engine.lines import LineColumns, Lines
from trainledger.engine.rules import matcher
from trainledger.engine.runs import derive_runs
from trainledger.ingest import KIND_TABLES
from trainledger.model import Assumption, Basis, CostLine
from trainledger.model.money import EXACT

# each a (facts, context) -> StageOutput; one that carries cash declares what it owes when it fails
# (guard.Stage.owes → its fallback): a stage that raises is a problem and its cash unattributed
STAGES: tuple[Callable[[Facts, Context], StageOutput], ...] = (
    bill_stage,
    capacity_stage,
    queued_stage,
    storage_stage,
    labor_stage,
    external_stage,
)


AS_COLUMNS = 4096  # a stage's lines from this many on are kept as columns


@dataclass(frozen=True)
class Attribution:
    runs: dict[str, RunInfo]
    lines: Sequence[CostLine]  # engine.lines.Lines: tuples of CostLine and columns, in order
    problems: tuple[Problem, ...]
    assumptions: tuple[Assumption, ...]
    conservation: list[dict] = field(default_factory=list)
    conservation_amortized: list[dict] = field(default_factory=list)  # EffectiveCost view, with commitments
    conservation_capacity: list[dict] = field(default_factory=list)  # owned / reserved capacity, per capacity
    allocation: list[dict] = field(default_factory=list)  # allocation policies: pools spread (allocation.py)
    storage_reconciliation: dict = field(default_factory=dict)  # storage bills vs estimate (storage_reconcile.py)
    capacity_days: dict = field(default_factory=dict)  # when each capacity row starts (capacity_dating.py)
    # the attributed of each conservation view per batch (cash, amortized, capacity): what a batch's
    # workbook shows of the other batches (conservation.by_batch, capacity.check)
    attributed_by_batch: dict = field(default_factory=dict)
    # the bases no bill reconciles (internal, estimate, queued): lines without a batch, pooled by a
    # policy or unattributed, per currency, basis and unit; and the timesheet's hours control
    unattributed_noncash: list[dict] = field(default_factory=list)
    labor_hours: list[dict] = field(default_factory=list)

    def summary(self) -> dict:
        """What the ledger keeps beside the lines: conservation, problems, assumptions, and the runs'
        facts, explanations and GPU-hours by state as columns (``summary_runs``: read them with its
        ``facts_rows`` / ``explained_of`` / ``hours_of``)."""
        from trainledger.engine import summary_runs

        def hours():
            for info in self.runs.values():
                acc: dict[str, Decimal] = {}  # GPU-seconds (GPU-equivalents × weight × seconds), exact
                gpus = info.run.gpu_equivalents
                for seg in info.segments:
                    held = EXACT.multiply(EXACT.multiply(seg.exact_seconds, gpus), seg.weight)
                    acc[str(seg.state)] = EXACT.add(acc.get(str(seg.state), Decimal(0)), held)
                yield info.run.id, acc

        facts = [info.facts for info in self.runs.values() if info.facts is not None]
        return {
            summary_runs.KEY: summary_runs.encode(facts, explain(facts), hours()),
            "conservation": self.conservation,
            "conservation_amortized": self.conservation_amortized,
            "conservation_capacity": self.conservation_capacity,
            "allocation": self.allocation,
            "storage_reconciliation": self.storage_reconciliation,
            capacity_dating.KEY: self.capacity_days,
            "attributed_by_batch": self.attributed_by_batch,
            "unattributed_noncash": self.unattributed_noncash,
            "labor_hours": self.labor_hours,
            "problems": [p.as_dict() for p in self.problems],
            "assumptions": [a.as_dict() for a in self.assumptions],
        }


def _causes_settled(problems: list[Problem], runs: dict[str, RunInfo]) -> list[Problem]:
    """A fault retry without a cause tag is warned about only when its failed attempt gives it no cause
    either (``causes.explain``: the attempt's own tag, its scheduler state): a requeue after NODE_FAIL is
    an infra fault, assumed, on the same sheet (review 6 K3). Only the warned retries and the
    attempts they retry are explained here; the summary explains every run."""
    from trainledger.engine.causes import explain

    missing = [p for p in problems if p.kind == "missing_cause"]
    if not missing:
        return problems
    by_run = {info.facts.run_id: info.facts for info in runs.values() if info.facts is not None}
    retries = [runs[p.detail["job_id"]].facts for p in missing
               if p.detail.get("job_id") in runs and runs[p.detail["job_id"]].facts is not None]
    chain = {f.run_id: f for f in retries} | {f.retry_of: by_run[f.retry_of] for f in retries if f.retry_of in by_run}
    explained = explain(chain.values())
    caused = {f.job for f in retries if explained[f.run_id].cause}
    return [p for p in problems if p.kind != "missing_cause" or p.detail.get("job_id") not in caused]


def _rule_field_problems(facts: Facts, config: Settings) -> list[Problem]:
    """A rule naming a column its source does not have can never match: say so instead of silence."""
    out = []
    for rule in config.rules:
        rows = getattr(facts, KIND_TABLES[rule.source])  # the importers' registry: kind → table
        if rows and not rule.field.startswith("tags.") and rule.field not in rows[0]:
            known = ", ".join(sorted(k for k in rows[0] if k not in ("source_sha256", "row", "row_hash")))
            out.append(Problem("unknown_rule_field", f"rule {rule.id}: {rule.source} rows have no field"
                               f" {rule.field!r}; it can never match. Fields: {known}, or tags.<key>",
                               {"rule": rule.id, "source": rule.source, "field": rule.field, "known": known}))
    return out


def attribute(facts: Facts, config: Settings, price: PriceLookup, as_of: date,
              as_of_time: datetime | None = None, *, engine: str = "python") -> Attribution:
    """``as_of_time`` (``attribute --as-of``, tz-aware) cuts open jobs and capacities there; without it
    open jobs end at a time the data says (engine/asof.py) and capacities at the end of ``as_of``.
    ``engine``: where the bill stage's split runs (python | duckdb | spark, ``frame/stage.py``);
    every engine gives the same lines, problems and figures."""
    stages = STAGES
    if engine != "python":
        from trainledger.engine.frame.stage import bill_stage_on

        # the bill stage's split on the frame backend: the same stage, name and fallback (guard.py)
        stages = tuple(replace(s, run=bill_stage_on(engine)) if s is bill_stage else s for s in STAGES)
    cutoff = as_of_time or datetime.combine(as_of + timedelta(days=1), time(0), UTC)
    config, map_problems = node_map.with_imported(config, facts.capacity, facts.imports)  # import nodes
    ctx = Context(config=config, matcher=matcher(config.rules, (b.id for b in config.batches)),
                  price=price, as_of=as_of, cutoff=cutoff, as_of_time=as_of_time,
                  facts_time=latest_fact_time(facts))
    runs, problems = derive_runs(facts, ctx)
    problems = map_problems + _causes_settled(problems, runs)
    problems.extend(straggler_workers.problems(facts, runs))  # steps of another worker count (J11)
    problems.extend(_rule_field_problems(facts, config))
    problems.extend(restated.problems(facts.bill_lines, facts.imports))  # counted twice?
    ctx = replace(ctx, runs=runs)
    parts: list = []  # each stage's lines: a tuple of CostLine, or columns (the frame bill stage, engine/lines.py)
    assumptions: dict[str, Assumption] = {}
    for stage in stages:
        out = guard.run(stage, facts, ctx)  # a stage that raises: a problem, its cash unattributed
        # many line objects (a job-heavy workspace's queued lines: one a run) are held as columns,
        # ~1 KB a line less, built again when read (lines.py; H12)
        many = isinstance(out.lines, tuple | list) and len(out.lines) >= AS_COLUMNS
        parts.append(LineColumns.from_lines(out.lines) if many else out.lines)
        problems.extend(out.problems)
        for a in out.assumptions:
            assumptions.setdefault(a.name, a)
        del out  # a stage's line objects, once held as columns, are not kept through the next stage (H12)
    lines = Lines(parts)
    records, cons_problems = conservation.check(facts, lines)
    problems.extend(cons_problems)
    amortized: list[dict] = []
    if lines.count(basis=Basis.EFFECTIVE_COST, source_kind="focus"):
        amortized, am_problems = conservation.check(facts, lines, view="amortized")
        problems.extend(am_problems)
    # the consumers below read only some lines: those are built, the rest stay columns
    owned, cap_problems, owned_by_batch = capacity.check(facts, ctx, lines.select(source_kind="config")
                                                         + lines.select(source_kind="capacity"))  # capacity_source.py
    problems.extend(cap_problems)
    sums = conservation.batch_sums(lines)
    by_batch = {"cash": conservation.by_batch(sums), "capacity": owned_by_batch,
                "amortized": conservation.by_batch(sums, "amortized") if amortized else []}
    allocated, policies = allocate_views(lines, config.raw.get("allocation") or {}, str(config.path),
                                         tuple(b.id for b in config.batches))
    storage = storage_reconcile.cells(facts, lines.select(category="storage"), as_of)  # billed beside estimate
    pooled = unattributed.pooled_by(config.raw.get("allocation") or {}, str(config.path), policies)
    others = [ln for b in Basis if str(b) not in unattributed.OTHER_VIEWS
              for ln in lines.select(batch_id=None, basis=b)]
    noncash = unattributed.noncash(others, pooled)
    labor, labor_problems = unattributed.labor_hours(facts, config, lines.select(category="labor"), pooled)
    problems.extend(labor_problems)
    lines = Lines([*lines.parts, tuple(allocated)])  # a view beside the direct cost: basis allocated, never cash
    return Attribution(runs=runs, lines=lines, problems=tuple(problems),
                       assumptions=tuple(assumptions.values()), conservation=records,
                       conservation_amortized=amortized, conservation_capacity=owned, allocation=policies,
                       storage_reconciliation=storage, capacity_days=capacity_dating.row_days(facts, ctx),
                       attributed_by_batch=by_batch, unattributed_noncash=noncash, labor_hours=labor)


__all__ = ["STAGES", "Attribution", "Facts", "attribute"]
