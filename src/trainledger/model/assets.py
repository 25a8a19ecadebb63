"""Storage objects, labor entries and external services: the non-compute costs of a batch."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from trainledger.model.batch import check_aware
from trainledger.model.money import Money
from trainledger.model.vocab import LaborPhase, LaborRole, Recurrence, ServiceStage, StorageClass


@dataclass(frozen=True, slots=True)
class StorageObject:
    """One stored object or prefix. Every object needs an owner, a purpose, and either a
    retention date or a review date; one without them is kept but flagged for governance."""

    path: str
    size_bytes: int
    storage_class: StorageClass
    owner: str
    purpose: str
    retention_until: date | None = None
    review_at: date | None = None
    tier: str = "standard"
    last_modified: datetime | None = None
    batch_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "storage_class", StorageClass(self.storage_class))
        if self.size_bytes < 0:
            raise ValueError(f"storage object {self.path}: size_bytes must be >= 0")
        check_aware(self.last_modified, f"storage object {self.path} last_modified")

    @property
    def governance_flags(self) -> tuple[str, ...]:
        flags = []
        if not self.owner:
            flags.append("no_owner")
        if not self.purpose:
            flags.append("no_purpose")
        if self.retention_until is None and self.review_at is None:
            flags.append("no_retention_or_review_date")
        return tuple(flags)


def default_recurrence(phase: LaborPhase) -> Recurrence:
    return Recurrence.ONE_TIME if phase is LaborPhase.BUILD else Recurrence.ONGOING


@dataclass(frozen=True, slots=True)
class LaborEntry:
    day: date
    person: str
    role: LaborRole
    activity: str
    phase: LaborPhase
    hours: Decimal
    recurrence: Recurrence | None = None
    batch_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "role", LaborRole(self.role))
        object.__setattr__(self, "phase", LaborPhase(self.phase))
        if self.recurrence is None:
            object.__setattr__(self, "recurrence", default_recurrence(self.phase))
        else:
            object.__setattr__(self, "recurrence", Recurrence(self.recurrence))
        if self.hours < 0:
            raise ValueError(f"labor entry of {self.person} on {self.day}: hours must be >= 0")


@dataclass(frozen=True, slots=True)
class ExternalService:
    """Vendor work: delivery-stage (first build) or an ongoing dependency (every upgrade)."""

    vendor: str
    invoice_id: str
    day: date
    amount: Money
    stage: ServiceStage
    description: str = ""
    batch_id: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "stage", ServiceStage(self.stage))
