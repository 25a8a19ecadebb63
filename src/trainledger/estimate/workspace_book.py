"""Inside a workspace the estimate prices with the workspace's own book: its price book, its
currency (with the book's dated FX) and its loaded labor rates (``[[labor_rates]]``, per hour).

``WorkspaceBook.of(dir)`` reads ``trainledger.toml`` when there is one; outside a workspace it is
``None`` and the estimate uses the shipped sample book. Explicit ``--price-book`` / ``--currency``
win. A price the workspace's book lacks is not borrowed from the sample: the estimate lists every
missing item at once (``engine.EstimateFailed``).
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from trainledger.errors import TrainledgerError
from trainledger.estimate.messages import Msg
from trainledger.pricebook import UNITS
from trainledger.workspace import CONFIG_NAME, load

HOURS_PER = {unit: factor for unit, (dim, factor, _node) in UNITS.items() if dim == "labor"}


@dataclass(frozen=True)
class LaborRateRange:
    """A loaded labor rate per hour, as the workspace states it."""

    role: str
    low: Decimal
    expected: Decimal
    high: Decimal
    currency: str
    source: str
    evidence: str
    owner: str

    def per(self, unit: str) -> tuple[Decimal, Decimal, Decimal]:
        k = HOURS_PER[unit]
        return self.low * k, self.expected * k, self.high * k


@dataclass(frozen=True)
class WorkspaceBook:
    root: Path
    price_book: str | None  # absolute path, or None: the workspace names none
    currency: str | None  # None: the workspace sets none
    labor_rates: dict[str, LaborRateRange]

    @classmethod
    def read(cls, workspace: str | Path | None) -> tuple[WorkspaceBook | None, str | None]:
        """(the book, None), (None, None) outside a workspace, or (None, the error's name) when
        the workspace's configuration cannot be read — the caller warns and says what it used."""
        try:
            return cls.of(workspace), None
        except TrainledgerError as exc:
            return None, type(exc).__name__

    @classmethod
    def of(cls, workspace: str | Path | None) -> WorkspaceBook | None:
        if workspace is None or not (Path(workspace) / CONFIG_NAME).is_file():
            return None
        cfg = load(workspace)
        ws = cfg.raw.get("workspace", {})
        pb = ws.get("price_book") or None
        rates = {
            str(r.role): LaborRateRange(
                str(r.role),
                Decimal(r.rate.low),
                Decimal(r.rate.expected),
                Decimal(r.rate.high),
                r.rate.currency,
                r.source,
                str(r.evidence),
                r.owner,
            )
            for r in cfg.labor_rates
        }
        return cls(cfg.root, str((cfg.root / pb).resolve()) if pb else None, ws.get("currency"), rates)

    def note(self, book_path: str, currency: str) -> Msg:
        return Msg(
            "note.workspace_book",
            root=str(self.root),
            book=book_path,
            currency=currency,
            roles=", ".join(sorted(self.labor_rates)) or "-",
        )
