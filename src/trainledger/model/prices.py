"""Price book entries and assumptions: every number that is not a measurement says where it is from."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal

from trainledger.i18n.core import Twin
from trainledger.model.money import check_currency, to_decimal
from trainledger.model.restricted import KINDS
from trainledger.model.vocab import Evidence


@dataclass(frozen=True, slots=True)
class PriceEntry:
    """A dated, sourced unit price. ``low``/``high`` default to ``price`` (a quoted contract)."""

    item: str  # e.g. "gpu_hour:h800", "storage:oss-standard"
    unit: str  # e.g. "gpu_hour", "card_day", "node_month", "gb_month"
    price: Decimal
    currency: str
    source: str
    effective: date
    expires: date | None = None
    evidence: Evidence = Evidence.CONTRACT
    low: Decimal | None = None
    high: Decimal | None = None
    owner: str = ""  # who confirms an assumed price

    def __post_init__(self) -> None:
        object.__setattr__(self, "price", to_decimal(self.price))
        object.__setattr__(self, "currency", check_currency(self.currency))
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        lo = self.price if self.low is None else to_decimal(self.low)
        hi = self.price if self.high is None else to_decimal(self.high)
        if not (lo <= self.price <= hi):
            raise ValueError(f"price {self.item}: need low <= price <= high")
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "high", hi)
        if not self.source.strip():
            raise ValueError(f"price {self.item}: a price needs a source")
        if self.price < 0:
            raise ValueError(f"price {self.item}: must be >= 0")
        if self.expires is not None and self.expires < self.effective:
            raise ValueError(f"price {self.item}: expires before it is effective")

    def is_stale(self, on: date) -> bool:
        return (self.expires is not None and on > self.expires) or on < self.effective


@dataclass(frozen=True, slots=True)
class Assumption:
    """One row of the assumptions drawer (假设抽屉)."""

    name: str
    evidence: Evidence
    source: str
    value: str | None = None  # a point value, as text with its unit
    low: str | None = None
    high: str | None = None
    unit: str = ""
    owner: str = ""  # who must confirm it, required when evidence is assumed
    note: str = ""
    # the restricted kind of its value (model/restricted.py KINDS): "unit_price" for a capacity's,
    # price book's or contract's price, "labor_rate" for a labor rate; set where the price is made,
    # so report/access.py restricts it whatever its name says
    value_kind: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        if self.value_kind is not None and self.value_kind not in KINDS:
            raise ValueError(f"assumption {self.name!r}: unknown restricted kind {self.value_kind!r}")
        if self.evidence is Evidence.ASSUMED and not self.owner:
            raise ValueError(f"assumption {self.name!r} is unconfirmed: it needs an owner to confirm it")
        if self.value is None and (self.low is None or self.high is None):
            raise ValueError(f"assumption {self.name!r} needs a value or a low/high range")

    def as_dict(self) -> dict[str, str]:
        """The row as JSON values; a ``source`` or ``note`` that is an ``i18n.core.Twin`` (a price
        book's ``source_zh`` / ``note_zh``) adds ``source_zh`` / ``note_zh`` beside its English."""
        d = {"name": self.name, "evidence": str(self.evidence), "source": self.source}
        if isinstance(self.source, Twin):
            d["source_zh"] = self.source.zh
        if self.value is not None:
            d["value"] = self.value
        else:
            d["low"], d["high"] = self.low, self.high  # type: ignore[assignment]
        for k in ("unit", "owner", "note", "value_kind"):
            if getattr(self, k):
                d[k] = getattr(self, k)
                if isinstance(d[k], Twin):
                    d[f"{k}_zh"] = d[k].zh
        return d
