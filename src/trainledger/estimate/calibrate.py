"""Calibrate the overhead factor from the workspace's own finished batches.

The seed's advice: do not guess the extra-occupancy factor, take the ratio of actual to effective
training time of your team's past runs. ``overhead_from_history`` turns those ratios into the
overhead input of the estimate: with five or more batches it is their own range (min, median, max);
with fewer it widens the sourced prior to include them, centred on their median (keeping the prior's
troubled-run tail above them: a few batches need not include a troubled run).

``workspace_ratios`` reads those ratios from the ledger (``service.finished_batch_ratios``) of the
workspace the CLI names, and says for the notes and the assumptions drawer what happened: a
directory without ``trainledger.toml`` (the CLI's default ``.`` outside a workspace) is no workspace
and the sourced prior is used; a workspace whose ledger cannot be read (a ``TrainledgerError``
such as a broken config) also falls back to the prior, but with a warning naming the error; any
other exception is a bug and is raised.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path
from typing import NamedTuple

from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.estimate.messages import Msg
from trainledger.estimate.priors import overhead_prior
from trainledger.estimate.quantities import Uncertain
from trainledger.model.vocab import Evidence
from trainledger.service import finished_batch_ratios
from trainledger.workspace import CONFIG_NAME

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


class History(NamedTuple):
    """What ``workspace_ratios`` read: the ratios, a note for the notes and the assumptions drawer,
    and a warning when the workspace's ledger could not be read."""

    ratios: list[float]
    note: Msg
    warning: Msg | None = None


def workspace_ratios(workspace: str | Path | None) -> History:
    """Finished-batch ratios of the workspace's ledger, and what happened, for the drawer."""
    if workspace is None:
        return History([], Msg("hist.no_workspace"))
    try:
        raw = [float(r) for r in finished_batch_ratios(workspace)]
    except NotFound as exc:
        if not (Path(workspace) / CONFIG_NAME).is_file():  # not a workspace: the estimate needs none
            return History([], Msg("hist.not_a_workspace", workspace=str(workspace)))
        return _unreadable(workspace, exc)
    except TrainledgerError as exc:  # a workspace whose ledger cannot be read: the prior, loudly
        return _unreadable(workspace, exc)
    ratios = [max(r, 1.0) for r in raw if math.isfinite(r) and r >= 0.99]  # 0.99-1: rounding
    dropped = len(raw) - len(ratios)
    if not ratios:
        return History([], Msg("hist.empty"))
    if dropped:
        return History(ratios, Msg("hist.calibrated_dropped", n=len(ratios), dropped=dropped))
    return History(ratios, Msg("hist.calibrated", n=len(ratios)))


def _unreadable(workspace: str | Path, exc: TrainledgerError) -> History:
    error = type(exc).__name__
    return History(
        [],
        Msg("hist.unreadable", workspace=str(workspace), error=error),
        Msg("warn.history_unreadable", workspace=str(workspace), error=error, message=exc.message),
    )
