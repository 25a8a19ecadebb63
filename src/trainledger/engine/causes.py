"""Reruns explained: a failure cause on the failed attempt itself, retry chains, repeated causes.

``explain(facts, confirmations)`` works on plain run records (``RunFacts``, kept in the
attribution summary), so the sheet can apply a confirmation recorded after the attribution:

1. a cause *confirmed* by a person (``trainledger runs confirm``, in the audit chain) wins;
2. else the cause the job recorded itself (a ``cause=`` tag in its Comment) — ``measured`` — except
   that on a failed attempt ``exploration`` says why it ran, not why it failed: 3 and 4 come first;
3. else, for a failed attempt, the cause its retry names (the retry's ``cause`` tag says why it
   had to run) — ``assumed``;
4. else the cause its scheduler state suggests (``STATE_CAUSE``: NODE_FAIL, PREEMPTED, BOOT_FAIL →
   infra_fault; OUT_OF_MEMORY → config_error) — ``assumed``; other failures wait for review;
5. a retry that did not fail and records no cause (a Slurm requeue: engine/runs.py chains the
   allocations of one JobID) takes the cause of the attempt it retries — ``assumed``.

Where each cause came from (``cause_source``) and a review note are catalogue messages
(``Msg("cause.…")``, i18n/texts_causes.py): their English is the text stored and printed in JSON
as before, ``as_dict`` adds their ids beside them, and the sheet adds their zh-CN
(``cause_source_zh``, ``review_note_zh``) for the pages in Chinese.

The *state* (NODE_FAIL…) is measured: the scheduler recorded it. Review class: the cause's
suggestion (``model.batch.SUGGESTED_REVIEW_CLASS``), except that the same cause failing again in a
batch with no change of data, code or config version (run tags ``data_version``, ``code_version``,
``config_version``; the batch's own when absent) is ``avoidable_rework`` from its second occurrence on
— for a cause the team controls (config error, data quality, exploration; not an infra fault, which
no version change avoids, nor a goal change: ``NOT_REPEATED``) (the seed: 同类错误重复出现且没有改进动作 → 可避免返工).

What a retry chain cost (``chain_cost``; the review's bridge uses the same rule, ``is_failure``):
the **failure** is what the failure destroyed — of each failed attempt the time the batch did not
keep: its ``lost_progress`` (steps after its last checkpoint, redone), its ``hang``, whatever came
after its last step, and all of it when it kept no progress (no ``effective`` time) — plus the
rerun's way back, its ``setup`` or ``preemption_recovery`` (start → first step; shown on its own as
the **recovery**, part of the failure). The failed attempt's training up to the checkpoint the rerun
resumed from is **kept** (its tokens are useful work), and its money-only lines (SLA credit,
adjustment, tax) are **other**: failure + kept + other is what the chain's attempts cost. Never the
rerun's own effective training, which the batch needed anyway. A rerun with no progress log has no
measured recovery (``unclassified``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal

from trainledger.engine.timeline import FAILED_STATES as FAILED
from trainledger.i18n import Msg, Term
from trainledger.model import FailureCause, ReviewClass
from trainledger.model.batch import SUGGESTED_REVIEW_CLASS
from trainledger.model.vocab import ComputeState

STATE_CAUSE: dict[str, FailureCause] = {
    "NODE_FAIL": FailureCause.INFRA_FAULT,
    "PREEMPTED": FailureCause.INFRA_FAULT,
    "BOOT_FAIL": FailureCause.INFRA_FAULT,
    "OUT_OF_MEMORY": FailureCause.CONFIG_ERROR,
}
VERSION_TAGS = ("data_version", "code_version", "config_version")
# causes a version change could not have avoided: a node failure or a preemption after another one is
# still an unforeseeable fault (review 6 K1), and a goal change is a decision, not a repeated error
NOT_REPEATED = frozenset((FailureCause.INFRA_FAULT, FailureCause.GOAL_CHANGE))
CONFIRM_ACTION = "confirm_cause"  # the audit-chain action a confirmation is recorded under
RECOVERY_STATES = (str(ComputeState.SETUP), str(ComputeState.PREEMPTION_RECOVERY))  # a rerun's way back


def _fields_of(obj) -> dict:
    """A flat dataclass's fields as a dict, in field order: ``dataclasses.asdict`` without its deep
    copy (every value here is a str, None, a tuple of str or an immutable ``Msg``), which at 1M job
    attempts was ~12 % of ``attribute`` (two per run, for the summary)."""
    return {name: getattr(obj, name) for name in _FIELDS.get(type(obj)) or _names(type(obj))}


_FIELDS: dict[type, tuple[str, ...]] = {}


def _names(cls: type) -> tuple[str, ...]:
    _FIELDS[cls] = tuple(f.name for f in fields(cls))
    return _FIELDS[cls]


@dataclass(frozen=True, slots=True)  # one per job attempt: no instance dict (a million of them, H12)
class RunFacts:
    """What explaining a run needs, as the engine saw it (JSON-safe)."""

    run_id: str
    batch_id: str | None
    job: str
    state: str  # the scheduler's final state, first word (``CANCELLED by 1004`` → CANCELLED)
    order: str  # start (or submit) time, ISO text: the order attempts happened in
    tag_cause: str | None = None
    retry_of: str | None = None  # run id of the attempt this one retries
    versions: tuple[str, str, str] = ("", "", "")

    @property
    def failed(self) -> bool:
        return self.state in FAILED

    def as_dict(self) -> dict:
        return _fields_of(self) | {"versions": list(self.versions)}

    @classmethod
    def from_dict(cls, d: Mapping) -> RunFacts:
        return cls(**{**d, "versions": tuple(d.get("versions") or ("", "", ""))})


@dataclass(frozen=True, slots=True)
class Explained:
    run_id: str
    cause: str | None
    cause_evidence: str | None  # measured (recorded/confirmed) | assumed (suggested) | None
    cause_source: str  # a Msg of the ``cause`` namespace (its English; ``.text(lang)``), "" for none
    review_class: str | None  # None: needs a human (no cause, or a goal change)
    review_note: str = ""  # a Msg too when there is one
    retry_of: str | None = None
    state_evidence: str = "measured"

    def as_dict(self) -> dict:
        """The fields, and beside the two sentences their catalogue ids (``cause.…``, i18n/texts_causes.py;
        None for no sentence): the sentences stay ``Msg`` — English as stored, any language on demand."""
        return _fields_of(self) | {"cause_source_id": getattr(self.cause_source, "key", None),
                               "review_note_id": getattr(self.review_note, "key", None)}


def _cause(f: RunFacts, retried_by: Mapping[str, list[RunFacts]], confirmed: Mapping[str, Mapping]):
    c = confirmed.get(f.run_id)
    if c:
        return c["cause"], "measured", (Msg("cause.confirmed_note", by=c["by"], note=c["note"]) if c.get("note")
                                        else Msg("cause.confirmed", by=c["by"]))
    recorded = (f.tag_cause, "measured", Msg("cause.recorded"))
    if f.tag_cause and (not f.failed or f.tag_cause != FailureCause.EXPLORATION):
        return recorded
    if not f.failed:
        return None, None, ""
    # a failed sweep run's tag says why it ran (exploration); what made it fail may be another matter
    for retry in retried_by.get(f.run_id, ()):
        cause = (confirmed.get(retry.run_id) or {}).get("cause") or retry.tag_cause
        if cause:
            return cause, "assumed", Msg("cause.retry_names", retry=retry.run_id)
    if f.state in STATE_CAUSE:
        return str(STATE_CAUSE[f.state]), "assumed", Msg("cause.scheduler_state", state=f.state)
    if f.tag_cause:
        return recorded
    return None, None, Msg("cause.needs_review", state=f.state)


def explain(facts: Iterable[RunFacts], confirmations: Mapping[str, Mapping] | None = None) -> dict[str, Explained]:
    """Cause, its evidence and the review class of every run, by run id."""
    facts = sorted(facts, key=lambda f: (f.order, f.run_id))
    confirmed = confirmations or {}
    retried_by: dict[str, list[RunFacts]] = {}
    for f in facts:
        if f.retry_of:
            retried_by.setdefault(f.retry_of, []).append(f)
    seen: dict[tuple, str] = {}  # (batch, cause, versions) → first failed run with it
    out: dict[str, Explained] = {}
    by_id = {f.run_id: f for f in facts}
    for f in facts:
        cause, evidence, source = _cause(f, retried_by, confirmed)
        first = by_id.get(f.retry_of or "")
        if cause is None and not f.failed and first is not None and first.failed and first.run_id in out:
            # a retry that says nothing of its own (a Slurm requeue): it ran because its attempt failed
            cause = out[first.run_id].cause
            evidence, source = ("assumed", Msg("cause.retries", first=first.run_id, state=first.state)
                                ) if cause else (None, "")
        cls = SUGGESTED_REVIEW_CLASS.get(FailureCause(cause)) if cause else None
        note = ""
        if cause and f.failed and cause not in NOT_REPEATED:
            key = (f.batch_id, cause, f.versions)
            first = seen.setdefault(key, f.run_id)
            if first != f.run_id:
                cls, note = ReviewClass.AVOIDABLE_REWORK, Msg("cause.repeats", first=first, cause=Term(cause))
        out[f.run_id] = Explained(f.run_id, cause, evidence, source, str(cls) if cls else None, note, f.retry_of)
    return out


def confirmations_from_audit(entries: Iterable[Mapping]) -> dict[str, dict]:
    """The latest confirmation per run from the audit chain's ``confirm_cause`` entries."""
    out: dict[str, dict] = {}
    for e in entries:
        if e.get("action") == CONFIRM_ACTION:
            d = e.get("detail") or {}
            if d.get("run") and d.get("cause"):
                out[str(d["run"])] = {"cause": d["cause"], "by": d.get("by", e.get("actor", "")),
                                      "note": d.get("note", "")}
    return out


# a failed attempt's states before its last checkpoint: work the batch kept (when it kept any)
KEPT_STATES = frozenset(str(s) for s in (ComputeState.SETUP, ComputeState.EFFECTIVE, ComputeState.STRAGGLER_WAIT,
                                         ComputeState.CHECKPOINT, ComputeState.DATA_STALL))
PROGRESS_STATES = frozenset((str(ComputeState.EFFECTIVE), str(ComputeState.STRAGGLER_WAIT)))  # time that made progress
MONEY_ONLY = frozenset(("credit", "adjustment", "tax", "prior_period_correction"))  # money, no hours (compute)


def is_failure(state: str, *, failed: bool, rerun: bool, kept: bool) -> bool:
    """Whether a chain attempt's time in ``state`` is the failure's: a rerun's ``RECOVERY_STATES``; a
    failed attempt's time the batch did not keep (all of it when it ``kept`` no progress). Money-only
    lines never (they stay by state)."""
    if state in MONEY_ONLY:
        return False
    if rerun and state in RECOVERY_STATES:
        return True
    return failed and not (kept and state in KEPT_STATES)


@dataclass(frozen=True)
class ChainCost:
    """A retry chain's cost, each {key: Decimal}: ``failure`` (what the failure destroyed, with the
    rerun's ``recovery`` inside it), ``kept`` (the failed attempts' work kept by the checkpoint) and
    ``other`` (their money-only lines); failure + kept + other = the attempts' cost in the row."""

    failure: dict
    recovery: dict
    kept: dict
    other: dict


def chain_cost(chain: Sequence[str], failed: set[str], by_state: Mapping[str, Mapping[str, Mapping]],
               kept: set[str] = frozenset()) -> ChainCost:
    """``ChainCost`` of a retry chain (attempt ids in order) with the keys of ``by_state`` (run →
    compute state → {key, e.g. (basis, currency): amount}). Every attempt but the last is a failed
    attempt, and the last too when it failed (``failed``); every attempt but the first is a rerun.
    ``kept``: the attempts whose time made progress (``PROGRESS_STATES`` hours > 0)."""
    out = {k: defaultdict(Decimal) for k in ("failure", "recovery", "kept", "other")}
    for i, run in enumerate(chain):
        is_failed, rerun = i < len(chain) - 1 or run in failed, i > 0
        for state, money in by_state.get(run, {}).items():
            if is_failure(state, failed=is_failed, rerun=rerun, kept=run in kept):
                parts = ("failure", "recovery") if rerun and state in RECOVERY_STATES else ("failure",)
            elif is_failed:
                parts = ("other",) if state in MONEY_ONLY else ("kept",)
            else:
                continue
            for part in parts:
                for key, amount in money.items():
                    out[part][key] += amount
    return ChainCost(**{k: dict(v) for k, v in out.items()})
