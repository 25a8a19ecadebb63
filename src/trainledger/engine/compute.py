"""Compute money: bill rows split over the runs that held each node, and queued GPU-hours.

A FOCUS row is attributed, in this order:
1. by a ``focus`` rule (e.g. a ``batch`` tag) — the whole amount, basis billed;
2. when its resource is a cluster node: split by GPU-seconds between the run segments on that node
   in the charge period (each segment keeps its compute state; a run counts its GPU-equivalents —
   a pod holding 0.25 of a GPU weighs a quarter of one, exactly) and the remainder no job held
   (``gpus_per_node`` × period − used), which goes to the unattributed bucket as
   ``capacity_unheld`` (basis ``capacity_unheld`` too: the cash of capacity no job held, never
   ``allocated_idle``, a job's own idle GPUs);
3. unused commitment (``CommitmentDiscountStatus = Unused``) → unattributed, reserved_unused;
4. a Compute row on a billed node no imported job ran on (the SKU of the nodes jobs ran on:
   ``capacity_nodes``) → all of it capacity no job held, reason ``node_without_jobs``;
5. anything else → unattributed, ``no_rule_matched``.
Shares are exact (``model.allocate``): every row's lines sum to its BilledCost. A node row is split
in two levels (``two_level``): first over the runs that held the node and the rest no job held, by
each run's GPU-seconds, then each run's share over its states. A progress log only re-divides a
run's GPU-seconds into states, so importing one never moves a unit of money between runs, batches
and the unattributed bucket (review finding 12); ``frame/split.py`` computes the same two levels.

Hours conserve as well as money: only usage rows carry GPU-hours. A credit, refund, tax or
adjustment on a node — and a usage row below zero, a refund by its sign (``negative_usage``) — is
split by the same weights but carries money only (``detail`` = its charge category, ``quantity``
None); a credit's share of time no job held is its own line (reason ``credit: node …``, basis billed),
never netted into capacity_unheld — and so is a negative adjustment's (Huawei 调账-补偿: detail
``adjustment``, reason ``credit``; ``carried_as_credit``). A FOCUS correction of an earlier billing period
(``ChargeClass = Correction``) is money only too, whatever its category or sign: detail and reason
``prior_period_correction`` (its period restated, never a credit; no ``negative_usage``). So a state's
GPU-hours are the runs' and its implied price per GPU-hour is the bill's. Evidence is the weakest input
of the amount: a node row split by GPU-seconds is ``measured`` (the bill is a contract, the split is
measured) in every state — ``unclassified`` time too: its cash is billed and its GPU-seconds measured;
what is not known is the state, and that assumption is the sheet's "compute-state boundaries" drawer row (``assumed``,
owned by the batch's owner), not the evidence of the cash.

Unattributed lines say why as ``"<reason>: <detail>"`` (``conservation.reason_of`` reads it).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from decimal import Decimal
from itertools import islice

from trainledger.engine import capacity_nodes, node_map
from trainledger.engine.context import Context, Facts, Problem, RunInfo, StageOutput, price_assumption, price_of
from trainledger.engine.guard import Owed, Stage
from trainledger.engine.rules import NO_RULE
from trainledger.engine.timeline import exact_seconds
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance, allocate
from trainledger.model.evidence import weakest
from trainledger.model.money import EXACT, exact_sum, valuation
from trainledger.model.vocab import ComputeState

HOUR = 3600
CATEGORY = {"compute": "compute", "storage": "storage", "networking": "network", "network": "network"}
# the FOCUS ChargeCategory of rows that carry money for time already counted by usage rows
NO_QUANTITY = {"credit": "credit", "refund": "credit", "adjustment": "adjustment", "tax": "tax"}
# FOCUS ChargeClass "Correction": the row corrects a previously invoiced billing period (its charge period is
# the one corrected) — a restatement of that period's money, never a credit, never GPU-hours again (K4)
CORRECTION = capacity_nodes.CORRECTION


def _category(row) -> str:
    """The sheet section of a bill row: compute, storage, network or other (services)."""
    return CATEGORY.get(str(row.get("service_category") or "").strip().lower(), "other")


def charge_kind(row) -> str | None:
    """None for a usage row (it carries quantity); else what kind of money-only row it is. A usage
    row of negative amount (a refund as a Chinese-cloud split bill prints it: 应付金额 < 0, 用量 1 小时;
    or a FOCUS ``Usage`` row below zero) gives money back for time already counted: a credit, never
    GPU-hours (review finding 15) — ``negative_usage`` reports it. A FOCUS correction of an earlier
    billing period (``ChargeClass = Correction``), whatever its category and sign, is ``CORRECTION``:
    that period's time was counted by its own usage rows."""
    if is_correction(row):
        return CORRECTION
    cat = str(row.get("charge_category") or "usage").strip().lower()
    if cat in ("usage", "purchase", ""):
        return "credit" if cat != "purchase" and _signed_amount(row) < 0 else None
    return NO_QUANTITY.get(cat, "adjustment")  # a non-FOCUS category (e.g. usage-adjust) corrects usage


def is_correction(row) -> bool:
    """FOCUS ``ChargeClass = Correction``: the row corrects a previously invoiced billing period."""
    return str(row.get("charge_class") or "").strip().lower() == "correction"


def carried_as_credit(row, kind: str | None) -> bool:
    """Whether a money-only row's share of time no job held is a line of its own, never netted into
    capacity unheld: a credit or refund, and an adjustment below zero (Huawei 调账-补偿, a
    compensation) — money given back is a credit whatever the bill calls it; and a correction of an
    earlier period (its own reason, ``prior_period_correction``: capacity_nodes.credit_line). An
    adjustment of more cost (调账-扣费) stays with the idle capacity it corrects."""
    return kind in (capacity_nodes.CREDIT, CORRECTION) or (kind == "adjustment" and _signed_amount(row) < 0)


def _signed_amount(row) -> Decimal:
    """The row's cash (BilledCost; EffectiveCost where the cash is 0 or absent), for its sign."""
    for column in ("billed_cost", "effective_cost"):
        value = row.get(column)
        if value is not None and Decimal(value) != 0:
            return Decimal(value)
    return Decimal(0)


def negative_usage(row, node: str) -> Problem | None:
    """The problem a usage row below zero on a node raises (both engines): carried as a credit."""
    cat = str(row.get("charge_category") or "usage").strip().lower()
    if cat not in ("usage", "") or _signed_amount(row) >= 0 or is_correction(row):
        return None  # a correction below zero restates its period: no refund to question
    amount = str(_signed_amount(row))
    return Problem("negative_usage", f"bill row {row['row']} on {node} ({row['charge_period_start'].isoformat()})"
                   f" is a usage row of {amount} {row['currency']}: carried as a credit (money, no GPU-hours);"
                   " if it is not a refund, correct the bill",
                   {"row": row["row"], "node": node, "at": row["charge_period_start"].isoformat(),
                    "amount": amount, "currency": row["currency"]})


def _hours(a: datetime, b: datetime):
    t = a.replace(minute=0, second=0, microsecond=0)
    while t < b:
        yield t
        t += timedelta(hours=1)


@dataclass(frozen=True)
class Holdings:
    """Who holds which node when: (node, hour) → [(run, segment, weight per second)]. A run's
    weight per second on one of its nodes is its GPU-equivalents × the segment's weight × ``scale``
    / its node count (sacct -X has no per-node split: an even one), with ``scale`` the lcm of the
    runs' node counts — an exact decimal, so no split rounds a share of a GPU."""

    by_hour: dict[tuple[str, datetime], list[tuple[RunInfo, object, Decimal]]]
    scale: int  # GPU-seconds = weight / scale


def holds_gpus(info: RunInfo) -> bool:
    return bool(info.nodes) and info.run.gpu_equivalents > 0


def _index(runs, scale: int | None = None) -> Holdings:
    """``scale``: the lcm of the node counts of these runs, or a multiple given (a part of the runs
    indexed at the whole set's scale, as frame/stage.py does for one node)."""
    held = [info for info in runs.values() if holds_gpus(info)]
    scale = scale or math.lcm(1, *(len(info.nodes) for info in held))
    idx: dict[tuple[str, datetime], list] = defaultdict(list)
    for info in held:
        per_node = EXACT.multiply(info.run.gpu_equivalents, Decimal(scale // len(info.nodes)))
        for seg in info.segments:
            w = EXACT.multiply(per_node, seg.weight)
            for h in _hours(seg.start, seg.end):
                for node in info.nodes:
                    idx[(node, h)].append((info, seg, w))
    return Holdings(idx, scale)


def _line(row, amount: Decimal, basis, rule: str, **kw) -> CostLine:
    cur = row["currency"]
    return CostLine(
        category=kw.pop("category", _category(row)), basis=basis, evidence=kw.pop("evidence", Evidence.CONTRACT),
        amount=AmountRange(amount, amount, amount, cur),
        provenance=Provenance.of(row, rule, kw.pop("source_kind", "focus")), **kw)


def _amortized_view(rows) -> bool:
    """Commitments make billed and effective cost differ (paid up front, used over time); only
    then is the amortized view worth its lines. Without them it would repeat the billed view."""
    for r in rows:
        eff, billed = r.get("effective_cost"), r.get("billed_cost")
        if eff is not None and Decimal(eff) != Decimal(billed or 0):
            return True
    return False


def _views(rows) -> tuple[tuple[str, Basis], ...]:
    """(column, basis) of the views the bill rows are attributed in."""
    return (("billed_cost", Basis.BILLED),) + ((("effective_cost", Basis.EFFECTIVE_COST),)
                                               if _amortized_view(rows) else ())


def _bill_stage(facts: Facts, ctx: Context) -> StageOutput:
    """Every bill row in the billed (cash) view; with commitments, also in the bill's effective-cost
    view (EffectiveCost, basis ``effective_cost``). The two views are two bases: they are never added
    together, and the second is not owned hardware's ``amortized``."""
    lines: list[CostLine] = []
    problems: list[Problem] = []
    held = {n for r in ctx.runs.values() if holds_gpus(r) for n in r.nodes}  # GPU nodes only
    nodes = node_map.names(held, ctx.config)  # what a bill row may call them: host names, [[nodes]] ids
    idx = _index(ctx.runs)
    slots = Decimal(ctx.config.get("cluster.gpus_per_node"))
    own = node_map.gpus(ctx.config)  # a node's own GPUs (the node map's, import nodes): its rows split with them
    views = _views(facts.bill_lines)
    # billed nodes no imported job ran on: by their SKU, or declared in [[nodes]]
    idle = capacity_nodes.idle_nodes(facts.bill_lines, nodes, node_map.declared(ctx.config))
    no_jobs: set[str] = set()
    for row in facts.bill_lines:
        amounts = [(basis, Decimal(row[column])) for column, basis in views
                   if row.get(column) is not None and Decimal(row[column]) != 0]
        if not amounts:
            continue
        route = _route(row, ctx, nodes, idx, slots, problems, idle, no_jobs, own)  # once per row, whatever the views
        for basis, amount in amounts:
            out = route(amount)
            if basis is Basis.EFFECTIVE_COST:  # the bill's own view: never owned hardware's amortized
                out = [replace(ln, basis=Basis.EFFECTIVE_COST,
                               provenance=replace(ln.provenance, rule=f"{ln.provenance.rule} (EffectiveCost)"))
                       for ln in out]
            lines.extend(out)
    nodes_billed = held - owned_nodes(ctx)  # owned / reserved nodes are priced by capacity.py, not by a bill
    billed_names = node_map.restricted(nodes, nodes_billed)
    if nodes_billed and facts.bill_lines and not any(_node_of(r, billed_names) for r in facts.bill_lines):
        problems.append(no_node_on_bill(nodes_billed))
    if no_jobs:
        problems.append(capacity_nodes.no_jobs_problem(no_jobs))
    return StageOutput(tuple(lines), tuple(problems))


def _bill_owes(facts: Facts, ctx: Context) -> Iterator[Owed]:
    """What the bill stage owes when it fails: every bill row, whole, in each of its views, in the
    row's own sheet section (guard.py puts it in the unattributed bucket)."""
    views = _views(facts.bill_lines)
    for row in facts.bill_lines:
        for column, basis in views:
            value = row.get(column)
            if value is not None:
                yield Owed(row, "focus", _category(row), basis, Decimal(value))


bill_stage = Stage("bill_stage", _bill_stage, owes=_bill_owes)


def owned_nodes(ctx: Context) -> set[str]:
    """Nodes the workspace declares as owned / reserved ``[[capacity]]``: priced by capacity.py."""
    return {str(n) for c in ctx.config.raw.get("capacity", []) or [] for n in c.get("nodes", [])}


def no_node_on_bill(nodes_billed: set[str]) -> Problem:
    """The problem when no bill row names any node the jobs ran on (both engines raise it)."""
    example = sorted(nodes_billed)[0]
    return Problem(
        "no_node_on_bill", f"no bill row names any of the {len(nodes_billed)} Slurm nodes (e.g. {example}):"
        " GPU compute cannot be split by job and stays unattributed — bill ResourceId/ResourceName must be the"
        " node's host name, or map each node's resource id to its host name in [[nodes]] (docs/workspace.md),"
        " or declare the cluster as [[capacity]] if it is owned",
        {"nodes": sorted(nodes_billed)[:10], "count": len(nodes_billed), "example": example})


def _node_of(row, nodes) -> str | None:
    """The cluster node a bill row is for: its ResourceId or ResourceName, also as a short host name
    (``h800-n01.h800sh.internal`` → ``h800-n01``), as Slurm names nodes. ``nodes``: the nodes' names,
    or a mapping of what a bill may call each to the node (``node_map.names``: ``[[nodes]]`` ids)."""
    named = isinstance(nodes, Mapping)
    for value in (row.get("resource_id"), row.get("resource_name")):
        if value:
            for name in (str(value), str(value).split(".")[0]):
                if name in nodes:
                    return nodes[name] if named else name
    return None


def _route(row, ctx: Context, nodes, idx, slots, problems, idle=frozenset(),
           no_jobs=None, own: Mapping[str, int] | None = None) -> Callable[[Decimal], list[CostLine]]:
    """Where a bill row's money goes, decided once; the result turns an amount into cost lines.
    ``idle``: the nodes without jobs (``capacity_nodes.idle_nodes``); ``no_jobs`` collects those routed;
    ``own``: a node's own GPUs (``node_map.gpus``), else ``slots`` (cluster.gpus_per_node)."""
    own = node_map.gpus(ctx.config) if own is None else own
    resource = row.get("resource_id") or row.get("resource_name") or ""
    if str(row.get("commitment_discount_status") or "").lower() == "unused":
        what = row.get("commitment_discount_id") or resource or "commitment"
        return lambda amount: [_line(row, amount, Basis.RESERVED_UNUSED, "commitment_unused",
                                     reason=f"reserved_unused: {what}", detail=ComputeState.RESERVED_UNUSED)]
    batch_id, rule = ctx.matcher.match("focus", row)
    if batch_id is not None:
        detail = tagged_detail(row, resource)
        return lambda amount: [_line(row, amount, Basis.BILLED, rule, batch_id=batch_id, detail=detail)]
    node = _node_of(row, nodes)
    if node is not None:
        return node_split(row, node, idx, node_slots(node, own, slots), problems)
    if str(row.get("charge_category") or "").lower() == "purchase" and row.get("commitment_discount_id"):
        reason = (f"commitment_purchase: commitment purchase {row['commitment_discount_id']}, paid here,"
                  " used over its term (see the effective-cost view)")
        return lambda amount: [_line(row, amount, Basis.BILLED, "commitment_purchase",
                                     detail="commitment_purchase", reason=reason)]
    if (idle_node := capacity_nodes.idle_node_of(row, idle)) is not None:
        if no_jobs is not None:
            no_jobs.add(idle_node)
        return capacity_nodes.idle_node_split(row, idle_node, node_slots(idle_node, own, slots), problems)
    what = " ".join(str(x) for x in (row.get("service_name"), resource) if x) or f"bill row {row['row']}"
    return lambda amount: [_line(row, amount, Basis.BILLED, NO_RULE, reason=f"{NO_RULE}: {what}")]


def node_slots(node: str, own: Mapping[str, int], slots: Decimal) -> Decimal:
    """The GPUs a node row is split over: the node's own (the node map's ``gpus``: ``[[nodes]]`` or an
    imported node list), else ``cluster.gpus_per_node`` (both engines)."""
    n = own.get(node)
    return Decimal(n) if n else slots


def tagged_detail(row, resource: str) -> str:
    """The detail of a row a rule gives a batch whole (both engines): its row in its section — a
    compute row ``tagged_resource`` (a correction of an earlier period: ``prior_period_correction``),
    else its service."""
    if _category(row) == "compute":
        return CORRECTION if is_correction(row) else "tagged_resource"
    return str(row.get("service_name") or resource or "tagged_resource")


def node_split(row, node, idx, slots, problems, *, basis=Basis.BILLED, idle_basis=Basis.CAPACITY_UNHELD,
               source_kind: str = "focus", money_evidence=Evidence.CONTRACT) -> Callable[[Decimal], list[CostLine]]:
    """GPU-seconds of each (run, state) on ``node`` in the row's charge period, and the rest no job
    held. ``basis``/``idle_basis`` name the kind of money split (a cloud bill's cash, or an owned
    capacity's amortized or rate-card cost); ``money_evidence`` is the evidence of the amount."""
    p0, p1 = row["charge_period_start"], row["charge_period_end"]
    period = exact_seconds(p0, p1)
    scale = idx.scale
    pieces: dict[tuple[str, str], tuple[RunInfo, str, Decimal]] = {}
    seen = set()
    for h in _hours(p0, p1):
        for info, seg, per_second in idx.by_hour.get((node, h), ()):
            if (id(seg), node) in seen:
                continue
            seen.add((id(seg), node))
            a, b = max(seg.start, p0), min(seg.end, p1)
            if a >= b:
                continue
            w = EXACT.multiply(per_second, exact_seconds(a, b))  # GPU-seconds × scale, exact
            key = (info.run.id, seg.state)
            prev = pieces.get(key)
            pieces[key] = (info, seg.state, EXACT.add(w, prev[2]) if prev else w)
    used = exact_sum(p[2] for p in pieces.values())
    idle = EXACT.subtract(EXACT.multiply(slots * scale, period), used)
    if idle < 0:
        held = (used / scale / period).quantize(Decimal("0.01"))
        problems.append(Problem("oversubscribed_node", f"{node} {p0.isoformat()}: jobs hold {held}"
                                f" GPUs but the node has {slots}",
                                {"node": node, "row": row["row"], "at": p0.isoformat(),
                                 "held": str(held), "slots": slots}))
        idle = Decimal(0)
    keys = sorted(pieces)
    weights = [pieces[k][2] for k in keys] + [idle]
    if sum(weights) == 0:
        weights[-1] = Decimal(1)
    money_only = charge_kind(row)  # a credit or adjustment: money, no GPU-hours
    if (neg := negative_usage(row, node)) is not None:
        problems.append(neg)

    def lines(amount: Decimal) -> list[CostLine]:
        shares = two_level(amount, keys, weights, row["currency"])
        out = []
        for k, share in zip(keys, shares, strict=False):
            info, state, w = pieces[k]
            if share == 0 and w == 0:
                continue
            kw = {"batch_id": info.batch_id, "run_id": info.run.id}
            if info.batch_id is None:
                kw = {"run_id": info.run.id, "reason": f"job_without_batch: job {info.run.source_job}"}
            ev = weakest(money_evidence, Evidence.MEASURED)  # the cash and its GPU-seconds: records, whatever the state
            out.append(_line(row, share, basis, f"gpu_seconds_on_node/{info.rule}", category="compute",
                             detail=money_only or str(state), quantity=None if money_only else w / scale / HOUR,
                             unit="" if money_only else "gpu_hour", evidence=ev, source_kind=source_kind, **kw))
        if shares[-1] != 0 and carried_as_credit(row, money_only):  # never netted into the idle figure
            out.append(capacity_nodes.credit_line(row, shares[-1], node, "gpu_seconds_on_node/unheld", basis,
                                                  source_kind, weakest(money_evidence, Evidence.MEASURED),
                                                  detail=money_only))
        elif shares[-1] != 0:
            out.append(_line(row, shares[-1], idle_basis, "gpu_seconds_on_node/unheld", category="compute",
                             detail=money_only or ComputeState.CAPACITY_UNHELD,
                             quantity=None if money_only else idle / scale / HOUR,
                             unit="" if money_only else "gpu_hour",
                             reason=f"capacity_unheld: node {node}", source_kind=source_kind,
                             evidence=weakest(money_evidence, Evidence.MEASURED)))
        return out

    return lines


def two_level(amount: Decimal, keys: list[tuple[str, str]], weights: list[Decimal], currency: str) -> list[Decimal]:
    """Shares of ``amount`` for ``keys`` ((run, state), sorted) and the rest no job held (the last
    weight): level one over the runs (sorted) and the rest, each run weighing the sum of its states;
    level two each run's share over its states. Both levels are ``model.allocate`` (largest
    remainder in whole units of the amount's quantum; its sign kept), so the shares sum exactly."""
    per_run: dict[str, list[int]] = {}
    for i, (run, _state) in enumerate(keys):
        per_run.setdefault(run, []).append(i)
    runs = sorted(per_run)
    top = allocate(amount, [exact_sum(weights[i] for i in per_run[r]) for r in runs] + [weights[-1]], currency)
    out: list[Decimal] = [Decimal(0)] * len(weights)
    for run, share in zip(runs, top, strict=False):
        at = per_run[run]
        ws = [weights[i] for i in at]
        # a run of weight 0 gets 0 at level one (largest remainder gives no unit to a zero remainder)
        parts = allocate(share, ws, currency) if any(ws) else [share] + [share - share] * (len(ws) - 1)
        for i, part in zip(at, parts, strict=True):
            out[i] = part
    out[-1] = top[-1]
    return out


def queued_stage(facts: Facts, ctx: Context) -> StageOutput:
    """Queued GPU-hours per run: cycle time and opportunity, valued but never cash. Queueing is Start −
    Eligible, Start − Submit where Eligible is absent (``RunInfo.eligible``; ``trainledger jobs`` counts
    the same, analysis/jobs.py QUEUE_DEFINITION). A job still PENDING has waited so far: to the data's
    as-of time (``attribute --as-of``, else the latest time any imported fact shows, engine/asof.py).
    A run a ``[[capacity]]`` holds is valued at that capacity's queued price (its ``queued_rate`` /
    ``queued_item``, else its own rate: ``capacity_queued``); ``cluster.gpu_item`` values the rest."""
    from trainledger.engine.asof import latest_fact_time

    item = ctx.config.get("cluster.gpu_item")
    cut = ctx.as_of_time or ctx.facts_time or latest_fact_time(facts)  # where a pending job's wait ends
    assumptions, problems = [], []
    price = price_of(ctx, item, ctx.as_of, "gpu_hour", problems) if item else None
    currency = price.currency if price else ctx.config.get("workspace.currency")
    on_capacity: dict = {}
    if ctx.config.raw.get("capacity"):
        from trainledger.engine.capacity_queued import queued_prices

        on_capacity = queued_prices(facts, ctx, problems)
    if price is not None and not on_capacity:
        # an opportunity valued at a rental price: a valuation, never cash, so `assumed` whatever the
        # price's own evidence (a contract rate says what an hour costs, not what waiting for one is worth)
        assumptions.append(price_assumption("value of a queued GPU-hour (opportunity, not cash)",
                                            replace(price, evidence=Evidence.ASSUMED), "gpu_hour"))
    used: dict[str, object] = {}  # the capacities' queued prices used, in order: their drawer rows
    unpriced: set[str] = set()  # capacities whose queued price-book entry has no price
    fallback_used = [False]  # set by made(): a run the cluster's gpu_item valued
    unvalued = {"gpu_hours": Decimal(0), "jobs": 0, "never_started": 0}  # runs on no capacity, no gpu_item price

    def made() -> Iterator[CostLine]:  # the lines one at a time: many are held as columns, not objects (H12)
        for info in ctx.runs.values():
            j_start = info.run.started_at or info.run.ended_at
            if j_start is None and info.run.state == "PENDING":
                j_start = cut  # never started: its wait so far
            if info.eligible is None or j_start is None or j_start <= info.eligible:
                continue
            gpu_h = exact_seconds(info.eligible, j_start) * info.run.gpu_equivalents / HOUR
            if gpu_h == 0:
                continue
            run_price, run_currency, what = price, currency, item or "cluster.gpu_item (unset)"
            if info.run.id in on_capacity:  # held by a capacity: its own queued price
                cap_id, qp = on_capacity[info.run.id]
                run_price, run_currency, what = qp, qp.currency if qp else currency, f"capacity {cap_id}'s queue"
                if qp is not None:
                    used.setdefault(qp.capacity, qp.assumption)
                else:
                    unpriced.add(cap_id)
            else:
                fallback_used[0] = True
                if price is None:
                    unvalued["gpu_hours"] += gpu_h
                    unvalued["jobs"] += 1
                    unvalued["never_started"] += info.run.started_at is None
            rng = (AmountRange(*(valuation(gpu_h * p, run_currency) for p in (run_price.low, run_price.price,
                                                                               run_price.high)), run_currency)
                   if run_price else AmountRange.zero(run_currency))
            kw = ({"batch_id": info.batch_id} if info.batch_id
                  else {"reason": f"job_without_batch: job {info.run.source_job}"})
            if run_price is None:
                kw["reason"] = f"not_valued: no price for {what}" + (
                    f"; {kw['reason']}" if "reason" in kw else "")
            yield CostLine(
                category="compute", basis=Basis.QUEUED, evidence=Evidence.ASSUMED,  # a valuation (see above)
                amount=rng, provenance=Provenance(info.source_sha256, info.row, f"queued/{info.rule}", "slurm",
                                                  info.import_key or info.source_sha256),
                run_id=info.run.id, detail=ComputeState.QUEUED, quantity=gpu_h, unit="gpu_hour", **kw)

    lines = _held(made())
    if price is not None and on_capacity and fallback_used[0]:  # gpu_item valued the queue of runs on no capacity
        assumptions.append(price_assumption("value of a queued GPU-hour (opportunity, not cash)",
                                            replace(price, evidence=Evidence.ASSUMED), "gpu_hour"))
    assumptions.extend(used.values())
    if price is None and fallback_used[0]:  # only when there are queued GPU-hours to value: no jobs, no warning
        h = format(unvalued["gpu_hours"].quantize(Decimal("0.0001")) + 0, "f")
        problems.append(Problem(
            "unpriced_queue", f"{h} queued GPU-hours of {unvalued['jobs']} job(s) that no [[capacity]] holds"
            f" ({unvalued['never_started']} never started, so they name no node) are counted but not valued;"
            " a capacity's jobs are valued at its queued price: set cluster.gpu_item to a price-book entry, or"
            " give the cluster a [[capacity]] pool (cluster = NAME) that holds its jobs without nodes",
            {"item": item, "gpu_hours": h, "jobs": unvalued["jobs"], "never_started": unvalued["never_started"],
             "capacities": bool(on_capacity)}))
    for cap_id in sorted(unpriced):
        problems.append(Problem("unpriced_capacity_queue", f"capacity {cap_id}: its jobs' queued GPU-hours are"
                                " counted but not valued: its price-book entry has no price on the day — add"
                                " one, or give the capacity a queued_rate", {"capacity": cap_id}))
    return StageOutput(lines, tuple(problems), tuple(assumptions))


def _held(made: Iterator[CostLine]):
    """The stage's lines: a tuple of them when few, else their columns (``lines.LineColumns``) made a
    chunk at a time as they come, the same columns the engine would make of the tuple — a job-heavy
    workspace's queued lines (one a run) are never all objects at once (~0.9 KB a line, H12)."""
    from trainledger.engine.lines import BATCH, LineColumns

    first = list(islice(made, BATCH))
    if len(first) < BATCH:
        return tuple(first)

    def then() -> Iterator[CostLine]:
        first.reverse()
        while first:
            yield first.pop()
        yield from made
    return LineColumns.from_lines(then())
