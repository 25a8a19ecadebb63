"""The closed vocabularies of DESIGN.md §2, as ``StrEnum`` values with zh-CN labels.

Each enum's values are the stable identifiers used in files, the database and the API; the
labels are for people. ``label(member, lang)`` returns the English or Chinese name;
``reason_label(code, lang)`` an unattributed reason's, which differs from its basis's where one
code names both (``capacity_unheld``).

**Order is meaning**: each enum lists its members in the order people read them (the seed's
lifecycle order for compute states and storage classes, a fixed order for bases, evidence and
labor), and every renderer sorts by it (``ORDERS``, ``rank``) — never alphabetically.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from enum import StrEnum


class TaskType(StrEnum):
    PRETRAIN = "pretrain"
    CONTINUED_PRETRAIN = "continued_pretrain"
    FULL_FINETUNE = "full_finetune"
    LORA = "lora"
    QLORA = "qlora"
    RAG = "rag"


class RunReason(StrEnum):
    PLANNED_EXPERIMENT = "planned_experiment"
    PARAM_TUNING = "param_tuning"
    FAULT_RETRY = "fault_retry"
    DATA_FIX = "data_fix"
    EVAL_REWORK = "eval_rework"
    UNRECORDED = "unrecorded"  # honest placeholder: the source did not say why this run happened


class FailureCause(StrEnum):
    INFRA_FAULT = "infra_fault"
    CONFIG_ERROR = "config_error"
    DATA_QUALITY = "data_quality"
    GOAL_CHANGE = "goal_change"
    EXPLORATION = "exploration"


class ReviewClass(StrEnum):
    REASONABLE_EXPLORATION = "reasonable_exploration"
    UNFORESEEABLE_FAULT = "unforeseeable_fault"
    AVOIDABLE_REWORK = "avoidable_rework"


class ComputeState(StrEnum):
    QUEUED = "queued"
    SETUP = "setup"
    DATA_STALL = "data_stall"
    STRAGGLER_WAIT = "straggler_wait"  # workers waiting at the iteration barrier for the slowest one
    EFFECTIVE = "effective"
    CHECKPOINT = "checkpoint"
    HANG = "hang"
    LOST_PROGRESS = "lost_progress"
    PREEMPTION_RECOVERY = "preemption_recovery"
    ALLOCATED_IDLE = "allocated_idle"
    RESERVED_UNUSED = "reserved_unused"
    UNCLASSIFIED = "unclassified"  # allocated time with no progress signal to classify it
    CAPACITY_UNHELD = "capacity_unheld"  # capacity (billed or owned) that no job held; not allocated_idle


class Basis(StrEnum):
    """What kind of cost a figure is. Figures of different bases are never summed."""

    BILLED = "billed"  # cash on a bill or invoice, attributed to a batch
    CAPACITY_UNHELD = "capacity_unheld"  # cash on a bill for capacity no job held (not a job's idle GPUs)
    RESERVED_UNUSED = "reserved_unused"  # cash committed for reserved capacity left unused
    # the bill's own amortized view (FOCUS EffectiveCost): commitments spread over where they are used —
    # a second view of money already in billed, never added to it, nor to owned hardware's amortized
    EFFECTIVE_COST = "effective_cost"
    QUEUED = "queued"  # waiting for allocation: cycle time / opportunity, no cash
    AMORTIZED = "amortized"  # owned hardware spread over its life ([capacity.amortized]); never a bill's view
    INTERNAL = "internal"  # existing staff time at a loaded rate: opportunity cost, not new cash
    ESTIMATE = "estimate"  # quantity measured or planned × a price from the price book
    RATE_CARD = "rate_card"  # owned or reserved capacity at an internal, dated rate card price
    ALLOCATED = "allocated"  # a share of idle or shared cost spread by a declared policy: a view, never summed

    @classmethod
    def _missing_(cls, value):
        # a ledger written before review finding 10 stored capacity no job held as "allocated_idle",
        # the word that means a job holding GPUs it does not use (ComputeState.ALLOCATED_IDLE)
        return cls.CAPACITY_UNHELD if value == "allocated_idle" else None


CASH_BASES = (Basis.BILLED, Basis.CAPACITY_UNHELD, Basis.RESERVED_UNUSED)


class Evidence(StrEnum):
    CONTRACT = "contract"  # a contract, bill or invoice
    MEASURED = "measured"  # task, storage or time records
    ASSUMED = "assumed"  # pending confirmation, with an owner


class StorageClass(StrEnum):
    """In lifecycle order: data in, training's own files, what comes out, what is kept around it."""

    RAW_DATA = "raw_data"
    PROCESSED_DATA = "processed_data"
    CACHE = "cache"
    CHECKPOINT = "checkpoint"
    CANDIDATE_MODEL = "candidate_model"
    EVAL_RESULT = "eval_result"
    FINAL_ARTIFACT = "final_artifact"
    LOG = "log"
    BACKUP = "backup"


class LaborPhase(StrEnum):
    BUILD = "build"  # one-time
    RUN = "run"  # per round
    REWORK = "rework"


class LaborRole(StrEnum):
    DATA_PREP = "data_prep"
    TRAINING_ENGINEERING = "training_engineering"
    PLATFORM_SUPPORT = "platform_support"
    BUSINESS_EVAL = "business_eval"
    PROJECT_COORDINATION = "project_coordination"
    VENDOR = "vendor"


class Recurrence(StrEnum):
    ONE_TIME = "one_time"
    ONGOING = "ongoing"


class ServiceStage(StrEnum):
    DELIVERY = "delivery"  # first build only
    ONGOING = "ongoing"  # a dependency every upgrade needs


class PlanStage(StrEnum):
    PLAN = "plan"
    EXECUTION = "execution"
    REVIEW = "review"


class DecisionKind(StrEnum):
    CONTINUE = "continue"
    SHRINK = "shrink"
    STOP = "stop"
    RETARGET = "retarget"


COMPUTE_STATE_ORDER: tuple[str, ...] = (
    *(s.value for s in ComputeState if s is not ComputeState.UNCLASSIFIED),
    "tagged_resource",  # a billed resource joined to a batch by its tags: no job, no state of its own
    "credit", "adjustment", "tax",  # money-only rows of a node's bill: no GPU-hours (engine/compute.py)
    "prior_period_correction",  # FOCUS ChargeClass Correction: an earlier period restated, money only
    ComputeState.UNCLASSIFIED.value,
)
"""The seed's lifecycle order: queued, setup, data stall, straggler wait (synchronous waiting at the
iteration barrier, measured from per-worker step times), effective, checkpoint, hang, lost progress,
preemption recovery, allocated idle (a job holding GPUs it does not use), reserved unused,
capacity unheld (in the unattributed bucket: capacity no job held); then tagged resources and,
last, time with no progress signal."""

ORDERS: dict[str, tuple[str, ...]] = {
    "state": COMPUTE_STATE_ORDER,
    "basis": tuple(b.value for b in Basis),
    "evidence": tuple(e.value for e in Evidence),
    "storage_class": tuple(c.value for c in StorageClass),
    "phase": tuple(p.value for p in LaborPhase),
    "role": tuple(r.value for r in LaborRole),
    "stage": tuple(s.value for s in ServiceStage),
}
"""The reading order of each vocabulary, by the field name rows carry it under."""


def rank(field: str) -> Callable[[object], tuple[int, str]]:
    """A sort key: ``field``'s values in ``ORDERS`` order, unknown values after them (alphabetically)."""
    order = {v: i for i, v in enumerate(ORDERS[field])}
    return lambda value: (order.get(str(value), len(order)), str(value))


ZH: dict[str, str] = {
    # task types
    "pretrain": "从零预训练", "continued_pretrain": "继续预训练", "full_finetune": "全参微调",
    "lora": "LoRA 微调", "qlora": "QLoRA 微调", "rag": "提示词加检索 (RAG)",
    # run reasons
    "planned_experiment": "计划内试验", "param_tuning": "参数调整", "fault_retry": "故障重试",
    "data_fix": "数据修正", "eval_rework": "评测返工", "unrecorded": "未记录原因",
    # failure causes
    "infra_fault": "基础设施故障", "config_error": "配置错误", "data_quality": "数据质量问题",
    "goal_change": "目标变化", "exploration": "探索性试验",
    # review classes
    "reasonable_exploration": "合理探索", "unforeseeable_fault": "不可预见故障",
    "avoidable_rework": "可避免返工", "planned": "计划内", "needs_review": "待复盘归类",
    # compute states
    "queued": "排队未分配", "setup": "环境准备", "data_stall": "数据等待", "straggler_wait": "同步等待慢节点",
    "effective": "有效训练",
    "checkpoint": "检查点保存", "hang": "故障后悬挂", "lost_progress": "失败损失进度",
    "preemption_recovery": "抢占后恢复", "allocated_idle": "已分配未使用",
    "reserved_unused": "预留未使用", "unclassified": "无进度信号", "tagged_resource": "按标签归属的资源",
    "capacity_unheld": "无作业占用的容量", "held_not_imported": "有作业占用（作业未导入）",
    "credit": "赔付/退款", "adjustment": "账单调整", "tax": "税费", "prior_period_correction": "前期账单更正",
    "rate_card": "费率卡", "not_valued": "未计价", "allocated": "按口径分摊（视图）",
    "spread_by_gpu_hours": "按卡时分摊", "cost_centre": "计入平台成本中心", "separate": "单列",
    "gpu_hours": "卡时", "equal": "均摊",
    # unattributed reasons
    "job_without_batch": "作业未匹配批次", "no_rule_matched": "无规则匹配", "commitment_purchase": "承诺购买",
    "stage_failed": "归属阶段出错", "node_without_jobs": "节点无已导入的作业",
    "shared_work": "共享工作（未指定批次）",
    # bases
    "billed": "账单现金", "effective_cost": "账单有效成本",  # FOCUS EffectiveCost: the bill's view, not 摊销
    "amortized": "摊销", "internal": "内部人力(机会成本)", "estimate": "估算",
    # evidence
    "contract": "合同/账单", "measured": "记录实测", "assumed": "假设待确认",
    # storage classes
    "raw_data": "原始数据", "processed_data": "加工数据", "cache": "缓存", "checkpoint_obj": "检查点",
    "candidate_model": "候选模型", "final_artifact": "最终制品", "log": "日志",
    "eval_result": "评测结果", "backup": "备份",
    # labor
    "build": "一次性建设", "run": "每轮运行", "rework": "返工",
    "data_prep": "数据准备", "training_engineering": "训练工程", "platform_support": "平台支持",
    "business_eval": "业务评测", "project_coordination": "项目协调", "vendor": "供应商协同",
    "one_time": "一次性", "ongoing": "持续",
    "delivery": "交付阶段",
    # units of a cost line's quantity
    "gpu_hour": "卡时", "node_hour": "节点时", "hour": "小时", "gib_month": "GiB·月", "gb_month": "GB·月",
    "card_day": "卡·天", "node_month": "节点·月",
    # plan stages and decisions
    "plan": "计划", "execution": "执行", "review": "复盘",
    "continue": "继续", "shrink": "缩小", "stop": "停止", "retarget": "重定目标",
}


def label(value: str, lang: str = "en") -> str:
    """A person-readable name for a vocabulary value in ``en`` or ``zh-CN``."""
    v = str(value)
    if lang.lower().startswith("zh"):
        if v == "checkpoint" and isinstance(value, StorageClass):
            return ZH["checkpoint_obj"]
        return ZH.get(v, v)
    return v.replace("_", " ")


# an unattributed reason whose code is also a basis (capacity_unheld): the reason says why the cash has
# no batch, the basis what kind of cost it is — one word for both would print the same label twice
REASON_ZH = {"capacity_unheld": "容量空闲，无作业可归属",
             "node_without_jobs": "无作业占用的节点（导入的作业中没有它：请检查每个集群的 sacct 是否都已导入）",
             "occupancy_held": "占用序列显示有作业占用，作业未导入"}  # engine/capacity_occupancy.py


def reason_label(code: str, lang: str = "en") -> str:
    """An unattributed reason code (``job_without_batch``, ``capacity_unheld``) in ``lang``."""
    if lang.lower().startswith("zh") and str(code) in REASON_ZH:
        return REASON_ZH[str(code)]
    return label(code, lang)


# the first word of an unattributed line's detail ("<reason>: node n1", engine/compute.py), as zh-CN says it
DETAIL_WORDS_ZH = {"pool": "资源池", "node": "节点", "job": "作业", "bill row": "账单行", "invoice": "发票",
                   "storage": "存储"}


# a timesheet row's detail when it names no batch: "<phase>/<role> (no batch named)" (engine/assets.py)
SHARED_WORK_DETAIL = re.compile(r"^(?P<phase>[^/ ]+)/(?P<role>[^ ]+) \(no batch named\)$")
# a commitment purchase's detail (engine/compute.py and its frame mirror write it in English)
COMMITMENT_DETAIL = re.compile(r"commitment purchase (?P<id>.+), paid here, used over its term"
                               r" \(see the effective-cost view\)$")


FOLDED_DETAIL = re.compile(r"\+(?P<n>\d+) more$")


def detail_label(detail: str, lang: str = "en") -> str:
    """An unattributed reason's detail (``node h800-a2``, ``job 9004``) in ``lang``: its leading word
    translated, the name or id after it kept as written; a commitment purchase's sentence in zh-CN
    (review 6 K10)."""
    text = str(detail)
    if m := FOLDED_DETAIL.match(text):  # report/sheet.py folded: a reason's smaller items in one row
        if lang.lower().startswith("zh"):
            return f"另有 {m['n']} 项（逐项清单：`trainledger attribute --json`）"
        return f"{m['n']} more items (listed one by one in `trainledger attribute --json`)"
    if lang.lower().startswith("zh"):
        if m := SHARED_WORK_DETAIL.match(text):  # a timesheet row naming no batch (engine/assets.py)
            return f"{label(m['phase'], lang)}/{label(m['role'], lang)}（未指定批次）"
        if m := COMMITMENT_DETAIL.match(text):
            return f"承诺购买 {m['id']}：在此付款，在承诺期内使用（见账单有效成本视图）"
        for en, zh in DETAIL_WORDS_ZH.items():
            if text.startswith(en + " "):
                return f"{zh} {text[len(en) + 1:]}"
    return text
