"""The view models of the dashboard's ledger pages: imports, one import's quarantine, alerts, a
batch's decisions, and the plan versions beside its status.

Each is a plain JSON-able dict like web/views.py's, built from the same calls the command line
makes (``imports list`` / ``imports show`` / ``quarantine``: trainledger/imports.py; ``alerts``,
``plan list``, ``decide``: review/service.py) — no second reading of the ledger. Texts stored in
both languages (an alert's ``text``) keep both; a quarantine reason is stored in English and is
given with its zh-CN beside it (``reason_zh``, i18n.localize), so the page shows the one of its
language and JSON keeps both. Sensitive fields stay ``Restricted`` (report/field_kinds.py ``quarantine_row``): a
quarantined row's raw text of a bill (its unit-price columns) is unit_price, of an invoice
vendor_amount; a quarantined or flagged row's reason and remedy, in both languages, when they quote a
unit price, a rate or an invoice's amount (``columns`` still names the column); a decision's
variance and lessons as ``access.mark_plan`` marks them.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from trainledger.errors import NotFound
from trainledger.imports import (
    FileState,
    flagged_count,
    flagged_rows,
    history_fields,
    quarantined_rows,
    resolve,
    short_id,
    states,
)
from trainledger.ingest import KIND_TABLES
from trainledger.report import field_kinds, plan_access, vendor_kinds
from trainledger.report.plan_section import labor_kinds, with_kinds
from trainledger.web.views import no_plan as no_plan_said

DECISION_ACTIONS = ("continue", "shrink", "stop", "retarget")  # as `trainledger decide --action`


def _q(s: str) -> str:
    return quote(s, safe="")


def _record(rec, state: FileState | None, lake: Any) -> dict[str, Any]:
    """One import as ``trainledger imports list --json`` gives it, plus its replacement and links."""
    ident = short_id(rec.import_key)
    drop = state.drop if state is not None else None
    out = {"id": ident, "kind": rec.kind, "file": rec.path, "sha256": rec.source_sha256,
           "imported_at": rec.imported_at.isoformat(), "status": "dropped" if rec.dropped_at else "live",
           "rows_read": rec.rows_read, "accepted": rec.accepted, "duplicates": rec.duplicates,
           "quarantined": rec.quarantined,
           "flagged": flagged_count(lake, state) if state else 0,
           "dropped_at": rec.dropped_at.isoformat() if rec.dropped_at else None, "drop_reason": rec.drop_reason,
           "replaced_by": list((drop or {}).get("replaced_by") or []),
           "href": f"/imports/{ident}/quarantine", **history_fields(state)}  # drops kept after a re-import
    out["counts_add_up"] = rec.accepted + rec.duplicates + rec.quarantined == rec.rows_read
    return out


def imports(wsp) -> dict[str, Any]:
    """Every import of the workspace, live and dropped, in the ledger's order."""
    wsp.repair_imports()
    st = states(wsp.lake)
    return {"imports": [_record(r, st.get((r.kind, r.import_key)), wsp.lake) for r in wsp.ledger.imports()]}


def _localized(row: dict[str, Any]) -> dict[str, Any]:
    from trainledger.i18n import ZH, localize
    from trainledger.report.flag_text import flags_text

    notes = row.get("notes")
    zh = (flags_text(notes, ZH, row.get("kind"), row.get("import") or "") if notes
          else localize(row.get("reason") or "", ZH))
    return {**row, "reason_zh": zh, "remedy_zh": localize(row["remedy"], ZH) if row.get("remedy") else None}


def quarantine(wsp, ident: str) -> dict[str, Any]:
    """One import: its counts, then every row it left in quarantine (file, row, line, reason in both
    languages, remedy, the raw text) and every accepted row that carries a flag."""
    wsp.repair_imports()
    try:
        rec = resolve(wsp.ledger.imports(), ident)
    except NotFound as e:
        raise NotFound(f"no import {ident!r}", remedy="see /imports (or `trainledger imports list`) for the ids") from e
    state = states(wsp.lake).get((rec.kind, rec.import_key)) or FileState(rec.kind, rec.source_sha256, (), None)
    table = KIND_TABLES.get(rec.kind)
    rows = [field_kinds.quarantine_row({k: r.get(k) for k in ("file", "row", "line", "reason", "reason_zh", "remedy",
                                                           "remedy_zh", "raw", "notes")}, table)
            for r in map(_localized, quarantined_rows(state))]
    flagged = [field_kinds.quarantine_row({k: r.get(k) for k in ("file", "row", "reason", "reason_zh", "remedy",
                                                              "remedy_zh", "notes")}, table)
               | {"href": f"/sources/{short_id(rec.source_sha256)}/{r['row']}"}
               for r in map(_localized, flagged_rows(wsp.lake, state))]
    return {"import": _record(rec, state, wsp.lake), "quarantine_file": rec.quarantine_file, "quarantined_rows": rows,
            "flagged_rows": flagged, "imports_href": "/imports"}


def alerts(wsp, batch_id: str | None = None) -> dict[str, Any]:
    """Every alert (``trainledger alerts --json``), open and closed, with the decision that closed
    each and links to it; ``batch_id``: one batch's."""
    from trainledger.review import service

    if batch_id is not None:
        _require_batch(wsp, batch_id)
    rows = []
    kinds: dict[str, dict[int, str]] = {}
    invoiced = vendor_kinds.groups_of(wsp)  # each alert on a group an invoice is part of: vendor_amount
    for a in service.alerts(wsp, batch_id):
        b = _q(a["batch"])
        if a["batch"] not in kinds:
            kinds[a["batch"]] = labor_kinds(wsp, a["batch"])
        rows.append({**with_kinds([a], kinds[a["batch"]], _latest(kinds[a["batch"]]))[0],
                     "invoiced": vendor_kinds.alert_invoiced(a, invoiced.get(a["batch"], [])),
                     "batch_href": f"/batches/{b}",
                     "decision_href": f"/batches/{b}/decisions#decision-{a['answered_by']}"
                     if a["answered_by"] is not None else None})
    return plan_access.mark_plan({"batch": batch_id, "alerts": rows, "open": sum(1 for a in rows if a["open"]),
                             "closed": sum(1 for a in rows if not a["open"])})


def _latest(kinds: dict[int, str]) -> str | None:
    return kinds[max(kinds)] if kinds else None


def version_kinds(wsp, batch_id: str, page: dict[str, Any]) -> dict[str, Any]:
    """The status page (web/views.py ``plan_status``) with each alert, decision and plan version
    naming the ``labor_kind`` of the plan version it quotes (``plan_section.with_kinds``): an older
    version of one labor role keeps its figures restricted though the latest plan has several."""
    st = page.get("status") if isinstance(page.get("status"), dict) else {}
    kinds = labor_kinds(wsp, batch_id, {st["plan_version"]: st["labor_kind"]} if st.get("labor_kind") else None)
    latest = _latest(kinds)
    out = dict(page)
    if isinstance(out.get("status"), dict) and out["status"].get("alerts"):
        out["status"] = {**out["status"], "alerts": with_kinds(out["status"]["alerts"], kinds, latest)}
    for k in ("decisions", "plans"):
        if out.get(k):
            out[k] = with_kinds(out[k], kinds, latest)
    return out


def _require_batch(wsp, batch_id: str) -> None:
    if batch_id not in {b.id for b in wsp.ledger.list_batches()}:
        raise NotFound(f"no batch {batch_id!r}", remedy="see /batches (or `trainledger batch list`) for the ids")


def decisions(wsp, batch_id: str) -> dict[str, Any]:
    """The batch's decisions (``review/service.py decisions``), oldest first, each with the alerts
    it closed, and a retarget's child batch with the plan version its figures came from; and what
    the forms need: the open alerts, the actions, the batches a retarget may open (``children``:
    every other batch, with its latest plan version or None)."""
    from trainledger.review import service

    _require_batch(wsp, batch_id)
    b = _q(batch_id)
    kinds = labor_kinds(wsp, batch_id)
    latest = _latest(kinds)
    by_id = {a["id"]: a for a in with_kinds(service.alerts(wsp, batch_id), kinds, latest)}
    rows = []
    for d in with_kinds(service.decisions(wsp, batch_id), kinds, latest):
        closed = [{"id": i, "text": (by_id.get(i) or {}).get("text"), "key": (by_id.get(i) or {}).get("key"),
                   "labor_kind": (by_id.get(i) or {}).get("labor_kind", "labor_cost_person"),
                   "href": f"/alerts?batch={b}#alert-{i}"} for i in d.get("answers") or []]
        rows.append({**d, "closes": closed, "child": _child_of(d)})
    try:
        plan_version = service.latest_plan(wsp, batch_id)[1].version
        no_plan = None
    except NotFound as e:
        plan_version, no_plan = None, no_plan_said(e)
    out = {"batch": batch_id, "batch_href": f"/batches/{b}", "status_href": f"/batches/{b}/status",
           # the groups an invoice is part of: a decision's sunk cost and cost to go, an alert's text
           "vendor_groups": vendor_kinds.groups_of(wsp).get(batch_id, []),
           "decisions": rows, "plan_version": plan_version, "no_plan": no_plan,
           "open_alerts": [{"id": a["id"], "text": a["text"], "kind": a["kind"], "key": a["key"],
                            "labor_kind": a["labor_kind"]} for a in by_id.values() if a["open"]],
           "actions": list(DECISION_ACTIONS),
           "children": _children(wsp, batch_id), "post": f"/batches/{b}/decisions"}
    return plan_access.mark_plan(json.loads(json.dumps(out, default=str)))


def _child_of(d: dict[str, Any]) -> dict[str, Any] | None:
    """A retarget's child batch, its links, and the plan version its cost to go was read from (None:
    the child had no plan yet, the figures are continue's)."""
    child = d.get("child_batch")
    if not child:
        return None
    came = next((o.get("estimated_from") or {} for o in d.get("options") or [] if o.get("action") == "retarget"), {})
    c = _q(child)
    return {"batch": child, "href": f"/batches/{c}", "status_href": f"/batches/{c}/status",
            "plan_version": came.get("plan_version") if came.get("kind") == "child_plan" else None}


def _children(wsp, batch_id: str) -> list[dict[str, Any]]:
    """The batches a retarget of ``batch_id`` may name (``decide --child``), each with its latest plan version."""
    from trainledger.ledger import review_repo as repo

    latest: dict[str, int] = {}
    for r in repo.plan_versions(wsp.ledger):
        latest[r["batch_id"]] = max(latest.get(r["batch_id"], 0), int(r["body"]["version"]))
    return [{"batch": b.id, "plan_version": latest.get(b.id)} for b in wsp.ledger.list_batches() if b.id != batch_id]


def plan_versions(wsp, batch_id: str) -> list[dict[str, Any]]:
    """The batch's plan baselines (``trainledger plan list``), each with its totals per basis."""
    from trainledger.review import service

    return service.plans(wsp, batch_id)
