"""Node rows the jobs do not name: a billed GPU node no imported job ran on, and credits on idle time.

The bill stage recognises a node row by a ResourceId / ResourceName that some job's NodeList
names (``compute._node_of``). A node no imported job touched — a cluster whose sacct was not
imported, or a node that stood idle all period — is named by no job, so its rows would fall
through the rules to ``no_rule_matched`` and the idle capacity would be understated by the whole
node (review 4 H11). The rule here (one implementation, read by both engines):

* a **node signature** is what a bill row says about the thing billed, without the resource:
  provider, service, SKU, SKU price, charge description, resource type and units
  (``SIGNATURE``); it counts only when it says something specific (a SKU, SKU price, description
  or resource type: "Elastic Compute Service" alone also bills CPU machines);
* the signatures of the usage rows of ServiceCategory Compute (or AI and Machine Learning, below)
  on a node jobs ran on are **node signatures**;
* a Compute usage row on a resource no job names, whose signature is a node signature, makes
  that resource a **node without jobs** (``idle_nodes``);
* **AI and Machine Learning rows** (FOCUS ServiceCategory "AI and Machine Learning": Huawei ModelArts
  dedicated resource pools, Alibaba PAI-DLC / Lingjun quotas, Volcano Engine's ML platform — the
  presets map them there) bill GPU nodes too. Such a usage row is a node row like a Compute row
  (``node_category``, ``is_node_category``) when it is billed by time, not per call / request / token (``PER_CALL``: an
  inference API, a platform fee), and it carries a GPU node's mark: its resource is declared in the
  node map, or its SKU-like columns (``SPECIFIC``) name a GPU / NPU instance type (``GPU_SKU``:
  ``modelarts.bm.npu…``, ``ecs.gn7i…``, ``ml.gu7i…``, an H800 / A100 / Ascend 910 …), or its signature
  is that of a node jobs ran on. Anything else it bills (a notebook without GPUs, storage or
  management fees of the service) stays ``no_rule_matched``;
* a resource the node map declares (``[[nodes]]`` or ``import nodes``, ``node_map.declared``) that
  no job ran on is a node without jobs from its Compute (or AI-and-ML by time) usage rows, whatever
  they say of the SKU: a Chinese cloud's bill often names none a FOCUS bill would (an Alibaba split
  bill has no SKU column; a Huawei detail bill without 产品 / 产品ID says only 弹性云服务器), and the map is
  the user's own word;
* every Compute row (or AI-and-ML row billed by time) on a node without jobs that no rule matched
  (usage, credit, tax …) is then capacity no job held: basis ``capacity_unheld``, state
  ``capacity_unheld``, all of its GPUs (the node map's ``gpus``, else ``gpus_per_node``) × period
  GPU-hours, reason ``node_without_jobs: node <id>`` (a reason of its own, so the sheet says why the
  node has no jobs and the problem ``node_without_jobs`` says what to check: that every cluster's
  sacct was imported). Its evidence is ``assumed``: the row is a node by its SKU and idle by the
  absence of jobs, both inferred. The idle-capacity allocation policy spreads it as any capacity no
  job held (``engine/allocation.py``).

A **credit** (FOCUS ChargeCategory Credit, a refund, or a usage row below zero: ``compute.charge_kind``)
on time no job held is never netted into the capacity-unheld figure (review 4 H10): its share of
that time is its own unattributed line, basis ``billed``, reason ``credit: node <id>``, money and no
GPU-hours — so "capacity unheld" stays the gross cost of the idle capacity and the credit is
shown beside it, with its bill row as provenance. An **adjustment below zero** (Huawei 调账-补偿, a
compensation) is money given back too: the same credit line, its detail ``adjustment``
(``compute.carried_as_credit``; ``credit_mask`` sends such rows to ``compute.node_split`` on the frame
backends, as it does credits). An adjustment of more cost stays with the idle capacity. A **correction
of an earlier period** (FOCUS ChargeClass Correction, any category or sign) restates that period: its
line of its own is reason ``prior_period_correction: node <id> <day>``, never a credit (review K4).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from trainledger.engine.context import Problem, rows_of
from trainledger.engine.timeline import exact_seconds
from trainledger.model import Basis, CostLine, Evidence
from trainledger.model.evidence import weakest
from trainledger.model.vocab import ComputeState

SIGNATURE = ("provider", "service_category", "service_name", "sku_id", "sku_price_id", "charge_description",
             "resource_type", "pricing_unit", "consumed_unit")
SPECIFIC = ("sku_id", "sku_price_id", "charge_description", "resource_type")  # one must be set
NO_JOBS = "node_without_jobs"  # the reason code of a node without jobs
CREDIT = "credit"  # the reason code of a credit's share of time no job held
CORRECTION = "prior_period_correction"  # FOCUS ChargeClass Correction: a row restating an earlier period (K4)
RULE = "node_signature/unheld"  # provenance rule of a node-without-jobs line
HOUR = 3600
EVIDENCE = weakest(Evidence.CONTRACT, Evidence.ASSUMED)


def _text(t: pa.Table, name: str) -> pa.ChunkedArray | pa.Array:
    if name not in t.column_names:
        return pa.nulls(t.num_rows, pa.string())
    col = t.column(name)
    return col if pa.types.is_string(col.type) else col.cast(pa.string())


def _where(col, keep: Callable[[str | None], bool]) -> pa.Array:
    """Per row: ``keep(value)``, asked once per distinct value (a category, a flag: few values), so
    no text column of the bill is copied."""
    values = pc.unique(col).to_pylist()
    chosen = [v for v in values if v is not None and keep(v)]
    mask = pc.fill_null(pc.is_in(col, value_set=pa.array(chosen, pa.string())), False)
    return pc.or_(mask, pc.is_null(col)) if None in values and keep(None) else mask


READS = ("billed_cost", "effective_cost", "charge_category", "charge_class", "resource_id", "resource_name",
         *SIGNATURE)


def table_of(rows) -> pa.Table:
    """The columns read here: the lake's own table, or — rows given as dicts (tests) — their text,
    whatever Python types the dicts hold."""
    rows = rows_of(rows)
    if rows.is_columns:
        return rows.table
    cols = {name: [] for name in READS}
    for r in rows.columns(*READS):
        for name in READS:
            v = r.get(name)
            cols[name].append(None if v is None else str(v))
    return pa.table({k: pa.array(v, pa.string()) for k, v in cols.items()})


def _set(col) -> pa.Array:
    """True where the text is present and not empty (Python's ``if value``)."""
    return pc.fill_null(pc.not_equal(col, ""), False)


def _negative(t: pa.Table) -> pa.Array:
    """``compute._signed_amount(row) < 0`` per row: BilledCost's sign, EffectiveCost's where the
    BilledCost is 0 or absent (plain decimal text: non-zero has a digit 1-9, negative starts with -)."""
    def nonzero(col):
        return pc.fill_null(pc.match_substring_regex(col, "[1-9]"), False)

    def minus(col):
        return pc.fill_null(pc.match_substring_regex(col, r"^\s*-"), False)
    billed, effective = _text(t, "billed_cost"), _text(t, "effective_cost")
    return pc.if_else(nonzero(billed), minus(billed), pc.and_(nonzero(effective), minus(effective)))


def _category(value: str | None) -> str:
    return str(value or "usage").strip().lower()  # as compute.charge_kind reads ChargeCategory


def _correction(t: pa.Table) -> pa.Array:
    """``compute.is_correction(row)`` per row: FOCUS ChargeClass Correction."""
    return _where(_text(t, "charge_class"), lambda v: str(v or "").strip().lower() == "correction")


def _kinds(t: pa.Table) -> tuple[pa.Array, pa.Array]:
    """(usage: ``compute.charge_kind`` is None, credit: it is ``credit``) per row (a correction: neither)."""
    raw = _text(t, "charge_category")
    neg = _negative(t)
    usage_like = _where(raw, lambda v: _category(v) in ("usage", ""))
    usage = pc.or_(_where(raw, lambda v: _category(v) == "purchase"), pc.and_(usage_like, pc.invert(neg)))
    credit = pc.or_(_where(raw, lambda v: _category(v) in ("credit", "refund")), pc.and_(usage_like, neg))
    plain = pc.invert(_correction(t))
    return pc.and_(usage, plain), pc.and_(credit, plain)


def _compute(t: pa.Table) -> pa.Array:
    """Per row: ServiceCategory Compute (``compute._category``)."""
    return _where(_text(t, "service_category"), lambda v: str(v or "").strip().lower() == "compute")


AI_ML = "ai and machine learning"  # FOCUS ServiceCategory of ModelArts pools, PAI-DLC / Lingjun quotas
# a unit billed per call, request or token: an inference API or a platform fee, never a node's time
PER_CALL = re.compile(r"call|request|token|query|invocation|次|调用", re.IGNORECASE)
# an instance type / flavour of a GPU or NPU node, as the SKU-like columns of a bill write it
GPU_SKU = re.compile(r"gpu|npu|ascend|昇腾|显卡|lingjun|灵骏|\b(?:ecs|ml)\.(?:ebm|eb|s|v)?(?:gn|gu|gx|gni|hpcpni)\w*"
                     r"|\b(?:a100|a800|h100|h800|h20|h200|l20|l40s?|v100|910b?|snt9\w*)\b", re.IGNORECASE)


def _ai_ml(t: pa.Table) -> pa.Array:
    """Per row: ServiceCategory AI and Machine Learning, billed by time (no ``PER_CALL`` unit)."""
    ai = _where(_text(t, "service_category"), lambda v: str(v or "").strip().lower() == AI_ML)
    for unit in ("pricing_unit", "consumed_unit"):
        ai = pc.and_(ai, pc.invert(_where(_text(t, unit), lambda v: bool(v and PER_CALL.search(v)))))
    return ai


def _gpu_sku(values) -> bool:
    return any(v and GPU_SKU.search(str(v)) for v in values)


def node_category(t: pa.Table) -> pa.Array:
    """Per row: a category that bills nodes — Compute, or AI and Machine Learning by time (the row
    still needs a GPU node's mark: ``idle_nodes``)."""
    return pc.or_(_compute(t), _ai_ml(t))


def is_node_category(row) -> bool:
    """``node_category`` of one row."""
    cat = str(row.get("service_category") or "").strip().lower()
    if cat == "compute":
        return True
    units = (row.get("pricing_unit"), row.get("consumed_unit"))
    return cat == AI_ML and not any(u and PER_CALL.search(str(u)) for u in units)


def credit_mask(t) -> pa.Array:
    """Per bill row: whether its share of time no job held is a line of its own (``compute.carried_as_credit``):
    a credit (``compute.charge_kind(row) == "credit"``), an adjustment below zero, or a correction of an
    earlier period."""
    t = t if isinstance(t, pa.Table) else table_of(t)
    raw = _text(t, "charge_category")
    adjustment = _where(raw, lambda v: _category(v) not in ("usage", "", "purchase", "credit", "refund", "tax"))
    correction = _correction(t)
    plain_adjustment = pc.and_(pc.and_(adjustment, _negative(t)), pc.invert(correction))
    return pc.or_(pc.or_(_kinds(t)[1], plain_adjustment), correction)


def _held(t: pa.Table, nodes) -> pa.Array:
    """``compute._node_of(row, nodes) is not None`` per row: ResourceId or ResourceName, or its short
    host name, is a node a job ran on (``nodes``: their names, or ``node_map.names``)."""
    held = pa.array(sorted(nodes), pa.string())
    out = pa.array([False] * t.num_rows, pa.bool_())
    for name in ("resource_id", "resource_name"):
        col = _text(t, name)
        short = pc.replace_substring_regex(col, r"\..*", "")
        for cand in (col, short):
            out = pc.or_(out, pc.and_(_set(col), pc.fill_null(pc.is_in(cand, value_set=held), False)))
    return out


def resource(row) -> str:
    return str(row.get("resource_id") or row.get("resource_name") or "")


def idle_nodes(bill_lines, nodes, declared: Mapping[str, str] | None = None) -> dict[str, str]:
    """The resources (ResourceId, else ResourceName, as written) that are nodes without jobs → the node
    each is (its name in the reason): by its signature (the resource itself), or by the node map
    (``declared``: ``node_map.declared``, name → node; a declared node no job held is a node whatever
    its SKU says: the Chinese clouds' bills often name none). ``nodes``: the held nodes' names, or
    what a bill may call each (``node_map.names``). The rows are grouped by resource and signature
    in Arrow (no row is copied: a bill of ten million node-hours has a few thousand groups), then each
    group is judged as ``compute._node_of`` would."""
    from trainledger.engine.compute import _node_of

    rows = rows_of(bill_lines)
    held = set(nodes.values()) if isinstance(nodes, Mapping) else set(nodes)
    declared = {name: node for name, node in (declared or {}).items() if node not in held}
    if not rows or not (nodes or declared):
        return {}
    t = table_of(rows)
    usage, _ = _kinds(t)
    ok = pc.and_(usage, node_category(t))
    if not pc.any(ok).as_py():
        return {}
    keys = {"ok": ok, "resource_id": _text(t, "resource_id"), "resource_name": _text(t, "resource_name")}
    keys |= {f"s{i}": _text(t, name) for i, name in enumerate(SIGNATURE)}
    groups = pa.table(keys).group_by(list(keys), use_threads=False).aggregate([]).to_pylist()
    specific = [i for i, name in enumerate(SIGNATURE) if name in SPECIFIC]
    category = SIGNATURE.index("service_category")
    known, cand, out = set(), [], {}
    for g in groups:
        if not g["ok"]:
            continue
        on_held = _node_of(g, nodes) is not None
        if not on_held and (res := resource(g)) and (node := _node_of(g, declared)) is not None:
            out[res] = node  # declared in [[nodes]], no job on it: a node whatever its SKU says
            continue
        sig = tuple(g[f"s{i}"] for i in range(len(SIGNATURE)))
        if not any(sig[i] for i in specific):
            continue
        if on_held:
            known.add(sig)
        elif res := resource(g):
            ai = str(sig[category] or "").strip().lower() == AI_ML
            cand.append((sig, res, ai and _gpu_sku(sig[i] for i in specific)))
    return out | {res: res for sig, res, gpu in cand if (sig in known or gpu) and res not in out}


def node_usage_rows(t: pa.Table, nodes, declared: Mapping[str, str] | None = None) -> pa.Array:
    """Per bill row: a Compute usage row on a node jobs ran on, or on a node without jobs (``nodes``,
    ``declared``: as ``idle_nodes`` reads them)."""
    idle = idle_nodes(t, nodes, declared)
    rid, rname = _text(t, "resource_id"), _text(t, "resource_name")
    res = pc.if_else(_set(rid), rid, rname)
    node = pc.or_(_held(t, nodes), pc.fill_null(pc.is_in(res, value_set=pa.array(sorted(idle), pa.string())), False))
    return pc.and_(pc.and_(node, node_category(t)), _kinds(t)[0])


def idle_node_of(row, idle: Mapping[str, str]) -> str | None:
    """The node without jobs a Compute row (one no rule matched) is for, or None (``idle``: ``idle_nodes``)."""
    if not idle or not is_node_category(row):
        return None
    return idle.get(resource(row))


def idle_node_split(row, node: str, slots: Decimal, problems: list) -> Callable[[Decimal], list[CostLine]]:
    """The lines of a row on a node without jobs: all its capacity no job held (a credit: its own line)."""
    from trainledger.engine import compute

    money_only = compute.charge_kind(row)
    if (neg := compute.negative_usage(row, node)) is not None:
        problems.append(neg)
    hours = slots * exact_seconds(row["charge_period_start"], row["charge_period_end"]) / HOUR

    def lines(amount: Decimal) -> list[CostLine]:
        if compute.carried_as_credit(row, money_only):
            return [credit_line(row, amount, node, RULE, Basis.BILLED, "focus", EVIDENCE, detail=money_only)]
        return [compute._line(row, amount, Basis.CAPACITY_UNHELD, RULE, category="compute",
                              detail=money_only or ComputeState.CAPACITY_UNHELD,
                              quantity=None if money_only else hours, unit="" if money_only else "gpu_hour",
                              reason=f"{NO_JOBS}: node {node}", evidence=EVIDENCE)]

    return lines


def credit_line(row, amount: Decimal, node: str, rule: str, basis, source_kind: str, evidence,
                detail: str | None = CREDIT) -> CostLine:
    """A credit's share of time no job held on ``node``: money, no GPU-hours, its own reason. ``detail``:
    its kind (``credit``, or ``adjustment`` for a negative adjustment: ``compute.carried_as_credit``).
    A correction of an earlier period is booked as that: reason ``prior_period_correction``, its detail
    the node and the day of the charge period it restates."""
    from trainledger.engine import compute

    reason = f"{CREDIT}: node {node}"
    if detail == CORRECTION:
        reason = f"{CORRECTION}: node {node} {row['charge_period_start'].date().isoformat()}"
    return compute._line(row, amount, basis, rule, category="compute", detail=detail or CREDIT, quantity=None,
                         unit="", reason=reason, source_kind=source_kind, evidence=evidence)


def no_jobs_problem(used: set[str]) -> Problem:
    """The problem both engines raise when bill rows were counted as nodes without jobs."""
    example = sorted(used)[0]
    return Problem("node_without_jobs", f"{len(used)} node(s) are billed as GPU nodes (the SKU of the nodes jobs ran"
                   f" on, or declared in [[nodes]]), but no imported job ran on them (e.g. {example}): their cost is"
                   " capacity no job held — check that every cluster's sacct was imported",
                   {"nodes": sorted(used)[:10], "count": len(used), "example": example})
