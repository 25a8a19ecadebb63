"""The plan's compute priced on the basis the workspace's capacity declares (review finding G16).

A batch on owned or reserved capacity (``[[capacity]]``, engine/capacity.py) is costed on basis
``amortized`` or ``rate_card``, never ``billed``: a plan priced from the price book as billed would
leave its actuals unplanned, book the plan as an efficiency gain and never fire a spend alert.
So when the workspace declares capacity in the plan's currency, the estimator's compute line is
split into one line per capacity basis (``compute:amortized``, ``compute:rate_card``)::

    share[basis]  = Σ GPUs × hours of the basis' capacities in their periods / Σ over all bases
    price[basis]  = Σ GPUs × hours × price per GPU-hour / Σ GPUs × hours    (a point: declared)
    quantity      = the estimator's GPU-hours × share[basis]   (the last basis takes the remainder)

The split GPU-hours add up exactly to the estimator's; each line is compared with the actuals of
its own basis — different bases are never added. A capacity whose GPUs come from imported facts
(no ``gpus``) weighs as one GPU per hour of its period (the plan cannot know the facts yet) — said
in the line's evidence. Without capacity in the plan's currency the compute line stays billed.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

from trainledger.errors import TrainledgerError
from trainledger.model import Basis
from trainledger.review.plan import SCENARIOS, PlanLine, Rng

COMPUTE_PREFIX = "compute:"


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


def split_compute(line: PlanLine, workspace: str | Path | None, book, on: date) -> tuple[PlanLine, ...]:
    """``line`` (the estimator's billed compute) as one line per capacity basis, or itself."""
    caps = [c for c in _capacities(workspace) if c.currency == line.currency]
    if not caps:
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
    total = sum(weight.values(), Decimal(0))
    bases = sorted(weight)
    shares, left = {}, Decimal(1)
    for b in bases[:-1]:
        shares[b] = (weight[b] / total).quantize(Decimal("0.000001"))
        left -= shares[b]
    shares[bases[-1]] = left
    out = []
    for b in bases:
        cs = names[b]
        price = money[b] / weight[b]
        price = price.quantize(Decimal("0.0001")) if price != price.quantize(Decimal("0.0001")) else price
        share = shares[b]
        ids = ", ".join(c.id for c in cs)
        gpus_text = "; ".join(f"{c.id} {'stated by facts' if c.stated else c.gpus_per_node * len(c.nodes)} GPUs"
                              for c in cs)
        meta = {"item": f"capacity:{ids}", "effective": on.isoformat(),
                "source": f"workspace [[capacity]] {ids} ({cs[0].source})", "evidence": str(cs[0].evidence),
                "owner": cs[0].owner, "unit": "gpu_hour", "stale": False, "expires": None,
                "share": format(share, "f")}
        evidence = dict(line.evidence)
        evidence["share"] = {"evidence": "assumed", "source": f"{format(share * 100, 'f')} % of the planned"
                             f" GPU-hours on {b} capacity, by GPUs x hours of the period ({gpus_text})"}
        out.append(replace(line, id=f"{COMPUTE_PREFIX}{b}", basis=Basis(b), price=Rng.point(price),
                           price_meta=meta, efficiency={k: _scaled(v, share) for k, v in line.efficiency.items()},
                           fixed={k: _scaled(v, share) for k, v in line.fixed.items()},
                           rework={k: _scaled(v, share) for k, v in line.rework.items()},
                           evidence=evidence))
    return tuple(out)
