"""Owned and reserved capacity, priced: a cluster with no cloud bill still costs money.

A workspace declares each cluster it owns or has reserved as a ``[[capacity]]`` entry (see
docs/workspace.md) with either

* a **rate card** — an internal price per ``gpu_hour`` or ``node_hour``, dated (``effective``),
  with a ``source`` and an ``owner``; basis ``rate_card``; or
* a **price-book rate card** (``price_item``) — a dated entry of the price book (unit gpu_hour,
  node_hour…), looked up for each day, so a rate that changes mid-period is honoured; a stale
  entry is used and flagged; its evidence and owner come from the entry; or
* **amortised hardware** (``[capacity.amortized]``) — purchase price per node over
  ``depreciation_years``, power (kW per node × price per kWh), hosting per node-month and
  operations staff per year for the whole cluster → a cost per GPU-hour; basis ``amortized``.

Its jobs' **queued** GPU-hours are valued at ``queued_item`` (a price-book entry) or ``queued_rate``
(per GPU-hour), else at the capacity's own price — an opportunity, never cash (capacity_queued.py);
``[cluster] gpu_item`` values only the queue of jobs on no capacity.

A **pool** (``cluster = NAME`` and ``gpus = N`` instead of ``nodes`` / ``gpus_per_node``) is a
cluster whose jobs name no node — a Kubernetes pod list or a trace without placements: its N GPUs
are one pseudo-node ``pool:NAME`` that every run of that cluster without nodes holds, by its
GPU-equivalents (a pod with 0.46 of a GPU weighs 0.46). A pool takes a rate or a price item.
A **VC pool** (``cluster`` and ``vc``) is one virtual cluster of it (pseudo-node ``pool:NAME/VC``):
it holds the runs whose VC (``vc_field``, else vc / queue / partition: ``capacity_pools.py``) is
``vc``, and is stated by that VC's facts; a cluster's pool beside VC pools is the rest of it.

A pool that gives no ``gpus`` takes them from the **capacity facts** of its cluster imported with
``trainledger import nodes`` (an openb node list, Helios GPUs per VC per day): at each instant, the
sum of the GPUs the facts in force state — so a cluster that grew mid-period is costed for what it
had each day (``stated``). When several imported files state the same cluster at the same time
(the openb full and GPU-only node lists), the one imported last is used and the overlap is
reported (``capacity_sources_overlap``); time no fact covers is not costed
(``capacity_not_stated``), nor are facts that count nodes only (``capacity_gpus_unknown``).
**The workspace wins**: a pool with ``gpus = N`` or a node entry with ``gpus_per_node`` is costed
as written, and imported facts that say otherwise are reported (``capacity_conflict``). Facts of a
cluster no ``[[capacity]]`` entry prices are reported too (``capacity_facts_unpriced``).

The capacity's cost for its period (``from`` → ``until``, clipped to the attribution's cutoff) is
``price per GPU-hour × gpus_per_node × nodes × hours``, exact. It is split per node and day like a
bill row (``compute.node_split``): by GPU-seconds to the runs that held the node, each in its
compute state (a run without a batch to the unattributed bucket as ``job_without_batch``: held, not
idle), and the rest to the unattributed bucket as ``capacity_unheld``. Conservation is checked per
capacity: attributed + unheld + job_without_batch = the capacity's total, exactly; the record's
``unattributed_by_reason`` breaks the unattributed part down as the bill's records do, and its
``gpu_hours`` conserve too: held + unheld = total + held beyond the capacity (``hours_check``).

Rounding rule: an amortised price per GPU-hour is rounded half-even to ``PRICE_QUANTUM``
(0.0001 of the currency) once, and that rounded price is the one every figure uses (stated in the
assumptions drawer). Evidence is the declared one (default ``assumed``, which needs an owner); a
rate card is ``contract`` only when the entry says so.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.engine import capacity_occupancy as occ
from trainledger.engine.capacity_exact import exact_rate_card
from trainledger.engine.capacity_period import period_problems
from trainledger.engine.capacity_pools import placements
from trainledger.engine.capacity_source import capacity_of, to_job_rows
from trainledger.engine.compute import HOUR, _index, exact_seconds, node_split
from trainledger.engine.conservation import by_reason, reason_of
from trainledger.engine.context import Context, Facts, Problem, StageOutput, price_of
from trainledger.errors import ConfigError
from trainledger.model import Assumption, Basis, CostLine, Evidence, to_decimal
from trainledger.model.money import check_currency, minor_quantum
from trainledger.workspace import ENTRY_KEYS, with_zh

PRICE_QUANTUM = Decimal("0.0001")
JOB_WITHOUT_BATCH = "job_without_batch"  # capacity held by a job no rule gave a batch: unattributed, not unheld
POOL = "pool:"  # the pseudo-node of a pool capacity
HOURS_PER_YEAR, HOURS_PER_MONTH = Decimal(8760), Decimal(730)
KEYS = set(ENTRY_KEYS["capacity"])  # declared once, in workspace.py
AMORTIZED_KEYS = {"purchase_price_per_node", "depreciation_years", "power_kw_per_node", "power_price_per_kwh",
                  "hosting_per_node_month", "ops_staff_per_year"}


@dataclass(frozen=True)
class Capacity:
    id: str
    nodes: tuple[str, ...]
    gpus_per_node: int
    start: datetime
    end: datetime
    currency: str
    price_per_gpu_hour: Decimal  # exact as used (amortized: rounded once to PRICE_QUANTUM)
    basis: Basis
    evidence: Evidence
    source: str
    owner: str
    sha256: str
    inputs: tuple[tuple[str, str], ...] = ()  # amortized inputs, for the drawer
    effective: date | None = None
    price_item: str = ""  # a dated price-book entry, looked up per day (then price_per_gpu_hour is unused)
    pool: str = ""  # a pool: the cluster whose runs without nodes hold it (nodes = ("pool:<cluster>",))
    stated: bool = False  # a pool whose GPUs come from imported capacity facts (import nodes)
    schedule: tuple[tuple[datetime, datetime, int], ...] = ()  # (from, until, GPUs) when ``stated``
    vc: str = ""  # a virtual cluster's pool: runs of ``pool`` whose VC is this (capacity_pools.py)
    vc_field: str = ""  # where a job of the cluster names its VC ("" : capacity_pools.VC_FIELDS)
    queued_item: str = ""  # a price-book entry valuing its jobs' queued GPU-hours (capacity_queued.py)
    queued_rate: Decimal | None = None  # or a price per GPU-hour in its currency; neither: its own price

    @property
    def pool_name(self) -> str:
        """``cluster`` or ``cluster/vc``: what a problem names."""
        return f"{self.pool}/{self.vc}" if self.vc else self.pool


def _aware(value: Any, what: str) -> datetime:
    if isinstance(value, datetime):
        ts = value
    elif isinstance(value, date):
        ts = datetime(value.year, value.month, value.day)
    else:
        ts = datetime.fromisoformat(str(value))
    if ts.tzinfo is None:
        raise ValueError(f"{what} {value!r} needs a UTC offset, e.g. 2026-11-02T00:00:00+08:00")
    return ts


def _amortized(d: dict, gpus: int, nodes: int) -> tuple[Decimal, tuple[tuple[str, str], ...]]:
    unknown = set(d) - AMORTIZED_KEYS
    if unknown:
        raise ValueError(f"unknown [capacity.amortized] key(s) {', '.join(sorted(unknown))};"
                         f" known: {', '.join(sorted(AMORTIZED_KEYS))}")
    v = {k: to_decimal(str(d.get(k, "0"))) for k in AMORTIZED_KEYS}
    if v["depreciation_years"] <= 0:
        raise ValueError("depreciation_years must be > 0")
    if v["purchase_price_per_node"] <= 0:
        raise ValueError("purchase_price_per_node must be > 0")
    node_hour = (v["purchase_price_per_node"] / (v["depreciation_years"] * HOURS_PER_YEAR)
                 + v["power_kw_per_node"] * v["power_price_per_kwh"]
                 + v["hosting_per_node_month"] / HOURS_PER_MONTH
                 + v["ops_staff_per_year"] / (HOURS_PER_YEAR * nodes))
    price = (node_hour / gpus).quantize(PRICE_QUANTUM, ROUND_HALF_EVEN)
    return price, tuple((k, str(v[k])) for k in sorted(AMORTIZED_KEYS) if k in d)


def parse(entries: list[dict], where: str) -> tuple[Capacity, ...]:
    """``[[capacity]]`` entries → Capacity records; a ConfigError names the entry and the fix."""
    out, seen_nodes = [], {}
    for i, d in enumerate(entries):
        label = f"{where}: [[capacity]] entry {i + 1} ({d.get('id', '?')})"
        try:
            unknown = set(d) - KEYS
            if unknown:
                raise ValueError(f"unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(KEYS))}")
            pool, vc = str(d.get("cluster") or ""), str(d.get("vc") or "").strip()
            if (vc or "vc_field" in d) and not pool:
                raise ValueError("vc (a virtual cluster's pool) needs the cluster it is part of: cluster = NAME")
            if "vc_field" in d and not vc:
                raise ValueError("vc_field says where a job names its VC: it needs vc = NAME")
            if pool:
                if "nodes" in d or "gpus_per_node" in d or "amortized" in d:
                    raise ValueError("a pool (cluster = ...) takes gpus = N and a rate or price_item, not nodes,"
                                     " gpus_per_node or [capacity.amortized]")
                nodes = (f"{POOL}{pool}/{vc}",) if vc else (f"{POOL}{pool}",)
                gpus = int(d["gpus"]) if "gpus" in d else 0
                if "gpus" not in d and d.get("unit", "gpu_hour") != "gpu_hour":
                    raise ValueError("a pool whose GPUs come from imported capacity facts (no gpus) takes a"
                                     " gpu_hour rate")
            else:
                nodes = tuple(str(n) for n in d["nodes"])
                gpus = int(d["gpus_per_node"])
            if not nodes or (gpus <= 0 and not (pool and "gpus" not in d)):
                raise ValueError("needs nodes and gpus_per_node > 0 (or cluster and gpus > 0)")
            for n in nodes:
                if n in seen_nodes:
                    raise ValueError(f"node {n} is already in capacity {seen_nodes[n]}")
                seen_nodes[n] = d["id"]
            start, end = _aware(d["from"], "from"), _aware(d["until"], "until")
            if end <= start:
                raise ValueError("until must be after from")
            evidence = Evidence(d.get("evidence", "assumed"))
            if evidence is Evidence.ASSUMED and not d.get("owner") and "price_item" not in d:
                raise ValueError("an assumed price needs an owner who will confirm it")
            if sum(k in d for k in ("rate", "amortized", "price_item")) != 1:
                raise ValueError("give one of rate (+ unit), price_item (a price-book entry) or an"
                                 " [capacity.amortized] table")
            if "price_item" in d:  # dated, sourced and owned in the price book; evidence from the entry
                price, basis, inputs = Decimal(0), Basis.RATE_CARD, ()
            elif "rate" in d:
                unit = d.get("unit", "gpu_hour")
                if unit not in ("gpu_hour", "node_hour"):
                    raise ValueError(f"unit must be gpu_hour or node_hour, got {unit!r}")
                rate = to_decimal(str(d["rate"]))
                price = rate if unit == "gpu_hour" else rate / gpus
                if price * gpus != rate and unit == "node_hour":
                    raise ValueError(f"a node_hour rate of {rate} does not divide into {gpus} GPUs exactly;"
                                     " give a gpu_hour rate")
                if "effective" not in d:
                    raise ValueError("a rate card needs its effective date")
                basis, inputs = Basis.RATE_CARD, ()
            else:
                price, inputs = _amortized(dict(d["amortized"]), gpus, len(nodes))
                basis = Basis.AMORTIZED
            if price < 0:
                raise ValueError("the price must be >= 0")
            if "queued_item" in d and "queued_rate" in d:
                raise ValueError("give queued_item (a price-book entry) or queued_rate, not both")
            queued_rate = to_decimal(str(d["queued_rate"])) if "queued_rate" in d else None
            if queued_rate is not None and queued_rate < 0:
                raise ValueError("queued_rate must be >= 0")
            eff = d.get("effective")
            text = json.dumps(d, sort_keys=True, default=str)
            out.append(Capacity(
                id=str(d["id"]), nodes=nodes, gpus_per_node=gpus, start=start, end=end,
                currency=check_currency(d["currency"]), price_per_gpu_hour=price, basis=basis, evidence=evidence,
                source=with_zh(d, "source") if d.get("source") else ("price book" if "price_item" in d
                                                                       else d["source"]),
                owner=str(d.get("owner", "")), price_item=str(d.get("price_item", "")), pool=pool,
                stated=bool(pool) and "gpus" not in d, vc=vc, vc_field=str(d.get("vc_field") or "").strip(),
                queued_item=str(d.get("queued_item") or "").strip(), queued_rate=queued_rate,
                sha256=hashlib.sha256(text.encode()).hexdigest(), inputs=inputs,
                effective=eff if isinstance(eff, date) else (date.fromisoformat(str(eff)) if eff else None)))
        except KeyError as exc:
            raise ConfigError(f"{label}: missing key {exc}", remedy="see docs/workspace.md, [[capacity]]") from None
        except (TypeError, ValueError, ArithmeticError) as exc:
            raise ConfigError(f"{label}: {exc}", remedy="see docs/workspace.md, [[capacity]]") from None
    fields: dict[str, set[str]] = defaultdict(set)
    for cap in out:
        if cap.vc:
            fields[cap.pool].add(cap.vc_field)
    for cluster, named in sorted(fields.items()):
        if len(named) > 1:
            fields_named = ", ".join(repr(f) for f in sorted(named))
            raise ConfigError(f"{where}: the VC pools of cluster {cluster} read a job's VC from different fields"
                              f" ({fields_named})",
                              remedy="give every VC pool of one cluster the same vc_field (or none);"
                                     " see docs/workspace.md, [[capacity]]")
    return tuple(out)


def capacities(ctx: Context, facts: Facts | None = None, problems: list[Problem] | None = None
               ) -> tuple[Capacity, ...]:
    """The workspace's capacities; a pool without ``gpus`` gets its schedule from ``facts``'
    capacity facts, and what the facts say against the workspace goes to ``problems``."""
    caps = parse(list(ctx.config.raw.get("capacity", []) or []), str(ctx.config.path))
    rows = tuple(facts.capacity) if facts is not None else ()
    if not rows and not any(c.stated for c in caps):
        return caps
    from trainledger.engine.capacity_facts import resolve

    return resolve(caps, rows, facts.imports if facts is not None else (), ctx.cutoff,
                   problems if problems is not None else [])


def _days(a: datetime, b: datetime):
    t = a
    while t < b:
        nxt = min(b, (t + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0))
        yield t, nxt
        t = nxt


def priced_rows(cap: Capacity, ctx: Context, problems: list[Problem]):
    """``capacity_rows`` with each row's price: the capacity's own, or its price-book entry in force
    on that day (a stale one is used and flagged; a missing one leaves the day not valued)."""
    for node, amount, row in capacity_rows(cap, ctx.cutoff):
        if not cap.price_item:
            yield node, amount, row, cap.price_per_gpu_hour, cap.evidence
            continue
        on = row["charge_period_start"].date()
        entry = price_of(ctx, cap.price_item, on, "gpu_hour", problems)
        if entry is None or entry.currency != cap.currency:
            problems.append(Problem("unpriced_capacity", f"capacity {cap.id}: no price-book entry"
                                    f" {cap.price_item!r} in {cap.currency} on {on}: {row['resource_id']} that day is"
                                    " not valued", {"capacity": cap.id, "on": on.isoformat(), "item": cap.price_item,
                                                    "currency": cap.currency, "resource": row["resource_id"]}))
            continue
        hours = Decimal((row["charge_period_end"] - row["charge_period_start"]) // timedelta(hours=1))
        yield node, entry.price * row["gpus"] * hours, row, entry.price, entry.evidence  # whole hours


def capacity_rows(cap: Capacity, cutoff: datetime | None):
    """One pseudo bill row per node and (UTC) day of the capacity's period, up to ``cutoff`` — rounded
    up to the whole hour, as an hourly bill charges the hour it is in, so every amount is exact. A
    stated pool has a row per day and span of its schedule (``gpus`` in the row: its GPUs then)."""
    end = cap.end
    if cutoff is not None and cutoff < end:
        hour = cutoff.replace(minute=0, second=0, microsecond=0)
        end = min(end, hour + timedelta(hours=1) if hour < cutoff else hour)
    spans = cap.schedule if cap.stated else ((cap.start, cap.end, cap.gpus_per_node),)
    n = 0
    for node in cap.nodes:
        for s0, s1, gpus in spans:
            if gpus <= 0:
                continue  # no GPU then: nothing to cost
            for a, b in _days(max(s0, cap.start), min(s1, end)):
                n += 1
                seconds = Decimal((b - a) // timedelta(microseconds=1)) / 1_000_000
                amount = cap.price_per_gpu_hour * gpus * seconds / HOUR
                yield node, amount, {"currency": cap.currency, "charge_period_start": a, "charge_period_end": b,
                                     "source_sha256": cap.sha256, "row": n, "resource_id": node,
                                     "charge_category": "Usage", "service_category": "Compute", "gpus": gpus}


def capacity_stage(facts: Facts, ctx: Context) -> StageOutput:
    """Every owned or reserved capacity's cost for its period, split like a bill."""
    problems: list[Problem] = []
    caps = capacities(ctx, facts, problems)
    if not caps:
        return StageOutput((), tuple(problems))
    placed, unpooled = placements(ctx.runs, caps, facts.jobs)  # a run without nodes: its VC's or cluster's pool
    problems.extend(unpooled)
    idx = _index(placed)
    by_run = {info.run.id: info for info in ctx.runs.values()}
    lines: list[CostLine] = []
    assumptions = []
    pooled = occ.vc_pooled(caps)
    for cap in caps:
        series = occ.series_of(cap, facts.occupancy, pooled)  # a pool's occupancy series (None: none)
        if cap.pool:
            problems.extend(pool_peak_problems(cap, placed.values(), ctx.cutoff))
        problems.extend(period_problems(cap, placed.values(), ctx.cutoff))  # runs outside from / until (G1)
        used: dict[Decimal, tuple[Evidence, date]] = {}
        mine: list[CostLine] = []
        row_price: dict[int, Decimal] = {}
        for node, amount, row, price, evidence in priced_rows(cap, ctx, problems):
            used.setdefault(price, (evidence, row["charge_period_start"].date()))
            row_price[row["row"]] = price
            split = node_split(row, node, idx, Decimal(row["gpus"]), problems, basis=cap.basis,
                               idle_basis=cap.basis, source_kind="config", money_evidence=evidence)
            mine.extend(occ.split_row(split(amount), series, row, cap.pool_name))  # held, jobs not imported
        # a rate card: each batch at rate × its GPU-hours to the cent, the remainder to unheld (G3)
        made = exact_rate_card(mine, row_price, cap.currency) if cap.basis is Basis.RATE_CARD else mine
        lines.extend(to_job_rows(made, cap.id, str(ctx.config.path), by_run))  # a held line: the job's row (J5)
        if cap.price_item:
            for price, (evidence, first) in sorted(used.items(), key=lambda kv: kv[1][1]):
                assumptions.append(Assumption(
                    name=f"capacity {cap.id}: rate card {cap.price_item} from {first}", evidence=evidence,
                    source="price book",
                    value=f"{price}", unit=f"{cap.currency}/gpu_hour", owner=cap.owner or "see the price book",
                    value_kind="unit_price"))
            continue
        what = "rate card" if cap.basis is Basis.RATE_CARD else "amortized hardware"
        assumptions.append(Assumption(
            name=f"capacity {cap.id}: {what}", evidence=cap.evidence, source=cap.source,
            value=f"{cap.price_per_gpu_hour}", unit=f"{cap.currency}/gpu_hour", owner=cap.owner,
            note="; ".join([*(f"{k}={v}" for k, v in cap.inputs), *_stated_note(cap)])
                 + (f"; effective {cap.effective}" if cap.effective else "")
                 + ("; rounded half-even to 0.0001/GPU-hour" if cap.inputs else ""),
            value_kind="unit_price"))  # its note quotes the inputs (purchase price, power price …)
    return StageOutput(tuple(lines), tuple(problems), tuple(assumptions))


def _gpus_at(cap: Capacity, t: datetime) -> int | None:
    """The capacity's GPUs at instant ``t`` (a stated pool's schedule; None where no fact covers it —
    a day the facts state 0 GPUs is 0: jobs that hold GPUs then are over the pool)."""
    if not cap.stated:
        return cap.gpus_per_node
    return next((g for a, b, g in cap.schedule if a <= t < b), None)


def pool_peak_problems(cap: Capacity, runs, cutoff: datetime | None) -> list[Problem]:
    """``pool_oversubscribed`` when a pool's runs hold more GPU-equivalents at some instant than the
    pool has then (review finding 14). The split nets held time per day (``capacity_rows``), so a
    day with a peak over the capacity would only show less unheld time: the peak is found exactly,
    by a sweep over the runs' allocations (ends before starts at the same instant: half-open)."""
    end = min(cap.end, cutoff) if cutoff is not None else cap.end
    edges: list[tuple[datetime, int, Decimal]] = []
    for info in runs:
        if info.nodes != cap.nodes or not info.segments or info.run.gpu_equivalents <= 0:
            continue
        a = max(min(seg.start for seg in info.segments), cap.start)
        b = min(max(seg.end for seg in info.segments), end)
        if a < b:
            edges += [(a, 1, info.run.gpu_equivalents), (b, 0, -info.run.gpu_equivalents)]
    if not edges:
        return []
    edges += [(a, 0, Decimal(0)) for a, _, _ in cap.schedule]  # a stated pool's GPUs change there
    edges.sort(key=lambda e: (e[0], e[1]))
    held, worst = Decimal(0), None  # worst: (held over the capacity, held, at, capacity)
    for i, (t, _, d) in enumerate(edges):
        held += d
        if i + 1 < len(edges) and edges[i + 1][0] == t:
            continue  # every change at this instant first
        gpus = _gpus_at(cap, t)
        if gpus is None:
            continue  # time no fact covers: capacity_not_stated says so
        if held > gpus and (worst is None or held - gpus > worst[0]):
            worst = (held - gpus, held, t, gpus)
    if worst is None:
        return []
    _, peak, at, gpus = worst
    peak_text = format(peak.normalize(), "f")
    return [Problem("pool_oversubscribed", f"pool {cap.pool_name} (capacity {cap.id}): its jobs hold {peak_text}"
                    f" GPU-equivalents at once ({at.isoformat()}) but the pool has {gpus} GPUs; its unheld"
                    " capacity is understated — set gpus to what the pool has, or check the job list",
                    {"capacity": cap.id, "pool": cap.pool_name, "peak": peak_text, "at": at.isoformat(), "gpus": gpus})]


def _stated_note(cap: Capacity) -> list[str]:
    if not cap.stated:
        return []
    gpus = sorted({g for _, _, g in cap.schedule}) or [0]
    what = f"{gpus[0]}" if len(gpus) == 1 else f"{gpus[0]}-{gpus[-1]}"
    return [f"GPUs from imported capacity facts (import nodes): {what}"]


HOURS_QUANTUM = Decimal("1e-9")  # GPU-hours shown and compared to 3.6 GPU-microseconds


def hours_check(capacity: dict[int, Decimal], lines: dict[int, list[Decimal]]) -> tuple[dict[str, str], str]:
    """A capacity's GPU-hours, per its rows: ``total`` (GPUs × time), ``held`` (by imported jobs, with
    a batch or not), ``held_not_imported`` (by jobs the occupancy series shows and no import has:
    capacity_occupancy.py), ``unheld``, ``oversubscribed`` (held beyond a row's capacity:
    ``pool_oversubscribed`` names it); the identity held + held_not_imported + unheld = total +
    oversubscribed, and its gap ("" when it holds). A line's GPU-hours are GPU-seconds / 3600 in 28
    digits, so the sums are compared at 1e-9. ``lines``: row → [held, unheld, held_not_imported]."""
    total = sum(capacity.values(), Decimal(0))
    h, u, n = (sum((v[k] for v in lines.values()), Decimal(0)) for k in range(3))
    over = sum((max(Decimal(0), lines[r][0] + lines[r][2] - capacity.get(r, Decimal(0))) for r in lines), Decimal(0))
    q = lambda x: format((x.quantize(HOURS_QUANTUM) + 0).normalize(), "f")  # noqa: E731
    gap = (total + over - h - u - n).quantize(HOURS_QUANTUM)
    return ({"total": q(total), "held": q(h), "held_not_imported": q(n), "unheld": q(u), "oversubscribed": q(over),
             "carried": q(h + u + n), "difference": q(gap)}, "" if gap == 0 else q(gap))


NOT_IMPORTED = "held_not_imported"  # a record's money held by jobs not imported (capacity_occupancy.py)


def _occupancy_record(cap: Capacity, series, rows, z: Decimal) -> dict | None:
    """The record's ``occupancy``: what the pool's series says over its rows, and the demand left
    waiting while capacity was idle as an opportunity cost (never added to the capacity's cost)."""
    f = occ.figures(series, rows)
    if f is None or not f["samples"]:
        return None
    q = lambda x: format((x.quantize(HOURS_QUANTUM) + 0).normalize(), "f")  # noqa: E731
    known = bool(f["pending_known"])
    money = lambda x: str(x.quantize(z, ROUND_HALF_EVEN) + z) if known else None  # noqa: E731
    return {"samples": int(f["samples"]), "running_gpu_hours": q(f["running"]), "idle_gpu_hours": q(f["idle"]),
            "waiting_while_idle": {"gpu_hours": q(f["waiting"]) if known else None,
                                   "opportunity_cost": money(f["waiting_value"]),
                                   "pending_while_any_idle_gpu_hours": q(f["pending_idle"]) if known else None,
                                   "pending_while_any_idle_value": money(f["pending_idle_value"]),
                                   "basis": "opportunity", "currency": cap.currency,
                                   "rule": "min(pending, idle) GPUs x interval per sample (as trainledger"
                                           " occupancy), at the pool's price per GPU-hour; beside it all pending"
                                           " GPUs x interval while some GPU was idle (an upper bound); not in any"
                                           " total"}}


def check(facts: Facts, ctx: Context, lines) -> tuple[list[dict], list[Problem], list[dict]]:
    """Per capacity: attributed + unheld + held by jobs without a batch + held by jobs not imported =
    the capacity's total for the period, exactly; and its GPU-hours (``hours_check``). Third: the
    attributed per capacity, batch, basis and category (``[{"capacity", "currency", "batch", "basis",
    "category", "amount"}]``), summing to each record's ``attributed`` (each batch's workbook lists
    the others: report/xlsx_control.py)."""
    records, problems = [], []
    per_batch: dict[tuple[str, str, str, str], Decimal] = defaultdict(Decimal)
    by_cap: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    sha_of = {}
    caps = capacities(ctx, facts)  # (what the facts say against the workspace: reported by the stage)
    pooled = occ.vc_pooled(caps)
    row_hours: dict[str, dict[int, Decimal]] = defaultdict(dict)  # capacity → its row → GPU-hours
    occupancy: dict[str, dict | None] = {}
    for cap in caps:
        sha_of[cap.sha256] = cap.id
        priced = []
        for _node, amount, row, price, _ev in priced_rows(cap, ctx, []):
            by_cap[cap.id]["total"] += amount
            row_hours[cap.id][row["row"]] = Decimal(row["gpus"]) * exact_seconds(
                row["charge_period_start"], row["charge_period_end"]) / HOUR
            priced.append((row, price))
        z = Decimal(0).quantize(minor_quantum(cap.currency))
        occupancy[cap.id] = _occupancy_record(cap, occ.series_of(cap, facts.occupancy, pooled), priced, z) \
            if cap.pool else None
    unattributed: dict[str, list] = defaultdict(list)
    hours_of: dict[str, dict[int, list[Decimal]]] = defaultdict(
        lambda: defaultdict(lambda: [Decimal(0), Decimal(0), Decimal(0)]))
    ids = {cap.id for cap in caps}
    for ln in lines:
        got = capacity_of(ln, sha_of, ids)  # on the workspace file, or on the job's row (capacity_source.py)
        if got is None:
            continue
        cap_id, cap_row = got
        code = reason_of(ln)[0] if not ln.batch_id else ""
        if ln.quantity is not None:  # [held, unheld, held_not_imported] GPU-hours of the row
            k = 1 if code == "capacity_unheld" else 2 if code == occ.OCC_HELD else 0
            hours_of[cap_id][cap_row][k] += ln.quantity
        if ln.batch_id:
            by_cap[cap_id]["attributed"] += ln.amount.expected
            per_batch[(cap_id, ln.batch_id, str(ln.basis), ln.category)] += ln.amount.expected
            continue
        unattributed[cap_id].append(ln)  # GPU time no job held, or held by a job without a batch / not imported
        key = {JOB_WITHOUT_BATCH: JOB_WITHOUT_BATCH, occ.OCC_HELD: NOT_IMPORTED}.get(code, "unheld")
        by_cap[cap_id][key] += ln.amount.expected
    for cap in caps:
        a = by_cap[cap.id]
        z = Decimal(0).quantize(minor_quantum(cap.currency))
        carried = a["attributed"] + a["unheld"] + a[JOB_WITHOUT_BATCH] + a[NOT_IMPORTED]
        diff = a["total"] - carried
        rec = {"capacity": cap.id, "basis": str(cap.basis), "currency": cap.currency,
               "price_per_gpu_hour": cap.price_item or str(cap.price_per_gpu_hour), "total": str(a["total"] + z),
               "attributed": str(a["attributed"] + z), "unheld": str(a["unheld"] + z),
               JOB_WITHOUT_BATCH: str(a[JOB_WITHOUT_BATCH] + z), NOT_IMPORTED: str(a[NOT_IMPORTED] + z),
               "unattributed": str(a["unheld"] + a[JOB_WITHOUT_BATCH] + a[NOT_IMPORTED] + z),
               "unattributed_by_reason": by_reason(unattributed[cap.id], cap.currency, z),
               "difference": str(diff + z)}
        hours, gap = hours_check(row_hours[cap.id], hours_of[cap.id])
        rec["gpu_hours"] = hours
        if occupancy.get(cap.id) is not None:
            rec["occupancy"] = occupancy[cap.id]
        elif not a[NOT_IMPORTED] and hours["held_not_imported"] == "0":  # no series: the record as before
            del rec[NOT_IMPORTED], hours["held_not_imported"]
        records.append(rec)
        if gap:
            over = hours["oversubscribed"]
            problems.append(Problem("conservation", f"capacity {cap.id} GPU-hours: {hours['total']} (+ {over}"
                                    f" held over it) but lines carry {hours['carried']} (off by {gap})",
                                    {**rec, "subject": f"capacity {cap.id} GPU-hours", "total": hours["total"],
                                     "carried": hours["carried"], "side": "too much" if gap.startswith("-")
                                     else "too little", "gap": gap.lstrip("-")}))
        if diff != 0:
            side = "too little" if diff > 0 else "too much"
            problems.append(Problem("conservation", f"capacity {cap.id}: cost {rec['total']} but lines carry"
                                    f" {carried} ({side} attributed by {abs(diff)})",
                                    {**rec, "subject": f"capacity {cap.id}", "side": side, "gap": str(abs(diff)),
                                     "carried": str(carried)}))
    cur_of = {cap.id: cap.currency for cap in caps}
    by_batch = [{"capacity": cap_id, "currency": cur_of[cap_id], "batch": batch, "basis": basis,
                 "category": category, "amount": str(a + Decimal(0).quantize(minor_quantum(cur_of[cap_id])))}
                for (cap_id, batch, basis, category), a in sorted(per_batch.items())]
    return records, problems, by_batch
