"""The cross-batch report's words (report/cross*.py) and the spend-over-time chart's, in en and zh-CN.
Vocabulary values (bases, states) are labelled by model/vocab.py; shared column names by i18n.py."""

from __future__ import annotations

TEXT: dict[str, tuple[str, str]] = {
    "title": ("Cost report across batches", "跨批次成本报告"),
    "scope": ("Scope", "范围"), "all_projects": ("all projects", "全部项目"),
    "window": ("dates", "日期"), "all_dates": ("all dates", "全部日期"), "by": ("by", "维度"),
    "by_month": ("month", "月"), "by_batch": ("batch", "批次"),
    "dates_zone": ("Days and months are {zone} days and months (workspace.timezone); a cost line takes the"
                   " date of the source row it came from (a bill row's charge period start, a job's start, an"
                   " inventory's snapshot, a timesheet's day, an invoice's date); a bill row that states its"
                   " billing period (FOCUS BillingPeriodStart, 账期 / BillPeriod) is in that period's month. A"
                   " window of whole months holds those months' lines, any other window its days' lines.",
                   "日期与月份均按 {zone} 时区（workspace.timezone）；成本行的日期取自其来源行（账单行的计费起始、"
                   "作业开始、存储清单快照、工时日期、发票日期）；注明账期的账单行（FOCUS BillingPeriodStart、"
                   "账期 / BillPeriod）计入该账期所在月份。整月的日期范围按月份筛选，其他日期范围按日筛选。"),
    "to_date": ("Plan vs actual and the spend curves are to date (a plan has no months); the date window filters"
                " spend, shares and the unattributed bucket.",
                "计划与实际、支出曲线均为截至目前（计划不分月份）；日期范围只筛选支出、占比与未归属桶。"),
    "spend": ("Spend per basis over time (never summed across bases)", "按口径的支出随时间变化（不同口径不相加）"),
    "period": ("period", "期间"), "undated": ("undated", "无日期"),
    "undated_outside": ("Lines without a date (no date window holds them; not in the figures above)",
                        "无日期的成本行（任何日期范围都不包含它们；不计入上方数字）"),
    "batches": ("Per project and batch (each equals the batch's sheet)", "按项目与批次（各自等于该批次的成本底稿）"),
    "batches_window": ("Per project and batch, in the date window", "按项目与批次（日期范围内）"),
    "totals": ("Totals per basis and currency (the sum of the batches)", "按口径与币种合计（各批次之和）"),
    "shares": ("Effective and rework shares of the GPU time held", "占用卡时中的有效训练与返工占比"),
    "effective_share": ("effective share", "有效占比"), "rework_share": ("bridge rework share", "差异桥返工占比"),
    "held_hours": ("GPU-hours held", "占用卡时"), "effective_hours": ("effective GPU-hours", "有效卡时"),
    "unclassified_hours": ("unclassified GPU-hours (no progress signal; not in the effective share)",
                           "未分类卡时（无进度信号；不计入有效占比）"),
    "share_note": ("The effective share is over the GPU time that has a progress signal: effective ÷ (held −"
                   " unclassified), as on the batch sheet; a batch or period with no signal at all shows — (unknown),"
                   " never 0 %.",
                   "有效占比按有进度信号的卡时计算：有效 ÷（占用 − 未分类），与批次成本底稿一致；完全没有进度信号的"
                   "批次或期间显示 —（未知），绝不显示 0 %。"),
    "rework_hours": ("bridge rework GPU-hours", "差异桥返工卡时"),
    "rework_cost": ("bridge rework cost", "差异桥返工成本"),
    "rework_note": ("Rework = the actual cost of the failure's GPU-hours as the review's variance bridge counts them:"
                    " of a retry chain, the"
                    " failed attempt's lost progress, hang and time after its last step (all of it if it kept no"
                    " progress) plus the rerun's setup / preemption recovery (the sheet's retry-chain \"failure\");"
                    " a data-fix or evaluation rerun whole. The plan-vs-actual \"rework\" column values these GPU-hours"
                    " at the plan's price, less the plan's rework allowance; their price gap is in its \"price\"."
                    " It is not the batch sheet's review class \"avoidable rework\": that"
                    " class is the whole cost of the runs whose (suggested) cause was avoidable, rerun or not (an"
                    " OOM run never rerun is avoidable rework there, no bridge rework here).",
                    "返工 = 复盘差异桥计入的失败卡时的实际成本：重试链中失败尝试丢失的进度、悬挂及最后一步之后的"
                    "时间（若未保留任何进度则全部计入）加上重跑的准备 / 抢占恢复时间"
                    "（即成本底稿重试链中的“失败成本”）；数据修正或"
                    "评测重跑整体计入。计划与实际表中的“返工”列按计划单价对这些卡时计值，再减去计划的返工预留；"
                    "其价差计入“价格”列。它不是成本底稿复盘归类中的"
                    "“可避免返工”：该归类是（建议）原因可避免的运行的全部成本，无论是否重跑（从未重跑的 OOM 运行在那里"
                    "是可避免返工，在这里不是差异桥返工）。"),
    "effective_trend": ("Effective share by period", "各期间有效占比"),
    "unattributed": ("Unattributed bucket by period and reason (workspace)", "未归属桶按期间与原因（工作区）"),
    "reason": ("reason", "原因"), "lines": ("lines", "行数"),
    "plan_vs_actual": ("Plan vs actual per batch (review: plan, AC, EV, EAC range, variance)",
                       "各批次计划与实际（复盘：计划、实际、挣值、完工估算区间、偏差）"),
    "no_plan": ("no plan", "无计划"),
    "plan_version": ("plan version", "计划版本"), "plan": ("plan", "计划"), "ac": ("actual (AC)", "实际（AC）"),
    "ev": ("earned (EV)", "挣值（EV）"), "eac": ("EAC", "完工估算（EAC）"),
    "unknown_work": ("unknown (no useful work measured)", "未知（无有效工作量记录）"),
    "variance": ("actual − plan", "实际 − 计划"),
    "price": ("price", "价格"), "volume": ("volume", "工作量"), "efficiency": ("efficiency", "效率"),
    "rework": ("rework", "返工"),
    "other": ("credits and other charges", "赔付/退款及其他费用"), "not_split": ("not split", "未分解"),
    "control": ("Control: billed = attributed + unattributed (workspace, every date)",
                "控制：账单 = 已归属 + 未归属（工作区，全部日期）"),
    "engine": ("engine", "引擎"), "from_lines": ("from the lines", "由成本行求和"),
    "curves": ("Spend over time against plan, with the EAC range", "支出随时间对照计划与完工估算区间"),
    "curve_title": ("Cumulative spend vs plan", "累计支出对照计划"), "day": ("day", "日期"),
    "week": ("week ending", "周（截至）"), "cumulative": ("cumulative spend", "累计支出"),
    "eac_low": ("EAC low", "完工估算低值"), "eac_expected": ("EAC expected", "完工估算预期"),
    "eac_high": ("EAC high", "完工估算高值"), "plan_low": ("plan low", "计划低值"),
    "plan_expected": ("plan", "计划"), "plan_high": ("plan high", "计划高值"),
    "legend": ("shaded: the plan's low–high · dashed: the plan · bar at the right: the EAC's low–high",
               "阴影：计划低–高 · 虚线：计划 · 右侧条：完工估算低–高"),
    "undated_spend": ("undated spend (in the actual, not on the time axis)", "无日期支出（计入实际，不在时间轴上）"),
    "project": ("project", "项目"), "batch": ("batch", "批次"), "name": ("name", "名称"), "team": ("team", "团队"),
    "first": ("first day", "首日"), "last": ("last day", "末日"), "basis": ("basis", "口径"),
    "currency": ("currency", "币种"), "expected": ("expected", "预期"), "low": ("low", "低"), "high": ("high", "高"),
    "amount": ("amount", "金额"), "billed_total": ("billed total", "账单总额"), "attributed": ("attributed", "已归属"),
    "unattributed_short": ("unattributed", "未归属"),
    "difference": ("difference", "差额"), "none": ("none", "无"), "attribution": ("attribution", "归属计算"),
    "rounding": ("Cash is exact; estimates are shown to the minor unit (each batch's figure rounded as its sheet"
                 " rounds it, the totals the sum of those).",
                 "现金为精确值；估算显示到最小货币单位（各批次按其底稿的舍入，合计为这些数之和）。"),
    "check": ("check (must be 0.00)", "校验（必须为 0.00）"),
    "check_hours": ("check (must be 0.0000)", "校验（必须为 0.0000）"),
    "unattributed_note": ("Bills and invoices are cash (billed); owned and reserved capacity no job held, or held by"
                          " jobs without a batch, is on its own basis (amortized, rate card). Bases are never added.",
                          "账单与发票为现金（账单口径）；自有与预留容量中无作业占用或被无批次作业占用的部分按其自身口径"
                          "（摊销、内部费率卡）列出。不同口径从不相加。"),
    "capacity_control": ("Control: each owned or reserved capacity = attributed + no job held + jobs without a batch"
                         " + jobs not imported (its whole period, every date)",
                         "控制：每项自有或预留容量 = 已归属 + 无作业占用 + 无批次作业占用 + 未导入作业占用"
                         "（整个容量期间，全部日期）"),
    "noncash": ("Unattributed, non-cash bases: internal labor, storage estimates, queued time (no bill to"
                " reconcile)", "非现金口径的未归属：内部人力、存储估算、排队时间（无账单可核对）"),
    "noncash_note": ("Lines no rule gives a batch: unattributed by reason, or spread by a declared shared pool"
                     " (a view beside the direct cost, its policy named). Never added to cash.",
                     "没有规则归属到批次的成本行：按原因列为未归属，或由已声明的共享分摊池分摊（与直接成本并列的"
                     "视图，注明分摊方式）。不与现金相加。"),
    "pool": ("shared pool", "共享分摊池"), "quantity": ("quantity", "数量"), "unit": ("unit", "单位"),
    "outside_window_hours": ("unattributed hours outside the window (the ledger's lines less Noncash)",
                             "日期范围之外的未归属工时（账本成本行减去 Noncash 表）"),
    "engine_unattributed_hours": ("unattributed hours (engine)", "未归属工时（引擎）"),
    "labor_control": ("Control: timesheet hours = on batches + shared pools + unattributed (workspace, every date)",
                      "控制：工时表工时 = 已归属批次 + 共享分摊池 + 未归属（工作区，全部日期）"),
    "timesheet_hours": ("timesheet hours", "工时表工时"), "batches_hours": ("on batches", "已归属批次"),
    "pooled_hours": ("shared pools", "共享分摊池"), "unattributed_hours": ("unattributed", "未归属"),
    "capacity": ("capacity", "容量"), "cap_total": ("capacity cost", "容量成本"),
    "cap_attributed": ("attributed", "已归属"), "cap_unheld": ("no job held", "无作业占用"),
    "cap_job_without_batch": ("jobs without a batch", "无批次作业"), "cap_difference": ("difference", "差额"),
    "cap_held_not_imported": ("held by jobs not imported", "被未导入作业占用"),
}


def dates_note(zone: str, lang: str) -> str:
    """The note under the spend table: which zone the days and months are."""
    return t("dates_zone", lang).format(zone=zone)


def t(key: str, lang: str) -> str:
    en, zh = TEXT[key]
    return zh if lang.lower().startswith("zh") else en
