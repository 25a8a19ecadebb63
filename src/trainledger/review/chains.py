"""Which compute cost of a retry chain is the failure's, and of which kind (the bridge's rework part).

A retry chain is a failed attempt and the runs that retry it (``retry_of``, engine/causes.py). In
the variance bridge its runs are not rework whole. What the failure cost is:

* of each **failed attempt**: the time the batch did not keep — its ``lost_progress`` (steps after
  its last checkpoint, redone), its ``hang``, whatever came after its last step — and, when it kept
  no progress at all (no ``effective`` time: it failed before any checkpoint), all of it;
* of each **rerun**: its way back, ``setup`` or ``preemption_recovery`` (start → first step).

The rest is the batch's ordinary work and counts by its state: the rerun's new training is
``effective`` (its tokens are useful work, ``actuals.useful_work``), and so is the failed attempt's
training up to the checkpoint the rerun resumed from — its tokens are useful work too, so counting
its GPU-hours as failure would make the efficiency part look better than it was by as much.
Money-only lines (credit, adjustment, tax: no GPU-hours) stay by state. The rule is
engine/causes.is_failure, which engine/causes.chain_cost (the sheet's "what did the failure cost")
applies too: the sheet's failure and the bridge's are one figure.

The failure's key is (the rerun's reason, the chain's cause) — the plan's rework allowance is by
reason — and its kind is the review class engine/causes.explain gives the failed attempt:
``unforeseeable_fault`` for an infra fault, ``avoidable_rework`` for a config error, a data problem,
or a cause repeated with no change of data, code or config version; ``needs_review`` without one.
Only chains that continue a first-pass counter are split so: a rerun whose work the batch does not
count (a data-fix rerun of its own counter, an evaluation rerun) stays rework whole.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from trainledger.engine.causes import KEPT_STATES, MONEY_ONLY, PROGRESS_STATES, is_failure
from trainledger.engine.timeline import FAILED_STATES
from trainledger.model import FailureCause, Run
from trainledger.model.batch import SUGGESTED_REVIEW_CLASS

__all__ = ["KEPT_STATES", "MONEY_ONLY", "PROGRESS_STATES", "Role", "roles"]
NEEDS_REVIEW = "needs_review"


@dataclass(frozen=True)
class Role:
    """A run's part in a retry chain: the failure's key and kind, and what the run was."""

    key: tuple[str, str]  # (the rerun's reason, the chain's cause)
    review_class: str
    failed: bool  # a failed attempt of the chain (retried, or the chain's last and failed)
    rerun: bool  # it retries an attempt: its setup / preemption recovery is the failure's

    def failure(self, state: str, kept: bool) -> bool:
        """Whether this run's time in ``state`` is the failure's (``kept``: the run kept progress)."""
        return is_failure(state, failed=self.failed, rerun=self.rerun, kept=kept)


def failed(run: Run) -> bool:
    return run.state.split(" ")[0].upper() in FAILED_STATES


def cause_of(run: Run, explained: Mapping[str, Mapping]) -> str | None:
    return (explained.get(run.id) or {}).get("cause") or (str(run.cause) if run.cause else None)


def review_class(run: Run, cause: str, explained: Mapping[str, Mapping]) -> str:
    cls = (explained.get(run.id) or {}).get("review_class")
    if cls:
        return str(cls)
    try:
        suggested = SUGGESTED_REVIEW_CLASS.get(FailureCause(cause))
    except ValueError:
        suggested = None
    return str(suggested) if suggested else NEEDS_REVIEW


def roles(runs: list[Run], retry_of: Mapping[str, str], explained: Mapping[str, Mapping],
          counted: set[str]) -> dict[str, Role]:
    """Run id → its ``Role`` for the runs of retry chains within ``counted`` (runs on a first-pass
    counter, whose work the batch counts). ``explained``: engine/causes.explain per run (cause,
    review class); without it the run's own cause and its suggested class."""
    by_id = {r.id: r for r in runs}
    retries: dict[str, list[Run]] = {}
    for r in sorted(runs, key=lambda r: r.id):
        prev = by_id.get(retry_of.get(r.id, ""))
        if prev is not None and r.id in counted and prev.id in counted:
            retries.setdefault(prev.id, []).append(r)
    out: dict[str, Role] = {}
    for r in runs:
        prev = by_id.get(retry_of.get(r.id, "")) if r.id in counted else None
        prev = prev if prev is not None and prev.id in counted else None
        if r.id in retries and failed(r):  # a failed attempt: the key its (first) rerun gives
            head, rerun = r, retries[r.id][0]
        elif prev is not None:  # a rerun: the key of the attempt it retries
            head, rerun = prev, r
        else:
            continue
        cause = cause_of(head, explained) or cause_of(rerun, explained) or "none"
        cls = review_class(head if failed(head) else rerun, cause, explained)
        out[r.id] = Role((str(rerun.reason), cause), cls, failed=failed(r), rerun=prev is not None)
    return out
