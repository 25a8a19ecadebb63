"""Headings and column names of rendered reports in English and Simplified Chinese."""

from __future__ import annotations

import re

from trainledger.model.vocab import StorageClass, label

TEXT: dict[str, tuple[str, str]] = {
    "title": ("Batch cost sheet", "训练批次成本底稿"),
    "key": ("Attribution key", "统一归属键"),
    "totals": ("Totals by basis (never summed across bases)", "按口径汇总（不同口径不相加）"),
    "compute": ("Compute by state", "算力按资源状态"),
    "runs": ("Runs, reasons and failure causes", "运行、原因与失败归因"),
    "storage": ("Storage by class", "存储按类别"),
    "labor": ("Labor by phase and role", "人力按阶段与角色"),
    "external": ("External services", "外部服务"),
    "assumptions": ("Assumptions drawer", "假设抽屉"),
    "conservation": ("Conservation check (workspace)", "守恒校验（工作区）"),
    "conservation_amortized": ("Conservation, the bill's effective-cost view (EffectiveCost)",
                               "守恒校验（账单有效成本视图，EffectiveCost）"),
    "problems": ("Problems found", "发现的问题"),
    "efficiency": ("Effective training share of the GPU time held", "有效训练在占用卡时中的占比"),
    "review": ("Exploration vs problem loss (runs by review class)", "探索成本与问题损耗（按复盘归类）"),
    "review_class_note": ("Each run counted whole under its (suggested) review class; \"avoidable rework\" here is"
                          " not the variance bridge's rework (the failure's cost: lost progress, hang and recovery"
                          " of a retry chain, a data-fix or evaluation rerun whole).",
                          "每个运行按其（建议）复盘归类整体计入；这里的“可避免返工”不是差异桥中的返工（失败成本：重试链"
                          "丢失的进度、悬挂与恢复，数据修正或评测重跑整体计入）。"),
    "effective_share": ("effective share", "有效占比"), "other_states": ("other states", "其他状态"),
    "runs_count": ("runs", "运行数"),
    "basis": ("basis", "口径"), "evidence": ("evidence", "证据等级"), "low": ("low", "低"),
    "expected": ("expected", "预期"), "high": ("high", "高"), "currency": ("currency", "币种"),
    "cash": ("cash", "现金"), "state": ("state", "状态"), "gpu_hours": ("GPU-hours", "卡时"),
    "amount": ("amount", "金额"), "run": ("run", "运行"), "job": ("job", "作业"),
    "reason": ("reason", "原因"), "cause": ("failure cause", "失败原因"),
    "review_class": ("suggested review class", "建议复盘归类"), "final_state": ("final state", "结束状态"),
    "gpus": ("GPUs (equivalents)", "卡数（折合整卡）"),
    "billed": ("billed", "账单金额"), "queued": ("queued value", "排队价值"),
    "class": ("class", "类别"), "objects": ("objects", "对象数"), "size": ("size (GiB)", "容量 (GiB)"),
    "gib_months": ("GiB-months", "GiB·月"), "cost": ("cost", "成本"),
    "cost_by_basis": ("cost (billed unless its basis is named)", "成本（未注明口径的为账单金额）"),
    "findings": ("findings", "治理发现"),
    "phase": ("phase", "阶段"), "role": ("role", "角色"), "hours": ("hours", "工时"),
    "vendor": ("vendor", "供应方"), "stage": ("stage", "阶段"), "name": ("name", "名称"),
    "value": ("value / range", "取值 / 区间"), "source": ("source", "来源"), "owner": ("owner to confirm", "待确认人"),
    "billed_total": ("billed total", "账单总额"), "attributed": ("attributed", "已归属"),
    "unattributed": ("unattributed", "未归属"), "difference": ("difference", "差额"),
    "none": ("none", "无"), "project": ("project", "项目"), "team": ("team", "责任团队"),
    "goal": ("goal", "目标"), "yes": ("yes", "是"), "no": ("no", "否"),
    "sections": ("Billed cash by section (sums to the batch's billed total)",
                 "账单现金按板块（合计等于本批次账单总额）"),
    "section": ("section", "板块"), "total": ("total", "合计"), "item": ("item", "项目"),
    "sec_compute": ("compute", "算力"), "sec_storage": ("storage", "存储"), "sec_network": ("network", "网络"),
    "sec_other_services": ("other services", "其他服务"), "sec_external": ("external services", "外部服务"),
    "price_per_gpu_hour": ("price per GPU-hour", "每卡时单价"),
    "price_split_rounding": ("price per GPU-hour: the bill's price; the amount ÷ GPU-hours differs from it only by"
                             " the split's rounding (under two minor units per cost line)",
                             "每卡时单价：即账单单价；金额 ÷ 卡时与之相差的只是分摊的舍入"
                             "（每条成本行不到两个最小货币单位）"),
    "queued_hours_check": ("queued GPU-hours (waiting, no GPU held; not in the runs' hours): valued {valued} +"
                           " not valued {not_valued} = {queued}; the queued price per GPU-hour is over the valued"
                           " hours only",
                           "排队卡时（等待中，未占用 GPU；不计入运行占用）：已计价 {valued} + 未计价 {not_valued}"
                           " = {queued}；排队的每卡时单价只按已计价的卡时计算"),
    "price_split_row": ("{row}: {amount} is the sum of {lines} cost lines, each rounded to the minor unit on its"
                        " own; price per GPU-hour × GPU-hours = {product} (the difference is that rounding)",
                        "{row}：{amount} 是 {lines} 条成本行之和，每条各自舍入到最小货币单位；"
                        "每卡时单价 × 卡时 = {product}（差额即为该舍入）"),
    "hours_check": ("GPU-hours conserve: valued {valued} + not valued {not_valued} = the runs' {runs}",
                    "卡时守恒：已计价 {valued} + 未计价 {not_valued} = 运行占用 {runs}"),
    "not_valued": ("not valued", "未计价"),
    "commitment_covered": ("covered by a commitment", "承诺折扣覆盖"),  # a compute row's hours a commitment paid for
    "retry_chains": ("Retry chains: what a failure cost, with its recovery", "重试链：失败本身与恢复的成本"),
    "failed_run": ("failed attempt", "失败的运行"), "attempts": ("attempts", "各次运行"),
    "failure_cost": ("failure (what it destroyed)", "失败成本（损毁部分）"),
    "recovery_cost": ("of which recovery", "其中恢复成本"),
    "kept_cost": ("kept by the checkpoint", "检查点保留的训练"), "other_cost": ("credits, adjustments", "抵扣与调整"),
    "lost_unknown": ("unknown (no progress signal)", "未知（无进度信号）"),
    "unclassified_hours": ("unclassified GPU-hours (no progress signal; not in the share)",
                           "未分类卡时（无进度信号；不计入占比）"),
    "chain_note": ("Failure = the failed attempt's lost progress, hang and time after its last step (all of it"
                   " if it kept no progress) + the rerun's setup / preemption recovery — the same GPU-hours the"
                   " review's variance bridge counts as the failure's rework; the bridge values them at the plan's"
                   " price, shown here at their actual cost (the gap is in the bridge's \"price\"). Total = failure"
                   " + kept by the checkpoint + credits.",
                   "失败成本 = 失败尝试丢失的进度、悬挂及最后一步之后的时间（若未保留任何进度则全部计入）+ 重跑的"
                   "准备 / 抢占恢复时间——与复盘差异桥中计为该失败返工的是同一批卡时；"
                   "差异桥按计划单价计值，此处按实际成本列示（两者之差计入差异桥的“价格”）。"
                   "合计 = 失败成本 + 检查点保留的"
                   "训练 + 抵扣。"),
    "lost_gpu_hours": ("hang + lost GPU-hours", "悬挂与损失卡时"),
    "unattributed_by_reason": ("Unattributed bucket by reason (workspace)", "未归属桶按原因（工作区）"),
    "noncash_bucket": ("Unattributed bucket of the non-cash bases (workspace: no bill to reconcile)",
                       "非现金口径的未归属桶（工作区：无账单可核对）"),
    "noncash_note": ("Lines of internal labor, storage estimates and queued time that no rule gives a batch:"
                     " unattributed (by reason), or spread by a declared shared pool (a view beside the direct"
                     " cost). Never added to cash.",
                     "没有规则归属到批次的内部人力、存储估算和排队时间成本行：未归属（按原因），或由已声明的共享"
                     "分摊池分摊（与直接成本并列的视图）。不与现金相加。"),
    "noncash_unattributed": ("unattributed (total)", "未归属（合计）"),
    "noncash_pooled": ("spread by shared pool", "由共享分摊池分摊"),
    "lines": ("lines", "行数"), "quantity": ("quantity", "数量"),
    "labor_control": ("Labor hours control (workspace)", "人力工时校验（工作区）"),
    "labor_other_batches": ("other batches ({n})", "其他批次（{n} 个）"),
    "labor_control_line": ("{currency}: timesheet {timesheet} h ({rows}) = batches {batches} + shared pools"
                           " {pooled} + unattributed {unattributed} (difference {difference}); batches: {by_batch};"
                           " pools: {by_pool}",
                           "{currency}：工时表 {timesheet} 小时（{rows}）= 批次 {batches} + 共享分摊池 {pooled}"
                           " + 未归属 {unattributed}（差额 {difference}）；批次：{by_batch}；分摊池：{by_pool}"),
    "noncash_cli": ("  unattributed, non-cash bases (no bill to reconcile; every item: `trainledger attribute"
                    " --json`, unattributed_noncash):",
                    "  非现金口径的未归属（无账单可核对；全部条目：`trainledger attribute --json` 的"
                    " unattributed_noncash）："),
    "noncash_cli_total": ("{quantity} {unit}, {amount} {currency} ({lines})",
                          "{quantity} {unit}，{amount} {currency}（{lines}）"),
    "noncash_cli_more": ("… {n} more reasons", "…… 另有 {n} 项"),
    "line_unit": ("line", "行"), "row_unit": ("row", "行"),
    "noncash_cli_lines": ("({n})", "（{n}）"),
    "noncash_cli_pooled": ("spread by shared pool {policy} (a view): {quantity} {unit}, {amount} {currency}"
                           " ({lines})",
                           "由共享分摊池 {policy} 分摊（视图）：{quantity} {unit}，{amount} {currency}（{lines}）"),
    "detail": ("detail", "说明"), "retry_of": ("retry of", "重试自"),
    "cause_evidence": ("cause evidence", "原因证据"),
    "allocation": ("Allocation policies (a view beside the direct cost, never instead of it)",
                   "分摊口径（与直接成本并列展示，不替代直接成本）"),
    "policy": ("policy", "分摊方式"), "source_basis": ("from basis", "来源口径"),
    "driver": ("driver", "分摊依据"), "share": ("this batch's share", "本批次分摊"),
    "capacity": ("Owned and reserved capacity (conservation per capacity)", "自有与预留算力（按容量守恒）"),
    "capacity_total": ("capacity cost", "容量总成本"),
    "held_not_imported": ("held, jobs not imported", "有作业占用（作业未导入）"),
    "capacity_waiting": ("Opportunity cost, not in any total — capacity {capacity}: demand left waiting while"
                         " capacity was idle {hours} GPU-h = {value} {currency} (all pending while some GPU was"
                         " idle: {pending} GPU-h = {pending_value}); by the occupancy series ({samples} samples)",
                         "机会成本（不计入任何合计）——容量 {capacity}：容量空闲时仍在排队的需求 {hours} 卡时 ="
                         " {value} {currency}（有空闲卡时的全部排队需求：{pending} 卡时 = {pending_value}）；"
                         "依据占用序列（{samples} 个采样）"),
    "capacity_only": ("No bill in this workspace: what is conserved is each capacity's cost — capacity cost ="
                      " attributed + no job held + held by jobs without a batch, difference 0.00",
                      "本工作区没有账单：守恒的是各容量的成本——容量总成本 = 已归属 + 无作业占用的容量"
                      " + 作业未匹配批次，差额为 0.00"),
    "nothing_to_conserve": ("No bill and no owned or reserved capacity yet: nothing to conserve",
                            "尚无账单，也没有自有或预留算力：没有需要守恒的金额"),
    "not_attributed": ("Not attributed yet: run `trainledger attribute` to split the imported bills and owned or"
                       " reserved capacity over the batches",
                       "尚未进行归属计算：运行 `trainledger attribute`，"
                       "把已导入的账单和自有或预留算力的成本分摊到各批次"),
    "proof": ("Built from the verified ledger", "依据已校验的账本生成"), "audit_head": ("audit head", "审计链头"),
    "attribution": ("attribution", "归属计算"), "none_yet": ("none yet", "尚无"),
    "figures_digest": ("figures digest", "数字摘要"),
    # charts (report/charts.py) and the balance view (report/balance.py)
    "charts": ("Charts (every number is also in the table under its chart)", "图表（每个数字也列在图下的表中）"),
    "chart_compute_hours": ("GPU-hours by compute state", "各资源状态的卡时"),
    "chart_cost_basis": ("Cost by evidence, one basis", "按证据等级的成本（单一口径）"),
    "chart_residual": ("unexplained", "未解释部分"),
    "chart_withheld": ("restricted for this role, not drawn", "此角色受限，未绘出"),
    "rate_guard_note": ("Some labor figures of several roles are withheld as well: with the other labor figures "
                        "shown they would give a rate back (report/rate_guard.py)",
                        "另有部分多角色人力数字也已隐去：与其他已显示的人力数字一起可反推出费率（report/rate_guard.py）"),
    "chart_actual": ("actual spend", "实际支出"),
    "balance": ("Balance: resource consumption against delivery investment", "天平：资源消耗与交付投入"),
    "consumption": ("Resource consumption", "资源消耗"), "delivery": ("Delivery investment", "交付投入"),
    "earned_value": ("earned value", "挣值"), "no_plan": ("no plan for this batch: nothing to earn against",
                                                      "本批次没有计划：无挣值可计"),
    "reusable_assets": ("reusable assets", "可复用资产"), "carrying_cost": ("carrying cost per month", "每月持有成本"),
    "unknowns_removed": ("unknowns removed", "已消除的未知"), "range_before": ("range before", "原区间"),
    "measured_after": ("measured after", "实测值"), "change": ("change", "变化"),
    "range_shrank": ("range shrank", "区间收窄"),
    "lessons_failed": ("lessons from failed work (retry chains' cost)", "失败工作的教训（重试链成本）"),
    "chains": ("retry chains", "重试链"),
    "sensitivity": ("Assumptions drawer: sensitivity of the balance", "假设抽屉：天平的敏感度"),
    "move_low": ("money moves at low", "取低值时金额变动"), "move_high": ("money moves at high", "取高值时金额变动"),
    "not_modelled": ("not modelled", "未建模"),
    "storage_joint": ("storage prices (all tiers together)", "存储单价（各档合计）"),
    "storage_tier_joint": ("moves with the other storage prices: see the joint row",
                           "与其他存储单价一起变动：见合计行"),
    "gpu_hours_short": ("GPU-h", "卡时"), "labor_short": ("labor", "人力"),
    "gb_note": (" (GB = 2^30 bytes)", "（GB = 2^30 字节）"),  # a drawer unit's note (balance_section.drawer_unit)
}


KEY_FIELDS: dict[str, tuple[str, str]] = {
    "project": ("project", "项目"), "goal": ("goal", "业务目标"), "data_snapshot": ("data snapshot", "数据快照"),
    "data_processing_version": ("data processing version", "数据处理版本"),
    "model_version": ("model version", "模型版本"), "code_version": ("code version", "代码版本"),
    "config_version": ("config version", "配置版本"), "batch_id": ("batch id", "训练批次 ID"),
}


def key_field(name: str, lang: str) -> str:
    """A field of the attribution key (统一归属键), named for people."""
    en, zh = KEY_FIELDS.get(name, (name, name))
    return zh if lang.lower().startswith("zh") else en


def assumption_name(name: str, lang: str) -> str:
    """Names of the assumptions the ledger itself writes, in Chinese when asked."""
    if not lang.lower().startswith("zh"):
        return name
    fixed = {"value of a queued GPU-hour (opportunity, not cash)": "排队卡时的价值（机会成本，非现金）",
             "compute-state boundaries": "资源状态边界", "node-hour split": "节点小时分摊",
             "barrier waiting": "迭代屏障等待"}
    from trainledger.report.provisional import TEXT as BILL

    fixed |= {BILL[k][0]: BILL[k][1] for k in ("name_provisional", "name_note")}
    if name in fixed:
        return fixed[name]
    if name.startswith("storage price "):
        return "存储单价 " + name.removeprefix("storage price ")
    queued = re.fullmatch(r"value of a queued GPU-hour on capacity (\S+) \(opportunity, not cash\)", name)
    if queued:  # engine/capacity_queued.py: a capacity's own queued price
        return f"容量 {queued.group(1)} 排队卡时的价值（机会成本，非现金）"
    if name.startswith("labor rate: "):
        return "人力费率：" + label(name.removeprefix("labor rate: "), lang)
    cap = CAPACITY_NAME.fullmatch(name)  # engine/capacity.py, capacity_queued.py (review 7 L10)
    if cap:
        what = "硬件摊销" if cap["what"] == "amortized hardware" else "费率卡"
        rest = f" {cap['item']}，自 {cap['first']} 起" if cap["item"] else ""
        return f"容量 {cap['id']}：{what}{rest}"
    return name


CAPACITY_NAME = re.compile(r"capacity (?P<id>\S+): (?P<what>amortized hardware|rate card)"
                           r"(?: (?P<item>\S+) from (?P<first>\S+))?")


def t(key: str, lang: str) -> str:
    en, zh = TEXT[key]
    return zh if lang.lower().startswith("zh") else en


def v(value, lang: str) -> str:
    """A vocabulary value, labelled in the language (falls back to the value itself)."""
    if value is None or value == "":
        return "—"
    return label(str(value), lang)


# a bill row that names no StorageClass, an inventory row with only a provider class and no rule
UNKNOWN_CLASS = ("unknown (no storage class named)", "未知（未注明存储类别）")


def storage_class(value, lang: str) -> str:
    """Storage classes share words with compute states (checkpoint); label them as objects."""
    if value == "unknown":
        return UNKNOWN_CLASS[1 if lang.lower().startswith("zh") else 0]
    try:
        return label(StorageClass(value), lang)
    except ValueError:
        return v(value, lang)
