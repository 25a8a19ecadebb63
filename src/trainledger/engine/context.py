"""What every engine stage receives: the facts from the lake and the context of the workspace.

``Settings`` is all the engine reads of a workspace: a frozen record that service.py builds from the
workspace's config (``service.engine_settings``). The engine never imports the service, the CLI or
the config loader (tests/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from types import MappingProxyType
from typing import Any

from trainledger.engine.rules import Matcher
from trainledger.model import Assumption, Batch, CostLine, PriceEntry, Run
from trainledger.workspace import LaborRate, Rule

TABLES = ("jobs", "bill_lines", "progress_events", "storage_objects", "labor_entries", "external_services",
          "worker_steps", "capacity", "occupancy")


@dataclass(frozen=True)
class Facts:
    """Normalised lake rows, as plain dicts, per table (see docs/formats.md)."""

    jobs: tuple[Mapping, ...] = ()
    bill_lines: tuple[Mapping, ...] = ()
    progress_events: tuple[Mapping, ...] = ()
    storage_objects: tuple[Mapping, ...] = ()
    labor_entries: tuple[Mapping, ...] = ()
    external_services: tuple[Mapping, ...] = ()
    worker_steps: tuple[Mapping, ...] = ()  # per-worker iteration times (straggler_wait, engine/runs.py)
    capacity: tuple[Mapping, ...] = ()  # what capacity existed (import nodes; engine/capacity.py)
    occupancy: tuple[Mapping, ...] = ()  # running / idle / pending GPUs per sample (capacity_occupancy.py)
    imports: tuple[Mapping, ...] = ()  # the lake's import log: path, kind, sha256, options (tz…)

    @classmethod
    def from_lake(cls, lake: Any) -> Facts:
        log = tuple(lake.imports()) if hasattr(lake, "imports") else ()
        return cls(**{t: tuple(lake.read(t).to_pylist()) for t in TABLES}, imports=log)


@dataclass(frozen=True)
class Problem:
    """An invariant that did not hold, or a fact the engine could not use: reported, never raised."""

    kind: str
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "message": self.message, "detail": dict(self.detail)}


@dataclass(frozen=True)
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


PriceLookup = Callable[[str, date, str], PriceEntry | None]  # (item, on, unit wanted)


@dataclass(frozen=True)
class Settings:
    """The workspace as the engine sees it: dotted settings (``cluster.gpus_per_node``,
    ``cluster.gpu_item``, ``cluster.stale_gap_minutes``, ``workspace.currency``…), batches, rules,
    labor rates, and the ``[[capacity]]`` and ``[allocation]`` tables as written (capacity.py and
    allocation.py read them, naming ``path`` in their errors)."""

    path: str
    values: Mapping[str, Any] = field(default_factory=dict)
    batches: tuple[Batch, ...] = ()
    rules: tuple[Rule, ...] = ()
    labor_rates: tuple[LaborRate, ...] = ()
    capacity: tuple[Mapping[str, Any], ...] = ()
    allocation: Mapping[str, Any] = field(default_factory=dict)
    labor_assumptions: tuple[Assumption, ...] = ()  # the drawer rows of the labor rates

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
             "source": entry.source}))
    return entry


UNOWNED = "unassigned: set owner in the price book"


def price_assumption(name: str, price: PriceEntry, unit: str) -> Assumption:
    """The drawer row for a price the engine used: its range, evidence, source and owner."""
    return Assumption(
        name=name, evidence=price.evidence, source=price.source,
        value=str(price.price) if price.low == price.high else None, low=str(price.low), high=str(price.high),
        unit=f"{price.currency}/{unit}", owner=(price.owner or UNOWNED) if price.evidence == "assumed" else "",
        value_kind="unit_price")
