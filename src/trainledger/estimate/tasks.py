"""Task type first (seed 004): what kind of "training" this is decides where the money goes.

``PROFILES`` says for each task type whether weights change, how many FLOPs a token costs per
(active) parameter, and where the bill's weight usually lies. ``classify`` is the guided mode:
the seed's three questions — do the weights change? how many labelled samples? several rounds? —
plus two that separate neighbours (start from an existing model? parameter-efficient?), with the
reasons for the answer in English and Chinese. The texts live in ``messages.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainledger.errors import BadInput
from trainledger.estimate.messages import Msg, text
from trainledger.estimate.priors import guided_rounds_prior
from trainledger.model.vocab import TaskType


@dataclass(frozen=True, slots=True)
class TaskProfile:
    task: TaskType
    changes_weights: bool
    flops_per_param_token: int  # 6 = forward 2 + backward 4; 4 when base weights are frozen
    trains_all_weights: bool
    main_cost_en: str
    main_cost_zh: str


def _profile(task: TaskType, changes: bool, flops: int, trains_all: bool) -> TaskProfile:
    key = f"task.main_cost.{task.value}"
    return TaskProfile(task, changes, flops, trains_all, text(key, "en"), text(key, "zh-CN"))


PROFILES: dict[TaskType, TaskProfile] = {
    TaskType.PRETRAIN: _profile(TaskType.PRETRAIN, True, 6, True),
    TaskType.CONTINUED_PRETRAIN: _profile(TaskType.CONTINUED_PRETRAIN, True, 6, True),
    TaskType.FULL_FINETUNE: _profile(TaskType.FULL_FINETUNE, True, 6, True),
    # LoRA/QLoRA: no weight gradients for the frozen base: backward computes activation
    # gradients only (2N), so 2N + 2N = 4N per token (Hu et al. 2021, arXiv:2106.09685).
    TaskType.LORA: _profile(TaskType.LORA, True, 4, False),
    TaskType.QLORA: _profile(TaskType.QLORA, True, 4, False),
    TaskType.RAG: _profile(TaskType.RAG, False, 0, False),
}

RAG_ROUTE = Msg("note.rag_route")
RAG_ROUTE_EN = RAG_ROUTE.text("en")
RAG_ROUTE_ZH = RAG_ROUTE.text("zh-CN")

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
    reasons_msg: tuple[Msg, ...]
    rounds_hint: tuple[float, float, float]  # low, mode, high: the task's prior scaled by the answer
    several_rounds: bool = True

    @property
    def reasons_en(self) -> tuple[str, ...]:
        return tuple(m.text("en") for m in self.reasons_msg)

    @property
    def reasons_zh(self) -> tuple[str, ...]:
        return tuple(m.text("zh-CN") for m in self.reasons_msg)

    def reasons(self, lang: str) -> tuple[str, ...]:
        return tuple(m.text(lang) for m in self.reasons_msg)


def classify(
    changes_weights: bool,
    labelled_samples: int,
    several_rounds: bool,
    *,
    from_existing_model: bool = True,
    parameter_efficient: bool | None = None,
    memory_constrained: bool = False,
) -> Classification:
    """The guided classification of seed 004, with its reasons (catalogue ids ``reason.*``)."""
    if labelled_samples < 0:
        raise BadInput("labelled samples must be >= 0")

    def answer(task: TaskType, why: Msg) -> Classification:
        u = guided_rounds_prior(task.value, several_rounds)
        key = "reason.several_rounds" if several_rounds else "reason.one_round"
        plan = Msg(key, low=u.low, high=u.high)
        return Classification(task, (why, plan), (u.low, u.mode, u.high), several_rounds)

    if not changes_weights:
        return answer(TaskType.RAG, Msg("reason.no_weight_change"))
    if labelled_samples == 0:
        task = TaskType.CONTINUED_PRETRAIN if from_existing_model else TaskType.PRETRAIN
        return answer(task, Msg(f"reason.{task.value}"))
    peft = parameter_efficient if parameter_efficient is not None else (labelled_samples < LARGE_LABELLED)
    if peft:
        task = TaskType.QLORA if memory_constrained else TaskType.LORA
        why = Msg(
            "reason.peft",
            n=labelled_samples,
            qlora=Msg("reason.qlora_suffix") if memory_constrained else "",
        )
    else:
        task = TaskType.FULL_FINETUNE
        why = Msg("reason.full_finetune", n=labelled_samples)
    return answer(task, why)
