"""Allocation policies: idle and shared costs spread to batches by a declared driver — as a view.

The direct cost never changes. A policy reads lines of the unattributed bucket and writes
*allocated* lines (basis ``allocated``, never cash, never in a basis total with the direct cost)
that say which policy, which driver and which basis the money came from (``detail`` =
``<policy>/<source basis>``) and what the pool is (``provenance.rule`` =
``allocation/<policy>/<category>``: report/field_kinds.py ``pool_kind`` withholds a share of labor or of an invoice).
The sheet shows them in their own table beside the direct cost.

``[allocation]`` in the workspace (docs/workspace.md)::

    capacity_unheld = "separate"        # separate (default) | spread_by_gpu_hours | cost_centre
    cost_centre = "platform"            # who carries it under cost_centre
    [[allocation.shared]]
    id = "untagged-network"
    category = "network"                # compute | storage | network | other | labor | external
    reason = "no_rule_matched"          # the unattributed reason code (conservation.reason_of)
    detail_prefix = ""                  # optional: only lines whose reason detail starts with this
    driver = "gpu_hours"                # gpu_hours | billed | equal

Drivers: ``gpu_hours`` — each batch's held GPU-hours (its runs' compute lines, each bill row's once:
its cash view's, or its effective-cost view's when a commitment covers it and it has no cash); ``billed`` — each
batch's direct cash per currency; ``equal`` — every batch of the workspace alike. Shares are exact
(``model.allocate``, largest remainder): a cash pool's allocated lines sum to the pool, every digit of
it; a pool that is not cash (a rate card's or amortised capacity no job held, internal staff time) is
shown to the currency's minor unit, so it is split as shown — the pool half-even to the minor unit
(its record's ``allocated``; ``pool`` keeps every digit), in minor units — and the batches' shares
on their sheets add up to the pool on them exactly, in every currency (review finding K13).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.engine.conservation import reason_of
from trainledger.errors import ConfigError
from trainledger.model import CASH_BASES, AmountRange, Basis, CostLine, Provenance, allocate
from trainledger.model.money import minor_quantum
from trainledger.model.vocab import ComputeState

CAPACITY_POLICIES = ("separate", "spread_by_gpu_hours", "cost_centre")
DRIVERS = ("gpu_hours", "billed", "equal")
CATEGORIES = ("compute", "storage", "network", "other", "labor", "external")
ALLOCATED = "allocated"  # the basis of allocated lines: a view, not a cost of its own


@dataclass(frozen=True)
class SharedRule:
    id: str
    category: str
    reason: str
    driver: str
    detail_prefix: str = ""

    def selects(self, ln: CostLine) -> bool:
        code, detail = reason_of(ln)
        return (ln.category == self.category and code == self.reason
                and detail.startswith(self.detail_prefix))


@dataclass(frozen=True)
class Policies:
    capacity_unheld: str = "separate"
    cost_centre: str = ""
    shared: tuple[SharedRule, ...] = ()


def parse(raw: dict, where: str) -> Policies:
    d = dict(raw or {})
    known = {"capacity_unheld", "cost_centre", "shared"}
    if set(d) - known:
        raise ConfigError(f"{where}: [allocation] has unknown key(s) {', '.join(sorted(set(d) - known))}",
                          remedy=f"known: {', '.join(sorted(known))}; see docs/workspace.md")
    cap = d.get("capacity_unheld", "separate")
    if cap not in CAPACITY_POLICIES:
        raise ConfigError(f"{where}: [allocation] capacity_unheld = {cap!r}",
                          remedy=f"choose one of {', '.join(CAPACITY_POLICIES)}")
    if cap == "cost_centre" and not d.get("cost_centre"):
        raise ConfigError(f"{where}: [allocation] capacity_unheld = 'cost_centre' needs cost_centre = NAME")
    rules = []
    for i, s in enumerate(d.get("shared", []) or []):
        try:
            rule = SharedRule(id=str(s["id"]), category=str(s["category"]), reason=str(s["reason"]),
                              driver=str(s.get("driver", "gpu_hours")), detail_prefix=str(s.get("detail_prefix", "")))
        except KeyError as exc:
            raise ConfigError(f"{where}: [[allocation.shared]] entry {i + 1}: missing key {exc}",
                              remedy="see docs/workspace.md, [allocation]") from None
        if rule.driver not in DRIVERS or rule.category not in CATEGORIES:
            raise ConfigError(f"{where}: [[allocation.shared]] {rule.id}: driver {rule.driver!r} / category"
                              f" {rule.category!r}", remedy=f"drivers: {', '.join(DRIVERS)}; categories:"
                              f" {', '.join(CATEGORIES)}")
        rules.append(rule)
    return Policies(capacity_unheld=cap, cost_centre=str(d.get("cost_centre", "")), shared=tuple(rules))


def _weights(driver: str, currency: str, drivers, batches: tuple[str, ...]) -> dict[str, Decimal]:
    if driver == "equal":
        return {b: Decimal(1) for b in batches}
    w = drivers()[0] if driver == "gpu_hours" else drivers()[1].get(currency, {})
    return {b: w.get(b, Decimal(0)) for b in batches}


def _drivers(lines) -> tuple[dict[str, Decimal], dict[str, dict[str, Decimal]]]:
    """(GPU-hours per batch, direct cash per currency and batch) of ``lines`` (``engine.lines.Lines``),
    added in line order as the lines would be; lines held as columns are read from the columns.

    A bill row's GPU-hours count once: in its cash (billed) view, or — when the row has no cash, its
    usage covered by a commitment (BilledCost 0, EffectiveCost > 0: a reservation or savings plan paid
    elsewhere) — in the bill's effective-cost view, the only view whose lines carry its hours. Without
    that, a batch whose GPU-hours a commitment covers would weigh nothing in a ``gpu_hours`` pool."""
    from trainledger.engine.lines import LineColumns

    hours: dict[str, Decimal] = defaultdict(Decimal)
    cash: dict[str, dict[str, Decimal]] = defaultdict(lambda: defaultdict(Decimal))
    cash_bases = {str(b) for b in CASH_BASES}
    in_cash = _rows_in_cash_view(lines)
    for part in lines.parts:
        if isinstance(part, LineColumns):
            _column_drivers(part, hours, cash, cash_bases, in_cash)
            continue
        for ln in part:
            if not ln.batch_id:
                continue
            second_view = ln.basis is Basis.EFFECTIVE_COST  # the bill's EffectiveCost view
            if ln.category == "compute" and ln.run_id and ln.quantity is not None \
                    and ln.basis is not Basis.QUEUED and not (second_view and _row_key(ln) in in_cash):
                hours[ln.batch_id] += ln.quantity
            if ln.basis in CASH_BASES:
                cash[ln.currency][ln.batch_id] += ln.amount.expected
    return hours, cash


def _row_key(ln: CostLine) -> str:
    """The bill row a line came from (its import, file and row), as the columns spell it (``_column_keys``)."""
    p = ln.provenance
    return f"{p.import_key or p.source_sha256}|{p.source_sha256}|{p.row}"


def _column_keys(t):
    import pyarrow.compute as pc

    from trainledger.engine.lines import dense

    sha = dense(t.column("source_sha256"))
    key = pc.coalesce(dense(t.column("import_key")), sha)
    key = pc.if_else(pc.equal(key, ""), sha, key)  # an empty import key is the file's (Provenance.import_key)
    return pc.binary_join_element_wise(key, sha, pc.cast(t.column("source_row"), "string"), "|")


def _rows_in_cash_view(lines) -> set[str]:
    """The bill rows (``_row_key``) with lines in the cash view, when the bill has an effective-cost
    view at all (commitments); empty otherwise, and nothing is read."""
    import pyarrow.compute as pc

    from trainledger.engine.lines import LineColumns, dense

    if not lines.count(basis=Basis.EFFECTIVE_COST, source_kind="focus"):
        return set()
    out: set[str] = set()
    for part in lines.parts:
        if isinstance(part, LineColumns):
            t = part.table
            mask = pc.and_(pc.equal(dense(t.column("source_kind")), "focus"),
                           pc.not_equal(dense(t.column("basis")), str(Basis.EFFECTIVE_COST)))
            out.update(_column_keys(t.filter(mask)).to_pylist())
            continue
        out.update(_row_key(ln) for ln in part
                   if ln.provenance.source_kind == "focus" and ln.basis is not Basis.EFFECTIVE_COST)
    return out


def _column_drivers(part, hours, cash, cash_bases, in_cash=frozenset()) -> None:
    import pyarrow as pa
    import pyarrow.compute as pc

    from trainledger.engine.lines import LineColumns, dense

    t = part.table
    t = pa.table({c: dense(t.column(c)) for c in t.column_names})
    held = pc.fill_null(pc.not_equal(t.column("batch_id"), ""), False)
    compute = pc.and_(pc.and_(held, pc.equal(t.column("category"), "compute")),
                      pc.and_(pc.fill_null(pc.not_equal(t.column("run_id"), ""), False),
                              pc.is_valid(t.column("quantity"))))
    second = pc.equal(t.column("basis"), str(Basis.EFFECTIVE_COST))  # the bill's EffectiveCost view
    # a row's effective-cost hours count where it has no cash view (its usage covered by a commitment)
    second = pc.and_(second, pc.fill_null(pc.is_in(_column_keys(t), value_set=pa_strings(sorted(in_cash))), False))
    compute = pc.and_(compute, pc.invert(pc.or_(second, pc.equal(t.column("basis"), str(Basis.QUEUED)))))
    q = t.filter(compute)
    for b, qty in zip(q.column("batch_id").to_pylist(), q.column("quantity").to_pylist(), strict=True):
        hours[b] += Decimal(qty)  # one by one, as the lines add up (the default context rounds the same way)
    is_cash = pc.is_in(t.column("basis"), value_set=pa_strings(sorted(cash_bases)))
    sums = LineColumns(t.filter(pc.and_(held, is_cash))).sums(("currency", "batch_id"))
    for (cur, b), v in sums.items():
        cash[cur][b] += v


def pa_strings(values):
    import pyarrow as pa

    return pa.array(values, pa.string())


def _spread(policy: str, driver: str, pool: list[CostLine], drivers, batches) -> tuple[list[CostLine], list[dict]]:
    """Spread each (currency, basis) part of ``pool`` by ``driver``; one record per part."""
    out, records = [], []
    parts: dict[tuple[str, str], list[Decimal]] = defaultdict(lambda: [Decimal(0)] * 3)
    for ln in pool:
        p = parts[(ln.currency, str(ln.basis))]
        parts[(ln.currency, str(ln.basis))] = [p[0] + ln.amount.low, p[1] + ln.amount.expected, p[2] + ln.amount.high]
    for (cur, basis), (low, amount, high) in sorted(parts.items()):
        weights = _weights(driver, cur, drivers, batches)
        keys = sorted(b for b, w in weights.items() if w > 0)
        part = [ln for ln in pool if ln.currency == cur and str(ln.basis) == basis]
        category = "+".join(sorted({ln.category for ln in part}))  # what the pool is: labor, external …
        rec = {"policy": policy, "driver": driver, "source_basis": basis, "currency": cur, "pool": str(amount),
               "lines": len(part), "category": category}
        if not keys or amount == 0:
            records.append(rec | {"allocated": "0", "left": str(amount)})
            continue
        w = [weights[k] for k in keys]
        if Basis(basis) not in CASH_BASES:  # shown to the minor unit: the shares split the pool as shown (K13)
            low, amount, high = (minor(x, cur) for x in (low, amount, high))
        shares = zip(allocate(low, w, cur), allocate(amount, w, cur), allocate(high, w, cur), strict=True)
        for b, (lo, share, hi) in zip(keys, shares, strict=True):  # a range stays a range
            out.append(CostLine(category="allocation", basis=Basis.ALLOCATED, evidence=_weakest(pool),
                                amount=AmountRange(lo, share, hi, cur),
                                provenance=Provenance(_sha(policy), 1, f"allocation/{policy}/{category}", "config"),
                                batch_id=b,
                                detail=f"{policy}/{basis}", quantity=weights[b], unit=driver,
                                reason=f"{policy}: spread by {driver}"))
        records.append(rec | {"allocated": str(amount), "left": "0"})
    return out, records


def minor(amount: Decimal, currency: str) -> Decimal:
    """A non-cash figure as every view shows it: half-even to the currency's minor unit."""
    return amount.quantize(minor_quantum(currency), ROUND_HALF_EVEN)


def _sha(policy: str) -> str:
    import hashlib

    return hashlib.sha256(f"allocation:{policy}".encode()).hexdigest()


def _weakest(pool: Iterable[CostLine]):
    from trainledger.model.evidence import weakest

    return weakest(*(ln.evidence for ln in pool))


def _unheld(ln: CostLine) -> bool:
    """A line of the ``capacity_unheld`` pool: capacity no job held, a node without jobs too
    (engine/capacity_nodes.py)."""
    return ln.detail == ComputeState.CAPACITY_UNHELD or reason_of(ln)[0] in ("capacity_unheld", "node_without_jobs")


def pool_of(raw: dict, where: str):
    """``line → policy id`` of the declared policy whose pool takes an unattributed line (the
    ``capacity_unheld`` policy, then the shared rules in order, as ``allocate_views`` selects them),
    or None: what the unattributed bucket of the non-cash bases leaves out (engine/unattributed.py)."""
    pol = parse(raw, where)

    def of(ln: CostLine) -> str | None:
        if ln.batch_id or ln.basis is Basis.QUEUED:
            return None
        if pol.capacity_unheld != "separate" and _unheld(ln):
            return "capacity_unheld"
        return next((rule.id for rule in pol.shared if rule.selects(ln)), None)
    return of


def allocate_views(lines: list[CostLine], raw: dict, where: str,
                   batches: tuple[str, ...]) -> tuple[list[CostLine], list[dict]]:
    """Allocated lines (their own basis) and one record per policy part, for the summary."""
    pol = parse(raw, where)
    if pol.capacity_unheld == "separate" and not pol.shared:
        return [], []  # no policy: nothing to read
    from trainledger.engine.lines import as_lines

    lines = as_lines(lines)
    memo: list = []

    def drivers():  # read once, when a policy needs them
        if not memo:
            memo.append(_drivers(lines))
        return memo[0]

    bucket = [ln for ln in lines.select(batch_id=None) if ln.basis is not Basis.QUEUED]
    out: list[CostLine] = []
    records: list[dict] = []
    unheld = [ln for ln in bucket if _unheld(ln)]
    if pol.capacity_unheld == "spread_by_gpu_hours":
        got, recs = _spread("capacity_unheld", "gpu_hours", unheld, drivers, batches)
        out += got
        records += recs
    elif pol.capacity_unheld == "cost_centre":
        parts: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
        for ln in unheld:
            parts[(ln.currency, str(ln.basis))] += ln.amount.expected
        records += [{"policy": "capacity_unheld", "driver": f"cost_centre:{pol.cost_centre}", "source_basis": b,
                     "currency": c, "pool": str(a), "allocated": "0", "left": str(a), "charged_to": pol.cost_centre}
                    for (c, b), a in sorted(parts.items())]
    for rule in pol.shared:
        got, recs = _spread(rule.id, rule.driver, [ln for ln in bucket if rule.selects(ln)], drivers, batches)
        out += got
        records += recs
    return out, records
