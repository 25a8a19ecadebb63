"""bill_lines × holdings → money per (batch, state, currency) and per unattributed reason.

The same routing and split as ``engine.compute.bill_stage`` (billed view), as Ibis expressions:

1. route once per row: unused commitment → ``reserved_unused``; a ``focus`` rule → its batch
   (detail ``tagged_resource`` for compute, else the service or resource); the row's node is one a
   GPU run holds → split; a commitment purchase → ``commitment_purchase``; else ``no_rule_matched``;
2. split: the GPU-seconds of each (run, state) overlapping the row's charge period on its node, and
   the rest no job held (``gpus_per_node`` × period − used, never below 0; all-zero → the rest);
3. largest remainder in integers: share = ⌊units × w / total⌋, the ``units − Σ floors`` left over
   go one each to the largest remainders, ``row_number()`` ordered by (remainder desc, idle last,
   run, state) — the oracle's order (sorted (run, state) keys, the rest last), total and fixed;
4. a run without batch and the rest no job held are unattributed (``job_without_batch``,
   ``capacity_unheld``); credits, refunds, taxes and adjustments keep their kind as the detail.

Output per bucket is (units, scale) integers; ``run_bill_split`` turns them into ``Decimal``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

import ibis
import pyarrow as pa

from trainledger.engine.frame.exact import DEC, PLAIN, dec, floordiv, units
from trainledger.engine.frame.holdings import Holdings
from trainledger.workspace import Rule

CATEGORY = {"compute": "compute", "storage": "storage", "networking": "network", "network": "network"}
NO_QUANTITY = {"credit": "credit", "refund": "credit", "adjustment": "adjustment", "tax": "tax"}
KEY = ("source_sha256", "row")


def _lookup(value, table: dict[str, str], default):
    out = default
    for k, v in sorted(table.items()):
        out = ibis.ifelse(value == k, ibis.literal(v), out)
    return out


def _field(t, name: str):
    if name.startswith("tags."):  # a JSON string value; portable regex, no JSON cast (bad JSON = no tag)
        key = name[5:].replace("\\", "\\\\").replace('"', '\\"')
        pat = '"' + "".join(f"[{c}]" if c in ".^$*+?()[]{}|" else c for c in key) + r'"\s*:\s*"([^"\\]*)"'
        return t.tags.re_extract(pat, 1).fill_null("").strip()
    return t[name].cast("string").fill_null("").strip()


def _rule_batch(t, rules: Sequence[Rule], batch_ids: Iterable[str]):
    """The batch the first matching ``focus`` rule names, or null."""
    ids = sorted(batch_ids)
    out = ibis.null("string")
    for rule in reversed([r for r in rules if r.source == "focus"]):
        value = _field(t, rule.field)
        if rule.match == "template":
            hit, batch = value.isin(ids) if ids else ibis.literal(False), value
        elif rule.match == "exact":
            hit, batch = value == rule.pattern, ibis.literal(rule.batch)
        elif rule.match == "prefix":
            hit, batch = value.startswith(rule.pattern), ibis.literal(rule.batch)
        else:
            raise NotImplementedError(f"rule {rule.id}: {rule.match} rules are not in the frame path yet"
                                      " — use the Python engine (the default)")
        out = ibis.ifelse((value != "") & hit, batch, out)
    return out


def _node(t, nodes: ibis.Table):
    """The held node a row is for: ResourceId, its short host name, ResourceName, its short name."""
    out = ibis.null("string")
    for col in ("resource_name", "resource_id"):
        full = t[col].cast("string")
        short = full.re_extract(r"^([^.]*)", 1)
        out = ibis.ifelse(short.isin(nodes.node), short, out)
        out = ibis.ifelse(full.isin(nodes.node), full, out)
    return out


def bill_split(bills: ibis.Table, holdings: ibis.Table, nodes: ibis.Table, *, gpus_per_node: int,
               scale: int, rules: Sequence[Rule] = (), batch_ids: Iterable[str] = ()) -> ibis.Table:
    """One row per bucket: batch_id (null = unattributed), detail, reason, currency, scale, units."""
    b = bills.filter(bills.billed_cost.notnull())
    amount, amount_scale = units(b.billed_cost, b.currency)
    cat = _lookup(b.service_category.fill_null("").strip().lower(), CATEGORY, ibis.literal("other"))
    kind_text = b.charge_category.fill_null("usage").strip().lower()
    money_only = ibis.ifelse(kind_text.isin(["usage", "purchase", ""]), ibis.null("string"),
                             _lookup(kind_text, NO_QUANTITY, ibis.literal("adjustment")))
    b = b.mutate(units=amount, scale=amount_scale, category=cat, money_only=money_only,
                 rule_batch=_rule_batch(b, rules, batch_ids), node=_node(b, nodes),
                 unused=b.commitment_discount_status.fill_null("").lower() == "unused",
                 purchase=(b.charge_category.fill_null("").lower() == "purchase")
                 & (b.commitment_discount_id.fill_null("") != ""))
    b = b.filter(b.units != 0)
    route = ibis.cases((b.unused, "reserved_unused"), (b.rule_batch.notnull(), "rule"), (b.node.notnull(), "node"),
                       (b.purchase, "commitment_purchase"), else_="no_rule_matched")
    b = b.mutate(route=route)
    resource = ibis.coalesce(b.resource_id.nullif(""), b.resource_name.nullif(""))
    tagged_detail = ibis.ifelse(b.category == "compute", "tagged_resource",
                                ibis.coalesce(b.service_name.nullif(""), resource, ibis.literal("tagged_resource")))
    direct = b.filter(b.route != "node").select(
        batch_id=ibis.ifelse(b.route == "rule", b.rule_batch, ibis.null("string")),
        detail=ibis.cases((b.route == "rule", tagged_detail), (b.route == "reserved_unused", "reserved_unused"),
                          (b.route == "commitment_purchase", "commitment_purchase"), else_=b.category),
        reason=ibis.ifelse(b.route == "rule", ibis.null("string"), b.route),
        currency=b.currency, scale=b.scale, units=b.units)

    n = b.filter(b.route == "node")
    p0 = n.charge_period_start.epoch_seconds().cast("int64") * 1_000_000
    p1 = n.charge_period_end.epoch_seconds().cast("int64") * 1_000_000
    n = n.select(*KEY, "node", "currency", "scale", "money_only", p0=p0, p1=p1,
                 neg=n.units < 0, absu=n.units.abs().cast(DEC))
    h = holdings
    j = n.join(h, [n.node == h.node, h.start_us < n.p1, h.end_us > n.p0])
    overlap = ibis.least(j.end_us, j.p1) - ibis.greatest(j.start_us, j.p0)
    j = j.mutate(w=j.gpus_num * overlap)
    pieces = j.group_by([*KEY, "run_id", "state", "batch_id"]).aggregate(w=j.w.sum())
    used = pieces.group_by(list(KEY)).aggregate(used=pieces.w.sum())
    rows = n.left_join(used, list(KEY)).select(n, used=ibis.coalesce(ibis._.used, 0))
    rest = ibis.greatest(rows.p1 - rows.p0, 0) * (gpus_per_node * scale) - rows.used
    rest = ibis.greatest(rest, 0)
    rest = ibis.ifelse((rest == 0) & (rows.used == 0), 1, rest)
    rows = rows.mutate(rest=rest, total=rows.used + rest)
    idle = rows.select(*KEY, run_id=ibis.null("string"), state=ibis.null("string"),
                       batch_id=ibis.null("string"), w=rows.rest, is_idle=ibis.literal(1))
    pieces = pieces.mutate(is_idle=ibis.literal(0)).select(idle.columns)
    allp = pieces.union(idle)
    r = rows.select(*KEY, "currency", "scale", "money_only", "neg", "absu", "total")
    a = allp.join(r, list(KEY))
    prod = (a.absu * dec(a.w)).cast(DEC)
    a = a.mutate(prod=prod)
    fl = floordiv(a.prod, dec(a.total))
    a = a.mutate(floor=fl, rem=(a.prod - fl * dec(a.total)).cast(DEC))
    win = ibis.window(group_by=list(KEY), order_by=[ibis.desc("rem"), "is_idle", "run_id", "state"])
    a = a.mutate(rn=ibis.row_number().over(win),
                 left=(a.absu - a.floor.sum().over(ibis.window(group_by=list(KEY)))).cast(DEC))
    share = (a.floor + ibis.ifelse(dec(a.rn) < a.left, ibis.literal(1, DEC), ibis.literal(0, DEC))).cast(DEC)
    share = ibis.ifelse(a.neg, -share, share).cast(DEC)
    split = a.select(
        batch_id=a.batch_id,
        detail=ibis.coalesce(a.money_only, ibis.ifelse(a.is_idle == 1, "capacity_unheld", a.state)),
        reason=ibis.cases((a.is_idle == 1, "capacity_unheld"), (a.batch_id.isnull(), "job_without_batch"),
                          else_=ibis.null("string")),
        currency=a.currency, scale=a.scale, units=share)
    out = direct.union(split)
    return out.group_by(["batch_id", "detail", "reason", "currency", "scale"]).aggregate(
        units=out.units.sum().cast(DEC))


@dataclass(frozen=True)
class FrameResult:
    by_batch: dict[tuple[str, str, str], Decimal]  # (batch, detail, currency) → amount
    by_reason: dict[tuple[str, str], Decimal]  # (reason, currency) → amount
    total: dict[str, Decimal]  # currency → the whole bill's BilledCost

    def buckets(self) -> dict[tuple, Decimal]:
        """Every bucket holding money (a zero sum is no bucket: the oracle drops zero lines too)."""
        out = {**{("batch", *k): v for k, v in self.by_batch.items()},
               **{("unattributed", *k): v for k, v in self.by_reason.items()}}
        return {k: v for k, v in out.items() if v != 0}


def collect(frame: pa.Table) -> FrameResult:
    """The backend's integer buckets as exact Decimals (the result is small: one row per bucket)."""
    by_batch: dict = {}
    by_reason: dict = {}
    total: dict = {}
    for rec in frame.to_pylist():
        value = Decimal(int(rec["units"])).scaleb(-int(rec["scale"]))
        cur = rec["currency"]
        if rec["reason"] is None:
            key = (rec["batch_id"], rec["detail"], cur)
            by_batch[key] = by_batch.get(key, Decimal(0)) + value
        else:
            key = (rec["reason"], cur)
            by_reason[key] = by_reason.get(key, Decimal(0)) + value
        total[cur] = total.get(cur, Decimal(0)) + value
    return FrameResult(by_batch, by_reason, total)


def check_plain(con, bills: ibis.Table) -> None:
    """Refuse money text ``units`` cannot read (exponents, spaces inside) before splitting."""
    t = bills.filter(bills.billed_cost.notnull())
    bad = t.filter(~t.billed_cost.strip().re_search(PLAIN)).select(*KEY, "billed_cost").limit(3)
    rows = con.to_pyarrow(bad).to_pylist()
    if rows:
        raise ValueError(f"bill_lines: BilledCost not plain decimal text, e.g. {rows}: re-import the bill"
                         " (the importers write plain text) or use the Python engine")


def run_bill_split(con, bills: ibis.Table, holdings: Holdings, *, gpus_per_node: int,
                   rules: Sequence[Rule] = (), batch_ids: Iterable[str] = ()) -> FrameResult:
    """Split on ``con`` (an Ibis backend; the holdings go as memtables) and collect the buckets."""
    check_plain(con, bills)
    h = ibis.memtable(holdings.table)
    nodes = ibis.memtable(pa.table({"node": pa.array(holdings.nodes, pa.string())}))
    expr = bill_split(bills, h, nodes, gpus_per_node=gpus_per_node, scale=holdings.scale, rules=rules,
                      batch_ids=batch_ids)
    return collect(con.to_pyarrow(expr))


BILL_SCHEMA = pa.schema([
    ("billed_cost", pa.string()), ("currency", pa.string()), ("charge_period_start", pa.timestamp("us", "UTC")),
    ("charge_period_end", pa.timestamp("us", "UTC")), ("charge_category", pa.string()),
    ("commitment_discount_status", pa.string()), ("commitment_discount_id", pa.string()),
    ("resource_id", pa.string()), ("resource_name", pa.string()), ("service_name", pa.string()),
    ("service_category", pa.string()), ("tags", pa.string()), ("source_sha256", pa.string()), ("row", pa.int64())])


def bill_table(rows) -> pa.Table:
    """Lake-shaped bill rows (dicts, e.g. ``Facts.bill_lines``) as the columns the split reads."""
    return pa.table({f.name: [r.get(f.name) for r in rows] for f in BILL_SCHEMA}, schema=BILL_SCHEMA)
