"""``steps``: per-worker step (iteration) times of a distributed job → table ``worker_steps``.

A mapping (``--preset alibaba-pai-2020`` or ``--mapping FILE``) names the columns of ``worker``,
``iteration`` and ``step_time`` (all needed), and of ``job`` and ``gpu`` if the file has them;
its ``unit`` says what ``step_time`` counts: ``s``, ``ms`` or ``normalised`` (a source's own
scale, e.g. PAI's 0–1000). A file of one job seldom names it: ``--set job=NAME``; without one,
the job is named after the file's content (``sha256:`` and 12 hex digits), so the same content
under another name is the same job. Step times stay exact decimal text. Unmapped columns go to
``extra``. ``trainledger.analysis.stragglers`` computes the waiting at the iteration barrier.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, dumps
from trainledger.ingest.convert import nonneg_decimal_text, nonneg_integer, stripped
from trainledger.ingest.keys import content_key
from trainledger.ingest.mapping import Settings
from trainledger.ingest.tabular import MappedImporter, constants

FIELDS = frozenset({"job", "worker", "iteration", "step_time", "gpu"})
UNITS = ("s", "ms", "normalised")


def default_job(ctx: Context) -> str:
    return f"sha256:{ctx.sha256[:12]}"


class StepsImporter(MappedImporter):
    kind = "steps"
    table = "worker_steps"
    description = "per-worker step times (read through --preset / --mapping)"
    keep_extra = True
    mapping_table = "worker_steps"
    fields = FIELDS
    needed = ("worker", "iteration", "step_time")
    converters = {"worker": stripped, "iteration": nonneg_integer, "step_time": nonneg_decimal_text}
    remedies = {"iteration": "write the iteration as a whole number >= 0",
                "step_time": "write the step time as a plain number >= 0"}  # fmt: skip

    def configure(self, options: Any) -> Settings:
        cfg = super().configure(options)
        m = cfg.mapping
        if m.unit not in UNITS:
            raise BadInput(f"mapping {m.name}: unit {m.unit!r} is not one of {', '.join(UNITS)}",
                           path=m.source, remedy='add unit = "s" (or "ms", "normalised") at the top')  # fmt: skip
        return cfg

    def parse(self, path, ctx: Context) -> Iterator[Record]:
        named = "job" in ctx.cfg.mapping.columns or "job" in constants(ctx.cfg)
        for rec in super().parse(path, ctx):
            if not named and not rec.problem:  # rows of two unnamed jobs are never one another's
                rec.key = content_key([rec.key, "job", default_job(ctx)])
            yield rec

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        cfg: Settings = ctx.cfg
        job = values.get("job") or constants(cfg).get("job") or default_job(ctx)
        if values.get("worker") is None:
            raise Rejected("worker is empty", "fill in the worker")
        return {
            "job": job,
            "worker": values["worker"],
            "iteration": values["iteration"],
            "step_time": values["step_time"],
            "unit": cfg.mapping.unit,
            "gpu": values.get("gpu") or constants(cfg).get("gpu"),
            "extra": dumps(record.extra or {}),
            "flags": values["flags"],
        }
