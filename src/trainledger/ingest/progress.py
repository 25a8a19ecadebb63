"""``progress``: training progress JSONL → table ``progress_events``.

One JSON object per line; the row number is the line number (blank lines are not rows). ``ts``
must carry its own UTC offset — a naive time is quarantined, never guessed. Each known event
needs its fields (``step`` needs ``step``, ``checkpoint_saved`` needs ``step`` and
``duration_s``, ...); an unknown event is kept and flagged; other keys go to ``extra``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from trainledger.ingest.base import Context, Record, Rejected, col, convert_columns, dumps
from trainledger.ingest.convert import nonneg_integer, timestamp_with_offset
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import mapping_key, row_key
from trainledger.ingest.text import (
    decoded_lines,
    json_loads,
    json_problem,
    open_text,
    sniff,
    text_encoding,
)

NEEDS: Mapping[str, tuple[str, ...]] = {
    "start": (),
    "step": ("step",),
    "checkpoint_saved": ("step", "duration_s"),
    "data_wait": ("duration_s",),
    "resume": ("step",),
    "end": (),
}
KNOWN = ("ts", "run", "event", "step", "tokens", "samples", "duration_s")


def _seconds(value: Any, ctx: Context | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValueError(f"not a number of seconds: {value!r}")
    try:
        s = float(value)
    except ValueError:
        raise ValueError(f"not a number of seconds: {value!r}") from None
    if not s >= 0 or s == float("inf"):
        raise ValueError(f"must be a finite number >= 0, got {value!r}")
    return s


def _name(value: Any, ctx: Context | None = None) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ValueError(f"must be text, got {value!r}")
    text = str(value).strip()
    if not text:
        raise ValueError("is blank")
    return text


class ProgressImporter:
    kind = "progress"
    table = "progress_events"
    description = "training progress JSONL"
    row_hash_versions = (2, 3)  # 3 a column at a time (progress_fast); 2 for an older lake's (keys.py)
    columns = (
        col("ts", convert=timestamp_with_offset, needed=True),
        col("run", convert=_name, needed=True),
        col("event", convert=_name, needed=True),
        col("step", convert=nonneg_integer),
        col("tokens", convert=nonneg_integer),
        col("samples", convert=nonneg_integer),
        col("duration_s", convert=_seconds),
    )

    def configure(self, options: Mapping[str, Any]) -> None:
        return None

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        return reading_options(options, ()), {}

    def identify(self, path: Path) -> bool | str:
        head = sniff(path)
        if head.container == "empty":
            return True  # nothing in it: a valid, empty import
        if head.container != "text" or head.json_keys is None:
            return f"it is {head.describe()}, not JSON lines"
        missing = [k for k in ("ts", "event") if k not in head.json_keys]
        return f"its first object has no {', '.join(missing)} key" if missing else True

    def fast_batches(self, path: Path, ctx: Context) -> Iterator[Any] | None:
        """The rows a block at a time (``progress_fast``), or None when only the per-row path
        reads the file (text not in UTF-8)."""
        from trainledger.ingest import fastlines

        steps = ("parse", "validate", "normalise")  # a subclass that reads otherwise: per row
        if any(getattr(type(self), s) is not getattr(ProgressImporter, s) for s in steps):
            return None
        if not fastlines.usable(path, ctx.options):
            return None
        from trainledger.ingest.progress_fast import batches

        return batches(self, path, ctx)

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        enc, given = text_encoding(path, ctx.options)
        with open_text(path, enc, ctx.watch) as f:
            for line_no, line in enumerate(decoded_lines(path, f, enc, given), 1):
                if not line.strip():
                    continue
                values: dict[str, Any] = {}
                problem = None
                try:
                    obj = json_loads(line)
                except ValueError as e:  # bad JSON, nested too deeply, a 5,000-digit integer
                    problem = json_problem(e)
                else:
                    if isinstance(obj, dict):
                        values = obj
                    else:
                        problem = f"a JSON {type(obj).__name__}, not an object"
                # the key is the object's content: key order and spacing do not change it
                key = row_key(line)[0] if problem else mapping_key(values)
                yield Record(line_no, line_no, line, key, values, None, problem)

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        if record.problem:
            raise Rejected(record.problem, record.remedy or "write one JSON object per line")
        try:
            return convert_columns(self.columns, record.values, ctx)
        except Rejected as r:
            if r.reason.startswith("ts:") and "no UTC offset" in r.reason:
                raise Rejected(
                    r.reason,
                    "write ts with its offset, e.g. 2026-11-02T08:00:00+08:00, or in UTC with Z",
                ) from None
            raise

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        event = values["event"]
        needs = NEEDS.get(event)
        if needs is None:
            values["flags"].append(f"unknown event {event!r}")
        else:
            missing = [k for k in needs if values[k] is None]
            if missing:
                raise Rejected(
                    f"event {event!r} needs {', '.join(missing)}",
                    f"add {', '.join(missing)} to the event",
                )
        values["extra"] = dumps({k: v for k, v in record.values.items() if k not in KNOWN})
        return values
