"""An Alibaba Cloud-style FOCUS 1.0 cost export in CNY for the rental period.

* one row per GPU node per hour for the whole period: the four nodes are rented throughout, so
  hours no job used are idle capacity on the bill;
* a data-processing ECS instance, hourly while it ran, tagged with the batch it prepared;
* a shared NAT gateway, daily, untagged (it must end unattributed);
* an SLA credit for gpu-node-02's outage (negative, ChargeCategory ``Credit``);
* one adjustment row whose ChargeCategory (``usage-adjust``) is not a FOCUS value: its money is
  real, so the importer must accept it and flag it;
* OSS storage per bucket and class, and the checkpoints' PUT requests (storage_bill.py), when
  the runs are given: what the inventory estimate is reconciled against.

Times are UTC (``2026-11-02T00:00:00Z``); nulls are the literal ``NULL``, as FOCUS exports
write them.
"""

from __future__ import annotations

import csv
import io
import json
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from trainledger.demo.scenario import BATCH_A, BATCH_B, NODES, PERIOD_END, PERIOD_START, local

COLUMNS = (
    "AvailabilityZone", "BilledCost", "BillingAccountId", "BillingAccountName", "BillingCurrency",
    "BillingPeriodEnd", "BillingPeriodStart", "ChargeCategory", "ChargeClass", "ChargeDescription",
    "ChargeFrequency", "ChargePeriodEnd", "ChargePeriodStart", "CommitmentDiscountCategory",
    "CommitmentDiscountId", "CommitmentDiscountName", "CommitmentDiscountStatus",
    "CommitmentDiscountType", "ConsumedQuantity", "ConsumedUnit", "ContractedCost",
    "ContractedUnitPrice", "EffectiveCost", "InvoiceIssuerName", "ListCost", "ListUnitPrice",
    "PricingCategory", "PricingQuantity", "PricingUnit", "ProviderName", "PublisherName",
    "RegionId", "RegionName", "ResourceId", "ResourceName", "ResourceType", "ServiceCategory",
    "ServiceName", "SkuId", "SkuPriceId", "SubAccountId", "SubAccountName", "Tags",
)
NULL = "NULL"
CURRENCY = "CNY"
NODE_TYPE = "ecs.ebmgn8v.48xlarge"
NODE_LIST_PRICE = Decimal("360.00")  # per node-hour, 8 × H800 80GB bare metal (illustrative)
NODE_PRICE = Decimal("288.00")  # contracted: 20% off list for the committed rental
DP_TYPE = "ecs.g8i.8xlarge"
DP_LIST_PRICE, DP_PRICE = Decimal("9.86"), Decimal("7.89")
DP_INSTANCE = "i-0jl7dpclean01x4k2"
NAT_ID = "ngw-0jlshared9f2c1a"
NODE_TAGS = {"cluster": "h800-train", "env": "prod"}
# (local start hour, hours, batch): the data-processing instance ran for clean-v4, then clean-v5.
DP_SESSIONS = (("2026-11-02 10:00", 9, BATCH_A), ("2026-11-06 14:00", 5, BATCH_B),
               ("2026-11-07 09:00", 8, BATCH_B))
OUTAGE_DAY_UTC = datetime(2026, 11, 4, tzinfo=PERIOD_START.tzinfo)
CREDIT = Decimal("-2880.00")  # 10 node-hours at the contracted rate, per the SLA


def _z(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _money(d: Decimal) -> str:
    return f"{d.quantize(Decimal('0.01'))}"


@dataclass(frozen=True)
class _Charge:
    start: datetime
    hours: int
    billed: Decimal
    list_cost: Decimal | None
    category: str = "Usage"
    frequency: str = "Usage-Based"
    quantity: str | None = "1"
    unit_price: tuple[Decimal, Decimal] | None = None  # (list, contracted)


BASE = {
    "AvailabilityZone": "cn-wulanchabu-b", "BillingAccountId": "1498327710643215",
    "BillingAccountName": "杭州知言科技有限公司（示例）", "BillingCurrency": CURRENCY,
    "BillingPeriodStart": "2026-11-01T00:00:00Z", "BillingPeriodEnd": "2026-12-01T00:00:00Z",
    "ChargeClass": NULL, "CommitmentDiscountCategory": NULL, "CommitmentDiscountId": NULL,
    "CommitmentDiscountName": NULL, "CommitmentDiscountStatus": NULL,
    "CommitmentDiscountType": NULL, "InvoiceIssuerName": "Alibaba Cloud Computing Ltd.",
    "PricingCategory": "Standard", "ProviderName": "Alibaba Cloud",
    "PublisherName": "Alibaba Cloud",
    "RegionId": "cn-wulanchabu", "RegionName": "China (Ulanqab)",
    "SubAccountId": "rg-aek2trainml7demo", "SubAccountName": "applied-ml-training",
}


def _row(resource: dict[str, str], c: _Charge, tags: dict[str, str] | None) -> dict[str, str]:
    end = c.start + timedelta(hours=c.hours)
    lp, cp = c.unit_price if c.unit_price else (None, None)
    unit = "Hours" if c.quantity is not None else NULL
    return {
        **BASE, **resource,
        "BilledCost": _money(c.billed), "EffectiveCost": _money(c.billed),
        "ContractedCost": _money(c.billed) if c.list_cost is not None else _money(Decimal(0)),
        "ListCost": _money(c.list_cost) if c.list_cost is not None else _money(Decimal(0)),
        "ListUnitPrice": _money(lp) if lp is not None else NULL,
        "ContractedUnitPrice": _money(cp) if cp is not None else NULL,
        "ChargeCategory": c.category, "ChargeFrequency": c.frequency,
        "ChargePeriodStart": _z(c.start), "ChargePeriodEnd": _z(end),
        "ConsumedQuantity": c.quantity or NULL, "ConsumedUnit": unit,
        "PricingQuantity": c.quantity or NULL, "PricingUnit": unit,
        "Tags": json.dumps(tags, ensure_ascii=False) if tags else NULL,
    }


def _node(name: str) -> dict[str, str]:
    return {"ResourceId": name, "ResourceName": name, "ResourceType": NODE_TYPE,
            "ServiceCategory": "Compute", "ServiceName": "Elastic Compute Service",
            "SkuId": f"{NODE_TYPE}-postpaid", "SkuPriceId": f"cn-wulanchabu:{NODE_TYPE}:hour",
            "ChargeDescription": f"{NODE_TYPE} 按量付费实例小时 (8 × H800 80GB, bare metal)"}


DP = {"ResourceId": DP_INSTANCE, "ResourceName": "dp-clean-01", "ResourceType": DP_TYPE,
      "ServiceCategory": "Compute", "ServiceName": "Elastic Compute Service",
      "SkuId": f"{DP_TYPE}-postpaid", "SkuPriceId": f"cn-wulanchabu:{DP_TYPE}:hour",
      "ChargeDescription": f"{DP_TYPE} 按量付费实例小时 (数据清洗 / data processing)"}
NAT = {"ResourceId": NAT_ID, "ResourceName": "vpc-train-egress", "ResourceType": "nat-gateway",
       "ServiceCategory": "Networking", "ServiceName": "NAT Gateway",
       "SkuId": "nat-enhanced-small-postpaid", "SkuPriceId": "cn-wulanchabu:nat:day",
       "ChargeDescription": "NAT 网关实例费 + 容量单位 (shared egress of the training VPC)"}


def rows(seed: int) -> list[dict[str, str]]:
    rng = random.Random(f"{seed}:bill")
    out: list[dict[str, str]] = []
    hours = int((PERIOD_END - PERIOD_START).total_seconds() // 3600)
    for h in range(hours):
        start = PERIOD_START + timedelta(hours=h)
        for node in NODES:
            out.append(_row(_node(node), _Charge(start, 1, NODE_PRICE, NODE_LIST_PRICE,
                                                 unit_price=(NODE_LIST_PRICE, NODE_PRICE)),
                            NODE_TAGS))
    for first, n, batch in DP_SESSIONS:
        t0 = local(first).astimezone(PERIOD_START.tzinfo)
        tags = {"batch": batch, "team": "applied-ml", "purpose": "data-processing"}
        for h in range(n):
            c = _Charge(t0 + timedelta(hours=h), 1, DP_PRICE, DP_LIST_PRICE,
                        unit_price=(DP_LIST_PRICE, DP_PRICE))
            out.append(_row(DP, c, tags))
    for d in range(hours // 24):
        cu = Decimal(rng.randint(180, 960)) / 100  # capacity units vary with image/pip traffic
        fee = Decimal("12.00") + cu
        c = _Charge(PERIOD_START + timedelta(days=d), 24, fee, fee, quantity="24")
        out.append(_row(NAT, c, None))
    credit = _Charge(OUTAGE_DAY_UTC, 24, CREDIT, None, category="Credit", frequency="One-Time",
                     quantity=None)
    out.append({**_row(_node(NODES[1]), credit, None),
                "ChargeDescription": "SLA 赔付：gpu-node-02 硬件故障 2026-11-04 (SLA credit)"})
    adjust = _Charge(local("2026-11-02 08:00").astimezone(PERIOD_START.tzinfo), 24,
                     Decimal("3.95"), Decimal("3.95"), category="usage-adjust",
                     frequency="One-Time", quantity=None)
    out.append({**_row(DP, adjust, {"batch": BATCH_A, "team": "applied-ml"}),
                "ChargeDescription": "用量调整：dp-clean-01 计费时长补差 (usage adjustment)"})
    return out


def render(seed: int, scenario: str = "rented", jobs=None) -> str:
    from trainledger.demo import storage_bill
    from trainledger.demo.owned import keep_bill_row

    out = rows(seed) + (storage_bill.rows(jobs, seed, BASE, _z) if jobs is not None else [])
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(r for r in out if scenario != "owned" or keep_bill_row(r))
    return buf.getvalue()
