"""The workbook's own words (report/xlsx.py) in English and Simplified Chinese; column names shared
with the other renderers come from i18n.py."""

from __future__ import annotations

L: dict[str, tuple[str, str]] = {
    "readme": ("README", "说明"),
    "summary": ("Summary: totals per basis and currency", "汇总：按口径与币种"),
    "lines": ("Lines: every cost line of the batch", "明细：本批次每一条成本行"),
    "assumptions": ("Assumptions: each value is a named cell", "假设：每个取值都是命名单元格"),
    "variance": ("Variance bridge (live formulas)", "偏差桥（实时公式）"),
    "control": ("Control: billed = attributed + unattributed", "控制：账单 = 已归属 + 未归属"),
    "capacity_control": ("Control per capacity: capacity cost = attributed + no job held + jobs without a batch",
                         "按容量控制：容量总成本 = 已归属 + 无作业占用 + 作业未匹配批次"),
    "labor_how": ("batches = SUM of the per-batch rows; shared pools = SUM of the per-pool rows; unattributed ="
                  " the internal bucket's hours above; check = ROUND(timesheet − (batches + shared pools +"
                  " unattributed), 4) must show 0.0000; one row per currency of the rates the hours are valued at",
                  "批次 = 各批次行之和；共享分摊池 = 各分摊池行之和；未归属 = 上方内部人力未归属桶的工时；"
                  "校验 = ROUND(工时表 − (批次 + 共享分摊池 + 未归属), 4)，必须为 0.0000；按计价费率的币种各一行"),
    "line_count": ("lines", "行数"), "timesheet_hours": ("timesheet hours", "工时表工时"),
    "batches_hours": ("on batches", "已归属批次"),
    "pooled_hours": ("shared pools", "共享分摊池"), "unattributed_hours": ("unattributed", "未归属"),
    "capacity_id": ("capacity", "容量"), "unheld": ("no job held", "无作业占用"),
    "job_without_batch": ("held by jobs without a batch", "作业未匹配批次"),
    "held_not_imported": ("held, jobs not imported", "有作业占用（作业未导入）"),
    "decisions": ("Alerts and decisions", "预警与决策"),
    "curves": ("Spend over time against the plan, with the EAC range", "支出随时间对照计划与完工估算区间"),
    "bases": ("Bases are never summed: billed cash, queued opportunity value, internal labor and"
              " storage estimates are different things; each has its own rows and its own chart.",
              "不同口径从不相加：账单现金、排队机会价值、内部人力与存储估算是不同的东西，各有各的行和图。"),
    "evidence_levels": ("Evidence levels: contract (a contract or bill), measured (task and storage records),"
                        " assumed (a plan or estimate still to be confirmed — it has an owner).",
                        "证据等级：contract 合同/账单；measured 任务与存储记录；"
                        "assumed 待确认的计划或估算（有待确认人）。"),
    "verify": ("How to verify: every line names its source file (SHA-256) and 1-based data row; re-import that"
               " file and find the row. Formula cells recompute; the 'computed' column beside each is the"
               " engine's exact decimal — the two must agree. Control must show 0.00.",
               "如何核对：每一行都给出来源文件（SHA-256）与数据行号（从 1 起），重新导入该文件即可找到该行。"
               "公式单元格会重算，旁边的“计算值”列是引擎的精确小数，两者应一致。控制表必须显示 0.00。"),
    "precision": ("Amounts with more than 15 significant digits (what a spreadsheet number keeps) are written"
                  " as exact text and marked; formula inputs are rounded to 15 significant digits, the exact"
                  " decimal beside them.",
                  "有效数字超过 15 位（电子表格数字所能保存的位数）的金额以精确文本写出并标注；公式的输入"
                  "四舍五入到 15 位有效数字，精确小数列在旁边。"),
    "price_version": ("Price version: cost lines record the rule that priced them, not a price-book version;"
                      " the attribution id identifies the run of the engine.",
                      "价格版本：成本行记录的是定价规则而非价目表版本；归属 ID 标识引擎的那一次运行。"),
    "sheet": ("sheet", "工作表"), "what": ("what it holds", "内容"),
    "category": ("category", "类别"), "quantity": ("quantity", "数量"), "unit": ("unit", "单位"),
    "detail": ("detail", "明细"), "source_kind": ("source kind", "来源类型"),
    "source_sha256": ("source file SHA-256", "来源文件 SHA-256"), "row": ("row", "行号"),
    "import_key": ("import key (the import the row came through)", "导入键（该行所属的导入）"),
    "rule": ("rule", "规则"), "note": ("note", "备注"), "defined_name": ("defined name", "命名单元格"),
    "formula": ("formula", "公式"), "computed": ("computed (engine)", "计算值（引擎）"),
    "delta": ("actual − plan", "实际 − 计划"),
    "parts_sum": ("price + volume + efficiency + rework + other charges + not split",
                  "价格 + 工作量 + 效率 + 返工 + 其他费用 + 未分解"),
    "check": ("check (must be 0.00)", "校验（必须为 0.00）"),
    "check_hours": ("check (must be 0.0000)", "校验（必须为 0.0000）"), "exact": ("exact", "精确值"),
    "attribution": ("attribution id", "归属 ID"), "batch": ("batch", "批次"),
    "chart_hours": ("GPU-hours by state", "各状态卡时"), "chart_cost": ("Cost, basis: {b}", "成本，口径：{b}"),
    "PRECISION": ("exact decimal kept as text (more than 15 significant digits)",
                  "精确小数以文本保存（有效数字超过 15 位）"),
    "rounded": ("formula input rounded to 15 significant digits: {f}", "公式输入四舍五入到 15 位有效数字：{f}"),
    "from_lines": ("expected, from Lines (live SUMIFS)", "预期，来自明细（实时 SUMIFS）"),
    "for_formulas": ("expected, 15 significant digits (for formulas)", "预期，15 位有效数字（供公式）"),
    "quantity_exact": ("quantity, exact", "数量（精确值）"), "kind": ("kind", "类型"),
    "text": ("text", "内容"), "open": ("open", "未关闭"), "id": ("id", "编号"),
    "action": ("action", "动作"), "by": ("by", "决策人"), "approver": ("approver", "批准人"),
    "verdict": ("rule verdict", "规则建议"), "reason": ("reason", "原因"), "next_review": ("next review", "下次复核"),
    "no_plan": ("no plan for this batch: no variance bridge", "本批次没有计划：无偏差桥"),
    "plan": ("plan", "计划"), "actual": ("actual", "实际"), "price": ("price", "价格"),
    "volume": ("volume", "工作量"), "efficiency": ("efficiency", "效率"), "rework": ("rework", "返工"),
    "plan_rates": ("The plan's rates (expected): change one and the Variance sheet's bridge moves",
                   "计划费率（预期值）：修改任一项，偏差表的偏差桥随之变化"),
    "plan_lines": ("Plan lines: the split as live formulas (A = SUMIFS over Lines; rates from Assumptions)",
                   "计划行：偏差分解的实时公式（A 为明细表的 SUMIFS；费率取自假设表）"),
    "planned_work": ("useful work planned", "计划有效工作量"), "work_done": ("useful work done", "已完成有效工作量"),
    "fixed": ("fixed quantity", "一次性数量"), "rework_allowance": ("rework allowance", "返工额度"),
    "line": ("plan line", "计划行"), "role": ("role", "角色"),
    "Pp": ("price per unit (Pp)", "单价（Pp）"), "E": ("quantity per Mtoken (E)", "每百万 token 数量（E）"),
    "F": ("fixed quantity (F)", "一次性数量（F）"), "Rp": ("rework allowance (Rp)", "返工额度（Rp）"),
    "Wp": ("work planned (Wp)", "计划工作量（Wp）"), "Wa": ("work done (Wa)", "已完成工作量（Wa）"),
    "Qa": ("actual quantity (Qa)", "实际数量（Qa）"), "Ra": ("rework quantity (Ra)", "返工数量（Ra）"),
    "A": ("actual cost (A, SUMIFS over Lines)", "实际成本（A，明细表 SUMIFS）"),
    "engine_plan": ("plan (engine)", "计划（引擎）"), "engine_price": ("price (engine)", "价格（引擎）"),
    "engine_volume": ("volume (engine)", "工作量（引擎）"),
    "engine_efficiency": ("efficiency (engine)", "效率（引擎）"),
    "engine_rework": ("rework (engine)", "返工（引擎）"),
    "other": ("credits and other charges", "赔付/退款及其他费用"), "not_split": ("not split", "未分解"),
    "engine_other": ("credits and other charges (engine)", "赔付/退款及其他费用（引擎）"),
    "engine_not_split": ("not split (engine)", "未分解（引擎）"),
    "none": ("none", "无"), "amortized": ("effective-cost view (EffectiveCost)",
                                            "账单有效成本视图（EffectiveCost）"),
    "restricted": ("restricted / 受限", "restricted / 受限"),
    "balance": ("Balance: resource consumption against delivery investment, the drawer's sensitivity",
                "天平：资源消耗与交付投入，假设抽屉的敏感度"),
    "control_how": ("this batch = SUMIFS over Lines of the attributed bases; other batches = SUM of their rows"
                    " below (or, without that table, the engine's attributed less this batch's lines); unattributed"
                    " = SUM of the rows by reason below; the check must show 0.00",
                    "本批次 = 明细表中已归属口径的 SUMIFS；其他批次 = 下方其他批次各行之和（无该表时为引擎的已归属减去"
                    "本批次明细）；未归属 = 下方按原因各行之和；校验必须显示 0.00"),
    "this_batch": ("attributed to this batch (SUMIFS over Lines)", "归属本批次（明细表 SUMIFS）"),
    "other_batches": ("attributed to the other batches", "归属其他批次"),
    "other_batches_note": ("other batches: the engine's attributed less this batch's lines (their lines are in"
                           " their own workbooks)",
                           "其他批次：引擎的已归属减去本批次明细（其明细在各自的工作簿中）"),
    "other_batches_table": ("Attributed to the other batches (the engine's, per batch, basis and category)",
                            "归属其他批次（引擎计算，按批次、口径与类别）"),
    "other_batches_table_note": ("other batches = SUM of these rows; their lines are in their own workbooks",
                                 "其他批次 = 以下各行之和；其明细在各自的工作簿中"),
    "withheld_others": ("another batch's amount is restricted for this role: the engine's figure, no SUM",
                        "其他批次的部分金额对此角色受限：取引擎数值，不做求和"),
    "others_inexact": ("another batch's amount has more than 15 significant digits (exact text): the engine's"
                       " figure, no SUM", "其他批次的某一金额有效数字超过 15 位（精确文本）：取引擎数值，不做求和"),
    "capacity_how": ("this batch = SUMIFS over Lines of the lines the capacity priced (source kind capacity, the"
                     " rule naming it); other batches = SUM of their rows below; the check must show 0.00",
                     "本批次 = 明细表中该容量定价的成本行（来源类型 capacity、规则注明该容量）的 SUMIFS；其他批次 ="
                     " 下方各行之和；校验必须显示 0.00"),
    "capacity_id_wildcard": ("the capacity id holds * ? or ~ (a SUMIFS wildcard): the engine's figure, no SUMIFS",
                             "容量 ID 含有 * ? 或 ~（SUMIFS 通配符）：取引擎数值，不做 SUMIFS"),
    "in_batches": ("attributed, in Batches (SUMIFS)", "已归属，批次表中（SUMIFS）"),
    "outside_report": ("attributed, outside this report's batches or window (the ledger's lines less Batches)",
                       "已归属，不在本报告的批次或期间内（账本成本行减去批次表）"),
    "in_unattributed": ("unattributed, in Unattributed (SUMIFS)", "未归属，未归属表中（SUMIFS）"),
    "outside_window": ("unattributed, outside the window (the ledger's lines less Unattributed)",
                       "未归属，不在期间内（账本成本行减去未归属表）"),
    "engine_attributed": ("attributed (engine)", "已归属（引擎）"),
    "engine_unattributed": ("unattributed (engine)", "未归属（引擎）"),
    "reason_label": ("reason (label)", "原因（说明）"),
    "withheld_reasons": ("an unattributed row is restricted for this role: the engine's total, no SUM",
                         "部分未归属行对此角色受限：取引擎合计，不做求和"),
    "label": ("label", "名称"), "basis_label": ("basis (label)", "口径（名称）"),
    "part": ("part", "组成"),
    "assumption_low": ("low (Assumptions)", "低（假设表）"), "assumption_high": ("high (Assumptions)", "高（假设表）"),
    "withheld_lines": ("some lines are restricted for this role: no SUMIFS check",
                       "部分明细对此角色受限：不做 SUMIFS 校验"),
}
