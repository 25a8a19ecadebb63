"""Ledger access for plan / execution / review: plan versions, alerts and decision records.

Functions over a ``Ledger`` (kept apart from ``repo.py`` so that file's API stays as it is). Each
write takes the ledger's write lock, changes rows and appends its audit entry in one transaction;
the audit entry carries the sha256 of the row's canonical body, so ``verify_records`` can say
when a stored plan, alert or decision was edited after it was written. Nothing here updates or
deletes a row: a plan version, an alert and a decision are written once.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import func, insert, select

from trainledger.errors import BadInput
from trainledger.ledger import audit as chain
from trainledger.ledger.repo import Ledger
from trainledger.ledger.rows import vocab
from trainledger.ledger.schema import alerts, audit_log, decision_records, decisions, plans
from trainledger.model import DecisionKind


def body_hash(body: Any) -> str:
    """sha256 of a body's canonical JSON (as the database gives it back)."""
    return hashlib.sha256(chain.canonical(chain.jsonable(body)).encode("utf-8")).hexdigest()


def add_plan_version(ledger: Ledger, batch_id: str, body: dict) -> tuple[int, int]:
    """Store ``body`` as the next plan version of ``batch_id``; returns (plan id, version).

    The version number is counted under the write lock, so two writers never make the same one."""
    with ledger._write() as conn:
        ledger._require_batches(conn, [batch_id], "plan")
        n = conn.scalar(select(func.count()).select_from(plans).where(
            plans.c.batch_id == batch_id, plans.c.stage == "plan")) or 0
        version = n + 1
        stored = chain.jsonable({**body, "version": version})
        plan_id = conn.execute(insert(plans).values(
            batch_id=batch_id, stage="plan", created_at=datetime.now(UTC), body=stored,
        )).inserted_primary_key[0]
        ledger._append(conn, stored.get("author", ""), "plan_version", f"batch:{batch_id}",
                       {"plan_id": plan_id, "version": version, "reason": stored.get("reason", ""),
                        "body_sha256": body_hash(stored)})
    return plan_id, version


def plan_versions(ledger: Ledger, batch_id: str | None = None) -> list[dict]:
    """Plan rows (stage ``plan``), oldest first; each with ``id``, ``batch_id``, ``created_at``, ``body``."""
    q = select(plans).where(plans.c.stage == "plan").order_by(plans.c.batch_id, plans.c.id)
    if batch_id is not None:
        q = q.where(plans.c.batch_id == batch_id)
    with ledger._read() as conn:
        if batch_id is not None:
            ledger._require_batches(conn, [batch_id], "plan")
        return [dict(m) for m in conn.execute(q).mappings().all()]


def add_alerts(ledger: Ledger, batch_id: str, plan_id: int, items: list[dict]) -> list[int]:
    """Store the alerts whose ``key`` this plan version has not raised yet; returns the new ids."""
    new: list[int] = []
    if not items:
        return new
    with ledger._write() as conn:
        seen = set(conn.scalars(select(alerts.c.key).where(alerts.c.plan_id == plan_id)))
        for item in items:
            if item["key"] in seen:
                continue
            seen.add(item["key"])
            body = chain.jsonable(item)
            alert_id = conn.execute(insert(alerts).values(
                batch_id=batch_id, plan_id=plan_id, key=item["key"], kind=item["kind"],
                created_at=datetime.now(UTC), body=body)).inserted_primary_key[0]
            ledger._append(conn, "", "raise_alert", f"batch:{batch_id}",
                           {"alert_id": alert_id, "key": item["key"], "body_sha256": body_hash(body)})
            new.append(alert_id)
    return new


def alert_rows(ledger: Ledger, batch_id: str | None = None) -> list[dict]:
    q = select(alerts).order_by(alerts.c.id)
    if batch_id is not None:
        q = q.where(alerts.c.batch_id == batch_id)
    with ledger._read() as conn:
        return [dict(m) for m in conn.execute(q).mappings().all()]


def add_decision_record(ledger: Ledger, batch_id: str, *, kind: str, rationale: str, author: str,
                        reusable_assets: list, unknowns_removed: list, next_to_verify: list,
                        body: dict) -> int:
    """One decision: a ``decisions`` row and its ``decision_records`` body, audited together.

    Every alert id in ``body['answers']`` must belong to the batch and be open (answered by no
    earlier decision), else nothing is written."""
    row = {"batch_id": batch_id, "kind": vocab(DecisionKind, kind, "decision kind"),
           "created_at": datetime.now(UTC), "rationale": rationale,
           "reusable_assets": chain.jsonable(reusable_assets),
           "unknowns_removed": chain.jsonable(unknowns_removed),
           "next_to_verify": chain.jsonable(next_to_verify), "author": author}
    stored = chain.jsonable(body)
    with ledger._write() as conn:
        ledger._require_batches(conn, [batch_id], "decide")
        own = {r.id for r in conn.execute(select(alerts.c.id).where(alerts.c.batch_id == batch_id))}
        answered: set[int] = set()
        for b in conn.scalars(select(decision_records.c.body)):
            answered.update(int(a) for a in (b or {}).get("answers", []))
        for a in stored.get("answers", []):
            if int(a) not in own:
                raise BadInput(f"decide {batch_id}: alert {a} is not an alert of this batch",
                               remedy="list the batch's alerts with `trainledger alerts --open`")
            if int(a) in answered:
                raise BadInput(f"decide {batch_id}: alert {a} is already answered by an earlier decision",
                               remedy="answer only open alerts (`trainledger alerts --open`)")
        decision_id = conn.execute(insert(decisions).values(row)).inserted_primary_key[0]
        conn.execute(insert(decision_records).values(decision_id=decision_id, batch_id=batch_id,
                                                     body=stored))
        ledger._append(conn, author, "decide", f"batch:{batch_id}",
                       {"decision_id": decision_id, "kind": row["kind"], "answers": stored.get("answers", []),
                        "body_sha256": body_hash(stored),
                        "row_sha256": body_hash({k: v for k, v in row.items() if k != "created_at"})})
    return decision_id


def decision_rows(ledger: Ledger, batch_id: str | None = None) -> list[dict]:
    """Decisions joined with their records (``body``), oldest first."""
    q = (select(decisions, decision_records.c.body)
         .join(decision_records, decision_records.c.decision_id == decisions.c.id)
         .order_by(decisions.c.id))
    if batch_id is not None:
        q = q.where(decisions.c.batch_id == batch_id)
    with ledger._read() as conn:
        return [dict(m) for m in conn.execute(q).mappings().all()]


def verify_records(ledger: Ledger) -> list[str]:
    """Plan versions, alerts and decision records whose stored body no longer matches the hash its
    audit entry recorded (or that have no audit entry): each is named."""
    with ledger._read() as conn:
        entries = conn.execute(select(audit_log.c.action, audit_log.c.detail).where(
            audit_log.c.action.in_(("plan_version", "raise_alert", "decide")))).all()
        want: dict[tuple[str, int], str] = {}
        for action, detail in entries:
            ident = {"plan_version": "plan_id", "raise_alert": "alert_id", "decide": "decision_id"}[action]
            want[(action, int(detail[ident]))] = detail["body_sha256"]
        have = [("plan_version", r.id, r.body, f"plan {r.id} of batch {r.batch_id}") for r in
                conn.execute(select(plans).where(plans.c.stage == "plan"))]
        have += [("raise_alert", r.id, r.body, f"alert {r.id} of batch {r.batch_id}") for r in
                 conn.execute(select(alerts))]
        have += [("decide", r.decision_id, r.body, f"decision {r.decision_id} of batch {r.batch_id}") for r in
                 conn.execute(select(decision_records))]
    problems = []
    for action, ident, body, what in have:
        expected = want.get((action, ident))
        if expected is None:
            problems.append(f"{what}: no audit entry records it (written outside trainledger)")
        elif body_hash(body) != expected:
            problems.append(f"{what}: stored content does not match the hash in its audit entry (edited)")
    return problems
