"""``mlflow``: an MLflow file-store run (``mlruns/<exp>/<run>/``) → table ``progress_events``.

Point the import at the run's ``meta.yaml`` (``mlruns/*/*/meta.yaml`` imports every run). The run
directory holds ``metrics/<name>`` (lines ``timestamp value step``, timestamp in ms; older files
have no step), ``tags/<name>`` and ``params/<name>`` (one value per file). What it becomes:

- one ``start`` event at the run's start time, its params and tags in ``extra``; an ``end`` event
  at its end time when the run has finished;
- one ``step`` event per step, at the earliest time a metric was logged for it, with that step's
  metric values in ``extra``; a metric named ``tokens`` / ``samples`` (or ending in ``/tokens``,
  ``/samples``) fills those columns;
- ``checkpoint_saved`` for a metric ``checkpoint_save_s`` (its value the save's duration), and
  ``resume`` for a metric ``checkpoint_restored`` or wherever a metric's step goes back (a run
  restored from a checkpoint logs from the restored step again).

The event's ``run`` is the run's ``run`` tag (trainledger's convention, as in Slurm Comment),
else its ``mlflow.runName``, else the MLflow run id; a ``batch`` tag is kept on every event.
The import's identity includes a digest of every file of the run directory, so a run that logged
more since is read again (its earlier events are duplicates).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from trainledger.ingest.base import Context, Record, Verdict
from trainledger.ingest.delimited import reading_options
from trainledger.ingest.keys import mapping_key
from trainledger.ingest.progress import ProgressImporter
from trainledger.ingest.text import sha256_file, sniff

SUBDIRS = ("metrics", "tags", "params")
SAVE, RESTORE = "checkpoint_save_s", "checkpoint_restored"
FINISHED = {"3": "FINISHED", "4": "FAILED", "5": "KILLED"}  # mlflow.entities.RunStatus


def read_meta(path: Path) -> dict[str, str]:
    """The flat ``key: value`` lines of an MLflow ``meta.yaml`` (nested lists are skipped)."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line[0] in " -#" or ":" not in line:
            continue
        k, _, v = line.partition(":")
        out[k.strip()] = v.strip().strip("'\"")
    return out


def _files(run_dir: Path) -> list[Path]:
    return [p for d in SUBDIRS for p in _under(run_dir / d)]


def _under(d: Path) -> list[Path]:
    return sorted(p for p in d.rglob("*") if p.is_file())


def run_digest(run_dir: Path) -> str:
    h = hashlib.sha256()
    for p in _files(run_dir):
        h.update(p.relative_to(run_dir).as_posix().encode() + b"\0")
        h.update(bytes.fromhex(sha256_file(p)))
    return h.hexdigest()


def _ms(text: str) -> str:
    return datetime.fromtimestamp(int(text) / 1000, UTC).isoformat().replace("+00:00", "Z")


def _number(text: str) -> Any:
    """A metric value: int when written as one, else float; NaN, infinities and values beyond
    a float stay as written (a diverged loss is a fact worth keeping, not a number to guess)."""
    try:
        d = Decimal(text)
    except InvalidOperation:
        return text
    if not d.is_finite():
        return text
    if d == d.to_integral_value() and "." not in text and "e" not in text.lower():
        return int(d)
    f = float(d)
    return f if f not in (float("inf"), float("-inf")) else text


class MlflowImporter(ProgressImporter):
    row_hash_versions = (2,)  # read row by row: version 3 one row at a time in Python is slower (keys.py)
    kind = "mlflow"
    table = "progress_events"
    description = "an MLflow run (mlruns/<experiment>/<run>/meta.yaml)"

    def identify(self, path: Path) -> bool | str:
        if sniff(path).container == "empty":
            return True  # nothing in it: a valid, empty import
        if path.name != "meta.yaml":
            return "it is not an MLflow run's meta.yaml (mlruns/<experiment>/<run>/meta.yaml)"
        meta = read_meta(path)
        if "run_id" not in meta and "run_uuid" not in meta:
            return Verdict(
                "it is an MLflow experiment's meta.yaml, not a run's",
                f"import its runs: {path.parent}/*/meta.yaml",
            )
        return True

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The run directory's files are part of what the rows state: a run that logged more
        since is a new statement (its earlier events are duplicates by content)."""
        files = {"run_files": run_digest(path.parent)}
        return {**reading_options(options, ()), **files}, files

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        if sniff(path).container == "empty":
            return
        run_dir = path.parent
        meta = read_meta(path)
        run_id = meta.get("run_id") or meta.get("run_uuid") or run_dir.name
        tags = {p.name: p.read_text(encoding="utf-8").strip() for p in _under(run_dir / "tags")}
        params = {p.name: p.read_text(encoding="utf-8").strip() for p in _under(run_dir / "params")}
        run = tags.get("run") or tags.get("mlflow.runName") or run_id
        common = {"mlflow_run_id": run_id, **({"batch": tags["batch"]} if "batch" in tags else {})}
        events: list[tuple[str, dict[str, Any], str]] = []  # (sort key, values, raw)
        if meta.get("start_time", "").isdigit():
            start = {"ts": _ms(meta["start_time"]), "run": run, "event": "start", **common,
                     "params": params, "tags": tags}
            events.append((start["ts"], start, f"meta.yaml start_time {meta['start_time']}"))
        steps: dict[int, dict[str, Any]] = {}
        bad: list[Record] = []
        for mf in _under(run_dir / "metrics"):
            name = mf.relative_to(run_dir / "metrics").as_posix()
            last_step = None
            for n, line in enumerate(mf.read_text(encoding="utf-8").splitlines(), 1):
                raw = f"metrics/{name}:{n}: {line}"
                parts = line.split()
                if not parts:
                    continue
                if len(parts) not in (2, 3) or not (parts[0].isascii() and parts[0].isdigit()):  # not '²'
                    bad.append(Record(0, n, raw, mapping_key({"raw": raw}), {}, None,
                                      "not an MLflow metric line 'timestamp value [step]'",
                                      "each line is: milliseconds value [step]"))
                    continue
                ts, value = _ms(parts[0]), _number(parts[1])
                step = (int(parts[2]) if len(parts) == 3 and parts[2].isascii() and parts[2].lstrip("-").isdigit()
                        else None)
                base = {"ts": ts, "run": run, "step": step, **common}
                if name == SAVE:
                    ev = {**base, "event": "checkpoint_saved", "duration_s": value}
                    events.append((ts, ev, raw))
                elif name == RESTORE or (step is not None and last_step is not None and step < last_step):
                    ev = {**base, "event": "resume", "from_step": last_step, "metric": name}
                    events.append((ts, ev, raw))
                if step is not None:
                    last_step = step if last_step is None else max(step, last_step)
                if name in (SAVE, RESTORE) or step is None:
                    continue
                at = steps.setdefault(step, {"ts": ts, "run": run, "event": "step", "step": step,
                                             **common, "metrics": {}, "_raw": raw})
                if ts < at["ts"]:
                    at["ts"], at["_raw"] = ts, raw
                at["metrics"].setdefault(name, value)  # the first time the step was reached
                leaf = name.rsplit("/", 1)[-1]
                if leaf in ("tokens", "samples") and isinstance(value, int):
                    at[leaf] = value
        for ev in steps.values():
            raw = ev.pop("_raw")
            events.append((ev["ts"], ev, raw))
        if meta.get("end_time", "").isdigit() and meta.get("status") in FINISHED:
            end = {"ts": _ms(meta["end_time"]), "run": run, "event": "end", **common,
                   "status": FINISHED[meta["status"]]}
            events.append((end["ts"], end, f"meta.yaml end_time {meta['end_time']}"))
        events.sort(key=lambda e: (e[0], json.dumps(e[1], sort_keys=True, default=str)))
        for i, (_, values, raw) in enumerate(events, 1):
            yield Record(i, None, raw, mapping_key(values), values)
        for i, rec in enumerate(bad, len(events) + 1):
            rec.row = i
            yield rec
