"""Build the batch cost sheet from the ledger (cost lines, runs) and the lake (storage objects).

Sensitive fields (labor rates and per-role labor cost, unit prices, vendor amounts) are
``Restricted`` values (report/access.py): render the sheet through report/render.py, which
resolves them for a role. The sheet never adds figures of different bases: ``totals_by_basis``
has one entry per basis and currency. Figures resting on an assumption keep low / expected / high.
"""

from __future__ import annotations

import functools
import json
from collections import defaultdict
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.engine.causes import RunFacts, confirmations_from_audit, explain
from trainledger.engine.summary_runs import FactsIndex, explained_of, hours_of
from trainledger.i18n import ZH, localize
from trainledger.model import CASH_BASES, AmountRange, Basis, CostLine, Evidence, ReviewClass
from trainledger.model.money import minor_quantum
from trainledger.model.vocab import StorageClass
from trainledger.report import freshness, noncash, provisional, sheet_problems
from trainledger.report import sheet_compute as sc
from trainledger.report.access import mark_sheet
from trainledger.report.vendor_kinds import invoiced_currencies, with_invoiced
from trainledger.run_causes import review_key  # the one rule for a run's review class

Q = Decimal("0.0001")


def rng(r: AmountRange, *, exact: bool = True) -> dict[str, str]:
    """Amounts as decimal text. ``exact`` (cash) keeps every digit so totals reconcile to the
    bill; estimates are rounded half-even to the currency's minor unit — their precision is the
    assumption's, not the arithmetic's."""
    return {"low": _fmt(r.low, r.currency, exact), "expected": _fmt(r.expected, r.currency, exact),
            "high": _fmt(r.high, r.currency, exact), "currency": r.currency}


def _fmt(d: Decimal, currency: str, exact: bool = True) -> str:
    minor = minor_quantum(currency)
    exp = d.as_tuple().exponent
    if not exact or (isinstance(exp, int) and exp > minor.as_tuple().exponent):
        d = d.quantize(minor, ROUND_HALF_EVEN)
    return format(d, "f")


def _qty(d: Decimal | None) -> str:
    return "0" if d is None else format(d.quantize(Q), "f")


class _Acc:
    """Sums AmountRanges per key and currency without ever mixing currencies."""

    def __init__(self) -> None:
        self.data: dict[Any, dict[str, AmountRange]] = defaultdict(dict)
        self.qty: dict[Any, Decimal] = defaultdict(Decimal)
        self.count: dict[Any, int] = defaultdict(int)

        self.not_valued: dict[Any, Decimal] = defaultdict(Decimal)

    def add(self, key: Any, line: CostLine) -> None:
        self.qty[key] += line.quantity or 0
        self.count[key] += 1
        if not_valued(line):  # a quantity with no price: counted, never shown as 0.00
            self.not_valued[key] += line.quantity or 0
            self.data.setdefault(key, {})
            return
        cur = line.currency
        prev = self.data[key].get(cur)
        self.data[key][cur] = line.amount if prev is None else prev + line.amount

    def money(self, key: Any, *, exact: bool = True) -> list[dict[str, str]]:
        return [rng(self.data[key][c], exact=exact) for c in sorted(self.data.get(key, {}))]


def not_valued(line: CostLine) -> bool:
    """A line whose quantity has no price (engine: reason ``not_valued: …``, amount zero)."""
    return line.reason.startswith("not_valued") and line.amount.high == 0 and line.amount.low == 0


def build_sheet(wsp, batch_id: str, figures: dict[str, Any] | None = None) -> dict[str, Any]:
    """The batch's sheet: ``figures`` (``batch_figures``: what its cost lines, runs and the attribution
    summary give, e.g. precomputed at attribution, report/precompute.py) with what is read per
    request — the config's batch, the runs, failure causes with every confirmation the audit chain
    holds, the lake's storage objects and the plan."""
    cfg = wsp.config
    batch = cfg.batch(batch_id)
    project = next((p for p in cfg.projects if p.id == batch.project), None)
    runs = wsp.ledger.runs(batch_id)
    if figures is None:
        latest = wsp.ledger.latest_attribution() or {"summary": {}}
        figures = batch_figures(wsp.ledger.cost_lines(batch_id), runs, latest["summary"], latest.get("id"))
    f, summary = figures, figures["summary"]
    hours_by_state = f["hours_by_state"]
    explained = _explained(wsp, f["explain"])
    run_rows = []

    def when(r):
        ts = r.started_at or r.submitted_at or r.ended_at
        return (ts is None, ts.timestamp() if ts else 0.0, r.id)

    for r in sorted(runs, key=when):
        ex = explained.get(r.id) or {}
        money = f["run_money"].get(r.id) or {}
        run_rows.append({
            "id": r.id, "job": r.source_job, "reason": str(r.reason),
            "cause": ex.get("cause") or (str(r.cause) if r.cause else None),
            "cause_evidence": ex.get("cause_evidence"), "cause_source": ex.get("cause_source", ""),
            "cause_source_zh": localize(ex.get("cause_source", ""), ZH),  # engine/causes.py: a Msg, or stored text
            "retry_of": ex.get("retry_of"), "review_note": ex.get("review_note", ""),
            "review_note_zh": localize(ex.get("review_note", ""), ZH),
            "state": r.state, "gpus": r.gpus, "gpu_share": None if r.gpu_share is None else str(r.gpu_share),
            "gpu_equivalents": format(r.gpu_equivalents.normalize(), "f"),  # what the engine weighs
            "suggested_review_class": review_key(r, ex),
            "submitted_at": _iso(r.submitted_at), "started_at": _iso(r.started_at), "ended_at": _iso(r.ended_at),
            "gpu_hours_by_state": hours_by_state.get(r.id, {}),
            "billed": money.get("billed", []), "compute_cost": money.get("compute_cost", []),
            "queued": money.get("queued", []),
        })
    bill_notes = provisional.bill_notes(wsp, f.get("bill_rows") or {})
    by_run_state = {run: {state: {(b, c): Decimal(v) for b, c, v in money} for state, money in states.items()}
                    for run, states in f["by_run_state"].items()}
    return with_balance({
        "batch": {"id": batch.id, "name": batch.name, "project": batch.project,
                  "project_goal": project.goal if project else "", "team": batch.team, "owner": batch.owner,
                  "task_type": batch.task_type, "max_rounds": batch.max_rounds},
        "key": batch.key.as_dict(),
        "totals_by_basis": f["totals_by_basis"],
        "compute_by_state": f["compute_by_state"],
        "compute_hours": f["compute_hours"],
        "sections": f["sections"],
        "retry_chains": sc.retry_chains(runs, explained, by_run_state, hours_by_state),
        "compute_efficiency": f["compute_efficiency"],
        "runs_by_review_class": _by_review_class(runs, f["run_basis"], hours_by_state, explained),
        "runs": run_rows,
        "allocation": f["allocation"],
        "storage_by_class": _storage(wsp, f["storage"]),
        "storage_reconciliation": _storage_reconciliation(summary, batch.id),
        "labor_by_phase": f["labor_by_phase"],
        "external": f["external"],
        "bill_notes": bill_notes,  # provisional bill rows and vendor notes (report/provisional.py)
        "assumptions": _assumption_rows(summary.get("assumptions", []), f["unclassified"], f["straggler"],
                                        batch.owner) + provisional.drawer_rows(bill_notes),
        "conservation": {"scope": "workspace", "as_of": summary.get("as_of"),
                         # each naming whether an invoice is billed in its currency (report/vendor_kinds.py)
                         "by_currency": with_invoiced(folded(summary.get("conservation", [])),
                                                      invoiced_currencies(wsp, summary.get("conservation"))),
                         "amortized_by_currency": folded(summary.get("conservation_amortized", [])),
                         "capacity": folded(summary.get("conservation_capacity", [])),
                         # the non-cash bases' bucket and the labor-hours control (report/noncash.py)
                         **noncash.sheet_part(summary),
                         "rounding": "shares truncated at the split amount's precision; left-over units"
                                     " to the largest remainders (model/money.py)",
                         "rounding_zh": "分摊时各份按被分摊金额的精度截断，余下的最小单位依次给余数最大的份额"
                                        "（model/money.py）"},
        "problems": _problems(f, runs),  # the batch's own, and a count per other kind (report/sheet_problems.py)
        "attribution_id": f["attribution_id"],
        "stale": freshness.check(wsp),  # the lake changed since the attribution (report/freshness.py)
        "plan_vs_actual": _plan_section(wsp, batch_id),
        **_rate_guard(wsp),
    })


def _rate_guard(wsp) -> dict[str, Any]:
    """``rate_guard``: the groups of labor figures withheld beside the others (report/rate_guard.py),
    when there are any; the gate (report/access.py ``for_role``) names it to a role it withholds from."""
    from trainledger.report.rate_guard import guard

    g = guard(wsp).as_dict()
    return {"rate_guard": g} if g else {}


SHEET_DETAILS = 12  # a reason's items a batch sheet lists one by one; the rest in one row (review 7 L18)


def folded(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The workspace's conservation records as a batch sheet lists them: each reason's largest
    ``SHEET_DETAILS`` items, then one row ``+N more`` holding the rest's exact sum, so the rows still
    add up to the unattributed bucket (the workbook's Control SUMs them). An invoice keeps its own
    row (its amount is a vendor amount, marked per row). A company bill is mostly not training: its
    thousands of "no rule matched" resources are in ``trainledger attribute --json``, not in every
    batch's sheet (869 Control rows after the FOCUS sample was imported)."""
    out = []
    for rec in records:
        items = rec.get("unattributed_by_reason") if isinstance(rec, dict) else None
        if not items or len(items) <= SHEET_DETAILS:
            out.append(rec)
            continue
        kept, rest, seen = [], {}, defaultdict(int)
        for x in items:  # largest first within each reason (engine/conservation.py)
            r = x["reason"]
            if seen[r] < SHEET_DETAILS or str(x.get("detail", "")).startswith("invoice "):
                seen[r] += 1
                kept.append(x)
            else:
                n, total = rest.get(r, (0, Decimal(0)))
                rest[r] = (n + 1, total + Decimal(str(x["amount"])))
        kept += [{"reason": r, "detail": f"+{n} more", "amount": str(total), "folded": n}
                 for r, (n, total) in rest.items()]
        out.append(dict(rec, unattributed_by_reason=kept))
    return out


def attributed_by_batch(wsp, attribution_id: int | None) -> dict[str, Any] | None:
    """The attribution's attributed per batch of each conservation view (the summary's
    ``attributed_by_batch``: cash, amortized, capacity), read by the database alone (a summary at 1M job
    attempts is hundreds of MB); None for an attribution made before the summary kept it. The batch
    workbook's Control lists the other batches from it (report/xlsx_control.py)."""
    from sqlalchemy import select

    from trainledger.ledger.schema import attributions

    if attribution_id is None:
        return None
    with wsp.ledger.snapshot() as conn:
        got = conn.execute(select(attributions.c.summary["attributed_by_batch"])
                           .where(attributions.c.id == attribution_id)).scalar()
    return got if isinstance(got, dict) else None


def with_balance(full: dict[str, Any]) -> dict[str, Any]:
    """The sheet (its figures in full) with its balance view (report/balance.py: consumption | delivery
    investment, the drawer's sensitivity) as ``balance``, built once from those figures, and every
    sensitive field marked ``Restricted`` (report/access.py; renderers resolve them per role)."""
    from trainledger.report import balance

    marked = mark_sheet({**full, "balance": balance.build(full)})
    return {**marked, "conservation": noncash.mark(marked.get("conservation"))}  # its labor money too


SUMMARY_KEYS = ("as_of", "conservation", "conservation_amortized", "conservation_capacity",
                "assumptions", "storage_reconciliation", "unattributed_noncash", "labor_hours")
# what a sheet prints of the summary (its problems: only the batch's, ``batch_figures``' "problems")


def _problems(f: dict[str, Any], runs) -> list[dict[str, Any]]:
    """The sheet's problems: the batch's own and one counted line per other kind of the workspace's
    (sheet_problems.py); figures precomputed before they were kept per batch: found here, from the
    batch's runs (its lines' roles and files not known there)."""
    got = f.get("problems")
    if got is None:
        own, elsewhere = sheet_problems.Index(f["summary"].get("problems", [])).of(
            [r.id for r in runs], [r.source_job for r in runs])
    else:
        own, elsewhere = got["own"], got["elsewhere"]
    return sheet_problems.for_sheet(own, elsewhere)


def batch_figures(lines: list[CostLine], runs, summary: dict, attribution_id: int | None,
                  facts: RetryLinks | None = None, shared: dict | None = None) -> dict[str, Any]:
    """Everything a batch's sheet takes from its cost lines, its runs and the attribution summary, as
    JSON-able values (Decimals as their exact text): a function of the figures the ledger proves
    (ledger/figures.py), so it can be computed once per attribution (report/precompute.py).
    ``facts``: the summary's run facts and their retry links (built once for every batch); ``shared``:
    the summary's workspace-wide parts, kept once beside the batches."""
    by_basis, by_run, by_class, by_phase, by_role = (_Acc() for _ in range(5))
    external = []
    allocated = [ln for ln in lines if ln.basis is Basis.ALLOCATED]  # a view: never in a basis total
    lines = [ln for ln in lines if ln.basis is not Basis.ALLOCATED]
    for ln in lines:
        if not not_valued(ln):
            by_basis.add((ln.basis, ln.evidence), ln)
        if ln.category == "compute":
            if ln.run_id:
                by_run.add((ln.run_id, ln.basis), ln)
        elif ln.category == "storage":
            by_class.add((storage_class_of(ln), ln.basis), ln)
        elif ln.category == "labor":
            phase, _, role = ln.detail.partition("/")
            by_phase.add(phase, ln)
            by_role.add((phase, role), ln)
        elif ln.category == "external":
            stage, _, vendor = ln.detail.partition("/")
            external.append({"vendor": vendor, "stage": stage, **rng(ln.amount),
                             "evidence": str(ln.evidence), "source_row": ln.provenance.row})

    totals = []
    for (basis, evidence), per_cur in sorted(by_basis.data.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        for _cur, r in sorted(per_cur.items()):
            totals.append({"basis": str(basis), "evidence": str(evidence), "cash": basis in CASH_BASES,
                           **rng(r, exact=basis in CASH_BASES), "lines": by_basis.count[(basis, evidence)]})

    every_hours = facts.hours if facts is not None else hours_of(summary)
    hours_by_state = {r.id: every_hours[r.id] for r in runs if r.id in every_hours}
    compute, hours_check = sc.compute_view(lines, runs, hours_by_state, lambda r, exact: rng(r, exact=exact))
    run_money = sc.money_by_run(lines)
    money = {}
    for r in runs:
        money[r.id] = {
            "billed": by_run.money((r.id, Basis.BILLED)) if (r.id, Basis.BILLED) in by_run.data else [],
            "compute_cost": sc.money_list(run_money.get(r.id, {})),
            "queued": by_run.money((r.id, Basis.QUEUED), exact=False) if (r.id, Basis.QUEUED) in by_run.data else []}
    run_basis = {r.id: {str(b): {c: str(rg.expected) for c, rg in by_run.data[(r.id, b)].items()}
                        for b in (Basis.BILLED, Basis.AMORTIZED, Basis.RATE_CARD) if (r.id, b) in by_run.data}
                 for r in runs}
    labor = []
    for phase in sorted(by_phase.data):
        roles = [{"role": role, "hours": _qty(by_role.qty[(ph, role)]),
                  "cost": by_role.money((ph, role), exact=False),
                  "not_valued_hours": _qty(by_role.not_valued[(ph, role)]) if by_role.not_valued[(ph, role)] else None}
                 for (ph, role) in sorted(by_role.data) if ph == phase]
        labor.append({"phase": phase, "hours": _qty(by_phase.qty[phase]), "cost": by_phase.money(phase, exact=False),
                      "not_valued_hours": _qty(by_phase.not_valued[phase]) if by_phase.not_valued[phase] else None,
                      "roles": roles})
    if shared is None:
        shared = {k: summary[k] for k in SUMMARY_KEYS if k in summary}
    own, elsewhere = (facts or RetryLinks(summary)).problems.of(
        [r.id for r in runs], [r.source_job for r in runs],
        {ln.detail.partition("/")[2] for ln in lines if ln.category == "labor"},
        {ln.provenance.source_sha256 for ln in (*lines, *allocated)})
    return {
        "attribution_id": attribution_id, "summary": shared, "hours_by_state": hours_by_state,
        "explain": (facts or RetryLinks(summary)).closure({r.id for r in runs}),
        "totals_by_basis": totals, "compute_by_state": compute, "compute_hours": hours_check,
        "sections": sc.sections(lines), "compute_efficiency": _efficiency(lines),
        "allocation": _allocation(allocated, summary.get("allocation", [])),
        "labor_by_phase": labor, "external": external, "run_money": money, "run_basis": run_basis,
        "by_run_state": {run: {state: [[b, c, str(v)] for (b, c), v in per.items()] for state, per in states.items()}
                         for run, states in sc.money_by_run_state(lines).items()},
        "storage": _storage_inputs(lines, by_class),
        "bill_rows": provisional.source_rows(lines),
        "unclassified": any(ln.detail == "unclassified" for ln in lines),
        "straggler": any(ln.detail == "straggler_wait" for ln in lines),
        "problems": {"own": own, "elsewhere": elsewhere},
    }


class RetryLinks:
    """The summary's run facts by run id and who retries whom, to give each batch the facts
    ``engine.causes.explain`` needs for its runs (``closure``); its runs' GPU-hours by state
    (``hours``). Read once for every batch, a row per run only when a batch asks for it."""

    def __init__(self, summary: dict) -> None:
        self.summary_problems = summary.get("problems", [])
        self.by_run = FactsIndex(summary)
        self.stored = None if self.by_run else explained_of(summary)
        self.hours = hours_of(summary)
        self.retried_by: dict[str, list[str]] = {}
        for run_id, target in self.by_run.retry_of.items():
            self.retried_by.setdefault(target, []).append(run_id)

    @functools.cached_property
    def problems(self) -> sheet_problems.Index:
        """The summary's problems indexed by what they name, once for every batch (J10)."""
        return sheet_problems.Index(self.summary_problems)

    def closure(self, run_ids: set[str]) -> dict[str, Any]:
        """These runs' facts and every run linked to them by a retry (either way, transitively):
        explain over that set gives these runs what it gives them over the whole workspace. Without
        facts (an older attribution): the stored explanations of these runs."""
        if not self.by_run:
            return {"explained": {k: v for k, v in self.stored.items() if k in run_ids}}
        todo, seen = [r for r in run_ids if r in self.by_run], set()
        while todo:
            r = todo.pop()
            if r in seen or r not in self.by_run:
                continue
            seen.add(r)
            todo += self.retried_by.get(r, [])
            if self.by_run.retry_of.get(r):
                todo.append(self.by_run.retry_of[r])
        return {"facts": [self.by_run.get(r) for r in sorted(seen)]}


def _plan_section(wsp, batch_id: str):
    from trainledger.report.plan_section import build

    return build(wsp, batch_id)


def _allocation(lines: list[CostLine], records: list[dict]) -> list[dict[str, Any]]:
    """This batch's share of each declared allocation policy, beside (never inside) its direct cost."""
    mine: dict[tuple[str, str, str], dict[str, Any]] = {}
    for ln in lines:
        policy, _, source = ln.detail.partition("/")
        m = mine.setdefault((policy, source, ln.currency), {"amount": Decimal(0), "driver_quantity": Decimal(0),
                                                            "driver": ln.unit})
        m["amount"] += ln.amount.expected
        m["driver_quantity"] += ln.quantity or 0
    out = []
    for r in records:
        m = mine.get((r["policy"], r["source_basis"], r["currency"]))
        cash = Basis(r["source_basis"]) in CASH_BASES  # estimates and internal cost: to the minor unit
        out.append({"policy": r["policy"], "driver": r["driver"], "source_basis": r["source_basis"],
                    "currency": r["currency"], "pool": _fmt(Decimal(r["pool"]), r["currency"], cash),
                    "share": _fmt(m["amount"] if m else Decimal(0), r["currency"], cash),
                    "driver_quantity": _qty(m["driver_quantity"]) if m else "0",
                    "charged_to": r.get("charged_to", ""), "category": r.get("category", "")})
    return out


def _efficiency(lines: list[CostLine]) -> list[dict[str, str]]:
    """Effective training's share of the GPU time and money held by this batch's runs, per basis
    (a bill's cash, an owned capacity's amortized or rate-card cost) and currency."""
    acc: dict[tuple[str, str], dict[str, Decimal]] = {}
    for ln in lines:
        if not ln.run_id or not sc.primary(ln):
            continue
        a = acc.setdefault((ln.currency, str(ln.basis)), defaultdict(Decimal))
        a["amount"] += ln.amount.expected
        a["gpu_hours"] += ln.quantity or 0
        if ln.detail == "effective":
            a["effective_amount"] += ln.amount.expected
            a["effective_gpu_hours"] += ln.quantity or 0
        elif ln.detail == "unclassified":
            a["unclassified_gpu_hours"] += ln.quantity or 0
    out = []
    for (cur, basis), a in sorted(acc.items()):
        share = effective_share(a["effective_gpu_hours"], a["gpu_hours"], a["unclassified_gpu_hours"])
        exact = Basis(basis) in CASH_BASES
        out.append({"currency": cur, "basis": basis, "billed": _fmt(a["amount"], cur, exact),
                    "effective": _fmt(a["effective_amount"], cur, exact),
                    "other_states": _fmt(a["amount"] - a["effective_amount"], cur, exact),
                    "gpu_hours": _qty(a["gpu_hours"]), "effective_gpu_hours": _qty(a["effective_gpu_hours"]),
                    "unclassified_gpu_hours": _qty(a["unclassified_gpu_hours"]),
                    "effective_share": format(share.quantize(Q), "f") if share is not None else None})
    return out


def effective_share(effective: Decimal, held: Decimal, unclassified: Decimal) -> Decimal | None:
    """Effective training's share of the GPU time held *that has a progress signal*: ``effective ÷
    (held − unclassified)``. Unclassified time (no progress signal; its state assumed) is no measured
    0 % and is left out of the base — shown beside the share; with no signal at all the share is
    unknown (None), never 0 %. The batch sheet and the cross-batch report use this one rule."""
    base = held - unclassified
    return effective / base if base > 0 else None


def _explained(wsp, inputs: dict) -> dict[str, dict]:
    """Causes and review classes of the runs (engine/causes.py), with every confirmation the audit
    chain holds — also those recorded after the attribution. ``inputs``: ``RetryLinks.closure``."""
    facts = [RunFacts.from_dict(d) for d in inputs.get("facts", [])]
    if not facts:
        return inputs.get("explained", {})
    return {k: e.as_dict() for k, e in explain(facts, confirmations_from_audit(wsp.ledger.audit_log())).items()}


def _by_review_class(runs, run_basis: dict, hours: dict, explained: dict) -> list[dict[str, Any]]:
    """探索成本 vs 问题损耗: what the batch spent per (suggested) review class of its runs.
    ``run_basis``: run → basis → currency → expected amount (text) of its compute lines."""
    groups: dict[str, dict[str, Any]] = {}
    for r in runs:
        g = groups.setdefault(review_key(r, explained.get(r.id)), {"runs": 0, "gpu_hours": Decimal(0), "billed": {}})
        g["runs"] += 1
        g["gpu_hours"] += sum((Decimal(str(v)) for v in hours.get(r.id, {}).values()), Decimal(0))
        per = run_basis.get(r.id) or {}
        for cur, v in per.get(str(Basis.BILLED), {}).items():
            g["billed"][cur] = Decimal(v) + g["billed"].get(cur, Decimal(0))
        for basis in (Basis.AMORTIZED, Basis.RATE_CARD):  # owned / reserved capacity, per basis
            for cur, v in per.get(str(basis), {}).items():
                g.setdefault("capacity", {})
                g["capacity"][(str(basis), cur)] = Decimal(v) + g["capacity"].get((str(basis), cur), Decimal(0))
    order = ("planned", *(c.value for c in ReviewClass), "needs_review")
    return [{"review_class": k, "runs": g["runs"], "gpu_hours": _qty(g["gpu_hours"]),
             "billed": [{"amount": _fmt(v, c), "currency": c} for c, v in sorted(g["billed"].items())],
             "capacity_cost": [{"basis": b, "amount": _fmt(v, c, False), "currency": c}
                               for (b, c), v in sorted(g.get("capacity", {}).items())]}
            for k in order if (g := groups.get(k))]


def _iso(ts) -> str | None:
    return ts.isoformat() if ts is not None else None


UNKNOWN_CLASS = "unknown"  # a bill row's storage naming no StorageClass (its raw value kept as detail)
_CLASSES = frozenset(c.value for c in StorageClass)


def storage_class_of(ln: CostLine) -> str:
    """The ``StorageClass`` a storage line's cost is for. An inventory line's detail is one (the
    importer checked it); a bill row's detail is what the bill names — a service ("Amazon Simple
    Storage Service"), a tier ("STANDARD") — which says where or how it is stored, not what for:
    ``unknown`` unless it names a class of the vocabulary."""
    if ln.provenance.source_kind == "storage":
        return ln.detail
    d = str(ln.detail or "").strip().lower()
    return d if d in _CLASSES else UNKNOWN_CLASS


def _storage_inputs(lines: list[CostLine], by_class: _Acc) -> dict[str, Any]:
    """What ``_storage`` takes from the lines: each inventory line's object (source file, row) and
    class, and each (class, basis) of the storage lines with its cost, GiB-months and, for
    ``unknown``, what the bill rows named."""
    refs = [[ln.provenance.source_sha256, ln.provenance.row, ln.detail] for ln in lines
            if ln.category == "storage" and ln.provenance.source_kind == "storage"]
    raw: dict[tuple, set[str]] = {}  # what the bill rows named, kept beside "unknown"
    for ln in lines:
        if ln.category == "storage" and (cls := storage_class_of(ln)) == UNKNOWN_CLASS and ln.detail:
            raw.setdefault((cls, ln.basis), set()).add(str(ln.detail))
    keys = [{"storage_class": cls, "basis": str(basis), "gib_months": _qty(by_class.qty[(cls, basis)]),
             "cost": by_class.money((cls, basis), exact=basis in CASH_BASES),
             **({"raw": sorted(raw[(cls, basis)])} if (cls, basis) in raw else {})}
            for (cls, basis) in by_class.data]
    return {"objects": refs, "classes": keys}


def _storage(wsp, inputs: dict[str, Any]) -> list[dict[str, Any]]:
    """Storage per class and basis: the inventory's objects (each once, at its latest size; the lake's
    storage_objects) beside the storage lines' cost (``_storage_inputs``)."""
    objects = {(o["source_sha256"], int(o["row"])): o for o in wsp.lake.read("storage_objects").to_pylist()} \
        if inputs["objects"] else {}
    per_class: dict[tuple, dict[str, Any]] = {}
    latest: dict[str, tuple] = {}  # an object listed in several inventories counts once, at its latest size
    for sha, row, detail in inputs["objects"]:
        obj = objects.get((sha, row), {})
        path = str(obj.get("path") or f"row {row}")
        prev = latest.get(path)
        if prev is None or str(obj.get("snapshot_date") or "") >= str(prev[1].get("snapshot_date") or ""):
            latest[path] = (detail, obj)
    for cls, obj in latest.values():
        c = per_class.setdefault((cls, Basis.ESTIMATE), {"storage_class": cls, "basis": "estimate", "objects": 0,
                                                         "bytes": 0, "findings": []})
        c["objects"] += 1
        c["bytes"] += int(obj.get("size_bytes") or 0)
        flags = obj.get("flags") or []
        if isinstance(flags, str):
            flags = json.loads(flags) if flags.startswith("[") else [flags]
        if flags:
            c["findings"].append({"path": obj.get("path"), "flags": list(flags)})
    lined = {(k["storage_class"], Basis(k["basis"])): k for k in inputs["classes"]}
    for key, k in lined.items():  # billed storage (bill rows): no objects behind them in the inventory
        if key not in per_class:
            per_class[key] = {"storage_class": key[0], "basis": k["basis"], "objects": 0, "bytes": 0,
                              "findings": [], **({"raw": k["raw"]} if "raw" in k else {})}
    out = []
    for key in sorted(per_class):
        k = lined.get(key)
        out.append({**per_class[key], "gib_months": k["gib_months"] if k else _qty(Decimal(0)),
                    "cost": k["cost"] if k else []})
    return out


def _storage_reconciliation(summary: dict, batch_id: str) -> dict[str, Any] | None:
    """This batch's storage bill rows beside its objects' estimate (engine/storage_reconcile.py);
    None for an attribution made before the reconciliation existed."""
    from trainledger.engine.storage_reconcile import view

    record = summary.get("storage_reconciliation")
    return None if record is None else view(record, batch_id)


UNOWNED_STATES = ("unassigned: set the batch's owner in trainledger.toml",
                  "未指定：请在 trainledger.toml 中设置批次负责人")


def _assumptions(summary: dict, lines: list[CostLine], owner: str = "") -> list[dict[str, str]]:
    """The engine's drawer rows plus the sheet's own. Time no progress signal classified is billed
    cash (its lines are ``measured``); the assumption is its state, ``assumed`` and owned by the
    batch's owner, who can say what the run was doing."""
    return _assumption_rows(summary.get("assumptions", []), any(ln.detail == "unclassified" for ln in lines),
                            any(ln.detail == "straggler_wait" for ln in lines), owner)


def _assumption_rows(engine_rows: list, unclassified: bool, straggler: bool, owner: str = "") -> list[dict[str, str]]:
    items = list(engine_rows)
    items.append({"name": "compute-state boundaries",
                  "evidence": str(Evidence.ASSUMED if unclassified else Evidence.MEASURED),
                  **({"owner": owner or UNOWNED_STATES[0], "owner_zh": owner or UNOWNED_STATES[1]}
                     if unclassified else {}),
                  "source": "scheduler times + progress events (engine/timeline.py)",
                  "source_zh": "调度器时间 + 训练进度事件（engine/timeline.py）",
                  "value": "approximate: allocation time with no progress signal is 'unclassified'"
                           + (" (present in this batch: its cash is billed and its GPU-seconds measured; what it"
                              " was doing is assumed — add a progress log or confirm)" if unclassified else ""),
                  "value_zh": "近似边界：没有进度信号的已分配时间记为“无进度信号”"
                              + ("（本批次存在：其现金来自账单、卡秒为实测；"
                                 "这段时间在做什么是假设——请补充进度日志或确认）" if unclassified else "")})
    items.append({"name": "node-hour split", "evidence": str(Evidence.MEASURED),
                  "source": "workspace cluster.gpus_per_node", "source_zh": "工作区设置 cluster.gpus_per_node",
                  "value": "a billed (or owned) node-hour is split by GPU-seconds held (a run holding part of a"
                           " GPU counts its GPU-equivalents); the rest is capacity_unheld",
                  "value_zh": "计费（或自有）的节点小时按各任务占用的卡秒分摊（只占部分 GPU 的任务按折合整卡数计），"
                              "其余记为“无作业占用的容量”"})
    if straggler:
        items.append({"name": "barrier waiting", "evidence": str(Evidence.MEASURED),
                      "source": "per-worker step times (worker_steps, analysis/stragglers.py)",
                      "source_zh": "各 worker 的迭代耗时（worker_steps，analysis/stragglers.py）",
                      "value": "each iteration's wait for its slowest worker, as a share of the run's effective time"
                               " (6 places)",
                      "value_zh": "每次迭代中等待最慢 worker 的时间，按占该运行有效训练时间的比例计（保留 6 位小数）"})
    return items
