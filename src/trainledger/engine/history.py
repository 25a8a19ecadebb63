"""The ledger's own history, for calibrating the estimator's overhead factor.

The overhead factor of a finished batch is its allocated GPU-hours (every compute state that
held a GPU) divided by its effective GPU-hours. Queued time is excluded: it holds no GPU.
``service.finished_batch_ratios`` opens a workspace and hands its ledger to ``ledger_ratios``:
the engine never opens a workspace itself.
"""

from __future__ import annotations

from typing import Any

from trainledger.model import ComputeState

# every state in which a GPU was allocated to the run: all but waiting for one, and unused reservations
HELD_STATES = frozenset(s.value for s in ComputeState) - {ComputeState.QUEUED, ComputeState.RESERVED_UNUSED}
ACTIVE = frozenset({"RUNNING", "PENDING", "REQUEUED", "RESIZING", "SUSPENDED"})


def batch_ratios(summary: dict, runs_by_batch: dict[str, list]) -> dict[str, float]:
    from trainledger.engine.summary_runs import hours_of

    hours = hours_of(summary)
    out: dict[str, float] = {}
    for batch_id, runs in runs_by_batch.items():
        if not runs or any(r.state.upper() in ACTIVE for r in runs):
            continue
        held = eff = 0.0
        for r in runs:
            states = hours.get(r.id, {})
            held += sum(float(v) for k, v in states.items() if k in HELD_STATES)  # str (exact) or float
            eff += float(states.get("effective", 0.0))
        if eff > 0:
            out[batch_id] = held / eff
    return out


def ledger_ratios(ledger: Any) -> list[float]:
    """Held/effective GPU-hour ratios of the finished batches of ``ledger`` (its latest
    attribution and its runs; empty when none)."""
    latest = ledger.latest_attribution()
    if not latest:
        return []
    runs_by_batch: dict[str, list] = {}
    for r in ledger.runs():
        runs_by_batch.setdefault(r.batch_id, []).append(r)
    return sorted(batch_ratios(latest["summary"], runs_by_batch).values())
