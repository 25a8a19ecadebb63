"""``occupancy``: a cluster's running / pending / idle GPUs (or nodes) over time → ``occupancy``.

A mapping (``--preset helios|philly`` or ``--mapping FILE``) names the columns of ``ts`` (needed)
and of ``total``, ``running``, ``pending``, ``idle``, ``running_jobs``, ``pending_jobs``; the
mapping's ``unit`` says what is counted (``gpu`` or ``node``) and ``interval_s`` how long each
sample stands for (a column ``interval_s`` overrides it per row). ``cluster`` and ``vc`` come
from a column, the mapping's ``[constants]`` or ``--set vc=…`` (a file of one virtual cluster
seldom says which). A missing ``idle`` is ``total − running`` when both are known; counts that
do not add up (running + idle ≠ total) are flagged, negative counts quarantined. Unmapped
columns go to ``extra``. ``trainledger.analysis.occupancy`` sums the series.
"""

from __future__ import annotations

from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, dumps
from trainledger.ingest.convert import nonneg_integer
from trainledger.ingest.mapping import Settings, mapped_time
from trainledger.ingest.tabular import MappedImporter, constants

COUNTS = ("total", "running", "pending", "idle", "running_jobs", "pending_jobs")
FIELDS = frozenset({"ts", "interval_s", "cluster", "vc", *COUNTS})
UNITS = ("gpu", "node")


def positive_seconds(value: Any, ctx: Context | None = None) -> int:
    n = nonneg_integer(value)
    if n == 0:
        raise ValueError("an interval must be > 0 seconds")
    return n


class OccupancyImporter(MappedImporter):
    kind = "occupancy"
    table = "occupancy"
    description = "an occupancy series (read through --preset / --mapping)"
    keep_extra = True
    mapping_table = "occupancy"
    fields = FIELDS
    needed = ("ts",)
    converters = {"ts": mapped_time, "interval_s": positive_seconds, **{c: nonneg_integer for c in COUNTS}}
    remedies = {c: "write a whole number >= 0" for c in COUNTS}
    time_fields = ("ts",)

    def configure(self, options: Any) -> Settings:
        cfg = super().configure(options)
        m = cfg.mapping
        if m.unit not in UNITS:
            raise BadInput(f"mapping {m.name}: unit {m.unit!r} is not one of {', '.join(UNITS)}",
                           path=m.source, remedy='add unit = "gpu" (or "node") at the top')  # fmt: skip
        if m.interval_s is None and "interval_s" not in m.columns:
            raise BadInput(f"mapping {m.name} says not how long a sample stands for", path=m.source,
                           remedy="add interval_s = 60 (seconds) at the top, or map an interval_s column")  # fmt: skip
        return cfg

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        cfg: Settings = ctx.cfg
        flags: list[str] = values["flags"]
        fixed = constants(cfg)
        total, running, idle = values.get("total"), values.get("running"), values.get("idle")
        if idle is None and total is not None and running is not None:
            if running > total:
                raise Rejected(f"running {running} is more than total {total}", "check the row's counts")
            idle = total - running
        elif None not in (total, running, idle) and running + idle != total:
            flags.append(f"running {running} + idle {idle} is not total {total}")
        return {
            "ts": values["ts"],
            "interval_s": values.get("interval_s") or cfg.mapping.interval_s,
            "cluster": values.get("cluster") or fixed.get("cluster", ""),
            "vc": values.get("vc") or fixed.get("vc", ""),
            "unit": cfg.mapping.unit,
            **{c: values.get(c) for c in COUNTS},
            "idle": idle,
            "extra": dumps(record.extra or {}),
            "flags": flags,
        }
