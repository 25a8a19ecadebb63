"""The attribution key and the things it names: project, batch, run.

A *batch* (训练批次) is the cost object: one goal + data version + model/code/config version +
responsible team. A *run* is one attempt inside a batch and always carries a reason; a run that
exists because something went wrong also carries the failure cause.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from trainledger.model.money import to_decimal
from trainledger.model.vocab import FailureCause, ReviewClass, RunReason

# letters of any script (客服-批次-a), digits, and . _ : - inside; never a path separator, a blank
# or "..": an id names report files and lake paths
_ID_RE = re.compile(r"[^\W_](?:[\w.:\-]{0,126}[^\W_])?")


def check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not _ID_RE.fullmatch(value) or ".." in value:
        raise ValueError(
            f"{what} id {value!r} must be 1-128 characters of letters (any script), digits and . _ : -,"
            " starting and ending with a letter or digit — no '/', '\\', '..' or blanks"
            " / id 只能由文字、数字和 . _ : - 组成，不能含路径分隔符、'..' 或空白"
        )
    return value


def check_aware(ts: datetime | None, what: str) -> datetime | None:
    if ts is not None and (ts.tzinfo is None or ts.utcoffset() is None):
        raise ValueError(f"{what} must be timezone-aware, got naive {ts.isoformat()}")
    return ts


@dataclass(frozen=True, slots=True)
class AttributionKey:
    """统一归属键: what makes two costs belong to the same batch."""

    project: str
    goal: str
    data_snapshot: str
    data_processing_version: str
    model_version: str
    code_version: str
    config_version: str
    batch_id: str

    def __post_init__(self) -> None:
        check_id(self.project, "project")
        check_id(self.batch_id, "batch")
        for name in ("goal", "data_snapshot", "data_processing_version", "model_version",
                     "code_version", "config_version"):
            if not str(getattr(self, name)).strip():
                raise ValueError(f"attribution key field {name!r} of batch {self.batch_id} is empty")

    def as_dict(self) -> dict[str, str]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class Project:
    id: str
    name: str
    goal: str
    owner: str = ""

    def __post_init__(self) -> None:
        check_id(self.id, "project")


@dataclass(frozen=True, slots=True)
class Batch:
    key: AttributionKey
    team: str
    owner: str = ""
    name: str = ""
    task_type: str = ""  # a TaskType value when known
    max_rounds: int | None = None  # planned experiment rounds (stop condition)

    @property
    def id(self) -> str:
        return self.key.batch_id

    @property
    def project(self) -> str:
        return self.key.project


# The provisional review class a failure cause suggests; the review stage may overrule it
# (e.g. the same config error twice with no corrective action is avoidable rework, not exploration).
SUGGESTED_REVIEW_CLASS: dict[FailureCause, ReviewClass | None] = {
    FailureCause.EXPLORATION: ReviewClass.REASONABLE_EXPLORATION,
    FailureCause.INFRA_FAULT: ReviewClass.UNFORESEEABLE_FAULT,
    FailureCause.CONFIG_ERROR: ReviewClass.AVOIDABLE_REWORK,
    FailureCause.DATA_QUALITY: ReviewClass.AVOIDABLE_REWORK,
    FailureCause.GOAL_CHANGE: None,  # depends on who changed the goal and why: a human decides
}


@dataclass(frozen=True, slots=True)
class Run:
    id: str
    batch_id: str
    reason: RunReason
    cause: FailureCause | None = None
    source_job: str = ""  # e.g. Slurm job id or Kubernetes job name
    state: str = ""  # final scheduler state, e.g. COMPLETED, FAILED, NODE_FAIL, PREEMPTED
    submitted_at: datetime | None = None
    started_at: datetime | None = None
    ended_at: datetime | None = None
    gpus: int = 0  # devices the run touches (whole GPUs, as the scheduler counts them)
    review_class: ReviewClass | None = None
    # GPU-equivalents held, exact (a pod with 250 milli-GPU holds 0.25; MIG and time-sliced shares
    # alike); None: the run holds its ``gpus`` whole. Every GPU-second the engine counts is weighted
    # by ``gpu_equivalents``.
    gpu_share: Decimal | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "reason", RunReason(self.reason))
        if self.gpu_share is not None:
            share = to_decimal(self.gpu_share)
            if share < 0:
                raise ValueError(f"run {self.id}: gpu_share {share} must be >= 0")
            object.__setattr__(self, "gpu_share", share)
        if self.cause is not None:
            object.__setattr__(self, "cause", FailureCause(self.cause))
        for name in ("submitted_at", "started_at", "ended_at"):
            check_aware(getattr(self, name), f"run {self.id} {name}")

    @property
    def gpu_equivalents(self) -> Decimal:
        """The GPUs the run holds, exactly: its ``gpu_share`` when the source gave one, else ``gpus``."""
        return Decimal(self.gpus) if self.gpu_share is None else self.gpu_share

    @property
    def suggested_review_class(self) -> ReviewClass | None:
        if self.review_class is not None:
            return self.review_class
        if self.cause is None:
            return None
        return SUGGESTED_REVIEW_CLASS[self.cause]
