"""What every engine stage receives: the facts from the lake and the context of the workspace."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from trainledger.engine.rules import Matcher
from trainledger.model import Assumption, CostLine, PriceEntry, Run
from trainledger.workspace import Config

TABLES = ("jobs", "bill_lines", "progress_events", "storage_objects", "labor_entries", "external_services",
          "worker_steps", "capacity")


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
class Context:
    config: Config
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
        unit=f"{price.currency}/{unit}", owner=(price.owner or UNOWNED) if price.evidence == "assumed" else "")
