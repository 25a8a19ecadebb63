"""A stage that raises is a problem record, not a crash: the other stages still run.

As beancount's loader treats a plugin that raises (the error joins the error list and the load goes
on), ``run`` calls one stage and, when it raises an unexpected exception, returns a
``stage_failed`` problem naming the stage, the error and where it was raised instead of its output.
An expected error (``TrainledgerError``: a bad workspace, with its own remedy) still stops the run,
and so does running out of memory (DuckDB's ``memory_limit``, ``MemoryError``): that is the machine's
limit, not a broken stage, and it stops before anything is written.

Conservation stays honest: the cash a failed stage would have attributed is not silently missing.
Each stage declares what it owes when it fails — its ``fallback(facts, ctx) -> StageOutput`` — and
``run`` takes that output in place of the stage's, knowing no stage by name. ``Stage`` is the usual
shape (a name, the function, and ``owes``: the cash rows it covers, which its fallback turns into
unattributed lines with reason ``stage_failed: <name>``, so billed = attributed + unattributed still
holds and the unattributed bucket says why); any callable with a ``fallback`` (and a ``name`` or
``__name__``) will do. A stage without a fallback — one that carries no cash (queued, storage and
labor estimates) — leaves only the problem; a failed capacity stage is also shown by
``capacity.check``'s gap.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from trainledger.engine.context import Context, Facts, Problem, StageOutput
from trainledger.errors import ConfigError, TrainledgerError
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance

StageFn = Callable[[Facts, Context], StageOutput]
STAGE_FAILED = "stage_failed"
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Owed:
    """One amount of cash a stage attributes: its source row (``source_sha256``, ``row``,
    ``currency``), the row's kind (``focus``, ``invoice``…), its sheet section and its basis."""

    row: Mapping[str, Any]
    kind: str
    category: str
    basis: Basis
    amount: Decimal


@dataclass(frozen=True)
class Stage:
    """A stage with its name and what it owes when it fails: ``owes(facts, ctx)`` lists the cash it
    would have attributed (None: it carries no cash). Called like its function."""

    name: str
    run: StageFn
    owes: Callable[[Facts, Context], Iterable[Owed]] | None = None

    def __call__(self, facts: Facts, ctx: Context) -> StageOutput:
        return self.run(facts, ctx)

    def fallback(self, facts: Facts, ctx: Context) -> StageOutput:
        """Every amount it owes, unattributed with reason ``stage_failed: <name>``."""
        if self.owes is None:
            return StageOutput()
        return StageOutput(tuple(failed_line(self.name, o) for o in self.owes(facts, ctx) if o.amount != 0))


def failed_line(name: str, owed: Owed) -> CostLine:
    """The unattributed line of one amount a failed stage ``name`` owed (evidence contract: the cash is
    the row's own)."""
    a, row = owed.amount, owed.row
    return CostLine(category=owed.category, basis=owed.basis, evidence=Evidence.CONTRACT,
                    amount=AmountRange(a, a, a, row["currency"]),
                    provenance=Provenance.of(row, STAGE_FAILED, owed.kind),
                    reason=f"{STAGE_FAILED}: {name}")


def run(stage: StageFn, facts: Facts, ctx: Context) -> StageOutput:
    """``stage(facts, ctx)``, or, when it raises unexpectedly, its fallback's output and a problem."""
    try:
        return stage(facts, ctx)
    except TrainledgerError:
        raise
    except Exception as e:  # noqa: BLE001 - the point: one broken stage must not stop attribution
        _stop_if_out_of_memory(e)
        name = stage_name(stage)
        log.warning("stage %s failed", name, exc_info=True)
        owed = _fallback(stage, facts, ctx)
        lines = owed.lines
        where = _where(e)
        error = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
        return StageOutput(lines=lines, problems=(*owed.problems, Problem(
            "stage_failed", f"stage {name} failed with {error} (at {where}): its figures are missing from"
            f" this run and the {len(lines)} cash line(s) it would have attributed are in the unattributed"
            " bucket (stage_failed); the other stages ran. This is a bug in trainledger: report it with this"
            " message",
            {"stage": name, "error": error, "where": where, "rows": len(lines)})), assumptions=owed.assumptions)


def _stop_if_out_of_memory(e: Exception) -> None:
    """Running out of memory is the machine's limit, not a broken stage: publishing a month with its
    whole bill unattributed (``stage_failed``) would replace good figures with empty ones, so
    attribution stops before anything is written (review 6 K14). DuckDB's own limit raises
    ``duckdb.OutOfMemoryException``; Python's, ``MemoryError``."""
    if isinstance(e, MemoryError) or type(e).__name__ == "OutOfMemoryException":
        error = " ".join(str(e).split())[:300] or type(e).__name__
        raise ConfigError(f"attribution ran out of memory ({error}) / 归集时内存不足",
                          remedy="raise [engine] memory_limit or set [engine] temp_dir to a disk with room, then"
                                 " run trainledger attribute again; nothing was written / 调高 [engine] memory_limit"
                                 " 或设置 [engine] temp_dir 后重新归集；本次未写入任何结果") from e


def _fallback(stage: StageFn, facts: Facts, ctx: Context) -> StageOutput:
    """What the failed stage declared it owes; a fallback that raises too leaves nothing (the
    conservation check then reports the gap it leaves)."""
    fallback = getattr(stage, "fallback", None)
    if fallback is None:
        return StageOutput()
    try:
        return fallback(facts, ctx)
    except Exception:  # noqa: BLE001 - the run still goes on; conservation shows what is missing
        log.warning("the fallback of stage %s failed", stage_name(stage), exc_info=True)
        return StageOutput()


def stage_name(stage: StageFn) -> str:
    """The stage's name as the problem and the bucket show it: its ``name``, else its ``__name__``."""
    return str(getattr(stage, "name", None) or getattr(stage, "__name__", type(stage).__name__))


def _where(e: BaseException) -> str:
    """``file.py:line in function`` of the innermost frame (the traceback goes to the log)."""
    frames = traceback.extract_tb(e.__traceback__)
    if not frames:
        return "?"
    f = frames[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"
