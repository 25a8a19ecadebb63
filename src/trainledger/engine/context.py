"""What every engine stage receives: the facts from the lake and the context of the workspace.

``Facts`` holds the lake's tables as the lake reads them (pyarrow Tables), each behind a ``Rows``
view: a ``Sequence[Mapping]`` that makes a row's dict only when it is read, a chunk at a time,
so every stage that walks rows reads what it read before while the frame path takes the columns
(``table_of``: DuckDB scans the Arrow table in place) and no bill row becomes a dict there. Tests
and the bench may still pass tuples of dicts: ``Rows`` wraps those too (``table_of`` builds the
columns once then).

``Settings`` is all the engine reads of a workspace: a frozen record that service.py builds from the
workspace's config (``service.engine_settings``). The engine never imports the service, the CLI or
the config loader (tests/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date, datetime
from types import MappingProxyType
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from trainledger.engine.rules import Matcher
from trainledger.i18n.core import Twin
from trainledger.model import Assumption, Batch, CostLine, PriceEntry, Run
from trainledger.workspace import LaborRate, NodeEntry, Rule

TABLES = ("jobs", "bill_lines", "progress_events", "storage_objects", "labor_entries", "external_services",
          "worker_steps", "capacity", "occupancy")


CHUNK = 65_536  # rows made into dicts at a time when a stage walks a table


class Rows(Sequence):
    """A lake table's rows as a ``Sequence[Mapping]``: dicts made on access, ``CHUNK`` rows at a
    time while iterating (none kept), from ``table`` (a pyarrow Table) — or, when built from rows
    (tests, a tuple of dicts), those rows themselves. ``columns`` walks only some columns (dicts of
    those keys: what a stage reads of ten million rows); ``table`` is the Arrow table, built once
    from the rows when there was none."""

    __slots__ = ("_rows", "_table")

    def __init__(self, source: pa.Table | Iterable[Mapping] = ()) -> None:
        if isinstance(source, Rows):
            self._table, self._rows = source._table, source._rows
        elif isinstance(source, pa.Table):
            self._table, self._rows = compact(source), None
        else:
            self._table, self._rows = None, tuple(source)

    @property
    def table(self) -> pa.Table:
        if self._table is None:  # rows given as dicts: their columns, as the lake would hold them
            self._table = _table_of_dicts(self._rows)
        return self._table

    @property
    def is_columns(self) -> bool:
        """Whether the rows are held as columns (the lake's table), not as dicts."""
        return self._rows is None

    def __len__(self) -> int:
        return len(self._rows) if self._rows is not None else self._table.num_rows

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[Mapping]:
        if self._rows is not None:
            return iter(self._rows)
        return self._chunks(self._table)

    @staticmethod
    def _chunks(t: pa.Table) -> Iterator[dict]:
        for batch in t.to_batches(max_chunksize=CHUNK):
            yield from batch.to_pylist()

    def __getitem__(self, i):
        if self._rows is not None:
            return self._rows[i]
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step == 1:
                return tuple(self._table.slice(start, max(0, stop - start)).to_pylist())
            return tuple(self._table.take(pa.array(range(start, stop, step), pa.int64())).to_pylist())
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self._table.slice(i % n, 1).to_pylist()[0]

    def columns(self, *names: str) -> Iterator[Mapping]:
        """The rows with only ``names`` (a name the table lacks reads as None), in order."""
        if self._rows is not None:
            return ({k: r.get(k) for k in names} for r in self._rows)
        t = self._table
        have = set(t.column_names)
        cols = {k: t.column(k) if k in have else pa.nulls(t.num_rows) for k in names}
        return self._chunks(pa.table(cols))

    def column(self, name: str) -> list:
        """One column's values as Python objects (None where the table lacks it)."""
        if self._rows is not None:
            return [r.get(name) for r in self._rows]
        t = self._table
        return t.column(name).to_pylist() if name in t.column_names else [None] * t.num_rows

    def where(self, name: str, keep: Callable[[Any], bool]) -> Rows:
        """The rows whose ``name`` value passes ``keep``, asked once per distinct value (a column
        of a few values: a category, a currency) — the other rows are never made."""
        if self._rows is not None:
            return Rows(r for r in self._rows if keep(r.get(name)))
        t = self._table
        if name not in t.column_names:
            return Rows(t) if keep(None) else Rows(t.slice(0, 0))
        col = t.column(name)
        if pa.types.is_null(col.type):  # no value: every row is None
            return Rows(t) if keep(None) else Rows(t.slice(0, 0))
        chosen = [v for v in pc.unique(col).to_pylist() if v is not None and keep(v)]
        mask = pc.fill_null(pc.is_in(col, value_set=pa.array(chosen, col.type)), False)
        if keep(None):
            mask = pc.or_(mask, pc.is_null(col))
        return Rows(t.filter(mask))

    def latest(self, *names: str):
        """The latest datetime in the columns ``names`` (None: none), as ``max`` of the values that
        are datetimes."""
        from datetime import datetime as dt

        if self._rows is None:
            t, found = self._table, []
            for name in names:
                if name not in t.column_names:
                    continue
                col = t.column(name)
                if pa.types.is_null(col.type):
                    continue
                if pa.types.is_timestamp(col.type) and col.type.tz is not None:
                    v = pc.max(col).as_py()
                    found += [v] if v is not None else []
                else:
                    found += [v for v in col.to_pylist() if isinstance(v, dt)]
            return max(found) if found else None
        times = [v for r in self._rows for k in names if isinstance(v := r.get(k), dt)]
        return max(times) if times else None

    def __eq__(self, other) -> bool:
        if isinstance(other, Rows | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Rows({len(self)} rows{', columns' if self.is_columns else ''})"


ENCODED = ("source_sha256",)  # one value per import file: held dictionary-encoded (``compact``)


def compact(table: pa.Table) -> pa.Table:
    """``table`` with every column that holds no value as Arrow's null type (no buffers): a lake
    table of ten million bill rows has some thirty such columns, each an offsets buffer of 40 MB
    as text. Its rows read the same (None); a kernel that needs the column's type casts it back
    (``frame.stage._text``). The ``ENCODED`` columns (the import's content hash, 64 characters on
    every row: 680 MB of ten million bill rows) are dictionary-encoded: their rows read the same
    text; a kernel that has no dictionary variant reads ``lines.dense`` of them."""
    n = table.num_rows
    if not n:
        return table
    for i, col in enumerate(table.columns):
        name = table.field(i).name
        if col.null_count == n and not pa.types.is_null(col.type):
            table = table.set_column(i, name, pa.nulls(n, pa.null()))
        elif name in ENCODED and pa.types.is_string(col.type):
            table = table.set_column(i, name, pc.dictionary_encode(col))
    return table


def _table_of_dicts(rows: Sequence[Mapping]) -> pa.Table:
    """Rows given as dicts → an Arrow table of their keys (first seen order); a mapping value
    (tags as a dict) as its JSON text, as ``rules.tags_of`` reads it back; an all-None column as text."""
    import json

    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r))
    cols = {}
    for name in names:
        values = [r.get(name) for r in rows]
        if any(isinstance(v, dict) for v in values):
            values = [json.dumps(v) if isinstance(v, dict) else v for v in values]
        arr = pa.array(values)
        cols[name] = arr.cast(pa.string()) if pa.types.is_null(arr.type) else arr
    return pa.table(cols) if cols else pa.table({})


def rows_of(rows: Sequence[Mapping]) -> Rows:
    return rows if isinstance(rows, Rows) else Rows(rows)


@dataclass(frozen=True)
class Facts:
    """Normalised lake rows per table (see docs/formats.md): each a ``Rows`` (a ``Sequence[Mapping]``
    over the lake's Arrow table, or over the dicts given); ``imports`` stays a tuple of dicts."""

    jobs: Sequence[Mapping] = ()
    bill_lines: Sequence[Mapping] = ()
    progress_events: Sequence[Mapping] = ()
    storage_objects: Sequence[Mapping] = ()
    labor_entries: Sequence[Mapping] = ()
    external_services: Sequence[Mapping] = ()
    worker_steps: Sequence[Mapping] = ()  # per-worker iteration times (straggler_wait, engine/runs.py)
    capacity: Sequence[Mapping] = ()  # what capacity existed (import nodes; engine/capacity.py)
    occupancy: Sequence[Mapping] = ()  # running / idle / pending GPUs per sample (capacity_occupancy.py)
    imports: tuple[Mapping, ...] = ()  # the lake's import log: path, kind, sha256, options (tz…)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "imports":
                object.__setattr__(self, f.name, tuple(value))
            elif not isinstance(value, Rows):
                object.__setattr__(self, f.name, Rows(value))

    @classmethod
    def from_lake(cls, lake: Any) -> Facts:
        """Every table as the lake reads it (Arrow, no row made into a dict here)."""
        log = tuple(lake.imports()) if hasattr(lake, "imports") else ()
        return cls(**{t: Rows(lake.read(t)) for t in TABLES}, imports=log)


def table_of(rows: Sequence[Mapping]) -> pa.Table:
    """The Arrow table of a fact table (the lake's own; built once from dicts given as rows)."""
    return rows_of(rows).table


@dataclass(frozen=True)
class Problem:
    """An invariant that did not hold, or a fact the engine could not use: reported, never raised."""

    kind: str
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "detail": dict(self.detail)}


@dataclass(frozen=True, slots=True)  # one per job attempt: no instance dict (H12)
class RunInfo:
    run: Run
    batch_id: str | None
    rule: str
    nodes: tuple[str, ...]
    segments: tuple  # of timeline.Segment
    source_sha256: str
    row: int
    eligible: datetime | None = None
    facts: Any = None  # causes.RunFacts: what explaining the run's cause needs
    cluster: str = ""  # the scheduler's cluster name (a pool capacity holds its runs without nodes)
    import_key: str = ""  # the import the job's row came through ("": its content's first: the sha256)


PriceLookup = Callable[[str, date, str], PriceEntry | None]  # (item, on, unit wanted)


@dataclass(frozen=True)
class Settings:
    """The workspace as the engine sees it: dotted settings (``cluster.gpus_per_node``,
    ``cluster.gpu_item``, ``cluster.stale_gap_minutes``, ``workspace.currency``…), batches, rules,
    labor rates, the node map (``[[nodes]]``, node_map.py), and the ``[[capacity]]`` and ``[allocation]``
    tables as written (capacity.py and allocation.py read them, naming ``path`` in their errors)."""

    path: str
    values: Mapping[str, Any] = field(default_factory=dict)
    batches: tuple[Batch, ...] = ()
    rules: tuple[Rule, ...] = ()
    labor_rates: tuple[LaborRate, ...] = ()
    capacity: tuple[Mapping[str, Any], ...] = ()
    allocation: Mapping[str, Any] = field(default_factory=dict)
    labor_assumptions: tuple[Assumption, ...] = ()  # the drawer rows of the labor rates
    nodes: tuple[NodeEntry, ...] = ()  # the node map: host name ↔ bill resource ids (node_map.py)

    def __post_init__(self) -> None:
        object.__setattr__(self, "values", MappingProxyType(dict(self.values)))
        object.__setattr__(self, "allocation", MappingProxyType(dict(self.allocation)))

    def get(self, name: str) -> Any:
        return self.values[name]

    def labor_rate(self, role: str) -> LaborRate | None:
        return next((r for r in self.labor_rates if r.role == role), None)

    def rate_assumptions(self) -> list[Assumption]:
        return list(self.labor_assumptions)

    @property
    def raw(self) -> Mapping[str, Any]:
        """The tables the stages read as written: ``capacity`` and ``allocation``."""
        return MappingProxyType({"capacity": list(self.capacity), "allocation": self.allocation})


@dataclass(frozen=True)
class Context:
    config: Settings  # (a workspace Config reads the same: tests pass one)
    matcher: Matcher
    price: PriceLookup
    as_of: date
    runs: Mapping[str, RunInfo] = field(default_factory=dict)  # by job id
    cutoff: datetime | None = None  # capacities are costed up to here (end of as_of, or --as-of)
    as_of_time: datetime | None = None  # ``attribute --as-of``: open jobs end here (engine/asof.py)
    facts_time: datetime | None = None  # the latest time any imported fact shows (engine/asof.py)


@dataclass(frozen=True)
class StageOutput:
    lines: tuple[CostLine, ...] = ()
    problems: tuple[Problem, ...] = ()
    assumptions: tuple[Assumption, ...] = ()


def price_of(ctx: Context, item: str, on: date, unit: str, problems: list[Problem]) -> PriceEntry | None:
    """The price of ``item`` on ``on`` per ``unit`` (the price book converts units, or refuses a
    mismatch). A stale one is still used — a figure beats a silent gap — but never quietly: it
    yields a ``stale_price`` problem naming the entry and its dates."""
    entry = ctx.price(item, on, unit)
    if entry is not None and entry.is_stale(on):
        problems.append(Problem(
            "stale_price", f"price {item} is stale on {on}: effective {entry.effective}, expires {entry.expires}"
            f" — update the price book ({entry.source})",
            {"item": item, "on": on.isoformat(), "effective": str(entry.effective), "expires": str(entry.expires),
             "source": str(entry.source), **_zh("source", entry.source)}))
    return entry


def _zh(key: str, value: str) -> dict[str, str]:
    """``{key_zh: …}`` for a price book text that has its reviewed Chinese (an ``i18n.core.Twin``)."""
    return {f"{key}_zh": value.zh} if isinstance(value, Twin) else {}


UNOWNED = "unassigned: set owner in the price book"


def price_assumption(name: str, price: PriceEntry, unit: str) -> Assumption:
    """The drawer row for a price the engine used: its range, evidence, source and owner."""
    return Assumption(
        name=name, evidence=price.evidence, source=price.source,
        value=str(price.price) if price.low == price.high else None, low=str(price.low), high=str(price.high),
        unit=f"{price.currency}/{unit}", owner=(price.owner or UNOWNED) if price.evidence == "assumed" else "",
        value_kind="unit_price")
