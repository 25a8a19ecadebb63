"""``jobs``: any scheduler's job table (CSV) through a mapping → table ``jobs``.

The mapping (``--preset NAME`` or ``--mapping FILE``; the format of ``mapfile.py``) names the source column
of each job field. Fields: ``job_id`` (needed), ``cluster``, ``job_name``, ``account``,
``wckey``, ``comment``, ``user``, ``submit``, ``eligible``, ``start``, ``end``, ``state``,
``exit_code``, ``gpus`` (whole devices), ``gpu_share`` (GPU-equivalents, decimal) or
``gpu_milli`` (thousandths of each GPU: share = gpus × milli / 1000), ``gpu_type``, ``nodes``,
``restarts``, and two checks: ``duration`` (seconds; gives End when it is missing, else must
equal End − Start) and ``queue`` (seconds; must equal Start − Submit). ``[tags]`` columns become
the row's tags, which attribution rules read as ``tags.<name>``; the state column's ``map`` gives
the source's words their states (case-insensitive; a word it does not list is kept upper-cased
and flagged). Rows land in the same
table as sacct's, so the engine and ``trainledger jobs`` read both the same way. A job that never
started (no Start) is kept, with its waiting (Submit to End, when End is known).
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

from trainledger.ingest.base import Context, Record, Rejected, dumps
from trainledger.ingest.convert import decimal_plain, nonneg_decimal_text, nonneg_integer, stripped
from trainledger.ingest.mapping import mapped_time
from trainledger.ingest.tabular import MappedImporter, constants

TIME_FIELDS = ("submit", "eligible", "start", "end")
TEXT_FIELDS = ("cluster", "job_name", "account", "wckey", "comment", "user", "exit_code", "nodes")
FIELDS = frozenset(
    {"job_id", "state", "gpus", "gpu_share", "gpu_milli", "gpu_type", "restarts", "duration",
     "queue", *TIME_FIELDS, *TEXT_FIELDS}
)  # fmt: skip
SECONDS_TOLERANCE = 1  # traces round their derived seconds


def seconds(value: Any, ctx: Context | None = None) -> Decimal:
    text = nonneg_decimal_text(value)
    return Decimal(text.value if hasattr(text, "value") else text)


def milli(value: Any, ctx: Context | None = None) -> int:
    n = nonneg_integer(value)
    if n > 1000:
        raise ValueError(f"{value!r} thousandths of a GPU is more than one GPU")
    return n


CONVERT = {
    "job_id": stripped, "state": stripped, "gpus": nonneg_integer, "gpu_share": nonneg_decimal_text,
    "gpu_milli": milli, "restarts": nonneg_integer, "duration": seconds, "queue": seconds,
    **{f: mapped_time for f in TIME_FIELDS},
}  # fmt: skip


REMEDY = {
    "gpus": "write a whole number of GPUs", "gpu_share": "write a plain decimal, e.g. 0.5",
    "gpu_milli": "write thousandths of a GPU, 0 to 1000", "restarts": "write a whole number",
    "duration": "write seconds as a plain number", "queue": "write seconds as a plain number",
}  # fmt: skip


class MappedJobsImporter(MappedImporter):
    kind = "jobs"
    table = "jobs"
    description = "a job table (read through --preset / --mapping)"
    keep_extra = True
    mapping_table = "jobs"
    fields = FIELDS
    needed = ("job_id",)
    converters = CONVERT
    remedies = REMEDY
    time_fields = TIME_FIELDS

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        m = ctx.cfg.mapping
        flags: list[str] = values["flags"]
        for k, v in constants(ctx.cfg).items():
            if values.get(k) is None:
                values[k] = v
        raw_state = values.get("state")
        state = m.state_of(raw_state) if raw_state is not None else "UNKNOWN"
        if state is None:
            state = str(raw_state).upper()
            if m.states:
                flags.append(f"state {raw_state!r} is not in the mapping's state vocabulary (columns.state.map)")
        submit, start, end = values.get("submit"), values.get("start"), values.get("end")
        duration, queue = values.get("duration"), values.get("queue")
        if duration is not None and start is not None:
            took = timedelta(seconds=float(duration))
            if end is None:
                end = start + took
            elif abs((end - start).total_seconds() - float(duration)) > SECONDS_TOLERANCE:
                flags.append(f"duration {duration}s differs from end - start "
                             f"({(end - start).total_seconds():g}s)")  # fmt: skip
        if queue is not None and start is not None and submit is not None and (
            abs((start - submit).total_seconds() - float(queue)) > SECONDS_TOLERANCE
        ):
            flags.append(f"queue {queue}s differs from start - submit "
                         f"({(start - submit).total_seconds():g}s)")  # fmt: skip
        if start is not None and end is not None and end < start:
            raise Rejected(f"end {end.isoformat()} is before start {start.isoformat()} (UTC)",
                           "check the row's start and end times")  # fmt: skip
        if submit is not None and start is not None and start < submit:
            flags.append("start is before submit")
        if submit is not None and end is not None and start is None and end < submit:
            raise Rejected(f"end {end.isoformat()} is before submit {submit.isoformat()} (UTC)",
                           "check the row's submit and end times")  # fmt: skip
        gpus, share = values.get("gpus"), values.get("gpu_share")
        milli_each = values.get("gpu_milli")
        if milli_each is not None:
            if share is not None:
                raise Rejected("the row gives both gpu_share and gpu_milli", "map only one of them")
            n = gpus if gpus is not None else (1 if milli_each else 0)
            if milli_each and not n:
                flags.append(f"gpu_milli {milli_each} with 0 GPUs: counted as 0 GPUs")
            share = decimal_plain(Decimal(n) * milli_each / 1000) if n and milli_each else "0"
            gpus = n if milli_each else 0
        elif share is not None and gpus is None:
            gpus = int(-(-Decimal(share) // 1))  # the whole devices a share touches, at least
        if gpus is None:
            gpus = 0
        tags = {k[4:]: v for k, v in values.items() if k.startswith("tag:") and v is not None}
        extra = dict(record.extra or {})
        if raw_state is not None and raw_state != state:
            extra["source_state"] = raw_state
        return {
            "cluster": values.get("cluster") or "",
            "job_id": values["job_id"],
            "job_id_raw": values["job_id"],
            **{f: values.get(f) or "" for f in TEXT_FIELDS if f not in ("cluster",)},
            "submit": submit,
            "eligible": values.get("eligible"),
            "start": start,
            "end": end,
            "state": state,
            "gpus": gpus,
            "gpu_share": share,
            "gpu_type": values.get("gpu_type"),
            "restarts": values.get("restarts") or 0,
            "tags": dumps(tags),
            "is_step": False,
            "alloc_tres": "",
            "extra": dumps(extra),
            "flags": flags,
        }
