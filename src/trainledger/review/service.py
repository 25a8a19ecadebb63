"""Plan / status / alerts / review / decide over a workspace: the calls the CLI and the demo make.

Reads the engine's outputs (the ledger's cost lines and runs of the latest attribution, the lake's
progress events and storage objects) and writes only through ``ledger.review_repo``.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.errors import BadInput, NotFound
from trainledger.ledger import review_repo as repo
from trainledger.model import DecisionKind
from trainledger.model.money import minor_quantum
from trainledger.review import actuals as _act
from trainledger.review import baseline, variance
from trainledger.review import options as _opts
from trainledger.review import status as _status
from trainledger.review.plan import SCENARIOS, Plan, Rng
from trainledger.review.texts import both, label, line_label

REUSE_CLASSES = ("checkpoint", "processed_data", "eval_result", "final_artifact", "candidate_model")
GiB = Decimal(1024 ** 3)


def make_plan(wsp, batch_id: str, spec: str | None, *, reason: str, author: str, options: dict | None = None,
              plan_toml: str | None = None, max_rounds: int | None = None) -> tuple[int, Plan]:
    """A plan from the estimator: a spec file and/or the ``estimate`` options (``options``), the
    ``[plan]`` table from the spec, ``plan_toml`` or ``max_rounds`` (see ``baseline.estimate_inputs``)."""
    b = wsp.config.batch(batch_id)
    wsp.sync_config()
    lines = wsp.ledger.cost_lines(batch_id) if wsp.ledger.latest_attribution() else []
    plan = baseline.from_estimate(spec, batch_id=batch_id, batch_max_rounds=b.max_rounds, author=author,
                                  reason=reason, workspace=str(wsp.config.root), options=options,
                                  plan_toml=plan_toml, max_rounds=max_rounds,
                                  batch_lines=lines)
    return _store(wsp, plan, reason)


def _store(wsp, plan: Plan, reason: str) -> tuple[int, Plan]:
    if repo.plan_versions(wsp.ledger, plan.batch) and not reason:
        raise BadInput(f"plan {plan.batch}: a plan exists already; a new version needs --reason",
                       remedy="say why the baseline changes: --reason TEXT (v1 is kept as it is)")
    plan_id, version = repo.add_plan_version(wsp.ledger, plan.batch, plan.as_dict())
    return plan_id, Plan.from_dict({**plan.as_dict(), "version": version})


def plan_from_review(wsp, next_batch: str, source_batch: str, *, reason: str, author: str,
                     work: Rng | None = None) -> tuple[int, Plan]:
    b = wsp.config.batch(next_batch)
    wsp.sync_config()
    plan_id, plan = latest_plan(wsp, source_batch)
    act = actuals(wsp, plan)
    if act.work <= 0:
        raise BadInput(f"plan {next_batch} --from-review {source_batch}: {source_batch} has no measured useful work",
                       remedy="import its progress events and attribute first")
    nxt = baseline.from_review(plan, _act.measured_rates(plan, act), batch_id=next_batch, author=author,
                               reason=reason, source_batch=source_batch, batch_max_rounds=b.max_rounds,
                               measured_work=act.work, work=work)
    return _store(wsp, nxt, reason or nxt.reason)


def latest_plan(wsp, batch_id: str) -> tuple[int, Plan]:
    wsp.config.batch(batch_id)  # NotFound naming the workspace's batches when the id is wrong
    wsp.sync_config()
    rows = repo.plan_versions(wsp.ledger, batch_id)
    if not rows:
        raise NotFound(f"batch {batch_id} has no plan", remedy=f"make one: trainledger plan {batch_id}"
                       " --from-estimate SPEC.toml")
    row = rows[-1]
    return row["id"], Plan.from_dict(row["body"])


def plans(wsp, batch_id: str | None = None) -> list[dict]:
    return [{"batch": r["batch_id"], "version": r["body"]["version"], "plan_id": r["id"],
             "created_at": r["created_at"].isoformat(), "reason": r["body"].get("reason", ""),
             "author": r["body"].get("author", ""), "source": r["body"].get("source", {}).get("kind", ""),
             "totals": [{"basis": b, "currency": c, **v.as_dict()} for (b, c), v in
                        sorted(Plan.from_dict(r["body"]).totals().items())]}
            for r in repo.plan_versions(wsp.ledger, batch_id)]


def actuals(wsp, plan: Plan) -> _act.Actuals:
    lines = wsp.ledger.cost_lines(plan.batch)
    runs = wsp.ledger.runs(plan.batch)
    keys = sorted({k for r in runs for k in _act.run_keys(r)})
    table = wsp.lake.read("progress_events")
    if table.num_rows:  # only this batch's runs' events become Python rows
        import pyarrow as pa
        import pyarrow.compute as pc

        table = table.filter(pc.is_in(table["run"], value_set=pa.array(keys, pa.string())))
    progress = table.select(["ts", "run", "event", "step", "tokens", "extra"]).to_pylist() if table.num_rows else []
    explained = _explained(wsp)
    retry_of = {k: str(v["retry_of"]) for k, v in explained.items() if v.get("retry_of")}
    return _act.collect(plan, lines, runs, progress, _beyond_retention(wsp), retry_of=retry_of, explained=explained)


def _explained(wsp) -> dict[str, dict]:
    """The runs' causes, retry links and review classes (``run_causes.explained``); {} before any
    attribution."""
    from trainledger import run_causes
    from trainledger.errors import NotFound

    try:
        return run_causes.explained(wsp)
    except NotFound:
        return {}


def _beyond_retention(wsp) -> frozenset[tuple[str, int]]:
    """Inventory rows whose object was still kept after its retention date (at the inventory's date)."""
    out = set()
    for o in wsp.lake.read("storage_objects").select(
            ["retention_until", "snapshot_date", "source_sha256", "row"]).to_pylist():
        kept, until = o["snapshot_date"], o["retention_until"]
        if until is not None and kept is not None and until < kept:
            out.add((o["source_sha256"], int(o["row"])))
    return frozenset(out)


def status(wsp, batch_id: str) -> dict:
    plan_id, plan = latest_plan(wsp, batch_id)
    act = actuals(wsp, plan)
    st = _status.build(plan, plan_id, act, variance.split(plan, act))
    st.pop("_alerts")
    st["alerts"] = alerts(wsp, batch_id)
    return guarded(wsp, st)


def guarded(wsp, st: dict) -> dict:
    """A status or review whose internal figures' kinds (``labor_kind``, ``ac_labor_kind``) are one
    person's where the workspace's labor figures shown together would give a rate back
    (report/rate_guard.py: the plan's figures, the batch totals)."""
    from trainledger.report import rate_guard

    g = rate_guard.guard(wsp)
    if "labor_kind" in st:
        st["labor_kind"] = g.kind("plan", st["labor_kind"])
    if "ac_labor_kind" in st:
        st["ac_labor_kind"] = g.kind("total", st["ac_labor_kind"])
    return st


def check(wsp, batch_id: str | None = None) -> list[int]:
    """Raise the alerts the current figures call for (hard caps and reached gates); returns new ids.
    Called after every attribution (and ``check_at_import`` at every import); an alert already raised
    under this plan version is not repeated."""
    new: list[int] = []
    done = {r["batch_id"] for r in repo.plan_versions(wsp.ledger)}
    for b in sorted(done if batch_id is None else {batch_id} & done):
        plan_id, plan = latest_plan(wsp, b)
        act = actuals(wsp, plan)
        st = _status.build(plan, plan_id, act, variance.split(plan, act))
        new += repo.add_alerts(wsp.ledger, b, plan_id, [{**a, "plan_version": plan.version}
                                                         for a in st["_alerts"]])
        _retire_stale(wsp, b, plan_id, st)
    return new


RETIRE, RESTATE = "retire_alert", "restate_alert"


def _retire_stale(wsp, batch_id: str, plan_id: int, st: dict) -> None:
    """Once useful work is known, an open ``work_unknown`` alert of this plan is obsolete: closed
    (audited ``retire_alert``, never deleted); an open alert whose driver said the work was unknown
    gets the driver the current figures give (audited ``restate_alert``). An answered alert stays."""
    if not st["work"].get("known", True):
        return
    done = _alert_updates(wsp)
    answered = {int(a) for d in repo.decision_rows(wsp.ledger, batch_id) for a in d["body"].get("answers", [])}
    now = {a["key"]: a for a in st["_alerts"]}
    stale = both("drv_unknown")
    for r in repo.alert_rows(wsp.ledger, batch_id):
        if r["plan_id"] != plan_id or r["id"] in answered or done.get(r["id"], {}).get("retired"):
            continue
        if r["kind"] == "work_unknown":
            wsp.ledger.audit("", RETIRE, f"batch:{batch_id}", {"alert_id": r["id"], "key": r["key"],
                                                               "why": both("alert_obsolete")})
        elif r["body"].get("driver") == stale and r["key"] in now and "driver" not in done.get(r["id"], {}):
            wsp.ledger.audit("", RESTATE, f"batch:{batch_id}", {"alert_id": r["id"], "key": r["key"],
                                                                "driver": now[r["key"]]["driver"]})


def _alert_updates(wsp) -> dict[int, dict]:
    """Alert id → its audited updates: ``retired`` (why, en + zh-CN) and a restated ``driver``."""
    out: dict[int, dict] = defaultdict(dict)
    for e in wsp.ledger.audit_log():
        if e["action"] == RETIRE:
            out[int(e["detail"]["alert_id"])]["retired"] = e["detail"]["why"]
        elif e["action"] == RESTATE:
            out[int(e["detail"]["alert_id"])]["driver"] = e["detail"]["driver"]
    return out


def rounds_from_jobs(wsp) -> dict[str, list[str]]:
    """Jobs per batch straight from the lake's imported jobs, matched by the workspace's rules as the
    attribution does (``engine.runs``: one run per allocation): the rounds the next attribution will count."""
    from trainledger.engine.rules import matcher, tags_of
    from trainledger.engine.runs import latest_job_rows

    match = matcher(wsp.config.rules, (b.id for b in wsp.config.batches))
    out: dict[str, list[str]] = defaultdict(list)
    for j in latest_job_rows(wsp.lake.read("jobs").to_pylist()):
        batch_id, _rule = match.match("slurm", j)
        tags = tags_of(j)
        # one round per training attempt (actuals.rounds_used): not its retries, requeues or eval tasks
        if not batch_id or str(tags.get("reason") or "unrecorded") not in _act.ROUND_REASONS or tags.get("retry_of"):
            continue
        if j.get("start") is None or str(j.get("state") or "").split(" ")[0].upper() == "PENDING":
            continue  # never started: no round used (actuals.started)
        job = str(j["job_id"]).partition("@")[0]
        if job not in out[batch_id]:
            out[batch_id].append(job)
    return dict(out)


def check_at_import(wsp) -> list[int]:
    """The hard caps of every planned batch, at an import (``Workspace.import_files``); returns new ids.

    Rounds are counted from the imported jobs directly (``rounds_from_jobs``), so the rounds cap is
    raised by the import that reaches it. Money needs prices, rules and splits — an attribution — so
    the money caps are checked over the last attribution's figures and the alert says so. Gates and
    their judgement rules wait for the attribution. An alert raised once under a plan version (by
    key) is never raised again, by either check."""
    rows = repo.plan_versions(wsp.ledger)
    if not rows:
        return []
    import hashlib

    jobs = rounds_from_jobs(wsp)
    last = wsp.ledger.latest_attribution()
    at = last["created_at"].isoformat(timespec="seconds") if last else None
    new: list[int] = []
    for b in sorted({r["batch_id"] for r in rows}):
        plan_id, plan = latest_plan(wsp, b)
        items = []
        if last is not None:
            act = actuals(wsp, plan)
            st = _status.build(plan, plan_id, act, variance.split(plan, act))
            note = both("as_of_attribution", at=at)
            items += [{**a, "as_of": at, "text": {k: f"{v} — {note[k]}" for k, v in a["text"].items()}}
                      for a in st["_alerts"] if a["kind"] in ("spend", "eac_high", "unplanned")]
        used = len(jobs.get(b, ()))
        if plan.bounds.get("rounds_at_max", True) and plan.max_rounds and used >= plan.max_rounds:
            ids = sorted(jobs[b])
            note = both("rounds_at_import")
            items.append({"key": "rounds", "kind": "rounds", "bound": str(plan.max_rounds), "value": str(used),
                          "as_of": "import", "jobs": ids,
                          "driver": both("rounds_jobs", n=used, first=ids[0], last=ids[-1]),
                          "evidence_sha256": hashlib.sha256("\n".join([b, *ids]).encode()).hexdigest(),
                          "text": {k: f"{v} — {note[k]}" for k, v in
                                   both("alert_rounds", value=used, bound=plan.max_rounds).items()}})
        new += repo.add_alerts(wsp.ledger, b, plan_id, [{**a, "plan_version": plan.version} for a in items])
    return new


def alerts(wsp, batch_id: str | None = None, *, open_only: bool = False) -> list[dict]:
    answered: dict[int, int] = {}
    for d in repo.decision_rows(wsp.ledger, batch_id):
        for a in d["body"].get("answers", []):
            answered.setdefault(int(a), d["id"])
    out = []
    updates = _alert_updates(wsp)
    for r in repo.alert_rows(wsp.ledger, batch_id):
        by = answered.get(r["id"])
        upd = updates.get(r["id"], {})
        if open_only and (by is not None or upd.get("retired")):
            continue
        out.append({"id": r["id"], "batch": r["batch_id"], "plan_version": r["body"].get("plan_version"),
                    "kind": r["kind"], "key": r["key"], "created_at": r["created_at"].isoformat(),
                    "bound": r["body"].get("bound"), "value": r["body"].get("value"),
                    "text": r["body"].get("text"), "driver": upd.get("driver") or r["body"].get("driver"),
                    "evidence_sha256": r["body"].get("evidence_sha256"),
                    "open": by is None and not upd.get("retired"), "answered_by": by,
                    "retired": upd.get("retired")})
    return out


def review(wsp, batch_id: str) -> dict:
    plan_id, plan = latest_plan(wsp, batch_id)
    act = actuals(wsp, plan)
    lines = variance.split(plan, act)
    return {"batch": batch_id, "plan_version": plan.version, "variance": variance.by_basis(lines),
            "lines": [_line_dict(lv) for lv in lines], "review_classes": _classes(wsp, act),
            "lessons": lessons(plan, act), "labor_kind": guarded(wsp, {"labor_kind": _status.labor_kind(plan, act)})[
                "labor_kind"], **_status.vendor_of(plan, act)}


def _line_dict(lv) -> dict:
    return {"line": lv.line, "basis": lv.basis, "currency": lv.currency,
            **{k: variance.text(getattr(lv, k), lv.currency) for k in ("plan", "actual", *variance.PARTS)},
            "efficiency_by_state": {k: variance.text(v, lv.currency) for k, v in lv.efficiency_by_state.items()},
            "rework_by": {k: variance.text(v, lv.currency) for k, v in sorted(lv.rework_by.items())},
            "rework_by_kind": {k: variance.text(v, lv.currency) for k, v in lv.rework_by_kind.items()},
            "quantities": lv.quantities, "note": lv.note}


def _classes(wsp, act) -> list[dict]:
    hours: dict[str, Decimal] = defaultdict(Decimal)
    for ln in wsp.ledger.cost_lines(act.runs[0].batch_id) if act.runs else []:
        if ln.category == "compute" and ln.run_id and str(ln.basis) in _act.SPEND_BASES:
            hours[ln.run_id] += ln.quantity or Decimal(0)
    from trainledger.run_causes import review_key

    explained = _explained(wsp)
    acc: dict[str, dict] = {}
    for r in act.runs:
        key = review_key(r, explained.get(r.id))  # the sheet's and `runs list`'s rule
        g = acc.setdefault(key, {"review_class": key, "runs": 0, "gpu_hours": Decimal(0), "run_ids": []})
        g["runs"] += 1
        g["gpu_hours"] += hours.get(r.id, Decimal(0))
        g["run_ids"].append(r.id)
    return [{**g, "gpu_hours": format(g["gpu_hours"], "f")} for _k, g in sorted(acc.items())]


def lessons(plan: Plan, act) -> list[dict]:
    """Assumptions that moved: the plan's range before, the measured value after."""
    out = []
    q = Decimal("0.000001")

    def item(name, before: Rng, after: Decimal | None, unit: str, ev_before: str):
        if after is None:
            return
        change = (((after - before.expected) / before.expected * 100).quantize(Decimal("0.1"))
                  if before.expected else None)
        name, name_zh = name if isinstance(name, tuple) else (name, name)
        out.append({"name": name, "name_zh": name_zh, "unit": unit,
                    "before": {**before.as_dict(), "evidence": ev_before},
                    "after": {"value": format(after, "f"), "evidence": "measured"},
                    "change_pct": None if change is None else format(change, "f")})

    if act.work_known:
        item(("useful work", "有效工作量"), plan.work, act.work.quantize(q), "Mtoken",
             plan.work_evidence.get("evidence", "assumed"))
    else:  # no progress log: unknown, never a measured 0
        out.append({"name": "useful work", "name_zh": "有效工作量", "unit": "Mtoken",
                    "before": {**plan.work.as_dict(), "evidence": plan.work_evidence.get("evidence", "assumed")},
                    "after": {"value": None, "evidence": "unknown"}, "change_pct": None})
    if plan.max_rounds:
        item(("rounds used of the maximum", "已用轮数（对照上限）"), Rng.point(Decimal(plan.max_rounds)),
             Decimal(len(act.rounds)), "rounds", "assumed")
    measured = _act.measured_rates(plan, act)
    for pl in plan.lines:
        m = measured.get(pl.id)
        if m is None:
            continue
        ev = pl.evidence.get("efficiency", {}).get("evidence", "assumed")
        ev_rw = pl.evidence.get("rework", {}).get("evidence", "assumed")
        unit_zh = label(pl.unit, "zh-CN")
        line_zh = line_label(pl.id, "zh-CN")
        for state, r in pl.efficiency.items():
            if state == "overhead":
                after = sum((v for s, v in m["efficiency"].items() if s != "effective"), Decimal(0))
            else:
                after = m["efficiency"].get(state, Decimal(0))
            item((f"{pl.id}: {state} {pl.unit} per Mtoken",
                  f"{line_zh}：{label(state, 'zh-CN')} 每百万 token {unit_zh}"), r, after, f"{pl.unit}/Mtoken", ev)
        for state, r in pl.fixed.items():
            if state in m.get("fixed", {}):
                item((f"{pl.id}: {state} {pl.unit} (one-time)",
                      f"{line_zh}：{label(state, 'zh-CN')} {unit_zh}（一次性）"), r, m["fixed"][state], pl.unit, ev)
        for reason in sorted(set(pl.rework) | set(m["rework_per_unit"])):
            before = pl.rework.get(reason, Rng.zero())
            per_unit = Rng(*((before.get(s) / plan.work.get(s)).quantize(q) if plan.work.get(s) else Decimal(0)
                             for s in SCENARIOS))
            item((f"{pl.id}: rework {reason} {pl.unit} per Mtoken",
                  f"{line_zh}：返工（{label(reason, 'zh-CN')}）每百万 token {unit_zh}"), per_unit,
                 m["rework_per_unit"].get(reason, Decimal(0)), f"{pl.unit}/Mtoken", ev_rw)
        if m.get("price") is not None:
            item((f"{pl.id}: price per {pl.unit}", f"{line_zh}：每{unit_zh}单价"), pl.price, m["price"],
                 f"{pl.currency}/{pl.unit}", pl.price_meta.get("evidence", "assumed"))
    return out


def unknowns_removed(items: list[dict]) -> list[dict]:
    """The lessons whose evidence moved from assumed (at plan time) to measured."""
    return [x for x in items if x["before"]["evidence"] == "assumed" and x["after"]["evidence"] == "measured"]


def new_unknowns(plan: Plan, act) -> list[dict]:
    allowed = {r for pl in plan.lines for r in pl.rework}
    out = []
    seen = sorted({(str(r.reason), str(r.cause or "none")) for r in act.runs if _act.is_rework(r)})
    for reason, cause in seen:
        if reason not in allowed:
            out.append({"name": f"rework by {reason} ({cause})",
                        "why": f"reruns for {label(reason, 'en')} ({label(cause, 'en')}) with no rework allowance"
                               " in the plan: the plan did not foresee them",
                        "why_zh": f"计划未留返工额度的重跑：{label(reason, 'zh-CN')}（{label(cause, 'zh-CN')}），"
                                  "计划没有预见到它们"})
    unrec = [r.id for r in act.runs if str(r.reason) == "unrecorded"]
    if unrec:
        ids = ", ".join(unrec)
        out.append({"name": "runs without a recorded reason",
                    "why": f"why {len(unrec)} run(s) ran is not recorded (no reason= tag: planned experiment,"
                           f" tuning, fault retry, data fix …), so their cost is not classed yet: {ids}",
                    "why_zh": f"{len(unrec)} 个运行未记录运行原因（无 reason= 标签：计划内试验、参数调整、故障重试、"
                              f"数据修正……），其成本尚未归类：{ids}"})
    return out


def reusable_assets(wsp, batch_id: str) -> tuple[list[dict], dict[str, Decimal], list[str]]:
    """Storage objects of the batch kept for reuse, baseline or audit; every kept object's monthly
    cost per currency (what stopping still costs); and the kept objects no price values.

    The monthly cost is the object's size at its latest inventory x the price book's ``storage:<tier>``
    price per GiB-month on that inventory's date — not the inventory-to-date estimate, which is 0 for
    an object written on the inventory day although keeping it costs every month."""
    objects = {(o["source_sha256"], int(o["row"])): o for o in wsp.lake.read("storage_objects").to_pylist()}
    latest: dict[str, tuple] = {}
    for ln in wsp.ledger.cost_lines(batch_id):
        if ln.category != "storage" or ln.provenance.source_kind != "storage":
            continue
        obj = objects.get((ln.provenance.source_sha256, ln.provenance.row))
        if obj is None:
            continue
        prev = latest.get(obj["path"])
        if prev is None or str(obj["snapshot_date"]) >= str(prev[0]["snapshot_date"]):
            latest[obj["path"]] = (obj, ln)
    lookup = wsp.price_lookup()
    assets, monthly, unpriced = [], defaultdict(Decimal), []
    for path, (obj, ln) in sorted(latest.items()):
        item = f"storage:{obj.get('tier') or 'standard'}"
        on = obj.get("snapshot_date")
        price = lookup(item, on if isinstance(on, date) else date.fromisoformat(str(on)[:10]), "gb_month") \
            if on is not None else None
        if price is None:
            unpriced.append(path)
            per_month, cur = None, ln.currency
        else:
            cur = price.currency
            per_month = (Decimal(int(obj["size_bytes"])) / GiB * price.price).quantize(
                minor_quantum(cur), ROUND_HALF_EVEN)
            monthly[cur] += per_month
        if ln.detail in REUSE_CLASSES:
            expiry = obj.get("retention_until") or obj.get("review_at")
            assets.append({"path": path, "storage_class": ln.detail, "owner": obj.get("owner", ""),
                           "purpose": obj.get("purpose", ""), "expiry": expiry.isoformat() if expiry else None,
                           "monthly_cost": format(per_month, "f") if per_month is not None else None,
                           "currency": cur})
    return assets, dict(monthly), unpriced


def decide(wsp, batch_id: str, *, action: str, reason: str, by: str, approver: str | None,
           answers: list[int], next_review: date | None = None, today: date | None = None,
           child: str | None = None) -> dict:
    action = DecisionKind(action).value
    if next_review is not None and next_review < (day := today or date.today()):
        raise BadInput(f"decide {batch_id}: the next review {next_review.isoformat()} is before the decision's"
                       f" date {day.isoformat()}", remedy="give a next review on or after the decision's date,"
                       " or leave it empty (in 7 days)")
    if not reason.strip() or not by.strip():
        raise BadInput("decide: --reason and --by are required", remedy="say why and who decides")
    if child is not None:
        if action != "retarget":
            raise BadInput(f"decide {batch_id}: --child names the batch a retarget opens; the action is {action}",
                           remedy="use --action retarget, or leave --child out")
        if child == batch_id:
            raise BadInput(f"decide {batch_id}: a retarget's child must be another batch")
        wsp.config.batch(child)  # NotFound with the known batches when it is not declared
    plan_id, plan = latest_plan(wsp, batch_id)
    act = actuals(wsp, plan)
    st = _status.build(plan, plan_id, act, variance.split(plan, act))
    reached = [g for g in st["gates"] if g["reached"]]
    rec = (reached[-1]["verdict"] if reached
           else _status.verdict(plan, {k: Decimal(v) for k, v in st["metrics"].items()}))
    override = rec["action"] not in ("review", action)
    if override and (not approver or approver.strip() == by.strip()):
        from trainledger.i18n import Msg, Term  # the actions as words in Chinese (review 4 H10)

        raise BadInput(Msg("error.review.service.decide_rules_recommend_choosing", batch_id=batch_id,
                           action=Term(rec["action"]), action2=Term(action)),
                       remedy="an override needs a second named approver: --approver NAME (not the decider)")
    assets, monthly, unpriced = reusable_assets(wsp, batch_id)
    kid = latest_plan(wsp, child) if child and repo.plan_versions(wsp.ledger, child) else None
    options = _opts.options(plan, st, monthly, workspace=str(wsp.config.root),
                            child=(child, kid[1]) if kid else None, unpriced=unpriced,
                            currency=str(wsp.config.get("workspace.currency") or ""))
    previous = repo.decision_rows(wsp.ledger, batch_id)
    today = today or date.today()
    unknowns = unknowns_removed(lessons(plan, act))
    body = {"batch": batch_id, "plan_version": plan.version, "action": action, "reason": reason, "by": by,
            "approver": approver or None, "gate": reached[-1]["id"] if reached else None,
            "verdict": rec, "override": override, "options": options,
            "sunk_cost": st["ac"], "sunk_cost_note": both("sunk"),
            "evidence_sha256": st["evidence_sha256"], "answers": sorted(set(int(a) for a in answers)),
            "next_review": (next_review or today + timedelta(days=7)).isoformat(),
            "supersedes": previous[-1]["id"] if previous else None,
            "new_unknowns": new_unknowns(plan, act),
            "child_batch": child,
            "assets_by_reference": [a["path"] for a in assets] if child else []}
    to_verify = [a["name"] for a in plan.assumptions] + [u["name"] for u in body["new_unknowns"]]
    decision_id = repo.add_decision_record(
        wsp.ledger, batch_id, kind=action, rationale=reason, author=by, reusable_assets=assets,
        unknowns_removed=unknowns, next_to_verify=to_verify, body=body)
    return {"id": decision_id, **body, "reusable_assets": assets, "unknowns_removed": unknowns,
            "next_to_verify": to_verify}


def decisions(wsp, batch_id: str | None = None) -> list[dict]:
    return [{"id": d["id"], "batch": d["batch_id"], "action": d["kind"], "created_at": d["created_at"].isoformat(),
             "reason": d["rationale"], "by": d["author"], "reusable_assets": d["reusable_assets"],
             "unknowns_removed": d["unknowns_removed"], "next_to_verify": d["next_to_verify"], **{
                 k: d["body"].get(k) for k in ("approver", "gate", "verdict", "override", "options", "sunk_cost",
                                               "evidence_sha256", "answers", "next_review", "supersedes",
                                               "new_unknowns", "plan_version", "child_batch",
                                               "assets_by_reference")}}
            for d in repo.decision_rows(wsp.ledger, batch_id)]
