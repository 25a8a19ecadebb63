"""English and Simplified Chinese text of plan / status / alerts / review / decide output."""

from __future__ import annotations

from trainledger.model.vocab import StorageClass
from trainledger.model.vocab import label as _vocab_label

# Names the plan adds to the shared vocabulary (model/vocab.py stays as it is).
EXTRA: dict[str, tuple[str, str]] = {
    "overhead": ("overhead (planned)", "计划额外占用"),
    "rework (reruns)": ("rework (failures and reruns)", "返工（故障损耗与重跑）"),
    "none": ("no cause", "无原因"), "review": ("review", "复盘"),
    "kept": ("kept", "留存"), "retention": ("retention beyond plan", "超期留存"),
    "unknown": ("unknown", "未知"), "rounds": ("rounds", "轮"),
    "gpu_hour": ("GPU-hour", "卡时"), "hour": ("hour", "工时"), "gib_month": ("GiB-month", "GiB·月"),
}


def label(value: object, lang: str = "en") -> str:
    """``model.vocab.label`` plus the plan's own terms."""
    v = str(value)
    if v in EXTRA:
        return EXTRA[v][1] if lang.lower().startswith("zh") else EXTRA[v][0]
    return _vocab_label(value, lang)


def storage_label(value: str, lang: str = "en") -> str:
    try:
        return _vocab_label(StorageClass(value), lang)
    except ValueError:
        return label(value, lang)

TEXT: dict[str, tuple[str, str]] = {
    "plan_title": ("Plan {batch} v{version}", "计划 {batch} 第 {version} 版"),
    "reason": ("reason", "原因"), "author": ("by", "制定人"), "source": ("source", "来源"),
    "work": ("planned useful work", "计划有效工作量"), "max_rounds": ("max rounds", "最大试验轮数"),
    "line": ("line", "计划行"), "price": ("price", "价格"), "volume": ("volume", "工作量"),
    "efficiency": ("efficiency", "效率"), "rework": ("rework", "返工"),
    "rework_allowance": ("rework allowance", "返工额度"), "fixed": ("one-time", "一次性"),
    "plan": ("plan", "计划"), "actual": ("actual", "实际"), "basis": ("basis", "口径"),
    "currency": ("currency", "币种"), "low": ("low", "低"), "expected": ("expected", "预期"),
    "high": ("high", "高"), "evidence": ("evidence", "证据等级"), "owner": ("owner", "负责人"),
    "gates": ("gates", "评审关口"), "rules": ("stop rules", "停止规则"), "bounds": ("bounds", "约定边界"),
    "assumptions": ("high-risk assumptions", "高风险假设"), "per_unit": ("per Mtoken", "每百万 token"),
    "status_title": ("Status of {batch} against plan v{version}", "{batch} 执行状态（对照计划第 {version} 版）"),
    "ac": ("actual cost (AC)", "实际成本 (AC)"), "ev": ("earned value (EV)", "挣值 (EV)"),
    "eac": ("estimate at completion (EAC)", "完工估算 (EAC)"),
    "rounds": ("rounds used", "已用轮数"), "of": ("of", "/"),
    "rounds_of": ("{used} of {max}", "{used} / {max}"),
    "rounds_no_max": ("{used} (no maximum set)", "{used}（未设上限）"),
    "no_max": ("none set", "未设上限"),
    "work_done": ("useful work done", "已完成有效工作量"),
    "work_unknown": ("no progress log with token counts for this batch's runs (import one with"
                     " `trainledger import progress`); EV, EAC, gates and the volume / efficiency split cannot be"
                     " judged until then",
                     "本批次的运行没有带 token 计数的进度日志（用 `trainledger import progress` 导入）；"
                     "在此之前无法判断挣值、完工估算、关卡以及工作量 / 效率的分解"),
    "drv_unknown": ("what drove it cannot be judged: useful work is unknown (no progress log), so volume and"
                    " efficiency cannot be told apart",
                    "无法判断驱动因素：有效工作量未知（没有进度日志），无法区分工作量与效率"),
    "unknown": ("unknown", "未知"),
    "stop_unpriced": ("{n} kept object(s) have no storage price in the price book (e.g. {first}); add their"
                      " storage:<tier> item", "{n} 个保留对象在价格簿中没有存储单价（例如 {first}）；请补充其"
                      " storage:<tier> 条目"),
    "hours_by_state": ("GPU-hours by state vs plan", "按资源状态的卡时与计划对比"),
    "state": ("state", "状态"), "planned_to_date": ("plan for work done", "已完成工作对应计划"),
    "planned_total": ("plan at completion", "完工计划"),
    "alerts": ("alerts", "预警"), "open": ("open — awaiting a decision", "未决——等待决策"),
    "answered": ("answered by decision {d}", "已由决策 {d} 答复"),
    "no_alerts": ("no alerts", "无预警"),
    "gate_reached": ("gate {id} reached at {frac} of planned work; rules recommend: {verdict}",
                     "关口「{id}」已到（计划工作量的 {frac}）；规则建议：{verdict}"),
    "gate_pending": ("gate {id} at {frac} of planned work: not reached", "关口「{id}」（计划工作量的 {frac}）：未到"),
    "verdict_note": ("a recommendation, never an automatic stop", "仅为建议，不会自动停止"),
    "review_title": ("Review of {batch} against plan v{version}", "{batch} 复盘（对照计划第 {version} 版）"),
    "bridge": ("variance bridge: actual − plan = price + volume + efficiency + rework"
               " (+ credits and other charges + not split, when there are any)",
               "差异桥：实际 − 计划 = 价格 + 工作量 + 效率 + 返工（如有：+ 赔付/退款及其他费用 + 未分解）"),
    "rework_def": ("rework = the failures' GPU-hours at the plan's price (of a retry chain: the failed attempt's"
                   " lost progress, hang and"
                   " time after its last step — all of it if it kept no progress — plus the rerun's setup /"
                   " preemption recovery, as the sheet's retry chains; a data-fix or evaluation rerun whole) less"
                   " the plan's rework allowance; the sheet shows them at their actual cost, the gap is in price",
                   "返工 = 按计划单价计值的失败卡时（重试链中失败尝试丢失的进度、悬挂及最后一步之后的时间——"
                   "若未保留任何进度则全部计入——加上重跑的准备 / 抢占恢复时间，与成本底稿的重试链一致；"
                   "数据修正或评测重跑整体计入）减去计划"
                   "的返工预留；成本底稿按实际成本列示，两者之差计入价格"),
    "by_state": ("efficiency by state", "效率差异按资源状态"),
    "other": ("credits and other charges", "赔付/退款及其他费用"),
    "alert_obsolete": ("closed as obsolete: useful work is known now (progress imported)",
                       "已作为过时预警关闭：有效工作量现已可知（已导入进度）"),
    "not_split": ("not split", "未分解"),
    "note_work_unknown": ("useful work unknown (no progress log): volume and efficiency are not split",
                          "有效工作量未知（没有进度日志）：未分解工作量与效率"),
    "note_not_recorded": ("nothing recorded on this basis (e.g. no timesheet imported): not a measured zero;"
                          " its variance is not split", "该口径没有任何记录（例如未导入工时表）：不是实测为零；"
                          "其差异未分解"),
    "by_reason": ("rework by reason and cause", "返工差异按原因与失败归因"),
    "classes": ("runs by review class", "运行按复盘归类"),
    "lessons": ("lessons: assumptions that moved", "教训：变动的假设"),
    "decision_title": ("Decision {id} on {batch}: {action}", "关于 {batch} 的决策 {id}：{action}"),
    "options": ("options and cost to go", "选项与剩余成本"), "verdict": ("rule verdict", "规则建议"),
    "override": ("override of the rule", "推翻规则建议"), "approver": ("second approver", "第二审批人"),
    "sunk": ("sunk cost (shown, not used by the rule)", "沉没成本（仅展示，不参与规则）"),
    "evidence_hash": ("evidence hash", "证据哈希"), "next_review": ("next review", "下次复核"),
    "supersedes": ("supersedes", "取代"), "answers": ("answers alerts", "答复预警"),
    "assets": ("reusable assets", "可复用资产"), "unknowns": ("unknowns removed", "已消除的未知"),
    "new_unknowns": ("new unknowns", "新的未知"), "to_verify": ("still to verify", "仍需验证"),
    "curve": ("{metric} at {frac} of planned work", "{metric}（计划工作量的 {frac}）"),
    "gap": ("behind plan by", "落后计划"),
    "child": ("child batch {child} takes {n} asset(s) by reference", "子批次 {child} 按引用沿用 {n} 项资产"),
    "yes": ("yes", "是"), "no": ("no", "否"), "class": ("class", "类别"), "path": ("path", "路径"),
    "before": ("before", "之前"), "after": ("after", "之后"), "none": ("none", "无"),
    "monthly": ("monthly cost", "月成本"),
    "not_priced": ("not priced (no price for its storage class in the price book)",
                   "未定价（价目表中没有其存储类别的价格）"), "expiry": ("expiry / review", "到期 / 复核"),
    "unplanned": ("unplanned", "计划外"), "sheet_section": ("Plan vs actual", "计划与实际"),
    "decisions": ("decisions", "决策"), "no_plan": ("no plan yet", "尚无计划"),
    # alert drivers
    "alert_spend": ("{basis} {currency}: actual {value} reached {bound} % of plan expected {plan}",
                    "{basis} {currency}：实际 {value} 已达计划预期 {plan} 的 {bound} %"),
    "alert_eac": ("{basis} {currency}: EAC high {value} above plan high {plan}",
                  "{basis} {currency}：完工估算上限 {value} 高于计划上限 {plan}"),
    "alert_unplanned": ("{basis} {currency}: actual {value} spent where the plan has nothing (plan 0): unplanned"
                        " spend — add a plan line for it (`trainledger plan --reason`) or find why it is here",
                        "{basis} {currency}：计划为 0，却已实际支出 {value}（计划外支出）——请为其补充计划行"
                        "（`trainledger plan --reason`）或查明其来源"),
    "alert_rounds": ("rounds used {value} reached the maximum {bound}", "已用轮数 {value} 达到上限 {bound}"),
    "alert_work_unknown": ("{basis} {currency}: actual {value} of plan {plan} spent, but useful work is unknown (no"
                           " progress log): EAC overrun and earned value cannot be judged — import progress"
                           " (`trainledger import progress`), then attribute again",
                           "{basis} {currency}：计划 {plan}，已实际花费 {value}，但有效工作量未知（没有进度日志）："
                           "无法判断完工估算是否超支与挣值——请导入进度（`trainledger import progress`）后重新归属"),
    "as_of_attribution": ("figures as of the last attribution ({at}), checked at an import",
                          "数字截至上次归集（{at}），于导入时检查"),
    "rounds_at_import": ("counted from the imported jobs at the import, before attribution",
                         "导入时按已导入作业计数，尚未归集"),
    "rounds_jobs": ("{n} job(s) matched to the batch by its rules ({first} … {last})",
                    "按规则归入本批次的作业 {n} 个（{first} … {last}）"),
    "alert_gate": ("gate {id} reached: rules recommend {verdict}", "关口「{id}」已到：规则建议{verdict}"),
    "drv_efficiency": ("efficiency {amount} ({share} of plan): {state} {pct} of allocated {unit}",
                       "效率 {amount}（占计划 {share}）：{state}占已分配{unit}的 {pct}"),
    "drv_eff_rate": ("efficiency {amount} ({share} of plan): {state} {rate} {unit} per Mtoken against plan {plan}",
                     "效率 {amount}（占计划 {share}）：{state}每百万 token {rate} {unit}，计划 {plan}"),
    "drv_eff_fixed": ("efficiency {amount} ({share} of plan): {state} {qty} {unit} against a one-time plan of {plan}",
                      "效率 {amount}（占计划 {share}）：{state} {qty} {unit}，一次性计划 {plan}"),
    "drv_rework_labor": ("rework {amount} ({share} of plan): {role} {qty} hours of rework",
                         "返工 {amount}（占计划 {share}）：{role}返工 {qty} 工时"),
    "drv_rework": ("rework {amount} ({share} of plan): {reason} ({cause}) {qty} {unit}",
                   "返工 {amount}（占计划 {share}）：{reason}（{cause}）{qty} {unit}"),
    "drv_price": ("price {amount} ({share} of plan): paid {pa} per {unit} against plan {pp}",
                  "价格 {amount}（占计划 {share}）：实付每{unit} {pa}，计划 {pp}"),
    "drv_unplanned": ("{line} {amount}: a cost of a kind the plan has no line for",
                      "{line} {amount}：计划中没有对应行的一类成本"),
    "drv_volume": ("volume {amount} ({share} of plan): work done {wa} of planned {wp} Mtoken",
                   "工作量 {amount}（占计划 {share}）：已完成 {wa} / 计划 {wp} 百万 token"),
    "opt_continue": ("continue as planned: remaining work at the efficiency measured so far",
                     "按计划继续：剩余工作按目前实测效率"),
    "opt_shrink": ("shrink: cut the remaining rounds to {f} of the plan", "缩小：剩余轮次压缩为计划的 {f}"),
    "opt_stop": ("stop: only the retention of kept objects for {m} months", "停止：只剩保留对象 {m} 个月的存储费用"),
    "opt_exhausted": ("the planned work is done: the plan prices nothing further; re-plan before going on",
                      "计划工作量已完成：计划不再覆盖后续成本；继续前请重新制定计划"),
    "opt_shrink_est": ("shrink: end at {rounds} rounds of {params}, re-estimated",
                       "缩小：以 {params} 在 {rounds} 轮结束，重新预估"),
    "estimated_from": ("estimated from", "估算依据"),
    "from_eac": ("EAC − AC of plan v{v} at the efficiency measured so far",
                 "计划第 {v} 版的完工估算减实际，按目前实测效率"),
    "from_scaled": ("continue's cost to go × {f} (the plan has no estimator inputs to re-run)",
                    "继续方案的剩余成本 × {f}（计划没有可重跑的预估输入）"),
    "from_estimate": ("estimator re-run ({name}, params {params}): its rates per Mtoken × {work} Mtoken still to do"
                      " for {rounds} rounds; one-time labor and storage left out",
                      "重跑预估（{name}，参数量 {params}）：每百万 token 费率 × 尚余 {work} 百万 token（{rounds} 轮）；"
                      "不含一次性人力与存储"),
    "from_retention": ("kept storage objects' size (latest inventory) × the price book's storage price per"
                       " GiB-month × {m} months", "保留对象的大小（最新清单）× 价格簿的每 GiB·月存储单价 × {m} 个月"),
    "from_child": ("the latest plan of the child batch {child} (v{v})", "子批次 {child} 的最新计划（第 {v} 版）"),
    "from_no_child": ("no child batch with a plan named (--child): continue's cost to go shown",
                      "未指定已有计划的子批次（--child）：显示继续方案的剩余成本"),
    "opt_retarget": ("retarget: a linked child batch reusing the assets by reference; needs its own plan",
                     "重定目标：开一个关联子批次，按引用复用资产；需单独做计划"),
    # a plan line's kind, for ``line_label`` (the bridge's and the lessons' line names)
    "line.compute": ("compute", "算力"), "line.labor": ("labor", "人力"), "line.storage": ("storage", "存储"),
    "line.external": ("external services", "外部服务"), "line.network": ("network", "网络"),
    "line.other": ("other", "其他"),
    "gpu_h": ("GPU-h", "卡时"),
    "mtoken": ("Mtoken", "百万 token"),
    # progress metrics a plan's curves commonly name, for ``metric_label`` (another name stays as written)
    "metric.loss": ("loss", "损失"), "metric.train_loss": ("train_loss", "训练损失"),
    "metric.eval_loss": ("eval_loss", "评测损失"), "metric.val_loss": ("val_loss", "验证损失"),
    "metric.accuracy": ("accuracy", "准确率"), "metric.eval_accuracy": ("eval_accuracy", "评测准确率"),
    "metric.perplexity": ("perplexity", "困惑度"), "metric.reward": ("reward", "奖励"),
}


def metric_label(metric: object, lang: str = "en") -> str:
    """A progress metric's name as people read it: Chinese words for the common ones (loss → 损失),
    the name as the plan writes it otherwise (and always in English)."""
    text = str(metric)
    return t(f"metric.{text}", lang) if f"metric.{text}" in TEXT else text


def line_label(line: object, lang: str = "en") -> str:
    """A plan line's id as people read it. English: the id as the plan file writes it (``compute``,
    ``labor:business_eval``); Chinese: its words (算力, 人力：业务评测, 计划外：人力). A line id of the
    user's own (not a kind the plan knows) stays as written in both."""
    text = str(line)
    if not lang.lower().startswith("zh"):
        return text
    head, sep, tail = text.partition(":")
    if sep and head == "unplanned":
        return f"{t('unplanned', lang)}：{line_label(tail, lang)}"
    if f"line.{head}" in TEXT:
        return t(f"line.{head}", lang) + (f"：{label(tail, lang)}" if sep else "")
    return text


def rework_text(rework_by: dict[str, str], lang: str, fmt) -> list[str]:
    """``fault retry +3,775.39 = infra fault 5,386.88 + config error 333.68 − allowance 1,944.17``:
    each reason's net part, the causes' actual cost and the allowance it is measured against."""
    from decimal import Decimal

    out = []
    for reason in sorted(k for k in rework_by if "/" not in k):
        net = Decimal(rework_by[reason])
        causes = {k.split("/", 1)[1]: Decimal(v) for k, v in rework_by.items() if k.startswith(reason + "/")}
        allowance = sum(causes.values(), Decimal(0)) - net
        if not net and not causes:
            continue
        expr = " + ".join(f"{label(c, lang)} {fmt(str(v))}" for c, v in sorted(causes.items())) or "0"
        if allowance:
            expr += f" − {t('rework_allowance', lang)} {fmt(str(allowance))}"
        out.append(f"{label(reason, lang)} {fmt(str(net))} = {expr}")
    return out


def rounds_text(rounds: dict, lang: str = "en") -> str:
    """Rounds used against the plan's maximum: "6 of 10", or "6 (no maximum set)" — never "6 of None"."""
    if rounds.get("max") is None:
        return t("rounds_no_max", lang, used=rounds["used"])
    return t("rounds_of", lang, used=rounds["used"], max=rounds["max"])


def t(key: str, lang: str = "en", **kw: object) -> str:
    en, zh = TEXT[key]
    s = zh if lang.lower().startswith("zh") else en
    return s.format(**{k: (label(v, lang) if isinstance(v, Term) else v) for k, v in kw.items()})


class Term(str):
    """A vocabulary value to show through ``model.vocab.label`` in the reader's language."""


def both(key: str, **kw: object) -> dict[str, str]:
    """The text in both languages. An alert's or a driver's amounts (``Decimal``) are written with
    thousands separators, as every other amount on the sheet (80,523.30, not 80523.30)."""
    if key.startswith(("alert_", "drv_")):
        from decimal import Decimal

        kw = {k: (format(v, ",f") if isinstance(v, Decimal) and not isinstance(v, bool) else v) for k, v in kw.items()}
    return {"en": t(key, "en", **kw), "zh-CN": t(key, "zh-CN", **kw)}
