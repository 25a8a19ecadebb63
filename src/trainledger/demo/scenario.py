"""The demo story as data: one project, two batches, a rented 4-node H800 cluster, 20 Slurm jobs.

19 jobs are runs of the two batches; one is the platform team's maintenance job (no wckey).

Story (times are Asia/Shanghai; the rental and the bill cover 2026-11-02 08:00 → 11-23 08:00):

* Batch A (``csa-sft-2026-11-a``): full fine-tune of Qwen2.5-7B on the 10-31 ticket snapshot.
  The smoke test dies in setup (wrong tokenizer path, config_error) and is retried; the main run
  starves on its data loader a few times, then hangs when gpu-node-02 loses a GPU and ends
  NODE_FAIL; the retry resumes from the last checkpoint on nodes 03-04 and holds its allocation
  ~32 min after ``end`` while the sbatch script uploads weights. Evaluation (queued behind the
  retry by a dependency) shows stale refund-policy replies in the data → batch B. A learning-rate
  sweep explores meanwhile: one TIMEOUT, one CANCELLED (diverged), two completed, one of them
  queued until a node freed up.
* Batch B (``csa-sft-2026-11-b``): the same model after the data fix (11-09 snapshot, clean-v5).
  A data engineer's throughput check carries the wckey but no Comment tags (reason unrecorded).
  An overnight sweep run is PREEMPTED by the platform team's firmware upgrade + burn-in job (all
  four nodes, no wckey: unattributed) and retried; the data-fix run waits ~2 h for the upgrade.
  Evaluation, an eval rework after business added new refund-policy cases (goal_change), the final
  run with the tuned config, its evaluation, and an int8 export job held (PENDING, never started)
  awaiting release approval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone

from trainledger.model.vocab import FailureCause as C
from trainledger.model.vocab import RunReason as R

LOCAL = timezone(timedelta(hours=8), "CST")  # Asia/Shanghai: +08:00 all year, no DST
SLURM_TIMEZONE = "Asia/Shanghai"
PERIOD_START = datetime(2026, 11, 2, 0, 0, tzinfo=UTC)  # = 11-02 08:00 local
PERIOD_END = datetime(2026, 11, 23, 0, 0, tzinfo=UTC)
INVENTORY_DATE = date(2026, 11, 22)
NODES = ("gpu-node-01", "gpu-node-02", "gpu-node-03", "gpu-node-04")
GPUS_PER_NODE = 8
GPU_TYPE = "h800"
CPUS_PER_NODE = 64
MEM_PER_NODE_G = 500

PROJECT = {
    "id": "cs-assistant",
    "name": "客服助手 (Customer-service assistant)",
    "goal": "用企业语气自动回复一线客服工单，并遵守最新退款与售后政策 / "
            "Answer tier-1 support tickets in the company's tone, following current refund and"
            " after-sales policy",
    "owner": "li.na",
}
BATCH_A = "csa-sft-2026-11-a"
BATCH_B = "csa-sft-2026-11-b"
BATCHES = (
    {
        "id": BATCH_A,
        "project": PROJECT["id"],
        "name": "SFT 批次 A：Qwen2.5-7B 全参微调 (SFT round A)",
        "goal": "语气与政策合规率 ≥ 92%（eval-v3）/ tone + policy compliance ≥ 92% on eval-v3",
        "data_snapshot": "tickets-2026-10-31",
        "data_processing_version": "clean-v4",
        "model_version": "qwen2.5-7b-instruct",
        "code_version": "git:4f2a9c1",
        "config_version": "sft-a-v2",
        "team": "applied-ml",
        "owner": "wang.lei",
        "task_type": "full_finetune",
        "max_rounds": 6,
    },
    {
        "id": BATCH_B,
        "project": PROJECT["id"],
        "name": "SFT 批次 B：修正过期政策样本后重训 (SFT round B, after the data fix)",
        "goal": "语气与政策合规率 ≥ 92%（eval-v3，后扩充为 eval-v3.1）/ tone + policy compliance"
                " ≥ 92% on eval-v3 (extended to eval-v3.1)",
        "data_snapshot": "tickets-2026-11-09",
        "data_processing_version": "clean-v5",
        "model_version": "qwen2.5-7b-instruct",
        "code_version": "git:8b17e02",
        "config_version": "sft-b-v1",
        "team": "applied-ml",
        "owner": "wang.lei",
        "task_type": "full_finetune",
        "max_rounds": 8,
    },
)
BATCH_IDS = tuple(b["id"] for b in BATCHES)

# Slurm users and their uids (a user cancel prints as "CANCELLED by <uid>").
UIDS = {"wang.lei": 1003, "he.jun": 1004, "zhou.qi": 1007, "chen.hao": 1011, "sun.yue": 1012}
TEAM_ACCOUNT = "applied-ml"


def local(text: str) -> datetime:
    """``"2026-11-03 10:02:11"`` as an aware Asia/Shanghai datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=LOCAL)


@dataclass(frozen=True)
class When:
    """When a job is submitted and starts.

    ``submit`` literal, or (``submit=None``) ``gap_s`` after job ``after`` ended (a retry).
    With a literal submit and ``after``: the job waits for ``after`` to end — as a dependency
    (``eligible`` = that end) or for its node (``eligible`` = submit). ``wait_s``: scheduling delay.
    """

    submit: str | None = None
    after: int | None = None
    gap_s: int = 0
    wait_s: int = 2
    dependency: bool = False
    never_starts: bool = False


@dataclass(frozen=True)
class Work:
    """What the allocation does, for the progress simulation (rates are steps per minute)."""

    kind: str = "train"  # train | eval | crash | opaque (no progress log) | none (never started)
    setup_s: int = 300
    rate: float = 3.2
    target: int = 0
    start_step: int = 0  # > 0: resume from that checkpoint step
    ckpt_every: int = 0
    log_every: int = 16
    tokens_per_step: int = 256 * 4096
    samples_per_step: int = 256
    data_waits: tuple[tuple[int, int], ...] = ()  # (at step, seconds starved)
    fail_step: int | None = None  # NODE_FAIL: progress stops here ...
    hang_s: int = 0  # ... and the allocation hangs this long before Slurm gives up
    limit_s: int | None = None  # TIMEOUT after this wall time
    stop_after_s: int | None = None  # CANCELLED by the user after this wall time
    stop_at: str | None = None  # PREEMPTED at this local time
    crash_after_s: int = 0  # kind="crash": dies this long after the start event
    hold_s: int = 90  # allocation held after ``end`` (teardown; longer = allocated idle)
    duration_s: int = 0  # kind="opaque": wall time
    diverges_at: int | None = None  # loss blows up from this step (a bad learning rate)


@dataclass(frozen=True)
class RunPlan:
    job_id: int
    name: str
    user: str
    nodes: tuple[int, ...]  # indexes into NODES (1-based)
    when: When
    work: Work
    batch: str = ""  # wckey; "" for jobs outside the project
    run: str | None = None  # None: no Comment tags at all
    reason: R | None = None
    cause: C | None = None
    retry_of: int | None = None
    account: str = TEAM_ACCOUNT
    params: dict[str, str] = field(default_factory=dict)  # hyper-parameters, for the story only


_TRAIN2 = dict(rate=3.2, ckpt_every=400, log_every=16, setup_s=540)
_TRAIN1 = dict(rate=1.6, ckpt_every=400, log_every=8, setup_s=300)
_EVAL = dict(kind="eval", rate=6.0, log_every=30, tokens_per_step=0, samples_per_step=10,
             setup_s=280, hold_s=45)

A, B = BATCH_A, BATCH_B
PLANS: tuple[RunPlan, ...] = (
    RunPlan(48101, "sft-a-smoke", "wang.lei", (1,), When("2026-11-03 10:02:11"),
            Work(kind="crash", setup_s=231, crash_after_s=214),
            A, "a-r01", R.PLANNED_EXPERIMENT),
    RunPlan(48102, "sft-a-smoke", "wang.lei", (1,), When(after=48101, gap_s=1733),
            Work(target=96, **{**_TRAIN1, "ckpt_every": 96}, hold_s=75),
            A, "a-r02", R.FAULT_RETRY, C.CONFIG_ERROR, retry_of=48101),
    RunPlan(48110, "sft-a-full", "wang.lei", (1, 2), When("2026-11-03 13:15:02", wait_s=3),
            Work(target=5200, fail_step=3950, hang_s=5680,
                 data_waits=((250, 341), (1733, 536), (2911, 277), (3466, 512)), **_TRAIN2),
            A, "a-r03", R.PLANNED_EXPERIMENT),
    RunPlan(48118, "sft-a-full", "wang.lei", (3, 4), When(after=48110, gap_s=2710),
            Work(target=5200, start_step=3600, hold_s=1930, **{**_TRAIN2, "setup_s": 690}),
            A, "a-r04", R.FAULT_RETRY, C.INFRA_FAULT, retry_of=48110),
    RunPlan(48121, "eval-a", "sun.yue", (1,),
            When("2026-11-04 15:40:10", after=48118, wait_s=21, dependency=True),
            Work(target=240, **_EVAL), A, "a-r05", R.PLANNED_EXPERIMENT),
    RunPlan(48125, "sft-a-lr5e-6", "he.jun", (1,), When("2026-11-05 10:20:29"),
            Work(target=1200, limit_s=6 * 3600, **_TRAIN1),
            A, "a-r06", R.PARAM_TUNING, C.EXPLORATION, params={"lr": "5e-6"}),
    RunPlan(48126, "sft-a-lr2e-5", "he.jun", (3,), When("2026-11-05 10:20:31"),
            Work(target=1200, stop_after_s=2815, diverges_at=40, **_TRAIN1),
            A, "a-r07", R.PARAM_TUNING, C.EXPLORATION, params={"lr": "2e-5"}),
    RunPlan(48127, "sft-a-lr1e-5", "he.jun", (4,), When("2026-11-05 10:20:33"),
            Work(target=480, **_TRAIN1),
            A, "a-r08", R.PARAM_TUNING, C.EXPLORATION, params={"lr": "1e-5"}),
    RunPlan(48128, "sft-a-lr1e-5-wu10", "he.jun", (3,),
            When("2026-11-05 10:20:36", after=48126, wait_s=2),
            Work(target=480, **_TRAIN1),
            A, "a-r09", R.PARAM_TUNING, C.EXPLORATION, params={"lr": "1e-5", "warmup": "0.1"}),
    RunPlan(48135, "tok-throughput-check", "zhou.qi", (4,), When("2026-11-09 15:02:18"),
            Work(kind="opaque", duration_s=2941), B),
    RunPlan(48137, "sft-b-sweep-lr1e-5", "he.jun", (3,), When("2026-11-09 22:04:05"),
            Work(target=1600, stop_at="2026-11-10 08:00:04", **_TRAIN1),
            B, "b-r02", R.PARAM_TUNING, C.EXPLORATION, params={"lr": "1e-5", "qos": "scavenger"}),
    RunPlan(48138, "fw-upgrade-burnin", "chen.hao", (1, 2, 3, 4),
            When("2026-11-10 07:59:58", wait_s=8), Work(kind="opaque", duration_s=13_702),
            account="platform"),
    RunPlan(48140, "sft-b-full", "wang.lei", (1, 2),
            When("2026-11-10 09:45:10", after=48138, wait_s=5),
            Work(target=4800, **{**_TRAIN2, "setup_s": 470}),
            B, "b-r01", R.DATA_FIX, C.DATA_QUALITY),
    RunPlan(48142, "sft-b-sweep-lr1e-5", "he.jun", (3,),
            When("2026-11-10 09:50:44", after=48138, wait_s=6),
            Work(target=1600, start_step=800, **_TRAIN1),
            B, "b-r05", R.FAULT_RETRY, C.INFRA_FAULT, retry_of=48137),
    RunPlan(48143, "sft-b-pack8k", "he.jun", (4,),
            When("2026-11-10 09:52:20", after=48138, wait_s=7),
            Work(target=800, **{**_TRAIN1, "rate": 1.45}),
            B, "b-r03", R.PARAM_TUNING, C.EXPLORATION, params={"packing": "8192"}),
    RunPlan(48141, "eval-b", "sun.yue", (1,),
            When("2026-11-10 09:46:02", after=48140, wait_s=19, dependency=True),
            Work(target=240, **_EVAL), B, "b-r04", R.PLANNED_EXPERIMENT),
    RunPlan(48150, "eval-b-v3.1", "sun.yue", (1,), When("2026-11-13 10:15:27", wait_s=3),
            Work(target=272, **_EVAL), B, "b-r06", R.EVAL_REWORK, C.GOAL_CHANGE),
    RunPlan(48157, "sft-b-final", "wang.lei", (1, 2), When("2026-11-16 10:30:12", wait_s=2),
            Work(target=4800, **{**_TRAIN2, "rate": 3.35, "setup_s": 505}),
            B, "b-r07", R.PLANNED_EXPERIMENT, params={"lr": "1e-5", "packing": "8192"}),
    RunPlan(48158, "eval-b-final", "sun.yue", (1,),
            When("2026-11-16 10:31:40", after=48157, wait_s=17, dependency=True),
            Work(target=272, **_EVAL), B, "b-r08", R.PLANNED_EXPERIMENT),
    RunPlan(48171, "export-int8-eval", "wang.lei", (1,),
            When("2026-11-20 18:04:51", never_starts=True), Work(kind="none"),
            B, "b-r09", R.PLANNED_EXPERIMENT),
)
