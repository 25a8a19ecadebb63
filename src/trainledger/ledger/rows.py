"""Domain records ⇄ table rows. Pure functions; each ``x_row`` has its ``x_from`` inverse, and
the conformance suite checks that every pair round-trips to an equal record. Also the small
input checks the repository applies before a row is written (vocabularies, item lists)."""

from __future__ import annotations

import getpass
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from itertools import islice
from typing import Any

from trainledger.errors import BadInput
from trainledger.ledger.audit import jsonable
from trainledger.model import (
    AmountRange,
    AttributionKey,
    Batch,
    CostLine,
    PriceEntry,
    Project,
    Provenance,
    ReviewClass,
    Run,
)
from trainledger.model.batch import check_aware


def os_user() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (some containers)
        return "unknown"


def chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(items)
    while chunk := list(islice(it, size)):
        yield chunk


def vocab(enum: type[StrEnum], value: str, what: str) -> str:
    try:
        return str(enum(value))
    except ValueError:
        raise BadInput(
            f"unknown {what} {value!r}", remedy=f"use one of: {', '.join(e.value for e in enum)}"
        ) from None


def item_list(values: Iterable[Any], what: str) -> list[Any]:
    if isinstance(values, str):
        raise BadInput(f"{what} must be a list of items, got the string {values!r}",
                       remedy=f"pass [{values!r}]")
    return jsonable(list(values))


_COUNTS = ("rows_read", "accepted", "duplicates", "quarantined")


@dataclass(frozen=True, slots=True)
class ImportRecord:
    """One import of one source file: what was read and where each row went (promise 3)."""

    kind: str
    path: str
    source_sha256: str
    rows_read: int
    accepted: int
    duplicates: int
    quarantined: int
    quarantine_file: str | None = None
    imported_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    dropped_at: datetime | None = None  # set by ``imports drop``: its rows feed no figure
    drop_reason: str | None = None
    # which import of the file (64 hex digits; the id shown is its first 12): the content hash
    # for the file's first import, another key for the same file making another statement
    # (``--set vc=…``; lake.keys.import_key). "": the content hash.
    import_key: str = ""

    def __post_init__(self) -> None:
        if len(self.source_sha256) != 64:
            raise ValueError(
                f"import of {self.path}: source_sha256 must be a 64-character hex digest"
            )
        if not self.import_key:
            object.__setattr__(self, "import_key", self.source_sha256)
        elif len(self.import_key) != 64:
            raise ValueError(f"import of {self.path}: import_key must be a 64-character hex digest")
        for name in _COUNTS:
            if getattr(self, name) < 0:
                raise ValueError(f"import of {self.path}: {name} must be >= 0")
        check_aware(self.imported_at, f"import of {self.path} imported_at")
        if self.dropped_at is not None:
            check_aware(self.dropped_at, f"import of {self.path} dropped_at")


def import_row(r: ImportRecord) -> dict[str, Any]:
    return {name: getattr(r, name) for name in ImportRecord.__slots__}


def import_from(m: Mapping[str, Any]) -> ImportRecord:
    return ImportRecord(**{name: m[name] for name in ImportRecord.__slots__})


def project_row(p: Project) -> dict[str, Any]:
    return {"id": p.id, "name": p.name, "goal": p.goal, "owner": p.owner}


def project_from(m: Mapping[str, Any]) -> Project:
    return Project(id=m["id"], name=m["name"], goal=m["goal"], owner=m["owner"])


_KEY_FIELDS = ("goal", "data_snapshot", "data_processing_version", "model_version",
               "code_version", "config_version")


def batch_row(b: Batch) -> dict[str, Any]:
    row = {"id": b.key.batch_id, "project": b.key.project}
    row.update({name: getattr(b.key, name) for name in _KEY_FIELDS})
    row.update(team=b.team, owner=b.owner, name=b.name, task_type=str(b.task_type),
               max_rounds=b.max_rounds)
    return row


def batch_from(m: Mapping[str, Any]) -> Batch:
    key = AttributionKey(project=m["project"], batch_id=m["id"],
                         **{name: m[name] for name in _KEY_FIELDS})
    return Batch(key=key, team=m["team"], owner=m["owner"], name=m["name"],
                 task_type=m["task_type"], max_rounds=m["max_rounds"])


_RUN_FIELDS = ("id", "batch_id", "reason", "cause", "source_job", "state", "submitted_at",
               "started_at", "ended_at", "gpus", "review_class", "gpu_share")


def run_row(r: Run) -> dict[str, Any]:
    row = {name: getattr(r, name) for name in _RUN_FIELDS}
    for name in ("reason", "cause", "review_class"):
        row[name] = None if row[name] is None else str(row[name])
    return row


def run_from(m: Mapping[str, Any]) -> Run:
    fields = {name: m[name] for name in _RUN_FIELDS}
    if fields["review_class"] is not None:  # Run does not coerce it; the others it does
        fields["review_class"] = ReviewClass(fields["review_class"])
    return Run(**fields)


def cost_line_row(c: CostLine, attribution_id: int) -> dict[str, Any]:
    a, p = c.amount, c.provenance
    return {
        "attribution_id": attribution_id,
        "category": c.category,
        "basis": str(c.basis),
        "evidence": str(c.evidence),
        "low": a.low,
        "expected": a.expected,
        "high": a.high,
        "currency": a.currency,
        "batch_id": c.batch_id,
        "run_id": c.run_id,
        "detail": c.detail,
        "quantity": c.quantity,
        "unit": c.unit,
        "reason": c.reason,
        "source_sha256": p.source_sha256,
        "source_row": p.row,
        "rule": p.rule,
        "source_kind": p.source_kind,
        "import_key": p.import_key,  # "" for a line of no import; null only in lines stored before 0008
    }


def cost_line_from(m: Mapping[str, Any]) -> CostLine:
    return CostLine(
        category=m["category"],
        basis=m["basis"],
        evidence=m["evidence"],
        amount=AmountRange(m["low"], m["expected"], m["high"], m["currency"]),
        provenance=Provenance(
            source_sha256=m["source_sha256"], row=m["source_row"], rule=m["rule"],
            source_kind=m["source_kind"], import_key=m.get("import_key") or "",
        ),
        batch_id=m["batch_id"],
        run_id=m["run_id"],
        detail=m["detail"],
        quantity=m["quantity"],
        unit=m["unit"],
        reason=m["reason"],
    )


_PRICE_FIELDS = ("item", "unit", "price", "currency", "source", "effective", "expires",
                 "evidence", "low", "high")


def price_row(e: PriceEntry) -> dict[str, Any]:
    row = {name: getattr(e, name) for name in _PRICE_FIELDS}
    row["evidence"] = str(e.evidence)
    return row


def price_from(m: Mapping[str, Any]) -> PriceEntry:
    return PriceEntry(**{name: m[name] for name in _PRICE_FIELDS})
