"""Inline facts for engine tests, in the lake's column names (docs/formats.md)."""

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from trainledger.model import PriceEntry

SHA_JOBS, SHA_BILL, SHA_PROG = "1" * 64, "2" * 64, "3" * 64
T0 = datetime(2026, 11, 2, 0, 0, tzinfo=UTC)

CONFIG = """
[workspace]
currency = "CNY"
[cluster]
gpus_per_node = 8
gpu_item = "gpu_hour:h800"
[[projects]]
id = "p1"
goal = "a goal"
[[batches]]
id = "b1"
project = "p1"
goal = "g"
data_snapshot = "ds1"
data_processing_version = "v1"
model_version = "m1"
code_version = "c1"
config_version = "cfg1"
team = "t"
[[rules]]
id = "wckey"
source = "slurm"
field = "wckey"
match = "template"
[[rules]]
id = "tag"
source = "focus"
field = "tags.batch"
match = "template"
[[labor_rates]]
role = "training_engineering"
currency = "CNY"
low = "300"
expected = "380"
high = "450"
source = "rate card"
evidence = "assumed"
owner = "finance"
"""

# a second batch of project p1, for configs that add one to CONFIG
BATCH_B2 = """
[[batches]]
id = "b2"
project = "p1"
goal = "g"
data_snapshot = "ds1"
data_processing_version = "v1"
model_version = "m1"
code_version = "c1"
config_version = "cfg1"
team = "t"
"""


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def job(job_id, *, start, end, gpus=4, nodes="n1", wckey="b1", state="COMPLETED", submit=None, tags="{}",
        row=1):
    return {"job_id": job_id, "job_name": "j", "account": "a", "wckey": wckey, "comment": "", "user": "u",
            "submit": submit or start, "eligible": submit or start, "start": start, "end": end, "state": state,
            "exit_code": "0:0", "gpus": gpus, "gpu_type": "h800", "nodes": nodes, "restarts": 0, "tags": tags,
            "is_step": False, "source_sha256": SHA_JOBS, "row": row}


def bill(start, hours=1, amount="80.00", resource="n1", tags="{}", row=1, status=None):
    return {"billed_cost": amount, "effective_cost": amount, "list_cost": amount, "contracted_cost": None,
            "currency": "CNY", "charge_period_start": start, "charge_period_end": start + timedelta(hours=hours),
            "charge_category": "Usage", "resource_id": resource, "resource_name": None,
            "service_category": "Compute", "commitment_discount_status": status, "tags": tags,
            "source_sha256": SHA_BILL, "row": row}


def event(run, minutes, kind, **kw):
    return {"ts": at(minutes), "run": run, "event": kind, "step": kw.get("step"), "tokens": None,
            "samples": None, "duration_s": kw.get("duration_s"), "source_sha256": SHA_PROG, "row": 1}


def price_lookup(item, on, unit="gpu_hour"):
    if item == "gpu_hour:h800" and unit == "gpu_hour":
        return PriceEntry(item=item, unit="gpu_hour", price=Decimal("10"), low=Decimal("8"), high=Decimal("12"),
                          currency="CNY", source="quote", effective=T0.date(), evidence="contract")
    return None
