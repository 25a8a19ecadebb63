"""Pure domain types: no I/O, no imports from the rest of trainledger.

    money.py    Money, AmountRange, allocate, EXACT (exact sums and splits; the rounding rule lives here)
    vocab.py    closed vocabularies (DESIGN §2) as StrEnums, with zh-CN labels
    batch.py    AttributionKey, Project, Batch, Run (+ suggested review class)
    cost.py     Provenance, CostLine (basis, evidence, batch or unattributed reason)
    assets.py   StorageObject, LaborEntry, ExternalService
    prices.py   PriceEntry (dated, sourced), Assumption (a row of the assumptions drawer)
    evidence.py weakest(): a figure's evidence is the weakest of its inputs
    restricted.py  Restricted(value, kind): a sensitive field; the roles and what each sees; resolve()
    objpath.py  an object-store path's one stored form (canonical) and the identity rules match on
"""

from trainledger.model.assets import ExternalService, LaborEntry, StorageObject
from trainledger.model.batch import AttributionKey, Batch, Project, Run
from trainledger.model.cost import CostLine, Provenance
from trainledger.model.money import AmountRange, Money, allocate, money_sum, to_decimal
from trainledger.model.prices import Assumption, PriceEntry
from trainledger.model.vocab import (
    CASH_BASES,
    Basis,
    ComputeState,
    DecisionKind,
    Evidence,
    FailureCause,
    LaborPhase,
    LaborRole,
    PlanStage,
    Recurrence,
    ReviewClass,
    RunReason,
    ServiceStage,
    StorageClass,
    TaskType,
    label,
)

__all__ = [
    "CASH_BASES",
    "AmountRange",
    "Assumption",
    "AttributionKey",
    "Basis",
    "Batch",
    "ComputeState",
    "CostLine",
    "DecisionKind",
    "Evidence",
    "ExternalService",
    "FailureCause",
    "LaborEntry",
    "LaborPhase",
    "LaborRole",
    "Money",
    "PlanStage",
    "PriceEntry",
    "Project",
    "Provenance",
    "Recurrence",
    "ReviewClass",
    "Run",
    "RunReason",
    "ServiceStage",
    "StorageClass",
    "StorageObject",
    "TaskType",
    "allocate",
    "label",
    "money_sum",
    "to_decimal",
]
