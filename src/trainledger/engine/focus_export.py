"""The split as FOCUS 1.3 allocation rows: each origin charge, once per target it was allocated to.

For every bill row (the *origin charge*) and every target its money went to — a batch's run in a
compute state, a tagged batch, or the unattributed bucket with its reason — one row with the
origin's FOCUS columns (as the bill wrote them: a NULL stays NULL, Tags included — ``extra.Tags``
keeps the origin where the lake's ``tags`` object differs) and:

* ``BilledCost`` / ``EffectiveCost`` — the allocated amounts; per origin they sum exactly to the
  origin's (``x_OriginBilledCost`` / ``x_OriginEffectiveCost`` keep the origin's);
* ``ListCost``, ``ContractedCost``, ``ConsumedQuantity``, ``PricingQuantity`` — the origin's summable
  metrics split by the same weights (largest remainder at the origin's scale, quantities at 6 places at
  least), so per origin they sum exactly to the origin's, as FOCUS requires of a summable metric in an
  allocated charge; dimensions and unit prices are the origin's as written (review 4 H6);
* ``AllocatedMethodId`` — the rule that split it (e.g. ``gpu_seconds_on_node/slurm-wckey``);
* ``AllocatedMethodDetails`` — JSON ``{"Elements": [{"AllocatedRatio", "UsageUnit",
  "UsageQuantity"}]}``; per origin the ratios sum to exactly 1 (``RATIO_QUANTUM`` with the
  largest-remainder rule of ``model.allocate``);
* ``AllocatedResourceId`` — the batch id, or ``unattributed:<reason>``;
* ``AllocatedTags`` — JSON: the batch's attribution key, the run and the compute state (``state``);
  a line's other detail (the service a tag rule attributed) under ``detail``, never ``state``.

A row whose lines have GPU-hours is weighted by them; otherwise by the size of each allocated
amount. The EffectiveCost view: the effective-cost lines when the bill has commitments, the same
split as BilledCost when the two columns agree, else EffectiveCost split by the same weights.
"""

from __future__ import annotations

import contextlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from trainledger.engine.conservation import reason_of
from trainledger.model import CASH_BASES, Basis, ComputeState, CostLine, allocate

RATIO_QUANTUM = Decimal("0.000000000001")  # 12 places
QUANTITY_QUANTUM = Decimal("0.000001")  # a split quantity keeps at least 6 places
SUMMABLE_MONEY = ("list_cost", "contracted_cost")  # lake names; BilledCost / EffectiveCost are split above
SUMMABLE_QUANTITY = ("consumed_quantity", "pricing_quantity")
_STATES = frozenset(s.value for s in ComputeState)
ALLOCATION_COLUMNS = ("AllocatedMethodId", "AllocatedMethodDetails", "AllocatedResourceId", "AllocatedTags",
                      "x_OriginBilledCost", "x_OriginEffectiveCost", "x_SourceSha256", "x_SourceRow")


def focus_names() -> dict[str, str]:
    """Lake column → FOCUS column, from the FOCUS importer's own declaration (one source of truth)."""
    from trainledger.ingest.focus import FocusImporter

    return {c.name: c.sources[0] for c in FocusImporter.columns}


def _text(v: Any) -> str | None:
    """A cell's text: a Decimal in plain notation with its scale (``0.00000080000``, never
    ``8.0000E-7`` or ``0E-11``: review finding 2), no negative zero; a time in ISO 8601; None
    (NULL: an empty CSV cell, a Parquet null) for None."""
    if v is None:
        return None
    if isinstance(v, Decimal):
        return format(v.copy_abs() if v.is_zero() else v, "f")
    if hasattr(v, "isoformat"):
        return v.isoformat()
    return str(v)


def _target(ln: CostLine) -> tuple:
    return (ln.batch_id or "", ln.run_id or "", ln.detail, "" if ln.batch_id else reason_of(ln)[0])


def _split_summable(row: Mapping, names: Mapping[str, str], weights: list) -> list[dict[str, str | None]]:
    """Per target (in ``weights``' order), the origin's summable metrics split by ``weights``: a NULL
    stays NULL on every allocated row, a value's shares sum exactly to it."""
    out: list[dict[str, str | None]] = [{} for _ in weights]
    for col in SUMMABLE_MONEY + SUMMABLE_QUANTITY:
        if col not in names or col not in row:
            continue
        v = row.get(col)
        if v is None:
            shares: list[Decimal | None] = [None] * len(weights)
        else:
            value = Decimal(v)
            if col in SUMMABLE_QUANTITY and value.as_tuple().exponent > QUANTITY_QUANTUM.as_tuple().exponent:
                value = value.quantize(QUANTITY_QUANTUM)
            shares = list(allocate(value, weights, row.get("currency") or "USD"))
        for d, share in zip(out, shares, strict=True):
            d[names[col]] = _text(share)
    return out


def allocation_rows(bill_rows: Iterable[Mapping], lines: Iterable[CostLine],
                    keys: Mapping[str, Mapping[str, str]]) -> list[dict[str, str | None]]:
    """One dict per (origin charge, target), columns in a fixed order (None: NULL). ``keys``:
    batch → key."""
    names = focus_names()
    billed: dict[tuple, list[CostLine]] = defaultdict(list)
    amortized: dict[tuple, list[CostLine]] = defaultdict(list)
    for ln in lines:
        if ln.provenance.source_kind != "focus":
            continue
        where = (ln.provenance.source_sha256, ln.provenance.row)
        if ln.basis in CASH_BASES:
            billed[where].append(ln)
        elif ln.basis is Basis.EFFECTIVE_COST:
            amortized[where].append(ln)
    out = []
    for row in bill_rows:
        where = (row["source_sha256"], int(row["row"]))
        origin_billed = Decimal(row["billed_cost"])
        origin_eff = Decimal(row["effective_cost"]) if row.get("effective_cost") is not None else origin_billed
        targets: dict[tuple, dict[str, Any]] = {}
        for view, group in (("billed", billed.get(where, ())), ("effective", amortized.get(where, ()))):
            for ln in group:
                t = targets.setdefault(_target(ln), {"billed": Decimal(0), "effective": Decimal(0), "qty": None,
                                                     "rule": ln.provenance.rule.removesuffix(" (EffectiveCost)"),
                                                     "qty_view": view})
                t[view] += ln.amount.expected
                if ln.quantity is not None and t["qty_view"] == view:  # one view's hours, never both
                    t["qty"] = (t["qty"] or Decimal(0)) + ln.quantity
        if not targets:  # a zero row: allocated whole to where its zero went — the unattributed bucket
            targets[("", "", "", "zero_amount")] = {"billed": Decimal(0), "effective": Decimal(0), "qty": None,
                                                   "rule": "zero_amount", "qty_view": "billed"}
        order = sorted(targets)
        by_qty = all(targets[k]["qty"] is not None for k in order)
        weights = [targets[k]["qty"] if by_qty else abs(targets[k]["billed"]) or abs(targets[k]["effective"])
                   for k in order]
        if sum(weights) == 0:
            weights = [Decimal(1)] * len(order)
        ratios = allocate(Decimal(1).quantize(RATIO_QUANTUM), weights, "USD")
        if not amortized.get(where):
            effs = ([targets[k]["billed"] for k in order] if origin_eff == origin_billed
                    else allocate(origin_eff, weights, row["currency"]))
            for k, e in zip(order, effs, strict=True):
                targets[k]["effective"] = e
        base = {names.get(k, k): _text(v) for k, v in row.items()
                if k not in ("source_sha256", "row", "row_hash", "extra") and k in names}
        summed = _split_summable(row, names, weights)
        extra = row.get("extra")
        if extra:
            with contextlib.suppress(TypeError, ValueError, AttributeError):  # unreadable: the named columns stand
                kept = json.loads(extra)
                base |= {str(k): _text(v) for k, v in kept.items() if str(k) not in base}
                if "Tags" in kept:  # the origin's Tags where the lake's differ: NULL, or text no JSON object
                    base["Tags"] = _text(kept["Tags"])
        for i, (k, ratio) in enumerate(zip(order, ratios, strict=True)):
            t = targets[k]
            batch, run, detail, reason = k
            unit, qty = ("GPU-Hours", t["qty"]) if t["qty"] is not None else ("Cost", t["billed"])
            tags = {"batch": batch, **dict(keys.get(batch, {}))} if batch else {"unattributed": reason}
            if run:
                tags["run"] = run
            if detail:  # a compute state under "state"; any other detail (a tag rule's service name) as it is
                tags["state" if detail in _STATES else "detail"] = detail
            out.append(base | summed[i] | {
                "BilledCost": _text(t["billed"]), "EffectiveCost": _text(t["effective"]),
                "AllocatedMethodId": f"trainledger:{t['rule']}",
                "AllocatedMethodDetails": json.dumps({"Elements": [{"AllocatedRatio": _text(ratio), "UsageUnit": unit,
                                                                    "UsageQuantity": _text(qty)}]}),
                "AllocatedResourceId": batch or f"unattributed:{reason}",
                "AllocatedTags": json.dumps(tags, ensure_ascii=False, sort_keys=True),
                "x_OriginBilledCost": _text(origin_billed), "x_OriginEffectiveCost": _text(origin_eff),
                "x_SourceSha256": row["source_sha256"], "x_SourceRow": str(row["row"])})
    return out
