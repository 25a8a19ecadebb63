"""The OSS storage rows of the demo bill (FOCUS, ServiceCategory Storage), for the bill's period.

OSS bills storage by the hour per bucket and storage class; each row here is one bucket and class
for the whole export period (2026-11-02 → 11-23 UTC): ConsumedQuantity in GB-hours (GB = 2^30
bytes), PricingQuantity in GB-months (÷ 730 h), BilledCost = GB-months × the contracted price.
What was stored comes from the same story as the inventory (``storage.rows``), with what the
inventory cannot show, so the reconciliation (engine/storage_reconcile.py) has real differences
to explain:

* checkpoints that ``save_total_limit=3`` rotation deleted before the inventory date were billed
  while they existed (volume: the bill holds more GiB-months than the inventory — in train-ckpt
  163.72 of the 488.38 more, from 148 rotated checkpoints; the other 324.66 are the 9,875.16 GiB
  of survivors billed by the hour to 11-23 while the estimate stops at the 11-22 inventory,
  00:00 UTC: 9,875.16 × 24 h / 730);
* standard storage is billed at a 5 % enterprise discount on the 0.12 list price the price book
  uses (price);
* PUT requests of the checkpoint saves, billed per 10,000 (other charges);
* ``train-scratch``, a bucket outside the inventory configuration (an unmatched bill row).

The inventory estimate also covers the days before the bill's period (objects written in
September and October; the bill starts on 11-02): those months show as not billed.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.demo.scenario import PERIOD_END, PERIOD_START
from trainledger.demo.storage import CKPT_GB, CKPT_ROOT, GB, KEEP_LAST
from trainledger.demo.storage import rows as inventory_rows
from trainledger.demo.timeline import Job

GIB = Decimal(2**30)
LIST = {"standard": Decimal("0.12"), "infrequent": Decimal("0.08"), "archive": Decimal("0.033")}
DISCOUNT = {"standard": Decimal("0.95")}  # enterprise agreement on standard storage
CLASS = {"standard": "Standard", "infrequent": "IA", "archive": "Archive"}
SCRATCH = ("train-scratch", Decimal(310) * GIB)  # someone's scratch bucket: not in the inventory
PUT_PER_SAVE = 23_000  # multipart PUTs of one sharded checkpoint save
PUT_PRICE = Decimal("0.01")  # per 10,000 PUT requests


def _t(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _hours(since: datetime, until: datetime) -> Decimal:
    a, b = max(since, PERIOD_START), min(until, PERIOD_END)
    return Decimal(max((b - a).total_seconds(), 0)) / 3600


def _bucket(path: str) -> str:
    return path.removeprefix("oss://").split("/", 1)[0]


def held(jobs: tuple[Job, ...], seed: int) -> dict[tuple[str, str], Decimal]:
    """GB-hours per (bucket, tier) in the bill's period: the inventory's objects from when they
    were written, and the rotated checkpoints until the save that deleted them."""
    acc: dict[tuple[str, str], Decimal] = defaultdict(Decimal)
    for r in inventory_rows(jobs, seed):
        acc[(_bucket(r["path"]), r["tier"])] += Decimal(int(r["size_bytes"])) / GIB * _hours(
            _t(r["last_modified"]), PERIOD_END)
    size = Decimal(int(CKPT_GB * GB)) / GIB
    for job in jobs:
        ckpts = job.checkpoints
        for i, (_step, ts) in enumerate(ckpts[:-KEEP_LAST] if len(ckpts) > KEEP_LAST else ()):
            acc[(_bucket(CKPT_ROOT), "standard")] += size * _hours(ts, ckpts[i + KEEP_LAST][1])
    acc[(SCRATCH[0], "standard")] += SCRATCH[1] / GIB * _hours(PERIOD_START, PERIOD_END)
    return dict(acc)


def _money(d: Decimal, places: str = "0.01") -> str:
    return str(d.quantize(Decimal(places), ROUND_HALF_EVEN))


def rows(jobs: tuple[Job, ...], seed: int, base: dict[str, str], z) -> list[dict[str, str]]:
    """The storage rows in the bill's columns (``base``: the bill's constant columns; ``z``: its
    timestamp format)."""
    out = []
    common = {**base, "ChargeCategory": "Usage", "ChargeFrequency": "Usage-Based",
              "ChargePeriodStart": z(PERIOD_START), "ChargePeriodEnd": z(PERIOD_END), "Tags": "NULL",
              "ServiceCategory": "Storage", "ServiceName": "对象存储 OSS"}
    for (bucket, tier), gb_hours in sorted(held(jobs, seed).items()):
        gb_months = (gb_hours / 730).quantize(Decimal("0.000001"), ROUND_HALF_EVEN)
        price = LIST[tier] * DISCOUNT.get(tier, Decimal(1))
        out.append({**common, "ResourceId": bucket, "ResourceName": bucket, "ResourceType": "oss-bucket",
                    "SkuId": f"oss-storage-{CLASS[tier].lower()}", "SkuPriceId": f"cn-wulanchabu:oss:{tier}:gb-mo",
                    "ChargeDescription": f"OSS {CLASS[tier]} 存储容量 / storage capacity ({bucket})",
                    "ConsumedQuantity": _money(gb_hours, "0.0001"), "ConsumedUnit": "GB-Hours",
                    "PricingQuantity": str(gb_months), "PricingUnit": "GB-Mo",
                    "ListUnitPrice": str(LIST[tier]), "ContractedUnitPrice": str(price),
                    "ListCost": _money(gb_months * LIST[tier]), "ContractedCost": _money(gb_months * price),
                    "BilledCost": _money(gb_months * price), "EffectiveCost": _money(gb_months * price)})
    saves = sum(len(j.checkpoints) for j in jobs)
    puts = saves * PUT_PER_SAVE
    fee = Decimal(puts) / 10_000 * PUT_PRICE
    out.append({**common, "ResourceId": _bucket(CKPT_ROOT), "ResourceName": _bucket(CKPT_ROOT),
                "ResourceType": "oss-bucket", "SkuId": "oss-put-requests", "SkuPriceId": "cn-wulanchabu:oss:put:10k",
                "ChargeDescription": f"OSS PUT 请求 / PUT requests ({saves} checkpoint saves)",
                "ConsumedQuantity": str(puts), "ConsumedUnit": "Requests",
                "PricingQuantity": str(Decimal(puts) / 10_000), "PricingUnit": "10K Requests",
                "ListUnitPrice": str(PUT_PRICE), "ContractedUnitPrice": str(PUT_PRICE),
                "ListCost": _money(fee), "ContractedCost": _money(fee), "BilledCost": _money(fee),
                "EffectiveCost": _money(fee)})
    return out
