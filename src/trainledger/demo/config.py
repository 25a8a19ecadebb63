"""The workspace configuration (``trainledger.toml``) and the price book (``prices.toml``).

Every rule is either a ``template`` (the field's value *is* a batch id) or a prefix rule naming one
of the two batches. Every number that is not measured says where it came from, how sure it is
(evidence) and, when assumed, who must confirm it.
"""

from __future__ import annotations

import json
from datetime import date

from trainledger.demo import owned
from trainledger.demo.scenario import BATCH_A as A
from trainledger.demo.scenario import BATCH_B as B
from trainledger.demo.scenario import BATCHES, GPU_TYPE, GPUS_PER_NODE, PROJECT, SLURM_TIMEZONE

PRICE_BOOK = "prices.toml"
DEMO_SOURCE = "demo data (illustrative)"
DEMO_SOURCE_ZH = "演示数据（示意）"
GPU_ITEM = f"gpu_hour:{GPU_TYPE}"

STORAGE_CLASSES = (
    ("oss://train-data/raw/", "raw_data"), ("oss://train-data/processed/", "processed_data"),
    ("oss://train-cache/", "cache"), ("oss://train-ckpt/", "checkpoint"),
    ("oss://train-models/candidates/", "candidate_model"),
    ("oss://train-models/release/", "final_artifact"), ("oss://train-logs/", "log"),
    ("oss://train-eval/", "eval_result"), ("oss://train-backup/", "backup"),
)
# storage prefix → batch; anything else (raw snapshots, the stale cache) stays unattributed
STORAGE_BATCH_PREFIXES = (
    ("ckpt-a", "oss://train-ckpt/csa-sft-2026-11-a/", A),
    ("ckpt-b", "oss://train-ckpt/csa-sft-2026-11-b/", B),
    ("data-clean-v4", "oss://train-data/processed/clean-v4/", A),
    ("data-clean-v5", "oss://train-data/processed/clean-v5/", B),
    ("candidates-a", "oss://train-models/candidates/csa-sft-2026-11-a/", A),
    ("candidates-b", "oss://train-models/candidates/csa-sft-2026-11-b/", B),
    ("logs-a", "oss://train-logs/csa-sft-2026-11-a/", A),
    ("logs-b", "oss://train-logs/csa-sft-2026-11-b/", B),
    ("eval-a", "oss://train-eval/csa-sft-2026-11-a/", A),
    ("eval-b", "oss://train-eval/csa-sft-2026-11-b/", B),
)

# role, low, expected, high (CNY per loaded hour), source, its reviewed Chinese, evidence, owner
LABOR_RATES = (
    # an internal rate card is not a contract: assumed until finance confirms it (issue 4, item 7)
    ("data_prep", "220", "260", "320", "finance rate card FY2026, data engineer band",
     "财务 FY2026 费率卡，数据工程师档", "assumed",
     "finance: zhao.min"),
    ("training_engineering", "300", "380", "450", "finance rate card FY2026, ML engineer band",
     "财务 FY2026 费率卡，机器学习工程师档", "assumed", "finance: zhao.min"),
    ("platform_support", "260", "310", "380", "finance rate card FY2026, SRE band",
     "财务 FY2026 费率卡，SRE 档", "assumed",
     "finance: zhao.min"),
    ("business_eval", "150", "190", "240", "estimate from the support team's cost centre",
     "按客服团队成本中心估算", "assumed", "cs-ops: sun.yue"),
    ("project_coordination", "200", "250", "300", "estimate, PM band not yet in the rate card",
     "估算：费率卡中尚无项目经理档", "assumed", "pmo: li.na"),
    ("vendor", "260", "310", "380", "internal time spent coordinating the vendor, SRE band",
     "协调供应商所花的内部工时，按 SRE 档", "assumed", "finance: zhao.min"),
)


# optional views beside the direct cost: idle capacity and shared costs spread by a declared driver
ALLOCATION = {
    "capacity_unheld": "spread_by_gpu_hours",
    "shared": [
        {"id": "untagged-network", "category": "network", "reason": "no_rule_matched", "driver": "gpu_hours"},
        {"id": "onboarding-invoice", "category": "external", "reason": "no_rule_matched",
         "detail_prefix": "invoice YQ-2026-1106-01", "driver": "equal"},
        {"id": "build-phase-labor", "category": "labor", "reason": "shared_work", "detail_prefix": "build/",
         "driver": "gpu_hours"},
        {"id": "raw-data-storage", "category": "storage", "reason": "no_rule_matched",
         "detail_prefix": "storage oss://train-data/raw/", "driver": "gpu_hours"},
    ],
}


def workspace(scenario: str = "rented") -> dict:
    rules: list[dict] = [
        {"id": "slurm-wckey", "source": "slurm", "field": "wckey", "match": "template"},
        {"id": "focus-tag-batch", "source": "focus", "field": "tags.batch", "match": "template"},
        {"id": "storage-batch-column", "source": "storage", "field": "batch", "match": "template"},
    ]
    rules += [{"id": f"storage-{rid}", "source": "storage", "field": "path", "match": "prefix",
               "pattern": prefix, "batch": batch} for rid, prefix, batch in STORAGE_BATCH_PREFIXES]
    rules += [
        {"id": "timesheet-batch", "source": "timesheet", "field": "batch", "match": "template"},
        {"id": "invoice-batch", "source": "invoice", "field": "batch", "match": "template"},
    ]
    return {
        # a Beijing team: the reports' days and months are Asia/Shanghai's, as the sacct times are
        "workspace": {"name": "cs-assistant-demo", "currency": "CNY", "language": "zh-CN",
                      "timezone": SLURM_TIMEZONE, "db_url": "", "price_book": PRICE_BOOK},
        "sources": {"slurm": {"timezone": SLURM_TIMEZONE}},
        "cluster": {"gpus_per_node": GPUS_PER_NODE, "gpu_item": GPU_ITEM},
        "projects": [dict(PROJECT)],
        "batches": [dict(b) for b in BATCHES],
        "rules": rules,
        "storage_prefixes": [{"prefix": p, "storage_class": c} for p, c in STORAGE_CLASSES],
        "labor_rates": [
            {"role": role, "currency": "CNY", "low": lo, "expected": mid, "high": hi,
             "source": src, "source_zh": src_zh, "evidence": ev, "owner": owner}
            for role, lo, mid, hi, src, src_zh, ev, owner in LABOR_RATES
        ],
        "allocation": ALLOCATION,
    } | ({"capacity": [dict(c) for c in owned.CAPACITY]} if scenario == "owned" else {})


def _price(item: str, unit: str, price: str, low: str, high: str, note: str, note_zh: str) -> dict:
    return {"item": item, "unit": unit, "price": price, "low": low, "high": high,
            "currency": "CNY", "source": DEMO_SOURCE, "source_zh": DEMO_SOURCE_ZH, "effective": date(2026, 11, 1),
            "expires": date(2027, 3, 31), "evidence": "assumed", "owner": "finance: zhao.min",
            "note": note, "note_zh": note_zh}


def price_book() -> dict:
    """In the layout ``trainledger.pricebook`` reads: ``[[price]]`` entries and ``[[fx]]`` rates."""
    return {
        "price": [
            _price(GPU_ITEM, "gpu_hour", "36.00", "30.00", "45.00",
                   "the bill's 288.00 CNY per 8-GPU node-hour; low: market rental, high: list",
                   "账单上每台 8 卡节点每小时 288.00 CNY；低值：市场租赁价，高值：目录价"),
            _price("storage:standard", "gb_month", "0.12", "0.11", "0.15", "OSS standard", "OSS 标准存储"),
            _price("storage:infrequent", "gb_month", "0.08", "0.07", "0.10",
                   "OSS infrequent access", "OSS 低频访问"),
            _price("storage:archive", "gb_month", "0.033", "0.030", "0.045", "OSS archive", "OSS 归档存储"),
        ],
        "fx": [
            {"base": "USD", "quote": "CNY", "rate": "7.12", "date": date(2026, 11, 14),
             "source": f"{DEMO_SOURCE}; replace with finance's rate of the invoice date",
             "source_zh": f"{DEMO_SOURCE_ZH}；请替换为财务在发票日期的汇率",
             "evidence": "assumed", "owner": "finance: zhao.min"},
        ],
    }


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, int | date):
        return v.isoformat() if isinstance(v, date) else str(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # a JSON string is a valid TOML basic string
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _toml(doc: dict, comments: dict[str, str]) -> str:
    """Tables first, then arrays of tables, each preceded by its comment: reviewable like code."""
    out: list[str] = []

    def block(header: str, table: dict, comment: str | None) -> None:
        if comment:
            out.append(f"# {comment}")
        out.append(header)
        out.extend(f"{k} = {_value(v)}" for k, v in table.items())
        out.append("")

    for name, value in doc.items():
        if isinstance(value, dict):
            subs = {k: v for k, v in value.items() if isinstance(v, dict)}
            arrays = {k: v for k, v in value.items() if isinstance(v, list) and v and isinstance(v[0], dict)}
            scalars = {k: v for k, v in value.items() if k not in subs and k not in arrays}
            if scalars:
                block(f"[{name}]", scalars, comments.get(name))
            for sub, table in subs.items():
                block(f"[{name}.{sub}]", table, comments.get(f"{name}.{sub}"))
            for sub, tables in arrays.items():
                for i, table in enumerate(tables):
                    block(f"[[{name}.{sub}]]", table, comments.get(f"{name}.{sub}") if i == 0 else None)
        else:
            for i, table in enumerate(value):
                subs = {k: v for k, v in table.items() if isinstance(v, dict)}
                block(f"[[{name}]]", {k: v for k, v in table.items() if k not in subs},
                      comments.get(name) if i == 0 else None)
                for sub, inner in subs.items():
                    block(f"[{name}.{sub}]", inner, comments.get(f"{name}.{sub}") if i == 0 else None)
    return "\n".join(out)


WORKSPACE_COMMENTS = {
    "workspace": "trainledger workspace generated by `trainledger demo` (illustrative data)",
    "sources.slurm": "sacct prints local times without an offset",
    "cluster": "a billed node-hour is split over gpus_per_node GPU slots",
    "projects": "project: why this training happens",
    "batches": "training batches: the cost objects, each with its full attribution key",
    "rules": "attribution rules, tried in order; the first match wins",
    "storage_prefixes": "storage class by path prefix, for inventory rows that carry none",
    "labor_rates": "loaded internal rates per hour (internal basis), ranges with their evidence",
    "allocation": "allocation policies: views beside the direct cost, never instead of it (docs/workspace.md)",
    "allocation.shared": "shared costs spread by a declared driver (gpu_hours, billed or equal)",
    "capacity": "owned and reserved clusters: no cloud bill, priced by amortised hardware or a rate card",
    "capacity.amortized": "per node: purchase over depreciation_years, power, hosting; ops staff per year for the"
                          " cluster → a cost per GPU-hour (basis amortized)",
}


def render_workspace(scenario: str = "rented") -> str:
    return _toml(workspace(scenario), WORKSPACE_COMMENTS)


def render_price_book() -> str:
    return _toml(price_book(), {
        "price": "demo data (illustrative): every price is assumed and has an owner to confirm"
                 " it",
        "fx": "a dated rate: USD amounts are converted only where a report says so, never summed",
    })
