"""Headings and row labels of the estimate and comparison reports, in English and Chinese.

Vocabulary values (task types, evidence levels, labor roles) go through
``trainledger.model.vocab.label``; everything else the reports print is here.
"""

from __future__ import annotations

from trainledger.model.vocab import label

TEXT: dict[str, tuple[str, str]] = {
    "title": ("Training budget estimate", "训练预算估算"),
    "compare_title": ("Procurement comparison", "采购方式对比"),
    "task": ("Task type", "任务类型"),
    "main_cost": ("Where the money usually goes", "账的大头"),
    "priced_on": ("Prices as of", "价格日期"),
    "price_book": ("Price book", "价目表"),
    "currency": ("Currency", "币种"),
    "warnings": ("Warnings", "警告"),
    "notes": ("Notes", "说明"),
    "result": ("Result (P10 / P50 / P90)", "结果(P10 / P50 / P90)"),
    "figure": ("Figure", "项目"),
    "effective_gpu_hours": ("Effective GPU-hours (final run)", "有效卡时(最终运行)"),
    "gpu_hours": ("GPU-hours with overhead (final run)", "含额外占用的卡时(最终运行)"),
    "programme_gpu_hours": ("GPU-hours, whole programme (all rounds)", "全部轮次卡时"),
    "wallclock_days": ("Wall-clock days on {n} GPUs", "{n} 卡上的日历天数"),
    "mfu": ("Utilisation (MFU)", "算力利用率(MFU)"),
    "overhead": ("Overhead factor", "额外占用系数"),
    "rounds": ("Experiment rounds", "实验轮次系数"),
    "cost_compute": ("Compute, all rounds", "算力(全部轮次)"),
    "cost_data": ("Data", "数据"),
    "cost_labor": ("Labor", "人力"),
    "cost_total": ("Total programme budget", "总预算(全部轮次)"),
    "final_compute": ("Final run: compute", "最终运行:算力"),
    "final_labor": ("Final run: one round of run labor", "最终运行:一轮运行人力"),
    "final_total": ("Final run: total", "最终运行:合计"),
    "memory": ("Memory and GPU count", "显存与卡数"),
    "per_gpu": ("Memory per GPU", "每卡显存"),
    "min_gpus": ("Minimum GPUs", "最少卡数"),
    "strategy": ("Least-GPU strategy", "最省卡的并行策略"),
    "training_strategy": ("Strategy costed for the run", "计价所用策略"),
    "dominant": ("Dominant term", "主导项"),
    "why": ("Why", "原因"),
    "gpu": ("Accelerator", "加速卡"),
    "lines": ("Data and labor lines", "数据与人力明细"),
    "line": ("Line", "明细"),
    "sensitivity": ("What moves the total most (tornado)", "对总预算影响最大的假设(龙卷风图)"),
    "input": ("Input", "输入"),
    "input_range": ("Input P10 - P90", "输入 P10 - P90"),
    "total_at": ("Total at input P10 / P90", "输入取 P10 / P90 时的总预算"),
    "swing": ("Swing", "摆幅"),
    "inference": (
        "Inference (serving) — separate, never added to training",
        "推理(长期服务)——单独估算,不计入训练",
    ),
    "monthly": ("Per month", "每月"),
    "gpu_hours_month": ("GPU-hours per month", "每月卡时"),
    "storage_month": ("Retrieval index storage per month", "检索索引每月存储"),
    "over_months": ("Over {m} months", "{m} 个月合计"),
    "drawer": ("Assumptions drawer", "假设抽屉"),
    "name": ("Name", "名称"),
    "value": ("Value or range", "取值或区间"),
    "unit": ("Unit", "单位"),
    "evidence": ("Evidence", "证据等级"),
    "source": ("Source", "来源"),
    "owner": ("Owner to confirm", "待确认人"),
    "note": ("Note", "备注"),
    "option": ("Option", "方案"),
    "total": ("Total over {y} years", "{y} 年合计"),
    "per_hour": ("Per used GPU-hour", "每有效卡时"),
    "basis": ("Basis", "口径"),
    "unavailable": ("not available", "不可用"),
    "not_added": ("not added to any training figure", "不计入任何训练数字"),
}


def t(key: str, lang: str, **kw) -> str:
    en, zh = TEXT[key]
    return (zh if lang.lower().startswith("zh") else en).format(**kw)


def vocab(value: str, lang: str) -> str:
    return label(value, lang)


def fmt_money(x, currency: str) -> str:
    """3 significant figures with separators: the honest precision of a budget range."""
    from trainledger.estimate.quantities import round_sig

    v = round_sig(float(x), 3)
    return f"{v:,.0f} {currency}" if abs(v) >= 100 else f"{v:,.2f} {currency}"


def fmt_qty(x) -> str:
    from trainledger.estimate.quantities import round_sig

    v = round_sig(float(x), 3)
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:g}"
