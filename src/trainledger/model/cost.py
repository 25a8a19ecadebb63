"""Cost lines: every figure trainledger reports is one of these, with where it came from.

A ``CostLine`` carries money (exact, or a range when it rests on an assumption), its basis and
evidence, the batch it belongs to (``None`` means the explicit unattributed bucket, with a
``reason``), and its provenance: the source file's sha256, the row, the import that row came
through (``import_key``: two imports of one content, e.g. another ``--set vc=…``, share the sha256
and the row numbers) and the rule that put it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from trainledger.model.money import AmountRange, Money
from trainledger.model.vocab import Basis, Evidence


@dataclass(frozen=True, slots=True)
class Provenance:
    source_sha256: str  # content hash of the imported file
    row: int  # 1-based data row number in that file (header excluded)
    rule: str  # id of the attribution rule or engine stage that produced the line
    source_kind: str = ""  # slurm | focus | storage | timesheet | progress | invoice | capacity | config
    # the key of the import the row came through (64 hex digits; its first 12 are the id ``imports
    # list`` shows and ``/sources/{import}/{row}`` takes); "": unknown (a line stored before lines
    # recorded it, or a line of no import: a capacity's idle time, an allocation policy)
    import_key: str = ""

    def __post_init__(self) -> None:
        if len(self.source_sha256) != 64 and self.source_kind != "config":
            raise ValueError(f"source_sha256 must be a 64-character hex digest, got {self.source_sha256!r}")
        if self.import_key and len(self.import_key) != 64:
            raise ValueError(f"import_key must be a 64-character hex digest, got {self.import_key!r}")

    @classmethod
    def of(cls, row, rule: str, source_kind: str) -> Provenance:
        """The provenance of a lake row (``source_sha256``, ``row`` and, when the facts carry it,
        ``import_key``; without it the row came through its content's first import, whose key is
        the content hash: lake/keys.py). A workspace file's row (``config``: a capacity's) is of no import."""
        sha = str(row["source_sha256"])
        key = "" if source_kind == "config" else str(row.get("import_key") or sha)
        return cls(sha, int(row["row"]), rule, source_kind, key)


@dataclass(frozen=True, slots=True)
class CostLine:
    category: str  # compute | storage | labor | external | data
    basis: Basis
    evidence: Evidence
    amount: AmountRange
    provenance: Provenance
    batch_id: str | None = None  # None: the unattributed bucket
    run_id: str | None = None
    detail: str = ""  # compute state, storage class, labor phase/role, vendor…
    quantity: Decimal | None = None
    unit: str = ""  # gpu_hour, gb_month, hour…
    reason: str = ""  # why it is unattributed, or which assumption it rests on

    def __post_init__(self) -> None:
        object.__setattr__(self, "basis", Basis(self.basis))
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        if self.batch_id is None and not self.reason:
            raise ValueError("an unattributed cost line must say why (reason)")

    @property
    def currency(self) -> str:
        return self.amount.currency

    @property
    def exact(self) -> Money:
        if not self.amount.is_exact:
            raise ValueError("this cost line is a range; use .amount")
        return Money(self.amount.expected, self.amount.currency)
