"""A stage that raises is a problem record, not a crash: the other stages still run.

As beancount's loader treats a plugin that raises (the error joins the error list and the load goes
on), ``run`` calls one stage and, when it raises an unexpected exception, returns a
``stage_failed`` problem naming the stage, the error and where it was raised instead of its output.
An expected error (``TrainledgerError``: a bad workspace, with its own remedy) still stops the run.

Conservation stays honest: the cash a failed stage would have attributed is not silently missing.
The bill rows of a failed bill stage (in the billed view, and in the amortized view when the bills
carry commitments) and the invoices of a failed external stage become unattributed lines with
reason ``stage_failed: <stage>``, so billed = attributed + unattributed still holds and the
unattributed bucket says why. Stages that carry no cash (queued, storage and labor estimates)
leave only the problem; a failed capacity stage is also shown by ``capacity.check``'s gap.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

from trainledger.engine import compute
from trainledger.engine.context import Context, Facts, Problem, StageOutput
from trainledger.errors import TrainledgerError
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance

Stage = Callable[[Facts, Context], StageOutput]
STAGE_FAILED = "stage_failed"
ALIASES = {"frame_bill_stage": "bill_stage"}  # the frame engine's bill stage (frame/stage.py) is the bill stage
log = logging.getLogger(__name__)


def run(stage: Stage, facts: Facts, ctx: Context) -> StageOutput:
    """``stage(facts, ctx)``, or, when it raises unexpectedly, its cash unattributed and a problem."""
    try:
        return stage(facts, ctx)
    except TrainledgerError:
        raise
    except Exception as e:  # noqa: BLE001 - the point: one broken stage must not stop attribution
        name = stage_name(stage)
        log.warning("stage %s failed", name, exc_info=True)
        lines = tuple(_unattributed(name, facts))
        where = _where(e)
        error = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return StageOutput(lines=lines, problems=(Problem(
            "stage_failed", f"stage {name} failed with {error} (at {where}): its figures are missing from"
            f" this run and the {len(lines)} cash line(s) it would have attributed are in the unattributed"
            " bucket (stage_failed); the other stages ran. This is a bug in trainledger: report it with this"
            " message",
            {"stage": name, "error": error, "where": where, "rows": len(lines)}),))


def stage_name(stage: Stage) -> str:
    """The stage's name as the problem and the bucket show it (the frame engine's bill stage is the
    bill stage)."""
    name = getattr(stage, "__name__", type(stage).__name__)
    return ALIASES.get(name, name)


def _where(e: BaseException) -> str:
    """``file.py:line in function`` of the innermost frame (the traceback goes to the log)."""
    frames = traceback.extract_tb(e.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"


def _unattributed(name: str, facts: Facts) -> Iterator[CostLine]:
    reason = f"{STAGE_FAILED}: {name}"
    if name == "bill_stage":
        views = [("billed_cost", Basis.BILLED)]
        if compute._amortized_view(facts.bill_lines):
            views.append(("effective_cost", Basis.AMORTIZED))
        for row in facts.bill_lines:
            for column, basis in views:
                value = row.get(column)
                if value is not None and Decimal(value) != 0:
                    yield _line(compute._category(row), basis, Decimal(value), row, "focus", reason)
    elif name == "external_stage":
        for row in facts.external_services:
            yield _line("external", Basis.BILLED, Decimal(str(row["amount"])), row, "invoice", reason)


def _line(category: str, basis: Basis, amount: Decimal, row, kind: str, reason: str) -> CostLine:
    return CostLine(category=category, basis=basis, evidence=Evidence.CONTRACT,
                    amount=AmountRange(amount, amount, amount, row["currency"]),
                    provenance=Provenance(row["source_sha256"], int(row["row"]), STAGE_FAILED, kind), reason=reason)
