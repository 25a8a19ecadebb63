"""The pyarrow schema of each lake table. Column names are the contract of docs/formats.md.

Money is exact decimal *text* (``MONEY``), never a float; timestamps are ``timestamp[us, UTC]``.
Every table ends with the same provenance columns:

    source_sha256   content hash of the imported file (the partition key)
    row             1-based data row (CSV-like) or line (JSONL) in that file
    row_hash        128-bit hash (hex) of the row's canonical content (keys.py; the version in
                    the partition's metadata): finds the same row
                    across files, whatever the format
    flags           JSON list of notes on an accepted row (non-conformance, missing owner, ...)
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pyarrow as pa

TS = pa.timestamp("us", tz="UTC")
MONEY = pa.string()  # exact decimal text, e.g. "-2.61370000000"
TEXT = pa.string()

PROVENANCE = (
    pa.field("source_sha256", TEXT, nullable=False),
    pa.field("row", pa.int64(), nullable=False),
    pa.field("row_hash", TEXT, nullable=False),
    pa.field("flags", TEXT, nullable=False),
)


def _schema(*fields: tuple[str, pa.DataType] | tuple[str, pa.DataType, bool]) -> pa.Schema:
    out = [pa.field(f[0], f[1], nullable=f[2] if len(f) > 2 else True) for f in fields]
    return pa.schema([*out, *PROVENANCE])


JOBS = _schema(
    ("cluster", TEXT, False),
    ("job_id", TEXT, False),
    ("job_id_raw", TEXT, False),
    ("job_name", TEXT, False),
    ("account", TEXT, False),
    ("wckey", TEXT, False),
    ("comment", TEXT, False),
    ("user", TEXT, False),
    ("submit", TS),
    ("eligible", TS),
    ("start", TS),
    ("end", TS),
    ("state", TEXT, False),
    ("exit_code", TEXT, False),
    ("gpus", pa.int64(), False),
    ("gpu_type", TEXT),
    ("nodes", TEXT, False),
    ("restarts", pa.int64(), False),
    ("tags", TEXT, False),
    ("is_step", pa.bool_(), False),
    ("alloc_tres", TEXT, False),
    ("extra", TEXT, False),
    ("gpu_share", MONEY),  # GPU-equivalents held (exact decimal text; 0.5 = half a GPU); null: gpus
)

BILL_LINES = _schema(
    ("billed_cost", MONEY, False),
    ("effective_cost", MONEY),
    ("list_cost", MONEY),
    ("contracted_cost", MONEY),
    ("currency", TEXT, False),
    ("charge_period_start", TS, False),
    ("charge_period_end", TS, False),
    ("billing_period_start", TS),
    ("billing_period_end", TS),
    ("charge_category", TEXT),
    ("charge_class", TEXT),
    ("charge_frequency", TEXT),
    ("charge_description", TEXT),
    ("commitment_discount_id", TEXT),
    ("commitment_discount_status", TEXT),
    ("commitment_discount_category", TEXT),
    ("commitment_discount_type", TEXT),
    ("pricing_category", TEXT),
    ("resource_id", TEXT),
    ("resource_name", TEXT),
    ("resource_type", TEXT),
    ("sku_id", TEXT),
    ("sku_price_id", TEXT),
    ("service_name", TEXT),
    ("service_category", TEXT),
    ("provider", TEXT),
    ("region", TEXT),
    ("billing_account_id", TEXT),
    ("sub_account_id", TEXT),
    ("sub_account_name", TEXT),
    ("consumed_quantity", MONEY),
    ("consumed_unit", TEXT),
    ("pricing_quantity", MONEY),
    ("pricing_unit", TEXT),
    ("list_unit_price", MONEY),
    ("contracted_unit_price", MONEY),
    ("tags", TEXT, False),
    ("extra", TEXT, False),
)

STORAGE_OBJECTS = _schema(
    ("path", TEXT, False),
    ("size_bytes", pa.int64(), False),
    ("storage_class", TEXT, False),
    ("tier", TEXT, False),
    ("owner", TEXT, False),
    ("purpose", TEXT, False),
    ("retention_until", pa.date32()),
    ("review_at", pa.date32()),
    ("last_modified", TS),
    ("snapshot_date", pa.date32(), False),
    ("batch", TEXT),
)

LABOR_ENTRIES = _schema(
    ("date", pa.date32(), False),
    ("person", TEXT, False),
    ("role", TEXT, False),
    ("activity", TEXT, False),
    ("phase", TEXT, False),
    ("hours", MONEY, False),
    ("recurrence", TEXT, False),
    ("batch", TEXT),
)

PROGRESS_EVENTS = _schema(
    ("ts", TS, False),
    ("run", TEXT, False),
    ("event", TEXT, False),
    ("step", pa.int64()),
    ("tokens", pa.int64()),
    ("samples", pa.int64()),
    ("duration_s", pa.float64()),
    ("extra", TEXT, False),
)

EXTERNAL_SERVICES = _schema(
    ("invoice_id", TEXT, False),
    ("vendor", TEXT, False),
    ("date", pa.date32(), False),
    ("amount", MONEY, False),
    ("currency", TEXT, False),
    ("stage", TEXT, False),
    ("description", TEXT, False),
    ("batch", TEXT),
)

OCCUPANCY = _schema(
    ("ts", TS, False),
    ("interval_s", pa.int64(), False),
    ("cluster", TEXT, False),
    ("vc", TEXT, False),  # "" for the whole cluster
    ("unit", TEXT, False),  # gpu | node
    ("total", pa.int64()),
    ("running", pa.int64()),
    ("pending", pa.int64()),
    ("idle", pa.int64()),
    ("running_jobs", pa.int64()),
    ("pending_jobs", pa.int64()),
    ("extra", TEXT, False),
)

WORKER_STEPS = _schema(
    ("job", TEXT, False),
    ("worker", TEXT, False),
    ("iteration", pa.int64(), False),
    ("step_time", MONEY, False),  # exact decimal text, in ``unit``
    ("unit", TEXT, False),  # s | ms | normalised (a source's own scale, e.g. 0-1000)
    ("gpu", TEXT),
    ("extra", TEXT, False),
)

CAPACITY = _schema(  # what capacity existed (import nodes): a node, or a count of a cluster / VC
    ("cluster", TEXT, False),
    ("vc", TEXT, False),  # "" when the fact is not of a virtual cluster
    ("node", TEXT, False),  # "" when the fact counts GPUs / nodes of a cluster or VC
    ("nodes", pa.int64()),  # how many nodes the fact counts (1 for a node); null: not said
    ("gpus", pa.int64()),  # how many GPUs; null: not said (a list of node counts only)
    ("gpu_model", TEXT),
    ("valid_from", TS),  # null: since whenever (a snapshot without a date)
    ("valid_to", TS),  # null: until further notice
    ("resource_id", TEXT),  # the node's instance id as its bill names it (kubectl's providerID): the node map
    ("extra", TEXT, False),
)


def row_problem(row: dict[str, Any], schema: pa.Schema) -> str | None:
    """Why ``row`` cannot be stored in a table of ``schema`` (the first column whose value its
    type refuses, e.g. an integer beyond 64 bits), or None."""
    for f in schema:
        value = row.get(f.name)
        try:
            pa.array([value], type=f.type)
        except (pa.ArrowException, OverflowError, ValueError, TypeError) as e:
            shown = repr(value)
            if len(shown) > 40:
                shown = shown[:24] + f"… ({len(shown)} characters)"
            return f"{f.name}: {shown} does not fit the lake's {f.type} column ({e})"
    return None


TABLES: MappingProxyType[str, pa.Schema] = MappingProxyType(
    {
        "jobs": JOBS,
        "bill_lines": BILL_LINES,
        "storage_objects": STORAGE_OBJECTS,
        "labor_entries": LABOR_ENTRIES,
        "progress_events": PROGRESS_EVENTS,
        "external_services": EXTERNAL_SERVICES,
        "occupancy": OCCUPANCY,
        "worker_steps": WORKER_STEPS,
        "capacity": CAPACITY,
    }
)
