"""Task type first (seed 004): what kind of "training" this is decides where the money goes.

``PROFILES`` says for each task type whether weights change, how many FLOPs a token costs per
(active) parameter, and where the bill's weight usually lies. ``classify`` is the guided mode:
the seed's three questions — do the weights change? how many labelled samples? several rounds? —
plus two that separate neighbours (start from an existing model? parameter-efficient?), with the
reasons for the answer in English and Chinese.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainledger.errors import BadInput
from trainledger.model.vocab import TaskType


@dataclass(frozen=True, slots=True)
class TaskProfile:
    task: TaskType
    changes_weights: bool
    flops_per_param_token: int  # 6 = forward 2 + backward 4; 4 when base weights are frozen
    trains_all_weights: bool
    main_cost_en: str
    main_cost_zh: str


PROFILES: dict[TaskType, TaskProfile] = {
    TaskType.PRETRAIN: TaskProfile(
        TaskType.PRETRAIN, True, 6, True, "compute, and overwhelmingly so", "算力,且是压倒性的那块"
    ),
    TaskType.CONTINUED_PRETRAIN: TaskProfile(
        TaskType.CONTINUED_PRETRAIN,
        True,
        6,
        True,
        "compute plus licensing of high-quality corpora",
        "算力加高质量语料授权",
    ),
    TaskType.FULL_FINETUNE: TaskProfile(
        TaskType.FULL_FINETUNE,
        True,
        6,
        True,
        "moderate compute; data and evaluation dominate",
        "算力中等,数据与评估为主",
    ),
    # LoRA/QLoRA: no weight gradients for the frozen base: backward computes activation
    # gradients only (2N), so 2N + 2N = 4N per token (Hu et al. 2021, arXiv:2106.09685).
    TaskType.LORA: TaskProfile(
        TaskType.LORA,
        True,
        4,
        False,
        "little compute; mostly data and people",
        "算力小,主要花在数据和人力",
    ),
    TaskType.QLORA: TaskProfile(
        TaskType.QLORA,
        True,
        4,
        False,
        "little compute; mostly data and people",
        "算力小,主要花在数据和人力",
    ),
    TaskType.RAG: TaskProfile(
        TaskType.RAG,
        False,
        0,
        False,
        "data preparation and retrieval quality; almost no training compute",
        "数据整理与检索质量,几乎不烧训练算力",
    ),
}

RAG_ROUTE_EN = (
    "rag changes no weights: there is no training compute to estimate. Budget instead: "
    "document cleaning and chunking and an evaluation set ([data]), the retrieval index "
    "(embedding the corpus, vector-store storage) and serving ([inference]), and the people "
    "who own answer quality ([labor])."
)
RAG_ROUTE_ZH = (
    "RAG 不改动模型权重,没有训练算力可估。请改为估算:文档清洗与切分、评估集([data]);"
    "检索索引(语料向量化、向量库存储)与推理服务([inference]);以及对回答质量负责的人力([labor])。"
)

LARGE_LABELLED = 100_000  # above this, full fine-tuning is worth comparing with LoRA


def parse_task(value: str) -> TaskType:
    try:
        return TaskType(value.strip().lower().replace("-", "_"))
    except ValueError:
        raise BadInput(
            f"unknown task type {value!r}",
            remedy="use one of " + ", ".join(t.value for t in TaskType) + " (or run `trainledger estimate --guided`)",
        ) from None


@dataclass(frozen=True, slots=True)
class Classification:
    task: TaskType
    reasons_en: tuple[str, ...]
    reasons_zh: tuple[str, ...]
    rounds_hint: tuple[float, float, float]  # low, mode, high experiment rounds

    def reasons(self, lang: str) -> tuple[str, ...]:
        return self.reasons_zh if lang.lower().startswith("zh") else self.reasons_en


def classify(
    changes_weights: bool,
    labelled_samples: int,
    several_rounds: bool,
    *,
    from_existing_model: bool = True,
    parameter_efficient: bool | None = None,
    memory_constrained: bool = False,
) -> Classification:
    """The guided classification of seed 004, with its reasons."""
    if labelled_samples < 0:
        raise BadInput("labelled samples must be >= 0")
    en, zh = [], []
    rounds = (2.0, 3.0, 6.0) if several_rounds else (1.0, 1.5, 2.0)
    en.append(
        "several rounds planned: budget 2-6 final-run equivalents"
        if several_rounds
        else "one main run planned: still budget 1-2 runs for the usual retry"
    )
    zh.append("计划多轮:按 2–6 个最终运行当量留预算" if several_rounds else "计划一轮:仍按 1–2 轮留出常见的重跑")
    if not changes_weights:
        en.insert(0, "the weights do not change: this is prompting plus retrieval, not training")
        zh.insert(0, "不改动权重:这是提示词加检索,不是训练")
        return Classification(TaskType.RAG, tuple(en), tuple(zh), (1.0, 1.0, 1.0))
    if labelled_samples == 0:
        if from_existing_model:
            task = TaskType.CONTINUED_PRETRAIN
            en.insert(
                0,
                "weights change, no labelled samples, starting from an existing model: "
                "continued pre-training on raw text",
            )
            zh.insert(0, "改权重、无标注样本、基于已有模型:继续预训练")
        else:
            task = TaskType.PRETRAIN
            en.insert(
                0,
                "weights change, no labelled samples, no starting model: pre-training "
                "from scratch — compute will dominate the bill",
            )
            zh.insert(0, "改权重、无标注样本、从零开始:从零预训练,算力是压倒性的开销")
        return Classification(task, tuple(en), tuple(zh), rounds)
    peft = parameter_efficient if parameter_efficient is not None else (labelled_samples < LARGE_LABELLED)
    if peft:
        task = TaskType.QLORA if memory_constrained else TaskType.LORA
        en.insert(
            0,
            f"weights change with {labelled_samples:,} labelled samples: a fine-tune; "
            "parameter-efficient (adapters) usually suffices at this size"
            + (" and 4-bit base weights fit small GPUs (QLoRA)" if memory_constrained else ""),
        )
        zh.insert(
            0,
            f"改权重、{labelled_samples:,} 条标注样本:微调;此规模参数高效微调通常足够"
            + (",4 比特底座可放进小显存(QLoRA)" if memory_constrained else ""),
        )
    else:
        task = TaskType.FULL_FINETUNE
        en.insert(
            0,
            f"weights change with {labelled_samples:,} labelled samples: full fine-tuning; "
            "data and evaluation, not compute, are usually the larger cost",
        )
        zh.insert(0, f"改权重、{labelled_samples:,} 条标注样本:全参微调;数据与评估通常比算力更贵")
    return Classification(task, tuple(en), tuple(zh), rounds)
