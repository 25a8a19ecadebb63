"""The batch sheet's plan-vs-actual section: built from ``review.service``, rendered beside the sheet.

``build`` returns ``None`` for a batch without a plan (the section is left out). The figures are the
ones ``status`` / ``review`` / ``alerts`` / ``decide`` print: plan totals, AC / EV / EAC, rounds used,
the variance bridge per basis and currency (exact strings, rounded only when rendered), open and
answered alerts, decisions, the latest decision's reusable assets and unknowns removed, and the
spend curves (cumulative spend by day against the plan and the EAC range, report/cross.py).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.mdtext import inline as _inline
from trainledger.mdtext import table as _table
from trainledger.model.restricted import is_withheld
from trainledger.review.texts import label, metric_label, rework_text, rounds_text, storage_label, t

PARTS = ("plan", "actual", "price", "volume", "efficiency", "rework", "other", "not_split")


def build(wsp, batch_id: str) -> dict[str, Any] | None:
    from trainledger.ledger import review_repo
    from trainledger.review import service

    if not review_repo.plan_versions(wsp.ledger, batch_id):
        return None
    st = service.status(wsp, batch_id)
    rv = service.review(wsp, batch_id)
    decisions = service.decisions(wsp, batch_id)
    latest = decisions[-1] if decisions else None
    compute = next((ln for ln in rv["lines"] if ln["line"] == "compute"), None)
    kinds = labor_kinds(wsp, batch_id, {st["plan_version"]: st["labor_kind"]})
    return {"plan_version": st["plan_version"], "labor_kind": st["labor_kind"],
            "ac_labor_kind": st.get("ac_labor_kind", st["labor_kind"]),
            "plan": st["plan"], "ac": st["ac"], "ev": st["ev"],
            "eac": st["eac"], "rounds": st["rounds"], "work": st["work"], "gates": st["gates"],
            "curves": st.get("curves", []),
            "spend_curves": _spend_curves(wsp, batch_id, st),
            "plan_lines": _plan_lines(wsp, batch_id),
            "variance_lines": [{k: x[k] for k in ("line", "basis", "currency", "plan", "actual", "price", "volume",
                                                  "efficiency", "rework", "other", "not_split", "note",
                                                  "quantities")} for x in rv["lines"]],
            "variance": rv["variance"],
            "compute_efficiency_by_state": compute["efficiency_by_state"] if compute else {},
            "compute_rework_by": compute["rework_by"] if compute else {},
            "alerts": with_kinds(st["alerts"], kinds, st["labor_kind"]),
            "open_alerts": sum(1 for a in st["alerts"] if a["open"]),
            "decisions": [{k: d[k] for k in ("id", "action", "reason", "by", "approver", "verdict", "override",
                                             "answers", "next_review", "supersedes", "evidence_sha256",
                                             "child_batch")}
                          for d in decisions],
            "reusable_assets": latest["reusable_assets"] if latest else [],
            "unknowns_removed": latest["unknowns_removed"] if latest else [],
            "lessons": rv["lessons"],
            # which groups and lines an invoice is part of (report/vendor_kinds.py): not figures
            "vendor_groups": st.get("vendor_groups", []), "vendor_lines": st.get("vendor_lines", [])}


def labor_kinds(wsp, batch_id: str, known: dict[int, str] | None = None) -> dict[int, str]:
    """Each plan version's ``labor_kind`` (review/status.py, over the actuals as they are now): an
    alert or a decision quotes the internal figures of the version it was made on. ``known``: kinds
    already computed (the latest version's, from its status); a version whose plan values one labor
    role is one person's cost without reading the actuals."""
    from trainledger.ledger import review_repo
    from trainledger.report.rate_guard import guard
    from trainledger.review import service
    from trainledger.review.plan import SCENARIOS, Plan
    from trainledger.review.status import labor_kind

    g = guard(wsp)
    out = dict(known or {})
    for r in review_repo.plan_versions(wsp.ledger, batch_id):
        plan = Plan.from_dict(r["body"])
        if plan.version in out:
            continue
        valued = {pl.role or pl.id for pl in plan.lines
                  if str(pl.basis) == "internal" and any(pl.price.get(s) for s in SCENARIOS)}
        out[plan.version] = "labor_cost_person" if len(valued) == 1 else labor_kind(plan, service.actuals(wsp, plan))
    return {v: g.kind("plan", k) for v, k in out.items()}  # the guard: these figures beside the others


def with_kinds(items: list[dict], kinds: dict[int, str], latest: str | None = None) -> list[dict]:
    """Alerts, decisions or plan versions, each naming the ``labor_kind`` of the figures it quotes
    (report/plan_access.py ``mark_internal`` marks them so): its plan version's, or the latest plan's when
    that is stricter (an unknown version: one role's cost, failing closed). An alert's and a
    decision's own figures (the AC, plan and variance they quote, a decision's sunk cost and cost to
    go) are one person's cost whatever the version: a snapshot of the hours when they were made, a form
    over the rates no figure shown today has (report/rate_guard.py), so no guard could tell what they
    add beside the others."""
    from trainledger.report.labor_kinds import strictest

    def version(x: dict) -> int | None:
        v = x.get("plan_version", x.get("version", (x.get("body") or {}).get("plan_version")))
        return int(v) if v is not None else None

    def snapshot(x: dict) -> bool:  # an alert or a decision (a plan version names its ``version``)
        return "version" not in x

    return [{**x, "labor_kind": "labor_cost_person" if snapshot(x)
             else strictest(kinds.get(version(x), "labor_cost_person"), latest)} for x in items]


def _plan_lines(wsp, batch_id: str) -> list[dict]:
    """Each plan line's expected inputs of the variance split (review/variance.py): price, efficiency
    (quantity per Mtoken, all states), fixed quantity and rework allowance — the workbook's rate cells."""
    from trainledger.review import service

    _pid, plan = service.latest_plan(wsp, batch_id)
    total = lambda d: format(sum((r.expected for r in d.values()), Decimal(0)), "f")  # noqa: E731
    return [{"id": pl.id, "category": pl.category, "basis": str(pl.basis), "currency": pl.currency, "role": pl.role,
             "unit": pl.unit, "price": format(pl.price.expected, "f"), "efficiency": total(pl.efficiency),
             "fixed": total(pl.fixed), "rework_allowance": total(pl.rework),
             "evidence": pl.price_meta.get("evidence", ""), "owner": pl.price_meta.get("owner", ""),
             "source": pl.price_meta.get("source", ""),
             **({"source_zh": pl.price_meta["source_zh"]} if pl.price_meta.get("source_zh") else {})}
            for pl in plan.lines]


def _spend_curves(wsp, batch_id: str, st: dict) -> list[dict]:
    """Cumulative spend per plan basis with the plan total and the EAC range (report/cross.py)."""
    from trainledger.report.cross import curve_json, curves

    return [curve_json(c) for c in curves(wsp, batch_id, st)]


def money(s: str | None) -> str:
    if s is None:
        return "—"
    if is_withheld(s):  # a figure this role may not see: the word (model/restricted.py), never a number
        return str(s)
    d = Decimal(s).quantize(Decimal("0.01"), ROUND_HALF_EVEN)
    return format(d if d else abs(d), ",f")  # no "-0.00" for a part that rounds to zero


def rng(r: dict) -> str:
    if hidden := next((r[k] for k in ("expected", "low", "high") if is_withheld(r.get(k))), None):
        return str(hidden)
    return money(r["expected"]) if r["low"] == r["high"] else \
        f"{money(r['expected'])} ({money(r['low'])}–{money(r['high'])})"


def to_markdown(sec: dict[str, Any] | None, lang: str) -> list[str]:
    if sec is None:
        return []
    zh = "zh-CN" if lang.lower().startswith("zh") else "en"
    out = ["", f"## {t('sheet_section', lang)} (v{sec['plan_version']})", ""]
    out += [f"{t('rounds', lang)}: {rounds_text(sec['rounds'], lang)} · "
            f"{t('work_done', lang)}: {money(sec['work']['done'])} / {money(sec['work']['expected'])} "
            f"{t('mtoken', lang)}", ""]
    rows = []
    for k in ("plan", "ac", "ev", "eac"):
        for r in sec[k]:
            rows.append([t(k, lang), label(r["basis"], lang), rng(r), r["currency"]])
    out += _table([t("line", lang), t("basis", lang), t("expected", lang), t("currency", lang)], rows)
    out += ["", f"### {t('bridge', lang)}", ""]
    out += _table([t("basis", lang), t("currency", lang), *(t(p, lang) for p in PARTS)],
                  [[label(v["basis"], lang), v["currency"], *(money(v[p]) for p in PARTS)] for v in sec["variance"]])
    out += ["", f"_{t('rework_def', lang)}_"]
    if sec["compute_efficiency_by_state"]:
        out += ["", f"{t('by_state', lang)}: " + ", ".join(
            f"{label(k, lang)} {money(x)}" for k, x in sec["compute_efficiency_by_state"].items() if Decimal(x))]
    if sec["compute_rework_by"]:
        out += ["", f"{t('by_reason', lang)}: " + "; ".join(rework_text(sec["compute_rework_by"], lang, money))]
    for g in sec["gates"]:
        gid = _inline(g["id"])  # the plan's own name for the gate, as data
        out += ["", (t("gate_reached", lang, id=gid, frac=g["at_work"], verdict=label(g["verdict"]["action"], lang))
                     + f" ({t('verdict_note', lang)})") if g["reached"]
                else t("gate_pending", lang, id=gid, frac=g["at_work"])]
    for c in sec["curves"]:
        out += ["", f"{t('curve', lang, metric=_inline(metric_label(c['metric'], lang)), frac=c['work_fraction'])}: "
                    f"{t('plan', lang)} {c['planned']}"
                    f" / {t('actual', lang)} {c['actual'] or '—'} ({t('gap', lang)} {c['gap'] or '—'})"]
    out += ["", f"### {t('alerts', lang)}", ""]
    out += _table(["#", t("alerts", lang), t("state", lang)],
                  [[a["id"], a["text"][zh] + (f" — {a['driver'][zh]}" if (a.get("driver") or {}).get(zh) else ""),
                    t("open", lang) if a["open"] else a["retired"][zh] if a.get("retired")
                    else t("answered", lang, d=a["answered_by"])]
                   for a in sec["alerts"]]) if sec["alerts"] else [t("no_alerts", lang)]
    out += ["", f"### {t('decisions', lang)}", ""]
    out += _table(["#", t("decisions", lang), t("verdict", lang), t("override", lang), t("answers", lang),
                   t("next_review", lang), t("reason", lang)],
                  [[d["id"], label(d["action"], lang) + (f" → {d['child_batch']}" if d.get("child_batch") else ""),
                    label(d["verdict"]["action"], lang),
                    t("yes" if d["override"] else "no", lang) + (f" ({d['approver']})" if d["approver"] else ""),
                    ", ".join(str(a) for a in d["answers"]) or "—", d["next_review"], d["reason"]]
                   for d in sec["decisions"]]) if sec["decisions"] else [t("none", lang)]
    if sec["reusable_assets"]:
        out += ["", f"### {t('assets', lang)}", ""]
        out += _table([t("path", lang), t("class", lang), t("owner", lang), t("expiry", lang), t("monthly", lang)],
                      [[a["path"], storage_label(a["storage_class"], lang), a["owner"],
                        a["expiry"] or "—",
                        f"{a['monthly_cost']} {a['currency']}"] for a in sec["reusable_assets"]])
    if sec["unknowns_removed"]:
        out += ["", f"### {t('unknowns', lang)}", ""]
        out += _table([t("line", lang), t("before", lang), t("after", lang)],
                      [[u["name_zh"] if zh == "zh-CN" else u["name"],
                        f"{u['before']['expected']} ({u['before']['low']}–{u['before']['high']})"
                        f" [{label(u['before']['evidence'], lang)}]",
                        f"{u['after']['value']} [{label('measured', lang)}]"] for u in sec["unknowns_removed"]])
    return out


def html_globals(lang: str) -> dict[str, Any]:
    """Helpers the ``plan_section.html.j2`` include calls."""
    return {"pt": lambda k, **kw: t(k, lang, **kw), "pmoney": money, "prng": rng,
            "pzh": "zh-CN" if lang.lower().startswith("zh") else "en", "pv": lambda x: label(x, lang),
            "psc": lambda x: storage_label(x, lang), "pmetric": lambda x: metric_label(x, lang),
            "prework": lambda rb: rework_text(rb, lang, money)}
