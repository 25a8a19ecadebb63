"""The estimate and comparison reports' headings and row labels, in English and Simplified Chinese:
``key -> (English, Chinese)``, registered as the ``report.estimate`` namespace of the one catalogue
(trainledger/i18n/registry.py) beside the batch sheet's (report/i18n.py, ``sheet``). The estimator's
own sentences (warnings, notes, assumption names, guided mode) stay with it in estimate/texts_*.py.
"""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    "title": ("Training budget estimate", "训练预算估算"),
    "compare_title": ("Procurement comparison", "采购方式对比"),
    "task": ("Task type", "任务类型"),
    "main_cost": ("Where the money usually goes for this task type", "该类任务的典型主要开销"),
    "largest_part": ("Largest part of this estimate (P50)", "本估算中最大的一项（P50）"),
    "largest_part_value": ("{part}: {amount} ({share} of the P50 total)", "{part}：{amount}（占 P50 合计的 {share}）"),
    "priced_on": ("Prices as of", "价格日期"),
    "price_book": ("Price book", "价目表"),
    "currency": ("Currency", "币种"),
    "warnings": ("Warnings", "警告"),
    "notes": ("Notes", "说明"),
    "result": ("Result (P10 / P50 / P90)", "估算结果（P10 / P50 / P90）"),
    "figure": ("Figure", "项目"),
    "effective_gpu_hours": ("Effective GPU-hours (final run)", "有效卡时（最终运行）"),
    "gpu_hours": ("GPU-hours with overhead (final run)", "含额外占用的卡时（最终运行）"),
    "programme_gpu_hours": ("GPU-hours, whole programme (all rounds)", "全部实验轮次的卡时"),
    "wallclock_days": ("Wall-clock days on {n} GPUs", "{n} 卡上的日历天数"),
    "wallclock_days_one": ("Wall-clock days on {n} GPU", "{n} 卡上的日历天数"),
    "mfu": ("Utilisation (MFU)", "算力利用率（MFU）"),
    "overhead": ("Overhead factor", "额外占用系数"),
    "rounds": ("Experiment rounds", "实验轮次系数"),
    "cost_compute": ("Compute, all rounds", "算力（全部轮次）"),
    "cost_data": ("Data", "数据"),
    "cost_labor": ("Labor", "人力"),
    "cost_total": ("Total programme budget", "总预算（全部轮次）"),
    "final_compute": ("Final run: compute", "最终运行：算力"),
    "final_labor": ("Final run: one round of run labor", "最终运行：一轮运行人力"),
    "final_total": ("Final run: total", "最终运行：合计"),
    "split": ("Known vs placeholder money (whole programme)", "已知与占位金额（全部轮次）"),
    "split_known": (
        "Known: your inputs, dated prices, sourced priors",
        "已知：你的输入、有日期的单价、有出处的先验",
    ),
    "split_placeholder": ("Placeholders: task-type defaults to replace", "占位：按任务类型给出、待替换的默认值"),
    "split_share": ("Known and placeholder parts (P50 each; percentiles do not add)",
                    "已知部分与占位部分（各自的 P50；分位数不可相加）"),
    "split_lines": ("Lines resting on placeholders", "依赖占位值的明细"),
    "means": ("Means (these add up)", "均值（可以相加）"),
    "mean": ("Mean", "均值"),
    "mean_parts": ("Compute + data + labor", "算力 + 数据 + 人力"),
    "memory": ("Memory and GPU count", "显存与卡数"),
    "per_gpu": ("Memory per GPU", "每卡显存"),
    "min_gpus": ("Minimum GPUs", "最少卡数"),
    "strategy": ("Least-GPU strategy", "最省卡的并行策略"),
    "training_strategy": ("Strategy costed for the run", "计价所用的并行策略"),
    "dominant": ("Dominant term", "显存主导项"),
    "why": ("Why", "原因"),
    "gpu": ("Accelerator", "加速卡"),
    "lines": ("Data and labor lines", "数据与人力明细"),
    "line": ("Line", "明细"),
    "sensitivity": ("What moves the total most (tornado)", "对总预算影响最大的假设（龙卷风图）"),
    "input": ("Input", "输入项"),
    "input_range": ("Input P10 - P90", "输入项 P10 – P90"),
    "total_at": ("Total at input P10 / P90", "输入项取 P10 / P90 时的总预算"),
    "swing": ("Swing", "摆幅"),
    "inference": (
        "Inference (serving) — separate, never added to training",
        "推理（长期服务）——单独估算，不计入训练",
    ),
    "monthly": ("Per month", "每月"),
    "gpu_hours_month": ("GPU-hours per month", "每月卡时"),
    "storage_month": ("Retrieval index storage per month", "检索索引每月存储费"),
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
    "per_hour": ("Per used GPU-hour", "每实际使用卡时"),
    "basis": ("Basis", "口径"),
    "unavailable": ("not available", "不可用"),
    "not_added": ("not added to any training figure", "不计入任何训练数字"),
    "fleet": ("GPU", "加速卡 × 卡数"),
    "demand": ("demand GPU-h/yr (P10/P50/P90)", "每年需求卡时（P10 / P50 / P90）"),
    "line_of": ("{group}: {line}", "{group}：{line}"),
    "labor_line": ("{phase} / {role}", "{phase} / {role}"),
    "least_gpu": ("Least-GPU plan: memory per GPU", "最省卡方案：每卡显存"),
    # sentences of the report itself
    "split.headline": (
        "Known from your inputs, dated prices and sourced priors: P50 {known} · resting on placeholders"
        " (task-type defaults to replace): P50 {placeholder} — {share:.0%} of the P50 total is driven by"
        " placeholders; the total ({total}) is no budget until they are replaced",
        "已知部分（你的输入、有日期的单价、有出处的先验）：P50 {known} · 基于占位值的部分（需替换的任务类型默认值）："
        "P50 {placeholder}——总预算 P50 中有 {share:.0%} 由占位值驱动；替换之前，总额（{total}）不能当作预算",
    ),
    "cost_total_placeholders": ("Total programme budget ({share:.0%} of its P50 on placeholders)",
                                "总预算（全部轮次；其 P50 的 {share:.0%} 基于占位值）"),
    "split.none": (
        "no placeholders: every figure rests on your inputs, dated prices and sourced priors",
        "没有占位值：所有数字都基于你的输入、有日期的单价和有出处的先验",
    ),
    "split.why_p50": (
        "Why the components' P50s do not add up to the total's P50: percentiles are not additive — compute, "
        "data and labor rarely sit at their medians together, and right-skewed components pull the total's "
        "median away from the sum of theirs. The means do add up: compute + data + labor = total = known + "
        "placeholder.",
        "为什么各分项的 P50 相加不等于总预算的 P50：分位数不可相加——算力、数据、人力很少同时处在各自的中位数，"
        "右偏的分项会让总额的中位数偏离分项中位数之和。均值可以相加：算力 + 数据 + 人力 = 总额 = 已知 + 占位。",
    ),
    "mem.per_gpu_at": ("{gib:.1f} GiB @ {n} GPUs", "{gib:.1f} GiB（按 {n} 卡计）"),
    "mem.per_gpu_at_one": ("{gib:.1f} GiB @ {n} GPU", "{gib:.1f} GiB（按 {n} 卡计）"),
    "mem.training_strategy": ("{strategy} ({gib:.1f} GiB/GPU)", "{strategy}（每卡 {gib:.1f} GiB）"),
}
