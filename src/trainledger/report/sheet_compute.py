"""The compute side of the batch cost sheet: states, hours that conserve, sections, retry chains.

* ``compute_view`` — one row per (state, basis) in the seed's order; GPU-hours only where the
  line carries quantity (a credit carries money only); the runs' held GPU-hours that no bill row
  or owned capacity valued become a ``not_valued`` row, so the table's hours equal the runs'. Each
  held hour is in one row (review finding K7): the bill's EffectiveCost view repeats the hours of
  its cash rows, so its row keeps their price and says their hours as ``view_gpu_hours`` (the balance
  of one basis reads them), not as ``gpu_hours``; an hour a commitment covers (its bill row has
  EffectiveCost and no cash) is in the view's ``covered`` row (its hours and price), valued there —
  never also ``not_valued``.
* ``sections`` — every cash line of the batch in one section (compute, storage, network, other
  services, external), summing exactly to the batch's cash total per currency.
* ``retry_chains`` — each failed attempt with its retries: the cost of the failure and of its
  recovery together (``engine.causes.chain_cost``: what the failed attempts lost, the rerun's setup /
  preemption recovery — not its new training).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from trainledger.model import CASH_BASES, Basis, CostLine
from trainledger.model.money import minor_quantum
from trainledger.model.vocab import ComputeState

Q = Decimal("0.0001")
MONEY_ONLY = ("tagged_resource", "credit", "adjustment", "tax", "prior_period_correction")  # no GPU-hours
STATE_ORDER = tuple(s.value for s in ComputeState) + MONEY_ONLY
LOST = (ComputeState.HANG, ComputeState.LOST_PROGRESS)
SECTION_OF = {"compute": "compute", "storage": "storage", "network": "network", "other": "other_services",
              "external": "external", "data": "other_services"}
SECTIONS = ("compute", "storage", "network", "other_services", "external")


def fmt(d: Decimal, currency: str) -> str:
    minor = minor_quantum(currency)
    exp = d.as_tuple().exponent
    if isinstance(exp, int) and exp > minor.as_tuple().exponent:
        d = d.quantize(minor)
    return format(d, "f")


def qty(d: Decimal | None) -> str | None:
    return None if d is None else format(d.quantize(Q) + 0, "f")  # + 0: never "-0.0000"


def primary(ln: CostLine) -> bool:
    """A compute line that carries a run's held time once: cash from a bill, or an owned capacity's
    cost. Queued value (no GPU held) and the bill's EffectiveCost view (a second view of the same
    hours) are not."""
    if ln.category != "compute" or ln.basis is Basis.QUEUED:
        return False
    return ln.basis is not Basis.EFFECTIVE_COST


def money_list(acc: dict[tuple[str, str], Decimal]) -> list[dict[str, str]]:
    """Per (basis, currency), never summed across bases; cash keeps every digit, other bases are
    shown to the currency's minor unit."""
    out = []
    for (basis, c), v in sorted(acc.items()):
        shown = v if Basis(basis) in CASH_BASES else v.quantize(minor_quantum(c))
        out.append({"amount": fmt(shown, c), "currency": c, "basis": basis})
    return out


def bill_price(amount: Decimal, hours: Decimal, pairs, currency: str) -> tuple[Decimal, bool]:
    """(the price per GPU-hour of ``amount`` over ``hours``, to ``Q``; whether it is the bill's price
    rather than the quotient). Each line is its row's exact share rounded in two levels
    (``engine.compute.two_level``: under two minor units off), so the quotient can miss the bill's
    price by the split's rounding — 1,973.34 for 49.3333 GPU-h at 40.00 reads 40.0001 (review finding
    12). The price to the minor unit is the bill's when every line (``pairs``: amount, GPU-hours) is
    its GPU-hours at that price within the split's rounding; else the quotient stands."""
    plain = (amount / hours).quantize(Q)
    unit = minor_quantum(currency)
    p = (amount / hours).quantize(unit)
    if p.quantize(Q) == plain or not all(abs(a - q * p) < 2 * unit for a, q in pairs):
        return plain, False
    return p.quantize(Q), True


def run_hours(runs, hours_by_state: dict) -> dict[str, Decimal]:
    out: dict[str, Decimal] = defaultdict(Decimal)
    for r in runs:
        for state, h in hours_by_state.get(r.id, {}).items():
            out[state] += Decimal(str(h))
    return out


def compute_view(lines: list[CostLine], runs, hours_by_state: dict, exact_range) -> tuple[list, dict]:
    """(compute_by_state rows, hours check). ``exact_range(AmountRange, exact)`` formats money."""
    money: dict[tuple[str, str, bool], dict[str, Any]] = {}
    held: dict[str, Decimal] = defaultdict(Decimal)
    queued: dict[str, Decimal] = {"valued": Decimal(0), "not_valued": Decimal(0)}  # waiting: no GPU held
    cash_rows = {(ln.provenance.source_sha256, ln.provenance.row) for ln in lines
                 if ln.category == "compute" and ln.basis in CASH_BASES}
    for ln in lines:
        if ln.category != "compute":
            continue
        second = ln.basis is Basis.EFFECTIVE_COST  # the bill's second view of its rows
        covered = second and (ln.provenance.source_sha256, ln.provenance.row) not in cash_rows
        unpriced = ln.reason.startswith("not_valued")  # a quantity with no price is not 0.00
        # a queued hour with no price is its own row: the price per GPU-hour is over the valued hours only
        key = (ln.detail, str(ln.basis), covered, unpriced and ln.basis is Basis.QUEUED)
        m = money.setdefault(key, {"amounts": {}, "gpu_hours": None, "evidence": set(), "priced": False, "pairs": [],
                                   "view": second and not covered})
        if ln.basis is Basis.QUEUED and ln.quantity is not None and ln.unit == "gpu_hour":
            queued["not_valued" if unpriced else "valued"] += ln.quantity
        if not unpriced:
            m["priced"] = True
            prev = m["amounts"].get(ln.currency)
            m["amounts"][ln.currency] = ln.amount if prev is None else prev + ln.amount
        m["evidence"].add(str(ln.evidence))
        if ln.quantity is not None and ln.unit == "gpu_hour":
            m["gpu_hours"] = (m["gpu_hours"] or Decimal(0)) + ln.quantity
            m["pairs"].append((ln.amount.expected, ln.quantity))
            if ln.run_id and (primary(ln) or covered):  # a covered hour: valued by its commitment
                held[ln.detail] += ln.quantity
    runs_h = run_hours(runs, hours_by_state)
    rows = []
    for (state, basis, covered, _), m in money.items():
        cash = Basis(basis) in CASH_BASES
        amounts = [exact_range(m["amounts"][c], cash) for c in sorted(m["amounts"])]
        price = None
        if m["gpu_hours"] and len(m["amounts"]) == 1 and state not in MONEY_ONLY:
            (cur, r), = m["amounts"].items()
            shown, rounded = bill_price(r.expected, m["gpu_hours"], m["pairs"], cur)
            price = {"amount": format(shown, "f"), "currency": cur} | (
                {"split_rounding": True, "split_lines": len(m["pairs"])} if rounded else {})
        hours = None if m["view"] else m["gpu_hours"]  # the view's hours are its cash rows': counted there
        rows.append({"state": state, "basis": basis, "gpu_hours": qty(hours), "amounts": amounts,
                     "price_per_gpu_hour": price, "evidence": sorted(m["evidence"]), "valued": m["priced"]}
                    | ({"covered": True} if covered else {})
                    | ({"view_gpu_hours": qty(m["gpu_hours"])} if m["view"] and m["gpu_hours"] else {}))
    not_valued = Decimal(0)
    for state, h in runs_h.items():
        gap = h - held.get(state, Decimal(0))
        if gap.quantize(Q) != 0:
            not_valued += gap
            rows.append({"state": state, "basis": "not_valued", "gpu_hours": qty(gap), "amounts": [],
                         "price_per_gpu_hour": None, "evidence": ["assumed"], "valued": False})
    order = {s: i for i, s in enumerate(STATE_ORDER)}
    rows.sort(key=lambda r: (order.get(r["state"], len(order)), r["state"], r["basis"], bool(r.get("covered")),
                             not r["valued"]))
    total_runs = sum(runs_h.values(), Decimal(0))
    valued = sum(held.values(), Decimal(0))
    check = {"runs_gpu_hours": qty(total_runs), "valued_gpu_hours": qty(valued),
             "not_valued_gpu_hours": qty(not_valued),
             "difference": qty(total_runs - valued - not_valued)}
    check |= {"queued_gpu_hours": qty(queued["valued"] + queued["not_valued"]),  # waiting: not the runs' held
              "queued_valued_gpu_hours": qty(queued["valued"]),
              "queued_not_valued_gpu_hours": qty(queued["not_valued"])}
    return rows, check


def sections(lines: list[CostLine]) -> list[dict[str, Any]]:
    """Cash of the batch per currency and section; the sections sum exactly to the total."""
    acc: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    items: dict[tuple[str, str, str], Decimal] = defaultdict(Decimal)
    for ln in lines:
        if ln.basis not in CASH_BASES:
            continue
        sec = SECTION_OF.get(ln.category, "other_services")
        acc[ln.currency][sec] += ln.amount.expected
        acc[ln.currency]["_total"] += ln.amount.expected
        if sec in ("network", "other_services"):
            items[(sec, ln.detail or ln.provenance.rule, ln.currency)] += ln.amount.expected
    out = []
    for cur in sorted(acc):
        a = acc[cur]
        parts = [{"section": s, "amount": fmt(a[s], cur)} for s in SECTIONS if s in a]
        summed = sum((a[s] for s in SECTIONS), Decimal(0))
        out.append({"currency": cur, "total": fmt(a["_total"], cur), "sections": parts,
                    "difference": fmt(a["_total"] - summed, cur),
                    "items": [{"section": s, "item": i, "amount": fmt(v, c)}
                              for (s, i, c), v in sorted(items.items()) if c == cur]})
    return out


def money_by_run(lines: list[CostLine]) -> dict[str, dict[tuple[str, str], Decimal]]:
    """Compute money per run and (basis, currency): a bill's cash or an owned capacity's cost, each
    hour counted once, bases kept apart."""
    out: dict[str, dict[tuple[str, str], Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    for ln in lines:
        if ln.run_id and primary(ln):
            basis = "billed" if ln.basis in CASH_BASES else str(ln.basis)
            out[ln.run_id][(basis, ln.currency)] += ln.amount.expected
    return out


def money_by_run_state(lines: list[CostLine]) -> dict[str, dict[str, dict[tuple[str, str], Decimal]]]:
    """``money_by_run`` per compute state too (the line's detail): run → state → (basis, currency)."""
    out: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(Decimal)))
    for ln in lines:
        if ln.run_id and primary(ln):
            basis = "billed" if ln.basis in CASH_BASES else str(ln.basis)
            out[ln.run_id][str(ln.detail)][(basis, ln.currency)] += ln.amount.expected
    return out


def retry_chains(runs, explained: dict, by_run_state: dict, hours_by_state: dict) -> list[dict[str, Any]]:
    """Each attempt that was retried, with every retry after it (a retry of a retry too); its cost
    by ``engine.causes.chain_cost`` from ``money_by_run_state`` — the review bridge's failure rule:
    ``failure_cost`` (what the failure destroyed, the rerun's ``recovery_cost`` inside it),
    ``kept_cost`` (kept by the checkpoint), ``other_cost`` (credits…); ``total`` their sum.
    ``lost_gpu_hours`` is None (unknown) when a failed attempt has no progress signal,
    ``recovery_gpu_hours`` when no rerun has one (its recovery cannot be told from its training)."""
    from trainledger.engine.causes import FAILED, PROGRESS_STATES, RECOVERY_STATES, chain_cost

    ids = {r.id for r in runs}
    retries: dict[str, list[str]] = defaultdict(list)
    for r in runs:
        ex = explained.get(r.id) or {}
        if ex.get("retry_of") in ids:
            retries[ex["retry_of"]].append(r.id)
    retried = {x for xs in retries.values() for x in xs}
    states = {x.id: x.state.split(" ")[0].upper() for x in runs}
    progressed = {x for x, hs in hours_by_state.items()
                  if any(Decimal(str(h)) > 0 for s, h in hs.items() if s in PROGRESS_STATES)}
    chains = []
    for r in sorted(runs, key=lambda r: (r.started_at is None, r.started_at or r.submitted_at, r.id)):
        if r.id not in retries or r.id in retried:
            continue
        chain, todo = [r.id], list(retries[r.id])
        while todo:
            nxt = todo.pop(0)
            chain.append(nxt)
            todo.extend(retries.get(nxt, ()))
        failed_ids = {x for x in chain if states.get(x) in FAILED}
        cost = chain_cost(chain, failed_ids, by_run_state, progressed)
        failed = [x for i, x in enumerate(chain) if i < len(chain) - 1 or x in failed_ids]
        recovery = chain[1:]
        rec_hours = sum((Decimal(str(h)) for x in recovery for s, h in hours_by_state.get(x, {}).items()
                         if s in RECOVERY_STATES), Decimal(0))
        total = defaultdict(Decimal)
        for d in (cost.failure, cost.kept, cost.other):
            for c, v in d.items():
                total[c] += v
        signal = all(any(s != "unclassified" and Decimal(str(h)) > 0 for s, h in hours_by_state.get(x, {}).items())
                     for x in failed)
        lost = sum((Decimal(str(h)) for x in failed for s, h in hours_by_state.get(x, {}).items()
                    if s in LOST), Decimal(0))
        # a rerun's setup / preemption recovery is read off its progress log: none, and it is unknown
        rec_signal = any(any(s != "unclassified" and Decimal(str(h)) > 0 for s, h in hours_by_state.get(x, {}).items())
                         for x in recovery)
        ex = explained.get(r.id) or {}
        chains.append({"failed": r.id, "state": r.state, "cause": ex.get("cause"),
                       "cause_evidence": ex.get("cause_evidence"), "attempts": chain,
                       "failure_cost": money_list(cost.failure), "recovery_cost": money_list(cost.recovery),
                       "kept_cost": money_list(cost.kept), "other_cost": money_list(cost.other),
                       "total": money_list(total), "lost_gpu_hours": qty(lost) if signal else None,
                       "recovery_gpu_hours": qty(rec_hours) if rec_signal else None})
    return chains
