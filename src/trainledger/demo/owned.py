"""The ``owned`` demo scenario: the same story on capacity the company owns or has reserved.

Most H800 / Ascend clusters in China are self-hosted: there is no cloud bill for the GPU nodes.
Here gpu-node-01/02 are the company's own servers (amortised hardware: purchase price over four
years, power, hosting, operations staff) and gpu-node-03/04 are reserved in a colocation hall at a
contracted rate card. The bill keeps what is still rented (the data-processing instance, the NAT
gateway, an adjustment); the jobs, progress, storage, timesheets and invoices are the rented
story's, so the two scenarios can be compared line by line.
"""

from __future__ import annotations

from datetime import date

from trainledger.demo.scenario import GPUS_PER_NODE, NODES, PERIOD_END, PERIOD_START

SCENARIOS = ("rented", "owned")

CAPACITY = (
    {
        "id": "h800-own",
        "name": "自有 H800 服务器 (own servers, machine room A)",
        "nodes": list(NODES[:2]),
        "gpus_per_node": GPUS_PER_NODE,
        "from": PERIOD_START,
        "until": PERIOD_END,
        "currency": "CNY",
        "source": "fixed-asset register FA-2025-0412; power and hosting: IDC contract; ops: 1.5 FTE SRE"
                  " (demo data, illustrative)",
        "source_zh": "固定资产登记 FA-2025-0412；电力与托管：IDC 合同；运维：1.5 名 SRE（演示数据，示意）",
        "owner": "finance: zhao.min",
        "evidence": "assumed",
        "amortized": {
            "purchase_price_per_node": "2150000",
            "depreciation_years": 4,
            "power_kw_per_node": "10.2",
            "power_price_per_kwh": "0.68",
            "hosting_per_node_month": "4500",
            "ops_staff_per_year": "360000",
        },
    },
    {
        "id": "h800-reserved",
        "name": "托管机房预留 H800 (reserved, colocation hall B)",
        "nodes": list(NODES[2:]),
        "gpus_per_node": GPUS_PER_NODE,
        "from": PERIOD_START,
        "until": PERIOD_END,
        "currency": "CNY",
        "rate": "30.00",
        "unit": "gpu_hour",
        "effective": date(2026, 10, 1),
        "source": "reserved-capacity contract RC-2026-031, schedule 2 (demo data, illustrative)",
        "source_zh": "预留容量合同 RC-2026-031 附表 2（演示数据，示意）",
        "owner": "procurement: qian.yu",
        "evidence": "contract",
    },
)


def keep_bill_row(row: dict[str, str]) -> bool:
    """Owned and reserved nodes are not on the cloud bill (nor is an SLA credit for them)."""
    return row["ResourceId"] not in NODES
