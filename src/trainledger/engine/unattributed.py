"""The unattributed bucket of the bases no bill reconciles, and the labor-hours control.

Cash (``billed``, ``capacity_unheld``, ``reserved_unused``) reconciles against the bill
(conservation.py), the bill's effective-cost view against EffectiveCost, owned or reserved capacity
against the capacity (capacity.check). The other bases — ``internal`` (staff time), ``estimate``
(storage inventory × price book), ``queued`` (waiting GPU-hours) — have no bill, so nothing said
where their lines without a batch went: a timesheet row naming no batch was in no report
(review 7 L3). ``noncash`` gives each (currency, basis, unit) its bucket:

* ``pooled`` — lines without a batch that a declared allocation policy spreads to the batches
  (allocation.py: a view beside the direct cost), per policy;
* ``unattributed`` — the rest: no batch, no pool; ``quantity`` (hours, GiB-months, GPU-hours), the
  money range low / expected / high (exact sums; a sheet rounds them to the minor unit) and
  ``unattributed_by_reason`` — ``[{"reason", "detail", "lines", "quantity", "low", "expected",
  "high"}]``, largest first, summing exactly to the bucket. Labor figures also name the valued roles
  they sum (``roles``): whose cost it is decides who may see it (report/noncash.py).

A pool that allocated nothing (no batch has its driver: ``left`` ≠ 0 in its record) leaves its lines
unattributed. ``labor_hours`` is the control of the timesheet per currency of its valuation: the hours
of the timesheet rows (the facts) = hours attributed to batches + spread by shared pools +
unattributed, exactly; a difference is a ``labor_hours_conservation`` problem.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from decimal import Decimal, localcontext

from trainledger.engine.allocation import pool_of
from trainledger.engine.conservation import reason_parts
from trainledger.engine.context import Facts, Problem, Settings
from trainledger.model import CASH_BASES, Basis, CostLine
from trainledger.model.money import EXACT, minor_quantum

# reconciled elsewhere: cash against the bill, the bill's second view against EffectiveCost, a view
OTHER_VIEWS = frozenset({*(str(b) for b in CASH_BASES), str(Basis.EFFECTIVE_COST), str(Basis.ALLOCATED)})
CAPACITY_KINDS = ("config", "capacity")  # owned / reserved capacity's lines: reconciled per capacity


def _plain(d: Decimal) -> str:
    return format(d.copy_abs() if d.is_zero() else d, "f")


def in_bucket(ln: CostLine) -> bool:
    """A line of a non-cash basis no other view reconciles, with no batch."""
    return (not ln.batch_id and str(ln.basis) not in OTHER_VIEWS
            and ln.provenance.source_kind not in CAPACITY_KINDS)


def spread_pools(records: Iterable[dict]) -> set[tuple[str, str, str]]:
    """(policy, source basis, currency) of the allocation records that spread their pool (nothing left)."""
    return {(r["policy"], r["source_basis"], r["currency"]) for r in records
            if Decimal(str(r.get("left") or 0)) == 0 and Decimal(str(r.get("pool") or 0)) != 0}


def pooled_by(raw: dict, where: str, records: Iterable[dict]) -> Callable[[CostLine], str | None]:
    """The policy whose pool spread ``ln`` to the batches (allocation.py), or None."""
    pick, spread = pool_of(raw, where), spread_pools(records)

    def of(ln: CostLine) -> str | None:
        policy = pick(ln)
        return policy if policy and (policy, str(ln.basis), ln.currency) in spread else None
    return of


class _Acc:
    def __init__(self) -> None:
        self.n, self.q = 0, Decimal(0)
        self.lo = self.ex = self.hi = Decimal(0)
        self.roles: set[str] = set()  # the valued labor roles it sums (report/noncash.py: their kind)

    def add(self, ln: CostLine) -> None:
        self.n += 1
        self.q += ln.quantity or 0
        self.lo += ln.amount.low
        self.ex += ln.amount.expected
        self.hi += ln.amount.high
        if ln.category == "labor" and (ln.amount.low or ln.amount.high):
            self.roles.add(ln.detail.partition("/")[2] or ln.detail)

    def money(self, zero: Decimal) -> dict:
        return {"low": _plain(self.lo + zero), "expected": _plain(self.ex + zero), "high": _plain(self.hi + zero),
                **({"roles": sorted(self.roles)} if self.roles else {})}


def noncash(lines: Iterable[CostLine], pooled: Callable[[CostLine], str | None]) -> list[dict]:
    """One record per (currency, basis, unit) that has lines without a batch, in that order."""
    total: dict[tuple, _Acc] = defaultdict(_Acc)
    reasons: dict[tuple, dict[tuple[str, str], _Acc]] = defaultdict(lambda: defaultdict(_Acc))
    pools: dict[tuple, dict[str, _Acc]] = defaultdict(lambda: defaultdict(_Acc))
    keys: set[tuple] = set()
    with localcontext(EXACT):
        for ln in lines:
            if not in_bucket(ln):
                continue
            key = (ln.currency, str(ln.basis), ln.unit)
            keys.add(key)
            if (policy := pooled(ln)) is not None:
                pools[key][policy].add(ln)
                continue
            total[key].add(ln)
            reasons[key][reason_parts(ln.reason)].add(ln)
        out = []
        for key in sorted(keys):
            cur, basis, unit = key
            zero = Decimal(0).quantize(minor_quantum(cur))
            t = total.get(key) or _Acc()
            items = sorted(reasons.get(key, {}).items(), key=lambda kv: (-abs(kv[1].ex), -kv[1].q, kv[0]))
            out.append({"currency": cur, "basis": basis, "unit": unit, "lines": t.n, "quantity": _plain(t.q),
                        **t.money(zero),
                        "unattributed_by_reason": [{"reason": r, "detail": d, "lines": a.n, "quantity": _plain(a.q),
                                                    **a.money(zero)} for (r, d), a in items],
                        "pooled": [{"policy": p, "lines": a.n, "quantity": _plain(a.q), **a.money(zero)}
                                   for p, a in sorted(pools.get(key, {}).items())]})
    return out


def labor_currency(config: Settings, role: str) -> str:
    """The currency a timesheet row of ``role`` is valued in (assets.labor_stage): its rate's, else the
    workspace's (valued at zero)."""
    rate = config.labor_rate(role)
    return rate.rate.currency if rate is not None else str(config.get("workspace.currency"))


def labor_hours(facts: Facts, config: Settings, lines: Iterable[CostLine],
                pooled: Callable[[CostLine], str | None]) -> tuple[list[dict], list[Problem]]:
    """Per currency: the timesheet's hours (its rows) = attributed to batches + shared pools +
    unattributed (its lines), exact; a problem for each currency where it does not hold."""
    sheet: dict[str, Decimal] = defaultdict(Decimal)
    rows: dict[str, int] = defaultdict(int)
    parts: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    batches: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    by_pool: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    with localcontext(EXACT):
        for row in facts.labor_entries:
            cur = labor_currency(config, str(row["role"]))
            sheet[cur] += Decimal(str(row["hours"]))
            rows[cur] += 1
        for ln in lines:
            if ln.category != "labor" or ln.provenance.source_kind != "timesheet" or ln.basis is not Basis.INTERNAL:
                continue
            q = ln.quantity or Decimal(0)
            if ln.batch_id:
                parts[ln.currency]["batches"] += q
                batches[ln.currency][ln.batch_id] += q
            elif (policy := pooled(ln)) is not None:
                parts[ln.currency]["pooled"] += q
                by_pool[ln.currency][policy] += q
            else:
                parts[ln.currency]["unattributed"] += q
        out, problems = [], []
        for cur in sorted(set(sheet) | set(parts)):
            p = parts.get(cur, {})
            b, s, u = (p.get(k, Decimal(0)) for k in ("batches", "pooled", "unattributed"))
            diff = sheet.get(cur, Decimal(0)) - b - s - u
            rec = {"currency": cur, "rows": rows.get(cur, 0), "timesheet_hours": _plain(sheet.get(cur, Decimal(0))),
                   "batches_hours": _plain(b), "pooled_hours": _plain(s), "unattributed_hours": _plain(u),
                   "difference": _plain(diff),
                   "by_batch": [{"batch": k, "hours": _plain(v)} for k, v in sorted(batches.get(cur, {}).items())],
                   "by_pool": [{"policy": k, "hours": _plain(v)} for k, v in sorted(by_pool.get(cur, {}).items())]}
            out.append(rec)
            if diff != 0:
                side = "too little" if diff > 0 else "too much"
                problems.append(Problem(
                    "labor_hours_conservation", f"labor hours ({cur}): the timesheet has {rec['timesheet_hours']} h but"
                    f" batches {rec['batches_hours']} + shared pools {rec['pooled_hours']} + unattributed"
                    f" {rec['unattributed_hours']} carry {_plain(b + s + u)} h ({side} by {_plain(abs(diff))})",
                    {"currency": cur, "timesheet_hours": rec["timesheet_hours"], "batches_hours": rec["batches_hours"],
                     "pooled_hours": rec["pooled_hours"], "unattributed_hours": rec["unattributed_hours"],
                     "carried": _plain(b + s + u), "side": side, "gap": _plain(abs(diff))}))
    return out, problems
