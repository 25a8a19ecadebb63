"""The plan's compute priced on the bases the batch's GPUs are paid on (review findings G16, mixed).

A batch on owned or reserved capacity (``[[capacity]]``, engine/capacity.py) is costed on basis
``amortized`` or ``rate_card``; one on cloud GPUs on basis ``billed`` (the bill). A plan priced from
the price book as billed only would leave the capacity's actuals unplanned, book the plan as an
efficiency gain and never fire a spend alert. So when the workspace declares capacity in the plan's
currency, the estimator's compute line is split into one line per basis: ``compute`` (billed, at
the price book's price), ``compute:amortized``, ``compute:rate_card`` (each at its capacity's rate)::

    quantity[basis] = the estimator's GPU-hours × share[basis]   (the last basis takes the remainder)
    price[basis]    = billed: the price book's; a capacity basis: Σ GPUs × hours × price per GPU-hour
                      / Σ GPUs × hours of its capacities in their periods   (a point: declared)

The share of each basis, first that applies:

1. **planned** — the plan's ``[plan] compute_share`` table (``billed = "0.4"``, ``rate_card = …``):
   the named bases take their share; what is left goes to the capacity bases it does not name, by
   their GPUs × hours. Evidence ``assumed``, source the plan table;
2. **measured** — the batch's GPU-hours per spend basis in the latest attribution (usage lines: no
   credits, no tagged non-GPU resources). Evidence ``measured``;
3. **offered** — a plan made before any attribution: each basis by the GPU-hours it offers — the
   capacities' GPUs × hours of their periods, and the bill's GPU nodes (Compute usage rows in the
   plan's currency on a node an imported job with GPUs ran on that is no capacity's, or on a node
   with that node's SKU: ``engine/capacity_nodes.py``) × ``cluster.gpus_per_node`` × their hours.
   Evidence ``assumed``; the plan's warnings tell the lead to set ``[plan] compute_share`` or
   re-plan after ``trainledger attribute`` (``share_notes``). With no bill naming a GPU node the
   bases are the capacity's only (the plan cannot know the batch will use cloud GPUs: the warning
   says so). A capacity whose GPUs come from imported facts (no ``gpus``) weighs as one GPU per
   hour of its period.

The split GPU-hours add up exactly to the estimator's; each line is compared with the actuals of
its own basis — different bases are never added (review/actuals.py matches by basis). Without
capacity in the plan's currency the compute line stays billed (a share naming a capacity basis
then is an error).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path

from trainledger.errors import BadInput, TrainledgerError
from trainledger.model import Basis
from trainledger.review.plan import SCENARIOS, PlanLine, Rng

COMPUTE_PREFIX = "compute:"
BILLED = "billed"
SHARE_BASES = (BILLED, "amortized", "rate_card")  # the bases a GPU-hour is spent on (actuals.SPEND_BASES)
SHARE_Q = Decimal("0.000001")


def _capacities(workspace: str | Path | None):
    from trainledger.engine.capacity import parse
    from trainledger.workspace import CONFIG_NAME, load

    if workspace is None or not (Path(workspace) / CONFIG_NAME).is_file():
        return ()
    cfg = load(workspace)
    return parse(list(cfg.raw.get("capacity", []) or []), str(cfg.path))


def _price(cap, book, on: date) -> Decimal:
    if not cap.price_item:
        return cap.price_per_gpu_hour
    try:
        return book.unit_price(cap.price_item, "gpu_hour", on, allow_stale=True).price
    except TrainledgerError:  # a node_hour item: per node, over its GPUs
        return book.unit_price(cap.price_item, "node_hour", on, allow_stale=True).price / cap.gpus_per_node


def _scaled(r: Rng, share: Decimal) -> Rng:
    return Rng(*(r.get(s) * share for s in SCENARIOS))


def measured_hours(lines: Iterable, currency: str) -> dict[str, Decimal]:
    """GPU-hours per spend basis of a batch's attributed compute lines in ``currency`` (usage only)."""
    from trainledger.review.actuals import OTHER_CHARGES, QTY

    out: dict[str, Decimal] = {}
    for ln in lines:
        b = str(ln.basis)
        if (ln.category != "compute" or b not in SHARE_BASES or ln.currency != currency or not ln.quantity
                or (ln.detail or "") in OTHER_CHARGES or ln.quantity <= 0):
            continue
        out[b] = out.get(b, Decimal(0)) + ln.quantity.quantize(QTY)
    return {b: h for b, h in out.items() if h > 0}


def _declared(table: Mapping, where: str, cap_bases: set[str]) -> dict[str, Decimal]:
    if not isinstance(table, Mapping):
        raise BadInput(f"{where}: [plan] compute_share must be a table of basis = share",
                       remedy='e.g. a [plan.compute_share] table with billed = "0.4"')
    out = {}
    for b, v in table.items():
        if b not in SHARE_BASES:
            raise BadInput(f"{where}: [plan] compute_share names basis {b!r}",
                           remedy="use billed, amortized or rate_card")
        if b != BILLED and b not in cap_bases:
            raise BadInput(f"{where}: [plan] compute_share gives {b} a share but the workspace declares no"
                           f" [[capacity]] on basis {b} in the plan's currency",
                           remedy="declare the capacity (docs/workspace.md) or drop the share")
        try:
            x = Decimal(str(v))
        except InvalidOperation:
            x = Decimal(-1)
        if not Decimal(0) <= x <= Decimal(1):
            raise BadInput(f"{where}: [plan] compute_share {b} = {v!r} is not a share in [0, 1]",
                           remedy='give a fraction, e.g. billed = "0.4"')
        out[b] = x
    return out


def billed_offered(workspace: str | Path | None, currency: str) -> tuple[Decimal, int]:
    """(GPU-hours, node rows) the workspace's bill offers on cloud GPU nodes in ``currency`` (see
    the module, 3.): rows on nodes imported jobs with GPUs ran on that no ``[[capacity]]`` declares,
    or on nodes billed with those nodes' SKU; × ``cluster.gpus_per_node`` × each row's hours."""
    import pyarrow.compute as pc

    from trainledger.engine import node_map
    from trainledger.engine.capacity_nodes import node_usage_rows
    from trainledger.lake.store import Lake
    from trainledger.workspace import CONFIG_NAME, load

    if workspace is None or not (Path(workspace) / CONFIG_NAME).is_file():
        return Decimal(0), 0
    cfg = load(workspace)
    owned = {str(n) for c in cfg.raw.get("capacity", []) or [] for n in c.get("nodes", [])}
    lake = Lake(Path(workspace) / "lake")
    cfg, _ = node_map.with_imported(cfg, lake.read("capacity").to_pylist(), lake.imports())  # import nodes
    jobs = lake.read("jobs")
    jobs = jobs.select([c for c in ("cluster", "nodes", "gpus") if c in jobs.column_names])
    gpu_jobs = jobs.filter(pc.greater(jobs.column("gpus"), 0))
    clusters = (gpu_jobs.column("cluster").to_pylist() if "cluster" in gpu_jobs.column_names
                else [""] * gpu_jobs.num_rows)
    run_nodes = node_map.run_nodes(cfg)  # the engine's node names: cluster/host where [[nodes]] ties them
    held = {n for cluster, row in zip(clusters, gpu_jobs.column("nodes").to_pylist(), strict=True)
            for n in run_nodes(str(cluster or ""), tuple(x for x in str(row or "").split(",")
                                                          if x and x != "None assigned"))} - owned
    bills = lake.read("bill_lines")
    if not held or not bills.num_rows:
        return Decimal(0), 0
    bills = bills.filter(pc.fill_null(pc.equal(bills.column("currency"), currency), False))
    rows = bills.filter(node_usage_rows(bills, node_map.names(held, cfg), node_map.declared(cfg)))
    seconds = Decimal(0)
    for a, b in zip(rows.column("charge_period_start").to_pylist(), rows.column("charge_period_end").to_pylist(),
                    strict=True):
        seconds += Decimal((b - a).total_seconds()) if a is not None and b is not None and b > a else 0
    return Decimal(cfg.get("cluster.gpus_per_node")) * seconds / 3600, rows.num_rows


def shares(weight: Mapping[str, Decimal], declared: Mapping | None, measured: Mapping[str, Decimal] | None,
           where: str = "plan", offered: Decimal = Decimal(0)) -> tuple[dict[str, Decimal], str, str]:
    """(share per basis, evidence, how) — ``weight``: the capacity bases' GPUs × hours (see the module);
    ``offered``: the GPU-hours the bill offers on cloud GPU nodes (``billed_offered``)."""
    if declared:
        named = _declared(declared, where, set(weight))
        left = Decimal(1) - sum(named.values(), Decimal(0))
        rest = {b: w for b, w in weight.items() if b not in named}
        if left < 0 or (left != 0 and not rest):
            total = format(sum(named.values(), Decimal(0)), "f")
            raise BadInput(f"{where}: [plan] compute_share adds up to {total}, not 1",
                           remedy="give shares that add up to 1, or leave a capacity basis out to take the rest")
        whole = sum(rest.values(), Decimal(0))
        raw = {**named, **{b: left * w / whole for b, w in rest.items()}} if rest else dict(named)
        return raw, "assumed", "[plan] compute_share"
    if measured and sum(measured.values(), Decimal(0)) > 0:
        total = sum(measured.values(), Decimal(0))
        hours = ", ".join(f"{b} {format(measured[b].quantize(Decimal('0.01')), 'f')}" for b in sorted(measured))
        return ({b: h / total for b, h in measured.items()}, "measured",
                f"the batch's attributed GPU-hours ({hours})")
    if offered > 0:
        weight = {BILLED: offered, **weight}
        total = sum(weight.values(), Decimal(0))
        return ({b: w / total for b, w in weight.items()}, "assumed",
                f"GPU-hours each basis offers (the bill's GPU nodes {format(offered.quantize(Decimal('0.01')), 'f')};"
                " the capacity's periods)")
    total = sum(weight.values(), Decimal(0))
    return {b: w / total for b, w in weight.items()}, "assumed", "GPUs x hours of the capacity's periods"


def share_notes(lines: Iterable[PlanLine]) -> tuple[list[str], list[str]]:
    """(English, zh-CN) warnings for a plan whose compute split is assumed without a declared share."""
    from trainledger.i18n import text

    kinds = {ln.evidence.get("share", {}).get("note") for ln in lines if ln.category == "compute"}
    keys = [f"stored.share_{k}" for k in ("offered", "capacity") if k in kinds]
    return [text(k, "en") for k in keys], [text(k, "zh-CN") for k in keys]


def _exact(raw: Mapping[str, Decimal]) -> dict[str, Decimal]:
    """Shares at 1e-6, the last basis taking the remainder, so the split hours add up to the whole."""
    bases = [b for b in SHARE_BASES if raw.get(b, Decimal(0)) > 0]
    out, left = {}, Decimal(1)
    for b in bases[:-1]:
        out[b] = raw[b].quantize(SHARE_Q)
        left -= out[b]
    if bases:
        out[bases[-1]] = left
    return out


def split_compute(line: PlanLine, workspace: str | Path | None, book, on: date, *,
                  declared: Mapping | None = None, measured: Mapping[str, Decimal] | None = None,
                  where: str = "plan") -> tuple[PlanLine, ...]:
    """``line`` (the estimator's billed compute) as one line per basis, or itself (see the module).
    ``declared``: the plan's ``[plan] compute_share``; ``measured``: GPU-hours per basis of the batch."""
    caps = [c for c in _capacities(workspace) if c.currency == line.currency]
    if not caps:
        if declared and set(declared) - {BILLED}:
            _declared(declared, where, set())  # names a capacity basis the workspace has not: the error
        return (line,)
    weight: dict[str, Decimal] = {}
    money: dict[str, Decimal] = {}
    names: dict[str, list] = {}
    for c in caps:
        hours = Decimal((c.end - c.start).total_seconds()) / 3600
        gpus = Decimal(c.gpus_per_node * len(c.nodes)) if not c.stated else Decimal(1)
        w = gpus * hours
        b = str(c.basis)
        weight[b] = weight.get(b, Decimal(0)) + w
        money[b] = money.get(b, Decimal(0)) + w * _price(c, book, on)
        names.setdefault(b, []).append(c)
    measured = {b: h for b, h in (measured or {}).items() if b == BILLED or b in weight}
    guessed = not declared and not (measured and sum(measured.values(), Decimal(0)) > 0)
    offered = billed_offered(workspace, line.currency)[0] if guessed else Decimal(0)
    raw, how_evidence, how = shares(weight, declared, measured, where, offered)
    note = ({"note": "offered" if offered > 0 else "capacity"} if guessed else {})
    out = []
    for b, share in _exact(raw).items():
        pct = f"{format((share * 100).normalize(), 'f')} % of the planned GPU-hours on {b}"
        evidence = dict(line.evidence)
        scaled = {"efficiency": {k: _scaled(v, share) for k, v in line.efficiency.items()},
                  "fixed": {k: _scaled(v, share) for k, v in line.fixed.items()},
                  "rework": {k: _scaled(v, share) for k, v in line.rework.items()}}
        if b == BILLED:  # the cloud part: the price book's price, as the estimator priced it
            evidence["share"] = {"evidence": how_evidence, "source": f"{pct}, by {how}", **note}
            out.append(replace(line, price_meta={**line.price_meta, "share": format(share, "f")},
                               evidence=evidence, **scaled))
            continue
        cs = names[b]
        price = money[b] / weight[b]
        price = price.quantize(Decimal("0.0001")) if price != price.quantize(Decimal("0.0001")) else price
        ids = ", ".join(c.id for c in cs)
        gpus_text = "; ".join(f"{c.id} {'stated by facts' if c.stated else c.gpus_per_node * len(c.nodes)} GPUs"
                              for c in cs)
        meta = {"item": f"capacity:{ids}", "effective": on.isoformat(),
                "source": f"workspace [[capacity]] {ids} ({cs[0].source})", "evidence": str(cs[0].evidence),
                "owner": cs[0].owner, "unit": "gpu_hour", "stale": False, "expires": None,
                "share": format(share, "f")}
        evidence["share"] = {"evidence": how_evidence, "source": f"{pct} capacity, by {how} ({gpus_text})", **note}
        out.append(replace(line, id=f"{COMPUTE_PREFIX}{b}", basis=Basis(b), price=Rng.point(price),
                           price_meta=meta, evidence=evidence, **scaled))
    return tuple(out)
