"""The command line's own lines in English and Chinese: the error edge, grouped warnings, the
summaries of import / attribute / audit / quarantine. Ids are ``cli.<id>``."""

from __future__ import annotations

CLI: dict[str, tuple[str, str]] = {
    # the error edge (cli/lazy.py, errors.py)
    "error": ("error: {message}", "错误：{message}"),
    "remedy": ("remedy: {remedy}", "解决办法：{remedy}"),
    "where_file": ("{path}: ", "{path}："),
    "where_row": ("{path}, row {row}: ", "{path} 第 {row} 行："),
    "internal": ("internal error: {kind}: {first}", "内部错误：{kind}：{first}"),
    "report_hint": ("this is a bug in trainledger, not in your input: run the command again with --verbose and"
                    " report the traceback, with the command line, to the trainledger maintainers",
                    "这是 trainledger 的缺陷，不是输入的问题：请加 --verbose 重新运行命令，"
                    "并把回溯信息连同命令行一起报告给 trainledger 维护者"),
    "os.ENOENT": ("No such file or directory", "文件或目录不存在"),
    "os.EACCES": ("Permission denied", "权限不足"),
    "os.EPERM": ("Operation not permitted", "不允许的操作"),
    "os.EROFS": ("Read-only file system", "只读文件系统"),
    "os.ENOTDIR": ("Not a directory", "不是目录"),
    "os.EEXIST": ("File exists", "文件已存在"),
    "os.ENOSPC": ("No space left on device", "设备上没有剩余空间"),
    "os.EISDIR": ("Is a directory", "是一个目录"),
    "os.default_remedy": ("check the path and its permissions", "检查路径及其权限"),
    "no_such_command": ("No such command {name}.{hint} `trainledger --help` lists them all.",
                        "没有命令 {name}。{hint}`trainledger --help` 会列出全部命令。"),
    "did_you_mean": (" Did you mean {names}?", "你是不是想用 {names}？"),
    "or": (" or ", " 或 "),
    "not_empty": ("must not be empty: give a value, or leave the option out for its default",
                  "不能为空：请给出一个值，或不写该选项以使用默认值"),
    "commands": ("Commands", "命令"),
    # grouped warnings (cli/output.py)
    "grouped.one": ("{indent}! {kind}: {message}", "{indent}! {kind}：{message}"),
    "grouped.many": ("{indent}! {kind}: {n} warnings", "{indent}! {kind}：{n} 条警告"),
    "grouped.many_eg": ("{indent}! {kind}: {n} warnings, e.g.:", "{indent}! {kind}：{n} 条警告，例如："),
    "grouped.more": ("{indent}    … and {n} more ({how})", "{indent}    … 另有 {n} 条（{how}）"),
    "grouped.list_all": ("run the command again with --verbose to list them all",
                         "加 --verbose 重新运行命令可列出全部"),
    # init, import, attribute, audit (cli/ledger_cmds.py)
    "init.ready": ("workspace ready: {root} (ledger: {ledger})", "工作区已就绪：{root}（账本：{ledger}）"),
    "import.sacct_tz": ("(sacct times read as {tz}; set --tz or sources.slurm.timezone if that is not the cluster's"
                        " zone)",
                        "（sacct 时间按 {tz} 读取；如果这不是集群的时区，请设置 --tz 或 sources.slurm.timezone）"),
    "import.sacct_tz_given": ("(sacct times read as {tz}, the zone --tz gave)",
                              "（sacct 时间按 --tz 给出的 {tz} 读取）"),
    "import.local_tz_given": ("(times without an offset read as {tz}, the zone --tz gave)",
                              "（不带时区偏移的时间按 --tz 给出的 {tz} 读取）"),
    "import.local_tz": ("(times without an offset read as {tz}, assumed: neither --tz nor the mapping names their"
                        " zone; if that is not the source's zone, import it with --tz ZONE, e.g. --tz {example})",
                        "（不带时区偏移的时间按 {tz} 读取，这是假定：--tz 和映射都没有给出时区；"
                        "如果这不是数据源的时区，请用 --tz ZONE 导入，例如 --tz {example}）"),
    "import.local_tz_source": ("(times without an offset read as {tz}, the zone {preset} documents for its source;"
                               " another zone: import it with --tz ZONE)",
                               "（不带时区偏移的时间按 {tz} 读取，这是 {preset} 为其数据源注明的时区；"
                               "如为其他时区，请用 --tz ZONE 导入）"),
    "import.flag_rows": ("{n} row(s)", "{n} 行"),
    "import.rule_line": ("  {rule}: {counts}", "  {rule}：{counts}"),
    # the flag rules of the import summary (ingest/focus.py RULES; a FOCUS rule keeps its English name)
    "import.rule.correction": ("correction", "更正（correction）"),
    "import.rule.provisional_bill": ("provisional bill", "暂估账单"),
    "import.rule.evidence_note": ("evidence note", "账单证据说明"),
    "import.rule.allowed_values": ("allowed values", "取值不在允许范围（allowed values）"),
    "import.rule.Tags_is_a_JSON_object": ("Tags is a JSON object", "Tags 应为 JSON 对象"),
    "import.rule.commitment_discount_columns_agree": ("commitment discount columns agree",
                                                      "承诺折扣各列应一致（commitment discount columns agree）"),
    "import.rule.capacity_reservation_columns_agree": ("capacity reservation columns agree",
                                                       "容量预留各列应一致（capacity reservation columns agree）"),
    "import.rule.allocated_charges_name_their_method": (
        "allocated charges name their method", "分摊费用应注明分摊方法（allocated charges name their method）"),
    "import.rule.allocated_tags": ("allocated tags", "分摊标签（allocated tags）"),
    "import.rule.timestamp_precision": ("timestamp precision", "时间戳精度（timestamp precision）"),
    "import.rule.decimal_type": ("decimal type", "十进制类型（decimal type）"),
    "import.rule.not_null": ("not null", "不应为空（not null）"),
    "import.rule.other": ("other", "其他"),
    "import.flag_column": ("{column} in {n} row(s)", "{column} 列 {n} 行"),
    "import.no_data_rows": ("  ! the file has no data rows (a header only): nothing was imported; check that it is"
                            " the export you meant (its period, its filter)",
                            "  ! 该文件没有数据行（只有表头）：没有导入任何内容；"
                            "请确认这是你要的导出（期间、筛选条件）"),
    "import.summary": ("{path}: {accepted} accepted, {duplicates} duplicate, {quarantined} quarantined{flagged}"
                       " (import {id})",
                       "{path}：接收 {accepted} 行，重复 {duplicates} 行，隔离 {quarantined} 行{flagged}（导入 {id}）"),
    "import.option_not_read": ("--{name} does not apply to `import {kind}` (it is read by: {kinds}); leave it out",
                               "--{name} 不适用于 `import {kind}`（读取它的导入类型：{kinds}）；请去掉它"),
    "import.flagged": (", {n} accepted with flags", "，{n} 行带标记接收"),
    "import.held": ("  the lake already holds {n} accepted row(s) of this file from an earlier import",
                    "  数据湖已保存该文件此前导入时接收的 {n} 行"),
    "import.held_repaired": ("  the lake already holds {n} accepted row(s) of this file from an earlier import; the"
                             " ledger's import record says so (repaired from the lake's log)",
                             "  数据湖已保存该文件此前导入时接收的 {n} 行；"
                             "账本的导入记录已据此更新（依数据湖日志修复）"),
    "import.reason": ("  ! row {row}: {reason} — {remedy}", "  ! 第 {row} 行：{reason}——{remedy}"),
    "import.all_quarantined": ("  {more}all quarantined rows: `trainledger imports show {id}` ({file})",
                               "  {more}全部隔离行：`trainledger imports show {id}`（{file}）"),
    "import.more": ("… {n} more; ", "… 另有 {n} 行；"),
    "attribute.lines": ("{lines} cost lines from {runs} runs", "{runs} 次运行产生 {lines} 条成本行"),
    "attribute.conservation": ("  {currency}: billed {billed} = attributed {attributed} + unattributed {unattributed}"
                               " (difference {difference})",
                               "  {currency}：账单 {billed} = 已归属 {attributed} + 未归属 {unattributed}（差额 "
                               "{difference}）"),
    "attribute.amortized": ("  {currency} effective cost (the bill's EffectiveCost view): {billed} = attributed"
                            " {attributed} + unattributed {unattributed} (difference {difference})",
                            "  {currency} 账单有效成本（EffectiveCost 视图）：{billed} = 已归属 {attributed} + 未归属"
                            " {unattributed}（差额 {difference}）"),
    "attribute.bucket": ("  unattributed bucket:", "  未归属桶："),
    "attribute.bucket_items": (" — {n} items, the largest:", " —— 共 {n} 项，最大的几项："),
    "attribute.bucket_more": ("… {n} more", "…… 另有 {n} 项"),
    "attribute.bucket_all": ("every item: `trainledger attribute --json` (unattributed_by_reason of each currency)",
                             "全部条目：`trainledger attribute --json`（各币种的 unattributed_by_reason）"),
    "audit.entries": ("{n} audit entries; head {id} {hash}", "{n} 条审计记录；链头 {id} {hash}"),
    "audit.chain_intact": ("chain intact", "哈希链完整"),
    "audit.chain_broken": ("CHAIN BROKEN:", "哈希链被破坏："),
    "audit.figures_match": ("figures match the chain: {which}, figures digest {digest}",
                            "账本数字与哈希链一致：{which}，数字摘要 {digest}"),
    "audit.attribution": ("attribution {id}", "归属 {id}"),
    "audit.no_attribution": ("no attribution yet", "还没有归属结果"),
    "audit.figures_changed": ("FIGURES CHANGED:", "账本数字被改动："),
    "audit.lake_intact": ("lake rows match the live imports", "数据湖中的行与仍有效的导入所述一致"),
    "audit.lake_broken": ("LAKE ROWS DIFFER FROM THE LIVE IMPORTS:", "数据湖中的行与仍有效的导入所述不符："),
    # imports, quarantine (cli/imports_cmds.py)
    "imports.none": ("no imports yet: trainledger import KIND PATH", "尚无导入：trainledger import 类型 路径"),
    "imports.header": ("id            kind       status   read  accepted  dup  quarantined  flagged  path",
                       "编号          类型       状态     读取  接收      重复 隔离         带标记   路径"),
    "imports.total": ("total ({n} imports)", "合计（{n} 次导入）"),
    "imports.total_live": ("of which live ({n})", "其中有效（{n} 次）"),
    "imports.title": ("import {id} ({kind}) {path}  [{status}]", "导入 {id}（{kind}）{path}  [{status}]"),
    "imports.sha": ("  sha256 {sha}, first imported {at}", "  sha256 {sha}，首次导入于 {at}"),
    "imports.counts": ("  {read} rows read = {accepted} accepted + {dup} duplicate + {quarantined} quarantined;"
                       " {flagged} accepted with flags",
                       "  读取 {read} 行 = 接收 {accepted} + 重复 {dup} + 隔离 {quarantined}；其中 {flagged} "
                       "行带标记接收"),
    "imports.options": ("  options: {options}", "  选项：{options}"),
    "imports.options_none": ("none", "无"),
    # serve's banner: the dashboard reads, and its two forms write (decisions, cause confirmations)
    "serve.banner": ("trainledger dashboard: {url} ({who}; pages read the workspace, the decision and"
                     " failure-cause forms write to its ledger, audited; Ctrl-C stops)",
                     "trainledger 看板：{url}（{who}；页面只读取工作区，决策表单与失败原因表单会写入账本"
                     "并记入审计日志；Ctrl-C 停止）"),
    "serve.who_tokens": ("tokens required", "需要令牌"),
    "serve.who_local": ("local user: admin", "本机用户：admin"),
    # a plan's alert bounds (plan --show, plan --from-review)
    "plan.bound.spend_pct": ("spend alerts at {pcts} % of the plan", "支出达到计划的 {pcts}% 时预警"),
    "plan.bound.eac_high_over_plan_high": ("an alert when the EAC's high is over the plan's high",
                                           "完工估算上限超过计划上限时预警"),
    "plan.bound.rounds_at_max": ("an alert when the rounds reach the maximum", "轮数达到上限时预警"),
    "plan.bound.off": ("{bound}: off", "{bound}：已关闭"),
    "imports.dropped_at": ("  dropped {at}: {reason}", "  已于 {at} 撤销：{reason}"),
    "imports.history": ("history (UTC): {events}", "经过（UTC）：{events}"),
    "imports.ev_imported": ("imported {at}", "{at} 导入"),
    "imports.ev_dropped": ("dropped {at} by {by}: {reason}", "{at} 由 {by} 撤销：{reason}"),
    "imports.ev_reimported": ("imported again {at} (live again; the drop is kept here)",
                              "{at} 重新导入（恢复有效；撤销记录保留于此）"),
    "imports.qfile": ("  quarantine file: {file}", "  隔离文件：{file}"),
    "imports.quarantined": ("quarantined", "隔离"),
    "imports.flagged_title": ("flagged", "带标记"),
    "imports.row": ("    row {row}{line}: {reason}{remedy}", "    第 {row} 行{line}：{reason}{remedy}"),
    "imports.line": (" (line {line})", "（文件第 {line} 行）"),
    "imports.remedy": (" — {remedy}", "——{remedy}"),
    "imports.rows_more": ("    … and {n} more (--json lists all)", "    … 另有 {n} 行（--json 列出全部）"),
    "imports.dropped": ("dropped import {id} ({kind}, {path}): {n} accepted row(s) no longer feed any figure; run"
                        " `trainledger attribute` to recompute",
                        "已撤销导入 {id}（{kind}，{path}）：其 {n} 行接收数据不再计入任何数字；运行 `trainledger "
                        "attribute` 重新计算"),
    "imports.restored": ("{n} row(s) that other live imports state, which the dropped file's rows held, are"
                         " theirs now (import +rows: {ids}): the figures keep what those files say",
                         "其他仍有效的导入所陈述、此前由被撤销文件的行承载的 {n} 行，现已归入这些导入"
                         "（导入 +行数：{ids}）：数字仍按这些文件所述计算"),
    "imports.overlap": ("note: {n} later {kind} import(s) counted rows as duplicates of what the lake held then "
                        "({ids});"
                        " rows they shared with the dropped file are in no figure now. Re-read such a file with"
                        " `trainledger import {kind} PATH --replace ID`.",
                        "注意：之后的 {n} 次 {kind} 导入曾把部分行算作当时数据湖中已有行的重复（{ids}）；"
                        "它们与被撤销文件共有的行"
                        "现在不计入任何数字。请用 `trainledger import {kind} 路径 --replace 编号` 重新读取这类文件。"),
    "quarantine.none": ("no quarantined or flagged rows", "没有隔离或带标记的行"),
    "quarantine.line": ("{status} {kind} {import_} {file} row {row}: {reason}{remedy}",
                        "{status} {kind} {import_} {file} 第 {row} 行：{reason}{remedy}"),
    "status.quarantined": ("quarantined", "隔离"),
    "status.flagged": ("flagged", "带标记"),
    "status.live": ("live", "有效"),
    "status.dropped": ("dropped", "已撤销"),
    # sheet, export, runs (cli/report_cmds.py, export_cmd.py, runs_cmd.py)
    "wrote": ("wrote {path}", "已写入 {path}"),
    "sheet.xlsx_needs_out": ("--format xlsx writes a workbook: give --out FILE.xlsx",
                             "xlsx 格式输出工作簿：请用 --out 指定 FILE.xlsx"),
    "export.wrote": ("wrote {n} allocation rows to {path}", "已把 {n} 条分摊行写入 {path}"),
    "export.capacity_left_out": (
        "not in the export: {n} cost line(s) of owned or reserved capacity ({amounts}) — a FOCUS allocation"
        " splits bill charges, and capacity priced by a rate card or amortised hardware has no bill row;"
        " the sheets and `trainledger report` show them",
        "未包含在导出中：自有或预留容量的 {n} 条成本行（{amounts}）——FOCUS 分摊拆分的是账单费用，按内部费率或"
        "硬件摊销计价的容量没有账单行；成本底稿与 `trainledger report` 中可以看到它们"),
    "runs.confirmed": ("{run}: cause {cause} ({source}); review class {review_class}",
                       "{run}：失败原因 {cause}（{source}）；复盘归类 {review_class}"),
    # demo (cli/demo_cmd.py, demo/plans.py)
    "demo.title": ("trainledger demo → {root}{scenario}", "trainledger 演示 → {root}{scenario}"),
    "demo.scenario": (" (scenario {scenario})", "（场景 {scenario}）"),
    "demo.import": ("  import {kind} {accepted} accepted {duplicates} duplicate {quarantined} quarantined",
                    "  导入 {kind} 接收 {accepted} 重复 {duplicates} 隔离 {quarantined}"),
    "demo.batch": ("  {batch}  ({runs} runs)", "  {batch}（{runs} 次运行）"),
    "demo.conservation": ("  conservation {currency}: billed {billed} = attributed {attributed} + unattributed"
                          " {unattributed}; difference {difference}",
                          "  守恒 {currency}：账单 {billed} = 已归属 {attributed} + 未归属 {unattributed}；差额 "
                          "{difference}"),
    "demo.capacity": ("  capacity {capacity} ({basis}, {price} {currency}/GPU-hour): {total} = attributed {attributed}"
                      " + unheld {unheld}{jwb}; difference {difference}",
                      "  容量 {capacity}（{basis}，{price} {currency}/卡时）：{total} = 已归属 {attributed}"
                      " + 无作业占用 {unheld}{jwb}；差额 {difference}"),
    "demo.capacity_jwb": (" + held by jobs without a batch {amount}", " + 无批次作业占用 {amount}"),
    "attribute.capacity": ("  capacity {capacity} {currency}: {total} = attributed {attributed} + unheld {unheld}"
                           " + held by jobs without a batch {jwb} (difference {difference})",
                           "  容量 {capacity} {currency}：{total} = 已归属 {attributed} + 无作业占用 {unheld}"
                           " + 无批次作业占用 {jwb}（差额 {difference}）"),
    "attribute.capacity_held": ("    + held, jobs not imported {amount} {currency} ({hours} GPU-h, by the occupancy"
                                " series: {samples} samples; capacity no job held {idle_hours} GPU-h)",
                                "    + 有作业占用（作业未导入）{amount} {currency}（{hours} 卡时，依据占用序列"
                                " {samples} 个采样；无作业占用 {idle_hours} 卡时）"),
    "attribute.capacity_waiting": ("    opportunity cost, not in any total: demand left waiting while capacity was idle"
                                   " {hours} GPU-h = {value} {currency} (all pending while some GPU was idle:"
                                   " {pending} GPU-h = {pending_value})",
                                   "    机会成本（不计入任何合计）：容量空闲时仍在排队的需求 {hours} 卡时 = {value}"
                                   " {currency}（有空闲卡时的全部排队需求：{pending} 卡时 = {pending_value}）"),
    "demo.reports": ("reports:", "成本底稿："),
    "demo.report": ("  {path}  (.json, .html, .xlsx beside it)", "  {path}（旁边还有 .json、.html、.xlsx）"),
    "demo.plan": ("  plan {batch} v{version}: {totals}", "  计划 {batch} v{version}：{totals}"),
    "demo.decide": ("  decide {batch}: {action} (rules: {rules}, override approved by {approver}); answers alerts"
                    " {answers}",
                    "  决策 {batch}：{action}（规则建议：{rules}，推翻建议由 {approver} 批准）；答复预警 {answers}"),
    "demo.plan_from_review": ("  plan {batch} v{version} from the review of {source}: work {work} Mtoken",
                              "  计划 {batch} v{version}（依据 {source} 的复盘）：工作量 {work} 百万 token"),
    "demo.review": ("  review {batch} {currency}: actual {actual} − plan {plan} = price {price} + volume {volume}"
                    " + efficiency {efficiency} + rework {rework} + credits and other charges {other}"
                    " (rounded; exact in review --json)",
                    "  复盘 {batch} {currency}：实际 {actual} − 计划 {plan} = 价格 {price} + 数量 {volume}"
                    " + 效率 {efficiency} + 返工 {rework} + 赔付/退款及其他费用 {other}"
                    "（已取整；精确值见 review --json）"),
    "demo.review_on": ("  review {batch} {basis} {currency}: actual {actual} − plan {plan} = price {price} + volume"
                       " {volume} + efficiency {efficiency} + rework {rework} + credits and other charges {other}"
                       " (rounded; exact in review --json)",
                       "  复盘 {batch} {basis} {currency}：实际 {actual} − 计划 {plan} = 价格 {price} + 数量 {volume}"
                       " + 效率 {efficiency} + 返工 {rework} + 赔付/退款及其他费用 {other}"
                       "（已取整；精确值见 review --json）"),
    "demo.open_alerts": ("  open alerts: {n}", "  未处理的预警：{n}"),
}
