"""The attribution summary's per-run parts, stored as columns (review 4 H12).

A summary kept one dict per run in each of ``run_facts`` (a list), ``runs_explained`` and
``run_gpu_hours_by_state`` (maps by run id): at 1M job attempts ~1 KB of Python per run, held
whole when the summary is built, written and read back for the sheets. They are now one key,
``run_columns``, of plain lists (one entry per run, in the same order in each list)::

    {"facts": {"run_id": [...], "batch_id": [...], ..., "versions": [[v0...], [v1...], [v2...]]},
     "explained": {"run_id": [...], "cause": [...], ...},
     "hours": {"run_id": [...], "states": ["effective=1.5,checkpoint=0.25", ...]}}

``hours`` keeps each run's states in the order the old map had them (its timeline's order), each
value the exact decimal text. The readers below give the old shapes (a row dict per run, maps by run
id) built on demand, for a summary of either form: an attribution written before this change still
reads. Field order of a row is the dataclass's (``RunFacts.as_dict``, ``Explained.as_dict``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from decimal import Decimal
from typing import Any

KEY = "run_columns"
OLD_FACTS, OLD_EXPLAINED, OLD_HOURS = "run_facts", "runs_explained", "run_gpu_hours_by_state"


def _jsonable(v: Any) -> Any:
    """A field value as the JSON the database gives back: a str subclass (an enum, a ``Msg``) as its
    text, as ``json.dumps`` writes it."""
    return v if v is None or type(v) is str else str.__str__(v) if isinstance(v, str) else v


def encode(facts: Iterable, explained: Mapping[str, Any], hours: Iterable[tuple[str, Mapping[str, Decimal]]]) -> dict:
    """``run_columns`` from the runs' ``RunFacts``, ``explain``'s result and (run id, GPU-seconds by state)."""
    fcols: dict[str, list] = {}
    versions: list[list[str]] = [[], [], []]
    for f in facts:
        for name, value in f.as_dict().items():
            if name == "versions":
                for col, v in zip(versions, value, strict=True):
                    col.append(v)
                fcols.setdefault("versions", versions)
            else:
                fcols.setdefault(name, []).append(_jsonable(value))
    ecols: dict[str, list] = {}
    for e in explained.values():
        for name, value in e.as_dict().items():
            ecols.setdefault(name, []).append(_jsonable(value))
    ids, states = [], []
    for run_id, acc in hours:
        ids.append(run_id)
        states.append(",".join(f"{k}={Decimal(v) / 3600}" for k, v in acc.items()))  # exact decimal text
    return {"facts": fcols, "explained": ecols, "hours": {"run_id": ids, "states": states}}


def _rows(cols: Mapping[str, list]) -> Iterator[dict]:
    names = list(cols)
    if not names:
        return
    columns = [list(zip(*cols[n], strict=True)) if n == "versions" else cols[n] for n in names]
    for values in zip(*columns, strict=True):
        yield {n: (list(v) if n == "versions" else v) for n, v in zip(names, values, strict=True)}


def facts_rows(summary: Mapping) -> Iterator[dict]:
    """Every run's facts as ``RunFacts.as_dict`` gave them, in the summary's order."""
    if KEY in summary:
        yield from _rows(summary[KEY].get("facts") or {})
    else:
        yield from summary.get(OLD_FACTS, [])


def explained_of(summary: Mapping) -> dict[str, dict]:
    """The stored explanations by run id (``Explained.as_dict``)."""
    if KEY in summary:
        return {d["run_id"]: d for d in _rows(summary[KEY].get("explained") or {})}
    return summary.get(OLD_EXPLAINED, {})


class Hours(Mapping):
    """Run id → {state: GPU-hours as exact decimal text}, each run's map built when it is read."""

    def __init__(self, ids: list[str], states: list[str]) -> None:
        self._states = states
        self._at = {r: i for i, r in enumerate(ids)}

    def __getitem__(self, run_id: str) -> dict[str, str]:
        text = self._states[self._at[run_id]]
        return dict(part.split("=", 1) for part in text.split(",")) if text else {}

    def __contains__(self, run_id: object) -> bool:
        return run_id in self._at

    def __iter__(self) -> Iterator[str]:
        return iter(self._at)

    def __len__(self) -> int:
        return len(self._at)


def hours_of(summary: Mapping) -> Mapping[str, dict[str, str]]:
    """The runs' GPU-hours by state, by run id."""
    if KEY in summary:
        h = summary[KEY].get("hours") or {}
        return Hours(h.get("run_id", []), h.get("states", []))
    return summary.get(OLD_HOURS, {})


class FactsIndex:
    """The run facts by run id without a dict per run: ``get(run_id)`` builds one row."""

    def __init__(self, summary: Mapping) -> None:
        cols = summary[KEY].get("facts") or {} if KEY in summary else None
        self._rows: list[dict] | None = None
        if cols is None:
            self._rows = list(summary.get(OLD_FACTS, []))
            ids = [d["run_id"] for d in self._rows]
            retry = [d.get("retry_of") for d in self._rows]
        else:
            ids, retry = cols.get("run_id", []), cols.get("retry_of", [None] * len(cols.get("run_id", [])))
        self._cols = cols
        self._at = {r: i for i, r in enumerate(ids)}
        self.retry_of = {r: t for r, t in zip(ids, retry, strict=True) if t}

    def __bool__(self) -> bool:
        return bool(self._at)

    def __contains__(self, run_id: object) -> bool:
        return run_id in self._at

    def get(self, run_id: str) -> dict:
        i = self._at[run_id]
        if self._rows is not None:
            return self._rows[i]
        return {n: ([v[i] for v in col] if n == "versions" else col[i]) for n, col in self._cols.items()}


__all__ = ["KEY", "FactsIndex", "Hours", "encode", "explained_of", "facts_rows", "hours_of"]
