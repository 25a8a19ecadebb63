"""Calibrate the overhead factor from the workspace's own finished batches.

The seed's advice: do not guess the extra-occupancy factor, take the ratio of actual to effective
training time of your team's past runs. ``overhead_from_history`` turns those ratios into the
overhead input of the estimate: with five or more batches it is their own range (min, median, max);
with fewer it widens the sourced prior to include them, centred on their median (keeping the prior's
troubled-run tail above them: a few batches need not include a troubled run). The CLI fetches
the ratios through ``trainledger.engine.history.finished_batch_ratios(workspace)`` when that hook
exists, and otherwise says in the assumptions drawer that the sourced prior was used.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from decimal import Decimal

from trainledger.errors import BadInput
from trainledger.estimate.messages import Msg
from trainledger.estimate.priors import overhead_prior
from trainledger.estimate.quantities import Uncertain
from trainledger.model.vocab import Evidence

MIN_BATCHES_ALONE = 5


def overhead_from_history(
    ratios: Sequence[Decimal | float], task: str = "pretrain", prior: Uncertain | None = None
) -> Uncertain:
    """An overhead input from actual/effective GPU-hour ratios; the prior when there are none."""
    base = prior or overhead_prior(task)
    vals = [float(r) for r in ratios]
    for i, v in enumerate(vals):
        if not math.isfinite(v) or v < 1.0:
            raise BadInput(
                f"finished batch #{i + 1}: actual/effective GPU-hour ratio {v!r} is below 1",
                remedy="a batch cannot use fewer GPU-hours than its effective training time: "
                "check its effective-hours record",
            )
    if not vals:
        return base
    med = statistics.median(vals)
    n = len(vals)
    if n >= MIN_BATCHES_ALONE:
        return Uncertain(
            base.name,
            min(vals),
            med,
            max(vals),
            unit=base.unit,
            evidence=Evidence.MEASURED,
            source=Msg("src.history_all", n=n),
        )
    high = max(base.high, max(vals))
    tail = {}
    if base.has_tail:  # a few batches need not include a troubled run: keep the prior's tail above them
        tl = max(base.tail_low, high)
        tm = max(base.tail_mode, tl)
        tail = dict(tail_p=base.tail_p, tail_low=tl, tail_mode=tm, tail_high=max(base.tail_high, tm))
    return Uncertain(
        base.name,
        min(base.low, min(vals)),
        med,
        high,
        **tail,
        unit=base.unit,
        evidence=Evidence.MEASURED,
        source=Msg(
            "src.history_widened",
            n=n,
            median=med,
            low=base.low,
            high=base.high,
            min_batches=MIN_BATCHES_ALONE,
            prior=base.source,
        ),
    )


def workspace_ratios(workspace: str | None) -> tuple[list[float], Msg]:
    """Ratios from the ledger hook if it is installed: (ratios, what happened, for the drawer)."""
    if workspace is None:
        return [], Msg("hist.no_workspace")
    try:
        from trainledger.engine.history import finished_batch_ratios  # type: ignore[import-not-found]
    except ImportError:
        return [], Msg("hist.no_hook")
    try:
        raw = [float(r) for r in finished_batch_ratios(workspace)]
    except Exception as exc:  # noqa: BLE001 - the ledger may be absent or empty; say so
        return [], Msg("hist.unreadable", workspace=workspace, error=type(exc).__name__)
    ratios = [max(r, 1.0) for r in raw if math.isfinite(r) and r >= 0.99]  # 0.99-1: rounding
    dropped = len(raw) - len(ratios)
    if not ratios:
        return [], Msg("hist.empty")
    if dropped:
        return ratios, Msg("hist.calibrated_dropped", n=len(ratios), dropped=dropped)
    return ratios, Msg("hist.calibrated", n=len(ratios))
