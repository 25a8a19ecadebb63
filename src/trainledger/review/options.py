"""A decision's options and the cost to go of each, re-estimated where the plan came from an estimate.

    continue  EAC − AC: the remaining planned work at the efficiency measured so far (``status``)
    shrink    the estimator re-run (``baseline.run_estimate``) for the option's model — the plan's, or
              ``[plan.shrink] params`` — its rates per Mtoken times the remaining work of the cut
              rounds: max(R × tokens − Wa, 0), R = ``[plan.shrink] rounds`` or the plan's rounds ×
              ``shrink_factor``; with a smaller model nothing done carries over: R × tokens
    stop      the kept storage objects' monthly cost × ``retention_months`` (no estimator: the inventory)
    retarget  the child batch's latest plan, when ``--child`` names one that has a plan

Only the per-work parts are re-estimated (compute, labor run hours, rework allowances as the plan's
shares of them); one-time quantities (labor build, storage GiB-months) are left out of a cost to go.
A plan without the estimator's inputs (from a review, or made before they were stored) falls back
to scaling the continue figures by ``shrink_factor``, and says so.
"""

from __future__ import annotations

from dataclasses import replace
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.errors import BadInput
from trainledger.model.money import minor_quantum
from trainledger.review.plan import SCENARIOS, Plan, Rng
from trainledger.review.texts import both

Q6 = Decimal("0.000001")
SHRINK_KEYS = ("rounds", "params")


def _money(rows: dict[tuple[str, str], Rng]) -> list[dict]:
    return [{"basis": b, "currency": c,
             **{s: format(max(v.get(s), Decimal(0)).quantize(minor_quantum(c), ROUND_HALF_EVEN), "f")
                for s in SCENARIOS}} for (b, c), v in sorted(rows.items())]


def _done(st: dict) -> Decimal:
    """The useful work done; unknown (no progress log) counts as none done for the work still to go,
    the conservative side (the status says the figure is unknown)."""
    done = st["work"].get("done")
    return Decimal(done) if done is not None else Decimal(0)


def inputs(plan: Plan) -> tuple[dict, dict] | None:
    """The estimator inputs and ``[plan]`` table a plan was made from, or None."""
    src = plan.source or {}
    if src.get("kind") != "estimate" or "inputs" not in src:
        return None
    return dict(src["inputs"]), dict(src.get("plan_table") or {})


def check_shrink(table: dict, where: str) -> dict:
    shrink = table.get("shrink", {})
    bad = sorted(set(shrink) - set(SHRINK_KEYS)) if isinstance(shrink, dict) else ["(not a table)"]
    if bad:
        raise BadInput(f"{where}: [plan.shrink] has unknown keys {bad}",
                       remedy='give rounds = "1..1.5..2" and/or params = "3B" (a smaller model)')
    return shrink


def work_to_go(plan: Plan, mtok: Decimal, rounds: tuple, done: Decimal, *, fresh: bool) -> Rng:
    """Mtoken still to do when the batch ends at ``rounds`` (low, mode, high) final-run equivalents."""
    total = [mtok * Decimal(repr(float(r))) for r in rounds]
    return Rng(*(t if fresh else max(t - done, Decimal(0)) for t in total))


def reestimate(plan: Plan, values: dict, table: dict, togo: Rng, *, workspace: str | None) -> tuple[list, dict]:
    """The estimator's per-Mtoken rates for ``values`` times ``togo`` Mtoken: cost to go per basis and
    currency, and what it came from."""
    from trainledger.review import baseline

    values = dict(values)
    if isinstance(values.get("labor"), dict):  # build labor is one-time: an empty table, not the
        values["labor"] = {**values["labor"], "build": {}}  # placeholder roles (price items the plan never needed)
    table = {k: v for k, v in table.items() if k not in ("storage", "shrink")}
    # the plan's own split of compute over bases (capacity_plan.py: planned or measured) is kept
    shares = {str(ln.basis): ln.price_meta["share"] for ln in plan.lines
              if ln.category == "compute" and ln.price_meta.get("share")}
    kw = dict(where="decide: re-estimate", sha="", batch_id=plan.batch, batch_max_rounds=plan.max_rounds,
              author="", reason="re-estimate", workspace=workspace)
    try:
        est = baseline.from_values(values, {**table, "compute_share": shares} if shares else table, **kw)
    except BadInput:  # the workspace's capacity changed since the plan: split as a new plan would
        if not shares:
            raise
        est = baseline.from_values(values, table, **kw)
    lines = []
    for ln in est.lines:
        rework = {}
        for k, r in ln.rework.items():  # the allowance per Mtoken of the estimate, on the work to go
            rework[k] = Rng(*sorted((r.get(s) * togo.get(s) / est.work.get(s)).quantize(Q6) if est.work.get(s)
                                    else Decimal(0) for s in SCENARIOS))
        lines.append(replace(ln, fixed={}, rework=rework))
    shown = replace(est, lines=tuple(lines), work=togo)
    meta = {"kind": "estimate", "estimate": est.source.get("estimate"), "priced_on": est.source.get("priced_on"),
            "params": values.get("params"), "work_to_go_mtoken": togo.as_dict(),
            "rates": {ln.id: {k: v.as_dict() for k, v in ln.efficiency.items()} for ln in est.lines}}
    return _money(shown.totals()), meta


def options(plan: Plan, st: dict, monthly: dict[str, Decimal], *, workspace: str | None,
            child: tuple[str, Plan] | None = None, unpriced: list[str] = (), currency: str = "") -> list[dict]:
    """``monthly``: the kept objects' storage cost per month by currency; ``unpriced``: kept objects
    no price values (then the stop option's cost is unknown, never 0); ``currency``: the workspace's,
    for a stop that keeps nothing (0 with its currency)."""
    ac = {(r["basis"], r["currency"]): r for r in st["ac"]}
    to_go = []
    for r in st["eac"]:
        a = ac[(r["basis"], r["currency"])]
        to_go.append({"basis": r["basis"], "currency": r["currency"],
                      **{s: format(max(Decimal(r[s]) - Decimal(a[s]), Decimal(0)).quantize(
                          minor_quantum(r["currency"]), ROUND_HALF_EVEN), "f") for s in SCENARIOS}})
    f = plan.shrink_factor
    cont_from = {"kind": "eac", "text": both("from_eac", v=plan.version)}
    src = inputs(plan)
    if src is None:
        shrink = [{**x, **{s: format((Decimal(x[s]) * f).quantize(minor_quantum(x["currency"])), "f")
                           for s in SCENARIOS}} for x in to_go]
        shrink_from = {"kind": "scaled", "text": both("from_scaled", f=format(f, "f"))}
        shrink_what = both("opt_shrink", f=format(f, "f"))
    else:
        values, table = src
        from trainledger.estimate.spec import build_spec

        decl = check_shrink(table, f"plan v{plan.version}")
        base = build_spec(dict(values), where="decide")
        mtok = Decimal(repr(float(base.tokens))) / Decimal(1_000_000)
        rounds = (tuple(float(x) for x in str(decl["rounds"]).split("..")) if "rounds" in decl else
                  tuple(float(plan.work.get(s) / mtok * f) for s in SCENARIOS))
        if len(rounds) == 2:
            rounds = (rounds[0], (rounds[0] + rounds[1]) / 2, rounds[1])
        elif len(rounds) == 1:
            rounds = rounds * 3
        fresh = "params" in decl
        shrunk = {**values, **({"params": decl["params"]} if fresh else {})}
        if fresh:
            for k in ("active_params", "layers", "hidden", "heads"):
                shrunk.pop(k, None)
        togo = work_to_go(plan, mtok, rounds, _done(st), fresh=fresh)
        shrink, meta = reestimate(plan, shrunk, table, togo, workspace=workspace)
        r_txt = "..".join(format(Decimal(repr(x)).quantize(Decimal("0.001")).normalize(), "f") for x in rounds)
        meta.update(rounds=r_txt, text=both("from_estimate", rounds=r_txt, params=shrunk.get("params"),
                                           work=format(togo.expected.quantize(Decimal("0.01")), "f"),
                                           name=meta.get("estimate") or "-"))
        shrink_from = meta
        shrink_what = both("opt_shrink_est", rounds=r_txt, params=shrunk.get("params"))
    months = plan.retention_months
    stop = [{"basis": "estimate", "currency": c, **{s: format((v * months).quantize(minor_quantum(c)), "f")
                                                    for s in SCENARIOS}} for c, v in sorted(monthly.items())]
    stop_from = {"kind": "retention", "text": both("from_retention", m=format(months, "f"))}
    stop_unknown = None
    if unpriced:  # what keeping them costs is not known: say so, never 0
        stop, stop_unknown = [], both("stop_unpriced", n=len(unpriced), first=unpriced[0])
    elif not stop and currency:
        stop = [{"basis": "estimate", "currency": currency,
                 **{s: format(Decimal(0).quantize(minor_quantum(currency)), "f") for s in SCENARIOS}}]
    if child is not None:
        name, cp = child
        retarget = _money(cp.totals())
        retarget_from = {"kind": "child_plan", "batch": name, "plan_version": cp.version,
                         "text": both("from_child", child=name, v=cp.version)}
    else:
        retarget, retarget_from = to_go, {"kind": "eac", "text": both("from_no_child")}
    cont = {"action": "continue", "what": both("opt_continue"), "cost_to_go": to_go, "estimated_from": cont_from}
    if not st["work"].get("known", True):  # EAC rests on the work done: unknown without a progress log
        cont["unknown_why"] = both("work_unknown")
    out = [cont,
           {"action": "shrink", "what": shrink_what, "cost_to_go": shrink, "estimated_from": shrink_from},
           {"action": "stop", "what": both("opt_stop", m=format(plan.retention_months, "f")), "cost_to_go": stop,
            "estimated_from": stop_from, **({"unknown_why": stop_unknown} if stop_unknown else {})},
           {"action": "retarget", "what": both("opt_retarget"), "cost_to_go": retarget,
            "estimated_from": retarget_from}]
    if st["work"].get("known", True) and _done(st) >= Decimal(st["work"]["expected"]):  # nothing left to price
        note = both("opt_exhausted")
        for o in out:
            if o["action"] in ("continue", "shrink"):
                o["what"] = {k: f"{v} — {note[k]}" for k, v in o["what"].items()}
    return out
