"""Build a plan baseline: from the estimator's ``--from`` spec, or from a finished batch's review.

``from_estimate``: the estimator's own figures (tokens, rounds, effective and allocated GPU-hours
per final run, the dated price-book price) become the compute line; the spec's ``[labor]``
person-months and the price book's ``labor:<role>`` rates become one labor line per role; the
spec's ``[plan]`` table adds rework allowances, max rounds, bounds, gates, stop rules and the
high-risk assumptions with owners. ``from_review``: the same shape with the measured efficiency,
rework rates and price of a reviewed batch in place of the priors, each marked ``measured``.
"""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import date
from decimal import Decimal
from pathlib import Path

from trainledger.errors import BadInput
from trainledger.i18n import Msg
from trainledger.i18n.core import Twin
from trainledger.model import Basis, Evidence
from trainledger.review.capacity_plan import measured_hours, share_notes, split_compute
from trainledger.review.options import check_shrink
from trainledger.review.plan import (
    HOURS_PER_PERSON_MONTH,
    REWORK_REASONS,
    Plan,
    PlanLine,
    Rng,
    governance,
)

Q6 = Decimal("0.000001")


def _d(x: float) -> Decimal:
    return Decimal(repr(float(x)))


def price_meta(pe, item: str, on: date, unit: str) -> dict:
    """Where a plan price comes from; ``stale`` when the price book entry expired before the plan's
    pricing date (used, and said so: the plan's warnings list it)."""
    stale = pe.expires is not None and pe.expires < on
    zh = {"source_zh": pe.source.zh} if isinstance(pe.source, Twin) else {}  # the book's source_zh, kept
    return {"item": item, "effective": pe.effective.isoformat(), "source": str(pe.source), **zh,
            "evidence": str(pe.evidence), "owner": pe.owner, "unit": unit, "stale": stale,
            "expires": pe.expires.isoformat() if pe.expires else None}


def _per_unit(hours: float, mtokens: Decimal) -> Decimal:
    return (_d(hours) / mtokens).quantize(Q6)


def estimate_inputs(spec_path: str | Path | None, options: dict, plan_toml: str | Path | None = None,
                    max_rounds: int | None = None) -> tuple[dict, dict, str, str]:
    """The estimator's inputs and the plan's ``[plan]`` table from a spec file and/or the
    ``estimate`` options (given options override the file, as ``estimate --from`` does); the
    ``[plan]`` table from ``plan_toml`` when given (its ``[plan]`` table, else its top level), and
    ``max_rounds`` over the table's. Returns (values, table, where, sha256 of what was read)."""
    from trainledger.estimate.spec import load_spec_file

    values = load_spec_file(spec_path) if spec_path else {}
    table = values.pop("plan", {})
    values.update({k: v for k, v in options.items() if v is not None})
    where = str(spec_path) if spec_path else "options"
    digest = hashlib.sha256()
    if spec_path:
        digest.update(Path(spec_path).read_bytes())
    if plan_toml:
        import tomllib

        raw = Path(plan_toml).read_bytes()
        digest.update(raw)
        try:
            doc = tomllib.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise BadInput(f"{plan_toml}: not a TOML file: {exc}", remedy="fix the file's syntax") from None
        table = doc["plan"] if isinstance(doc.get("plan"), dict) else doc
        where = f"{where} + {plan_toml}"
    if max_rounds is not None:
        table = {**table, "max_rounds": int(max_rounds)}
    if not spec_path:
        digest.update(repr(sorted((k, str(v)) for k, v in values.items())).encode())
    return values, table, where, digest.hexdigest()


def from_estimate(spec_path: str | Path | None, *, batch_id: str, batch_max_rounds: int | None, author: str,
                  reason: str, workspace: str | None, options: dict | None = None,
                  plan_toml: str | Path | None = None, max_rounds: int | None = None,
                  batch_lines: list | None = None) -> Plan:
    """``batch_lines``: the batch's lines of the latest attribution (capacity_plan.py's measured share)."""
    values, table, where, sha = estimate_inputs(spec_path, options or {}, plan_toml, max_rounds)
    return from_values(values, table, where=where, sha=sha, batch_id=batch_id, batch_max_rounds=batch_max_rounds,
                       author=author, reason=reason, workspace=workspace, batch_lines=batch_lines)


def run_estimate(values: dict, where: str, workspace: str | None):
    """The estimator run a plan is made from (and ``decide`` re-runs): (spec, estimate, price book)."""
    from trainledger.estimate import calibrate, engine
    from trainledger.estimate.spec import build_spec
    from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book

    spec = build_spec(dict(values), where=where)
    hist = calibrate.workspace_ratios(workspace)
    book = load_price_book(spec.price_book or SAMPLE_PRICE_BOOK)
    est = engine.run(spec, book=book, history_ratios=hist.ratios, history_note=hist.note,
                     history_warning=hist.warning, labor_rates=workspace_labor_rates(workspace))
    return spec, est, book, hist


def _with_workspace_book(values: dict, workspace: str | None) -> dict:
    """Inside a workspace a plan is priced with the workspace's price book (``workspace.price_book``)
    unless the spec or ``--price-book`` names one — as ``estimate`` does (estimate/workspace_book.py)."""
    from trainledger.estimate.workspace_book import WorkspaceBook

    wb, _err = WorkspaceBook.read(workspace)
    if wb is not None and wb.price_book and not values.get("price_book"):
        return {**values, "price_book": wb.price_book}
    return values


def _check_workspace_currency(currency: str, book, where: str, workspace: str | None) -> None:
    """A plan is in the workspace's currency: its alerts, review and report compare it with the bills,
    which are. A plan priced in another currency (the shipped sample book is in USD) is refused
    rather than booked beside the actuals as a currency of its own (review finding 3)."""
    from trainledger.estimate.workspace_book import WorkspaceBook
    from trainledger.pricebook import SAMPLE_PRICE_BOOK

    wb, _err = WorkspaceBook.read(workspace)
    if wb is None or not wb.currency or currency == wb.currency:
        return
    ws_currency, book_path = wb.currency, book.path
    if Path(book_path) == SAMPLE_PRICE_BOOK:
        raise BadInput(f"{where}: the plan would be priced in {currency} from the shipped sample price book; "
                       f"the workspace's currency is {ws_currency}",
                       remedy=f"write a price book in {ws_currency} (your GPU-hour and labor prices) and name it "
                              "in trainledger.toml as workspace.price_book, or pass --price-book FILE")
    raise BadInput(f"{where}: the plan would be priced in {currency} ({book_path}); the workspace's currency "
                   f"is {ws_currency}",
                   remedy=f"price the plan's items in {ws_currency} in that price book, or pass --price-book "
                          f"with a book in {ws_currency}")


def workspace_labor_rates(workspace: str | None) -> dict:
    """The workspace's ``[[labor_rates]]`` (role -> per-hour range), as ``estimate --workspace`` reads
    them: one place for loaded labor rates, ahead of the price book's ``labor:<role>``."""
    from trainledger.estimate.workspace_book import WorkspaceBook

    wb, _err = WorkspaceBook.read(workspace)
    return dict(wb.labor_rates) if wb is not None else {}


def labor_rate(role: str, book, on: date, labor_rates: dict) -> tuple[Rng, str, dict]:
    """One role's rate per hour: (low / expected / high, currency, price meta). The workspace's
    ``[[labor_rates]]`` entry when it has the role, else the price book's ``labor:<role>`` converted
    to ``person_hour`` by the book's own units (a person-month is 168 h): an hourly price stays hourly."""
    r = labor_rates.get(role)
    if r is not None:
        meta = {"item": f"labor:{role}", "effective": on.isoformat(),
                "source": f"workspace [[labor_rates]]: {r.source}",
                "evidence": str(r.evidence), "owner": r.owner, "unit": "hour", "stale": False, "expires": None}
        return Rng(r.low, r.expected, r.high), r.currency, meta
    pe = book.unit_price(f"labor:{role}", "person_hour", on, allow_stale=True)
    return Rng(pe.low, pe.price, pe.high), pe.currency, price_meta(pe, f"labor:{role}", on, "hour")


def from_values(values: dict, table: dict, *, where: str, sha: str, batch_id: str, batch_max_rounds: int | None,
                author: str, reason: str, workspace: str | None, batch_lines: list | None = None) -> Plan:
    path = where
    gov = governance(table, where, batch_max_rounds)
    check_shrink(table, where)
    values = _with_workspace_book(values, workspace)
    spec, est, book, hist = run_estimate(values, where, workspace)
    _check_workspace_currency(est.currency, book, where, workspace)
    if spec.tokens is None:
        raise BadInput(f"{path}: a plan needs tokens (its volume driver)", remedy="add tokens = \"…\" to the spec")
    on = date.fromisoformat(est.priced_on)
    item = spec.price_item or f"gpu_hour:{est.gpu.id if est.gpu else spec.gpu}"
    pe = book.unit_price(item, "gpu_hour", on, allow_stale=True)
    currency = est.currency
    if pe.currency != currency:
        raise BadInput(f"{path}: price {item} is in {pe.currency}, the estimate in {currency}",
                       remedy="set currency = the price's currency in the spec")
    mtok = _d(est.tokens) / Decimal(1_000_000)
    rounds = Rng(*(_d(getattr(est.rounds, k)).quantize(Decimal("0.001")) for k in ("p10", "p50", "p90")))
    work = Rng(*(mtok * rounds.get(s) for s in ("low", "expected", "high")))
    eff = Rng(*(_per_unit(getattr(est.effective_gpu_hours, k), mtok) for k in ("p10", "p50", "p90")))
    ovh_h = [max(getattr(est.gpu_hours, k) - getattr(est.effective_gpu_hours, k), 0.0) for k in ("p10", "p50", "p90")]
    ovh = Rng(*sorted(_per_unit(h, mtok) for h in ovh_h))
    rework_share = {k: Rng.parse(v, f"{path}: [plan.rework] {k}") for k, v in table.get("rework", {}).items()}
    bad = sorted(set(rework_share) - set(REWORK_REASONS))
    if bad:
        raise BadInput(f"{path}: [plan.rework] reasons {bad}", remedy=f"use {', '.join(REWORK_REASONS)}")
    first = {s: work.get(s) * (eff.get(s) + ovh.get(s)) for s in ("low", "expected", "high")}
    rework = {k: Rng(*(r.get(s) * first[s] for s in ("low", "expected", "high"))) for k, r in rework_share.items()}
    compute = PlanLine(
        id="compute", category="compute", basis=Basis.BILLED, currency=currency, unit="gpu_hour",
        price=Rng(pe.low, pe.price, pe.high),
        price_meta=price_meta(pe, item, on, "gpu_hour"),
        efficiency={"effective": eff, "overhead": ovh},
        rework=rework,
        evidence={"efficiency": {"evidence": "assumed", "source": "estimator: FLOPs / (peak x MFU) and the overhead"
                                 f" factor {est.overhead.p10:.3g}..{est.overhead.p90:.3g} ({hist.note})"},
                  "rework": {"evidence": "assumed", "source": f"{path} [plan.rework]: share of first-pass GPU-hours"}},
    )
    lines = [*split_compute(compute, workspace, book, on, declared=table.get("compute_share"),
                            measured=measured_hours(batch_lines or (), currency), where=path),
             *_labor_lines(spec.labor, table.get("labor_rework", {}), book, on, currency, mtok, path,
                           workspace_labor_rates(workspace))]
    if "storage" in table:
        lines.append(_storage_line(table["storage"], book, on, currency, path))
    shown = est.to_dict()
    warnings, warnings_zh = list(shown["warnings"]), list(shown["warnings_zh"])
    notes = share_notes(lines)  # an assumed compute split: set compute_share or re-plan after attribute
    warnings, warnings_zh = warnings + notes[0], warnings_zh + notes[1]
    for ln in lines:
        if ln.price_meta.get("stale"):
            warnings.append(f"price {ln.price_meta['item']} expired {ln.price_meta['expires']}, before the plan's"
                            f" pricing date {on}: confirm it with {ln.price_meta.get('owner') or 'its owner'}")
            warnings_zh.append(f"单价 {ln.price_meta['item']} 已于 {ln.price_meta['expires']} 过期（早于计划定价日"
                               f" {on}）：请 {ln.price_meta.get('owner') or '负责人'} 确认")
    default = str(Msg("stored.first_baseline"))
    return Plan(batch=batch_id, version=0, reason=reason or table.get("reason", "") or default,
                author=author, source={"kind": "estimate", "spec": where, "spec_sha256": sha,
                                       "inputs": _jsonable(values), "plan_table": _jsonable(table),
                                       "estimate": est.name, "priced_on": est.priced_on,
                                       "price_book": str(book.path), "warnings": warnings,
                                       "warnings_zh": warnings_zh},
                work=work, work_evidence={"evidence": "assumed", "source": f"tokens {spec.tokens:.4g} x rounds"
                                          f" {rounds.low}..{rounds.expected}..{rounds.high} (estimator)"},
                lines=tuple(lines), max_rounds=gov["max_rounds"], bounds=gov["bounds"], gates=gov["gates"],
                rules=gov["rules"], assumptions=gov["assumptions"], shrink_factor=gov["shrink_factor"],
                retention_months=gov["retention_months"], curves=gov["curves"])


def _jsonable(values: dict) -> dict:
    """The estimator inputs as stored in the plan (dates as ISO text), so ``decide`` can re-run them."""
    def conv(v):
        if isinstance(v, dict):
            return {k: conv(x) for k, x in v.items()}
        if isinstance(v, list | tuple):
            return [conv(x) for x in v]
        return v.isoformat() if isinstance(v, date) else v
    return conv(values)


def _labor_lines(labor: dict, rework_hours: dict, book, on: date, currency: str, mtok: Decimal,
                 path, labor_rates: dict | None = None) -> list[PlanLine]:
    """One line per role: build person-months are one-time hours; run person-months per round become
    hours per Mtoken (a round is one pass over the spec's tokens); rework hours are an allowance.
    Person-months become hours at the price book's 168 h, priced per hour (``labor_rate``)."""
    roles = sorted({r for phase in ("build", "run") for r in labor.get(phase, {})} | set(rework_hours))
    out = []
    for role in roles:
        rate, rate_ccy, meta = labor_rate(role, book, on, labor_rates or {})
        if rate_ccy != currency:
            raise BadInput(f"{path}: labor:{role} is priced in {rate_ccy}, the plan in {currency}",
                           remedy="price labor in the plan's currency")
        build = labor.get("build", {}).get(role)
        run = labor.get("run", {}).get(role)
        fixed = {"build": _hours(Rng.parse(build, f"{path}: [labor.build] {role}"))} if build is not None else {}
        eff = {}
        if run is not None:
            per_round = _hours(Rng.parse(run, f"{path}: [labor.run] {role}"))
            eff["run"] = Rng(*((per_round.get(s) / mtok).quantize(Q6) for s in ("low", "expected", "high")))
        rw = ({"rework": Rng.parse(rework_hours[role], f"{path}: [plan.labor_rework] {role}")}
              if role in rework_hours else {})
        out.append(PlanLine(id=f"labor:{role}", category="labor", basis=Basis.INTERNAL, currency=currency,
                            unit="hour", role=role, price=rate,
                            price_meta=meta,
                            efficiency=eff, fixed=fixed, rework=rw,
                            evidence={"efficiency": {"evidence": "assumed", "source": f"{path} [labor]"}}))
    return out


def _storage_line(t: dict, book, on: date, currency: str, path) -> PlanLine:
    """``[plan.storage]``: GiB-months the batch keeps (one-time quantity, by any class) at a storage
    item's price, and an allowance of GiB-months kept beyond their retention date (rework)."""
    unknown = sorted(set(t) - {"item", "gib_months", "retention_rework"})
    if unknown or "gib_months" not in t:
        raise BadInput(f"{path}: [plan.storage] needs gib_months (and may give item, retention_rework);"
                       f" unknown keys {unknown}", remedy="e.g. gib_months = [800, 1500, 2500]")
    item = str(t.get("item", "storage:standard"))
    pe = book.unit_price(item, "gb_month", on, allow_stale=True)
    if pe.currency != currency:
        raise BadInput(f"{path}: {item} is priced in {pe.currency}, the plan in {currency}",
                       remedy="price storage in the plan's currency")
    rework = {"retention": Rng.parse(t["retention_rework"], f"{path}: [plan.storage] retention_rework")} \
        if "retention_rework" in t else {}
    return PlanLine(id="storage", category="storage", basis=Basis.ESTIMATE, currency=currency, unit="gib_month",
                    price=Rng(pe.low, pe.price, pe.high),
                    price_meta=price_meta(pe, item, on, "gb_month (GB = 2^30 bytes)"),
                    efficiency={}, fixed={"kept": Rng.parse(t["gib_months"], f"{path}: [plan.storage] gib_months")},
                    rework=rework, evidence={"efficiency": {"evidence": "assumed", "source": f"{path} [plan.storage]"},
                                             "rework": {"evidence": "assumed", "source": f"{path} [plan.storage]"}})


def _hours(pm: Rng) -> Rng:
    return Rng(*(x * HOURS_PER_PERSON_MONTH for x in (pm.low, pm.expected, pm.high)))


def spread(prior: Rng, measured: Decimal) -> Rng:
    """``measured`` as the expected value, with the prior's relative spread around it: one batch is
    one sample, so the range does not collapse to a point."""
    if prior.expected <= 0:
        return Rng.point(measured)
    return Rng((measured * prior.low / prior.expected).quantize(Q6), measured,
               (measured * prior.high / prior.expected).quantize(Q6))


def _total(rs: dict[str, Rng]) -> Rng:
    return Rng(*(sum((r.get(s) for r in rs.values()), Decimal(0)) for s in ("low", "expected", "high")))


def from_review(reviewed: Plan, measured: dict, *, batch_id: str, author: str, reason: str, source_batch: str,
                batch_max_rounds: int | None, measured_work: Decimal, work: Rng | None = None) -> Plan:
    """The next baseline: ``reviewed``'s shape with the measured rates of ``measured`` (see
    ``review.actuals.measured_rates``) in place of its priors, each with the prior's relative spread.
    The planned work is ``work`` when given, else the reviewed batch's measured useful work; the
    gates, rules and bounds are carried over, the maximum rounds are the new batch's own."""
    src = f"review of {source_batch}"
    if work is None:
        work = spread(reviewed.work, measured_work)
        work_evidence = {"evidence": str(Evidence.MEASURED), "source": f"useful work measured in {source_batch}"
                         " (the prior's spread kept)"}
    else:
        work_evidence = {"evidence": str(Evidence.ASSUMED), "source": f"given with --work; rates from the {src}"}
    lines = []
    for ln in reviewed.lines:
        m = measured.get(ln.id)
        if m is None:
            lines.append(ln)
            continue
        whole = _total(ln.efficiency)
        eff = {k: spread(ln.efficiency.get(k, whole), v) for k, v in m["efficiency"].items() if v > 0}
        rw_prior = _total(ln.rework) if ln.rework else whole
        rework = {k: spread(ln.rework.get(k, rw_prior), (v * work.expected).quantize(Q6))
                  for k, v in m["rework_per_unit"].items() if v > 0}
        price, meta = ln.price, dict(ln.price_meta)
        if m.get("price") is not None:
            price = spread(ln.price, m["price"])
            meta.update(evidence=str(Evidence.MEASURED), source=f"average paid by batch {source_batch}"
                        " (the price book's spread kept)")
        fixed = {k: spread(ln.fixed[k], v) for k, v in m.get("fixed", {}).items() if k in ln.fixed} or ln.fixed
        lines.append(replace(ln, efficiency=eff, rework=rework, price=price, price_meta=meta, fixed=fixed,
                             evidence={"efficiency": {"evidence": "measured", "source": src},
                                       "rework": {"evidence": "measured",
                                                  "source": f"{src} (rerun quantity per Mtoken of useful work)"}}))
    return replace(reviewed, batch=batch_id, version=0, author=author,
                   reason=reason or str(Msg("stored.from_review", batch=source_batch)),
                   source={"kind": "review", "batch": source_batch, "plan_version": reviewed.version},
                   work=work, work_evidence=work_evidence, lines=tuple(lines),
                   max_rounds=batch_max_rounds or reviewed.max_rounds)
