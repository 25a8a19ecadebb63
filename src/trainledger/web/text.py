"""The dashboard's own words in English and Simplified Chinese, and which language a request gets.

Labels of vocabulary values (bases, states, evidence) come from model/vocab.py via report/i18n.py;
the finance terms follow the sheet's glossary (口径 basis, 未归属 unattributed, 摊销 amortized).
"""

from __future__ import annotations

LANGS = ("en", "zh-CN")
COOKIE = "trainledger_lang"

TEXT: dict[str, tuple[str, str]] = {
    "app": ("trainledger dashboard", "trainledger 看板"),
    "batches": ("Training batches", "训练批次"),
    "batch": ("batch", "批次"), "name": ("name", "名称"), "project": ("project", "项目"),
    "team": ("team", "责任团队"),
    "totals": ("Totals by basis (never summed across bases)", "按口径汇总（不同口径不相加）"),
    "basis": ("basis", "口径"), "currency": ("currency", "币种"), "low": ("low", "低"),
    "expected": ("expected", "预期"), "high": ("high", "高"), "lines": ("cost lines", "成本明细行数"),
    "runs": ("Runs", "运行"), "run": ("run", "运行"), "state": ("state", "状态"), "reason": ("reason", "原因"),
    "sheet": ("Cost sheet", "成本底稿"),
    "run_title": ("Run", "运行"), "by_state": ("Cost lines by state", "按状态的成本明细"),
    "retry": ("Retry chain", "重试链"), "attempts": ("attempts", "尝试"), "failed": ("failed run", "失败运行"),
    "cause": ("failure cause", "失败原因"), "none": ("none", "无"),
    "line": ("Cost line", "成本明细"), "category": ("category", "类别"), "evidence": ("evidence", "证据等级"),
    "amount": ("amount", "金额"), "detail": ("detail", "明细"), "quantity": ("quantity", "数量"),
    "unit": ("unit", "单位"), "provenance": ("Provenance", "来源"), "source_file": ("source file hash", "源文件哈希"),
    "row": ("row", "行"), "rule": ("rule", "规则"), "kind": ("kind", "类型"),
    "source_row": ("Imported source row", "导入的源数据行"), "file": ("file", "文件"), "import": ("import", "导入"),
    "imported_at": ("imported at", "导入时间"), "values": ("Values in the lake", "数据湖中的取值"),
    "raw": ("The row in the file as imported", "导入文件中的原始行"), "field": ("field", "字段"),
    "value": ("value", "取值"), "attributed_by": ("Cost lines made from this row", "由此行生成的成本明细"),
    "unattributed": ("unattributed", "未归属"), "report": ("Across batches", "跨批次汇总"),
    "conservation": ("Conservation check (workspace)", "守恒校验（工作区）"),
    "billed_total": ("billed total", "账单总额"), "attributed": ("attributed", "已归属"),
    "difference": ("difference", "差额"), "not_found": ("Not found", "未找到"), "remedy": ("remedy", "处理办法"),
    "bad_request": ("Bad request", "请求有误"), "language": ("language", "语言"),
    "still_building": ("Still being built", "仍在生成"),
    "back_batch": ("back to the batch", "返回批次"), "back_run": ("back to the run", "返回运行"),
    "status": ("Plan and status", "计划与执行状态"), "status_h": ("AC, EV and EAC against the plan; alerts",
                                                          "实际、挣值与完工估算（对照计划）；预警"),
    "review_h": ("Plan against actual: price, volume, efficiency, rework", "计划与实际差异：价格、量、效率、返工"),
    "decisions": ("Decisions", "决策记录"),
    "role": ("role", "角色"), "unauthorized": ("Token needed", "需要令牌"),
    "forbidden": ("Outside this token's scope", "超出令牌的授权范围"),
    # the ledger's pages (web/pages.py) and the writes (web/writes.py)
    "imports": ("Imports", "导入记录"),
    "imports_h": ("Every imported file, live and dropped", "全部导入文件（有效与已撤销）"),
    "sha": ("content hash", "内容哈希"), "rows_read": ("rows read", "读取行数"), "accepted": ("accepted", "接收"),
    "duplicates": ("duplicates", "重复"), "quarantined": ("quarantined", "隔离"), "flagged": ("flagged", "带标记"),
    "import_status": ("status", "状态"), "live": ("live", "有效"), "dropped": ("dropped", "已撤销"),
    "dropped_at": ("dropped at", "撤销时间"), "drop_reason": ("why dropped", "撤销原因"),
    "lines_shared": ("The ledger records the file content and row a line came from, not the import: this row"
                     " number of the same content is also imported as",
                     "账本只记录成本明细来自哪份文件内容的哪一行，不记录是哪次导入：同一内容的这一行也被以下导入读入"),
    "reimported_at": ("imported again at", "重新导入时间"),
    "dropped_earlier": ("dropped earlier at", "此前撤销于"),
    "replaced_by": ("replaced by", "替换为"), "counts_check": ("accepted + duplicates + quarantined = rows read",
                                                            "接收 + 重复 + 隔离 = 读取行数"),
    "quarantine": ("Quarantine", "隔离行"), "quarantine_h": ("Rows this import left in quarantine",
                                                           "本次导入隔离的行"),
    "flagged_h": ("Accepted rows that carry a flag", "已接收但带标记的行"), "line_no": ("line", "文件行号"),
    "raw_text": ("raw text", "原始文本"), "quarantine_file": ("quarantine file", "隔离文件"),
    "back_imports": ("back to the imports", "返回导入记录"),
    "download_csv": ("these rows as CSV", "下载这些行（CSV）"),
    "alerts": ("Alerts", "预警"), "alerts_h": ("Crossed bounds and reached gates, open and closed",
                                             "越界与到达关口的预警（未处理与已处理）"),
    "alert": ("alert", "预警"), "open": ("open — awaiting a decision", "未处理——等待决策"),
    "closed_by": ("closed by decision", "已由决策处理"), "plan_version": ("plan version", "计划版本"),
    "driver": ("driver", "主要原因"), "created_at": ("raised at", "产生时间"),
    "open_n": ("open", "未处理"), "closed_n": ("closed", "已处理"), "all_batches": ("every batch", "全部批次"),
    "decided_at": ("decided at", "决策时间"), "action": ("action", "决策"), "by": ("by", "决策人"),
    "approver": ("second approver", "第二审批人"), "verdict": ("rules' verdict", "规则建议"),
    "override": ("overrides the rules", "否决规则建议"), "yes": ("yes", "是"), "no": ("no", "否"),
    "closes": ("alerts it closed", "处理的预警"),
    "sunk": ("sunk cost (AC at the decision)", "沉没成本（决策时的实际成本）"),
    "next_review": ("next review", "下次复查"), "supersedes": ("supersedes", "取代"),
    "evidence_hash": ("evidence hash", "证据哈希"),
    "decide_h": ("Record a decision", "记录决策"),
    "decide_note": ("As `trainledger decide`: written to the ledger and its hash-chained audit log.",
                    "与 `trainledger decide` 相同：写入账本及其哈希链审计日志。"),
    "answers": ("alerts this decision answers", "本决策处理的预警"), "no_open": ("no open alert", "没有未处理的预警"),
    "next_review_hint": ("empty: in 7 days", "留空：7 天后"),
    "approver_hint": ("needed when the action overrides the rules' verdict", "决策否决规则建议时必填"),
    "confirm_by_hint": ("recorded as who confirms: the token you are signed in with, or on loopback without"
                        " tokens the local user", "记为确认人：当前使用的令牌；本机无令牌时为本机用户"),
    "by_token_hint": ("a decision sent with a token is recorded as that token's", "使用令牌提交的决策记为该令牌的决策"),
    "approver_stated_hint": ("recorded as stated by your token", "记录为由你的令牌填写"),
    "submit_decide": ("Record the decision", "记录决策"),
    "child_batch": ("child batch (retarget)", "子批次（重定目标）"), "child_plan": ("its plan", "其计划"),
    "child_no_plan": ("no plan yet: the cost to go is continue's", "尚无计划：后续成本按继续计算"),
    "child_hint": ("retarget only: the batch that takes the reusable assets by reference; its latest plan prices"
                   " the cost to go", "仅用于重定目标：按引用接收可复用资产的批次，其最新计划给出后续成本"),
    "no_child_choice": ("— (not a retarget)", "—（非重定目标）"),
    "may_not": ("Your role may not do this; roles that may:", "当前角色无此权限；有权限的角色："),
    "plans": ("Plan versions", "计划版本"), "version": ("version", "版本"), "author": ("author", "制定人"),
    "plan_source": ("from", "来源"), "plan_totals": ("plan totals by basis", "按口径的计划合计"),
    "ranges_h": ("Plan, AC, EV and EAC by basis (low – expected – high)",
                 "按口径的计划、实际成本、挣值与完工估算（低 – 预期 – 高）"),
    "plan": ("plan", "计划"), "ac": ("AC (actual cost)", "实际成本 AC"), "ev": ("EV (earned value)", "挣值 EV"),
    "eac": ("EAC (estimate at completion)", "完工估算 EAC"),
    "cause_h": ("Failure cause", "失败原因"), "cause_evidence": ("evidence", "证据等级"),
    "cause_source": ("source", "依据"), "confirm_h": ("Confirm or set the failure cause", "确认或设定失败原因"),
    "confirm_note": ("As `trainledger runs confirm`: recorded in the hash-chained audit log.",
                     "与 `trainledger runs confirm` 相同：记入哈希链审计日志。"),
    "note": ("note (e.g. a ticket)", "备注（如工单号）"), "submit_confirm": ("Confirm the cause", "确认失败原因"),
    "csrf_refused": ("Write refused: no valid CSRF token", "写入被拒绝：缺少有效的 CSRF 令牌"),
    "role_refused": ("Not allowed for this role", "当前角色无此权限"),
    "decisions_link": ("Decisions", "决策记录"), "alerts_link": ("Alerts of this batch", "本批次预警"),
    "allocated_h": ("Allocated shares (a view beside the direct cost, per source basis; never added to it)",
                    "分摊份额（直接成本之外的视图，按来源口径列示，不与直接成本相加）"),
    "source_basis": ("source basis", "来源口径"),
    # a plan line's id (labor:ROLE, compute, storage, unplanned:CATEGORY) on the status page
    "pl_compute": ("compute", "算力"), "pl_storage": ("storage", "存储"), "pl_labor": ("labor", "人力"),
    "pl_unplanned": ("unplanned", "计划外"), "pl_external": ("external services", "外部服务"),
    "pl_network": ("network", "网络"), "pl_data": ("data", "数据"),
    # the run page
    "gpu_share": ("share of each GPU", "每卡占用份额"), "submitted_at": ("submitted", "提交时间"),
    "started_at": ("started", "开始时间"), "ended_at": ("ended", "结束时间"),
    "compute_cost": ("compute cost", "算力成本"), "hours_by_state": ("GPU-hours by state", "按资源状态的卡时"),
    # codes the ledger stores, said as words (``coded``): an alert's kind, a plan version's source
    "alert_kind.spend": ("spend bound", "支出阈值"),
    "alert_kind.work_unknown": ("useful work unknown", "有效工作量未知"),
    "alert_kind.unplanned": ("unplanned spend", "计划外支出"),
    "alert_kind.eac_high": ("EAC over the plan's high", "完工估算超出计划上限"),
    "alert_kind.rounds": ("rounds at the maximum", "轮数达到上限"), "alert_kind.gate": ("gate reached", "到达关口"),
    # the decision form's refusal of an override without a second approver (web/writes.py)
    "override_refused": ("the rules' verdict is {verdict}; choosing {action} overrides it",
                         "规则建议为“{verdict}”；选择“{action}”将推翻规则的建议"),
    "override_remedy": ("fill in the second approver: a person other than the decider",
                        "请填写第二审批人（不能是决策人本人）"),
    "plan_source.estimate": ("estimate", "估算"), "plan_source.review": ("review of a batch", "批次复盘"),
    # a cost line's rule (its provenance) said as a sentence (web/rule_text.py)
    "rule.split": ("the node's cost split by the GPU-seconds each job held; the job's batch from workspace rule {rule}",
                   "节点成本按各作业占用的 GPU 秒分摊；作业的批次来自工作区规则 {rule}"),
    "rule.unheld": ("the node's cost split by GPU-seconds: capacity no job held (unattributed)",
                    "节点成本按 GPU 秒分摊：无作业占用的容量（未归属）"),
    "rule.split_unmatched": ("the node's cost split by GPU-seconds; the job matched no workspace rule (unattributed)",
                             "节点成本按 GPU 秒分摊；该作业未匹配任何工作区规则（未归属）"),
    "rule.queued": ("GPU time queued from the job's submit to its start (opportunity cost, no cash); the job's batch"
                    " from workspace rule {rule}",
                    "作业从提交到开始的排队卡时（机会成本，非现金）；作业的批次来自工作区规则 {rule}"),
    "rule.queued_unmatched": ("GPU time queued from the job's submit to its start; the job matched no workspace rule",
                              "作业从提交到开始的排队卡时；该作业未匹配任何工作区规则"),
    "rule.allocation": ("allocation policy {policy} spreading the {category} pool (a view beside the direct cost)",
                        "分摊策略 {policy} 分摊 {category} 池（与直接成本并列的视图）"),
    "rule.column": ("the batch named in the {source}'s own batch column", "{source}自身批次列中注明的批次"),
    "rule.no_match": ("no workspace rule matched the row (unattributed)", "该行未匹配任何工作区规则（未归属）"),
    "rule.stage_failed": ("the attribution stage failed on this row (unattributed)", "归属计算在该行失败（未归属）"),
    "rule.workspace": ("workspace rule {rule}", "工作区规则 {rule}"),
    "rule.capacity": ("capacity {capacity} of {file} (its row {row}), held by this job: {text}",
                      "{file} 中的容量 {capacity}（其第 {row} 行），由本作业占用：{text}"),
    "rule.effective_cost": ("{text}, valued at the bill's EffectiveCost", "{text}，按账单的 EffectiveCost 计价"),
    "rule.source.timesheet": ("timesheet", "工时表"), "rule.source.storage": ("storage inventory", "存储清单"),
    "rule.source.invoice": ("invoice", "发票"),
    "rule.category.compute": ("compute", "算力"), "rule.category.network": ("network", "网络"),
    "rule.category.labor": ("labor", "人力"), "rule.category.storage": ("storage", "存储"),
    "rule.category.external": ("external services", "外部服务"), "rule.category.data": ("data", "数据"),
    # the kind of source a cost line or an import came from (the line and source-row pages)
    "source_kind.focus": ("cloud bill (FOCUS)", "云账单（FOCUS）"),
    "source_kind.slurm": ("job records (Slurm sacct)", "作业记录（Slurm sacct）"),
    "source_kind.storage": ("storage inventory", "存储清单"), "source_kind.timesheet": ("timesheet", "工时表"),
    "source_kind.invoice": ("invoice", "发票"),
    "rule.category.allocation": ("allocation", "分摊"),
    # a cost line's reason code the vocabulary has no word for (web/line_text.py), and its note
    "line_reason.shared_work": ("shared work", "共享工作"),
    "line_reason.no_batch_named": ("no batch named", "未注明批次"),
    "source_kind.config": ("workspace configuration (a capacity)", "工作区配置（容量）"),
    "source_kind.capacity": ("owned / reserved capacity a job held (the job's row)",
                             "作业占用的自有 / 预留容量（作业记录行）"),
}


def t(key: str, lang: str) -> str:
    en, zh = TEXT[key]
    return zh if lang == "zh-CN" else en


def coded(prefix: str, code: str | None, lang: str) -> str:
    """A stored code (an alert's kind, a plan's source) as its words in ``lang``; a code this table
    does not know is shown as it is."""
    pair = TEXT.get(f"{prefix}.{code}")
    if pair is None:
        return code or ""
    return pair[1] if lang == "zh-CN" else pair[0]


def normal(value: str | None) -> str | None:
    """``zh``, ``zh-cn``, ``zh-Hans`` … → ``zh-CN``; ``en-US`` … → ``en``; anything else → None."""
    if not value:
        return None
    v = value.strip().lower()
    if v.startswith("zh"):
        return "zh-CN"
    if v.startswith("en"):
        return "en"
    return None


def from_accept(header: str | None) -> str | None:
    """The first language of Accept-Language (by q, then order) that the dashboard speaks."""
    if not header:
        return None
    choices = []
    for i, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if normal(tag) and q > 0:
            choices.append((-q, i, normal(tag)))
    return min(choices)[2] if choices else None


def choose(query: str | None, cookie: str | None, accept: str | None, default: str = "en") -> str:
    """``?lang=``, then the cookie, then Accept-Language, then the workspace language."""
    return normal(query) or normal(cookie) or from_accept(accept) or normal(default) or "en"
