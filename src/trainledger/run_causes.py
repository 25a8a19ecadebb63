"""Failure causes of runs, confirmed by a person: recorded in the ledger's audit chain.

``confirm(wsp, run_id, cause, by, note)`` appends a ``confirm_cause`` entry (the engine's
``causes.CONFIRM_ACTION``) naming the run, the cause, who confirmed it and what was shown before;
``explained(wsp)`` lists every run's cause with its evidence, confirmations applied. No table of
its own: the audit chain is the record, so a confirmation is tamper-evident like every entry.
``review_key(run, explained_entry)`` is the one rule for the review class a run is shown under (the
sheet, ``review`` and ``runs list`` all call it).
"""

from __future__ import annotations

from trainledger.engine.causes import CONFIRM_ACTION, RunFacts, confirmations_from_audit, explain
from trainledger.engine.timeline import FAILED_STATES
from trainledger.errors import BadInput, NotFound
from trainledger.model import FailureCause, ReviewClass


def review_key(r, ex: dict | None = None) -> str:
    """The review class a run is shown under until a review sets one — the one rule the sheet,
    ``review`` and ``runs list`` share. The cause decides — recorded, confirmed or suggested
    (engine/causes.py; a goal change waits for a human); without one, a run that failed waits for
    review, parameter tuning is exploration, a planned experiment is planned, and anything else waits
    for review. ``ex``: the run's entry of ``explained`` (None: the run's own fields only)."""
    if r.review_class is not None:
        return str(r.review_class)
    if ex and ex.get("review_class"):
        return ex["review_class"]
    cls = r.suggested_review_class if not ex else None
    if cls is not None:
        return str(cls)
    if r.cause is not None or (ex or {}).get("cause") or r.state.split(" ")[0].upper() in FAILED_STATES:
        return "needs_review"
    return {"planned_experiment": "planned",
            "param_tuning": ReviewClass.REASONABLE_EXPLORATION.value}.get(str(r.reason), "needs_review")


def explained(wsp) -> dict[str, dict]:
    """Every run of the latest attribution, by run id: cause, evidence, source, review class."""
    latest = wsp.ledger.latest_attribution()
    if not latest:
        raise NotFound("no attribution yet", remedy="run `trainledger attribute` first")
    from trainledger.engine.summary_runs import facts_rows

    facts = [RunFacts.from_dict(d) for d in facts_rows(latest["summary"])]
    out = explain(facts, confirmations_from_audit(wsp.ledger.audit_log()))
    batch = {f.run_id: f.batch_id for f in facts}
    state = {f.run_id: f.state for f in facts}
    return {k: e.as_dict() | {"batch_id": batch[k], "state": state[k]} for k, e in out.items()}


def confirm(wsp, run_id: str, cause: str, by: str, note: str = "", *, via: dict | None = None) -> dict:
    """Record that ``by`` confirms (or overrides) the failure cause of ``run_id``. ``via``: how the
    dashboard authenticated ``by`` (role, token), kept in the entry."""
    try:
        cause = FailureCause(cause.strip()).value
    except ValueError:
        raise BadInput(f"unknown failure cause {cause!r}",
                       remedy=f"use one of {', '.join(c.value for c in FailureCause)}") from None
    if not by.strip():
        raise BadInput("a confirmation needs the name of who confirms it", remedy="pass --by NAME")
    runs = explained(wsp)
    if run_id not in runs:
        raise NotFound(f"no run {run_id!r} in the latest attribution",
                       remedy="see `trainledger runs list` for run ids")
    before = runs[run_id]
    detail = {"run": run_id, "cause": cause, "by": by.strip(), "note": note.strip(),
              "previous": {"cause": before["cause"], "evidence": before["cause_evidence"],
                           "source": before["cause_source"]}} | ({"via": via} if via else {})
    wsp.ledger.audit(by.strip(), CONFIRM_ACTION, f"run:{run_id}", detail)
    return explained(wsp)[run_id]
