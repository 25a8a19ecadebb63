"""The demo story as data: one project, two batches, a rented 4-node H800 cluster, 57 Slurm jobs.

56 jobs are runs of the two batches (one of them without Comment tags); one is the platform team's
maintenance job (no wckey). The jobs hold ~62% of the rented GPU-hours; the rest is honest idle:
the onboarding day, nights and the queue for evaluation between runs, the weekend waiting for
the data fix, gpu-node-02's repair and the rental's last weekend.

Story (times are Asia/Shanghai; the rental and the bill cover 2026-11-02 08:00 → 11-23 08:00):

* Batch A (``csa-sft-2026-11-a``): full fine-tune of Qwen2.5-7B on the 10-31 ticket snapshot.
  Mon 11-02 goes to onboarding. The smoke test dies in setup (wrong tokenizer path, config_error)
  and is retried; the main run (16 GPUs, ~3 epochs) starves on its data loader a few times, then
  hangs on Wed when gpu-node-02 loses a GPU and ends NODE_FAIL; the retry resumes from the last
  checkpoint on nodes 03-04 and holds its allocation ~32 min after ``end`` while the sbatch script
  uploads weights. A learning-rate sweep runs beside it on single nodes: one TIMEOUT, one CANCELLED
  (diverged), one queued until that node freed up. Evaluation (queued behind the retry by a
  dependency) shows stale refund-policy replies in the data → batch B. While the data is fixed, a
  second sweep settles the schedule knobs on the old data (two of its six runs chained behind
  the first four) until Saturday morning; then the nodes wait for the fix over the weekend.
* Batch B (``csa-sft-2026-11-b``): the same model after the data fix (11-06 snapshot, clean-v5 built 11-06..11-07).
  A data engineer's throughput check carries the wckey but no Comment tags (reason unrecorded).
  Two sweep runs are sized to end before Tuesday's maintenance window; an overnight one on the
  scavenger QoS is PREEMPTED by the platform team's firmware upgrade + burn-in job (all four
  nodes, no wckey: unattributed) and retried; the data-fix run waits ~2 h for the upgrade. Sweeps
  (packing, warmup, epochs), a full-scale packing run and evaluations fill the week; business then
  adds refund-policy cases (eval rework, goal_change) and a weekend grid over policy-case
  upsampling follows (its second wave chained behind the first). Week 3: two rounds of full-scale
  candidates, each evaluated as it ends; the winner retrained on train+dev with two seeds; the
  seeds straddle the 92% bar, so the release review asks for two more, which run through Saturday.
  An int8 export job is held (PENDING, never started) awaiting the release approval.
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
        "max_rounds": 16,
    },
    {
        "id": BATCH_B,
        "project": PROJECT["id"],
        "name": "SFT 批次 B：修正过期政策样本后重训 (SFT round B, after the data fix)",
        "goal": "语气与政策合规率 ≥ 92%（eval-v3，后扩充为 eval-v3.1）/ tone + policy compliance"
                " ≥ 92% on eval-v3 (extended to eval-v3.1)",
        "data_snapshot": "tickets-2026-11-06",
        "data_processing_version": "clean-v5",
        "model_version": "qwen2.5-7b-instruct",
        "code_version": "git:8b17e02",
        "config_version": "sft-b-v1",
        "team": "applied-ml",
        "owner": "wang.lei",
        "task_type": "full_finetune",
        "max_rounds": 44,
    },
)
BATCH_IDS = tuple(b["id"] for b in BATCHES)
FINAL_RUN = "b-r32"  # the release candidate (seed 1 of the final config, on train+dev)

# Slurm users and their uids (a user cancel prints as "CANCELLED by <uid>").
UIDS = {"wang.lei": 1003, "he.jun": 1004, "zhou.qi": 1007, "chen.hao": 1011, "sun.yue": 1012}
TEAM_ACCOUNT = "applied-ml"


def local(text: str) -> datetime:
    """``"2026-11-03 10:02:11"`` as an aware Asia/Shanghai datetime."""
    return datetime.fromisoformat(text).replace(tzinfo=LOCAL)


@dataclass(frozen=True)
class When:
    """When a job is submitted and starts.

    ``submit`` literal, or (``submit=None``) ``gap_s`` after the first job of ``after`` ended (a
    retry). The job starts only after every job in ``after`` ended — as a dependency (``eligible``
    = the last of those ends) or waiting for its nodes (``eligible`` = submit). Every job names the
    jobs that held its nodes before it, so no node is ever held twice at once, whatever the seed's
    jitter. ``wait_s``: scheduling delay.
    """

    submit: str | None = None
    after: int | tuple[int, ...] | None = None
    gap_s: int = 0
    wait_s: int = 2
    dependency: bool = False
    never_starts: bool = False

    @property
    def waits_for(self) -> tuple[int, ...]:
        if self.after is None:
            return ()
        return (self.after,) if isinstance(self.after, int) else self.after


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


_TRAIN2 = dict(rate=3.2, ckpt_every=400, log_every=16, setup_s=540)  # 16 GPUs, 1M tokens/step
_TRAIN1 = dict(rate=1.6, ckpt_every=400, log_every=16, setup_s=300)  # one node, same global batch
_PACK2 = {**_TRAIN2, "rate": 2.9}  # packing to 8192: fewer, fuller steps per epoch, each slower
_PACK1 = {**_TRAIN1, "rate": 1.45}
_EVAL = dict(kind="eval", rate=1.4, log_every=16, tokens_per_step=0, samples_per_step=10,
             setup_s=280, hold_s=45)  # generate + judge 10 cases a step: 2,400 cases ≈ 3 h

_CAND = {**_PACK2, "setup_s": 505}
_FINAL = {"lr": "1e-5", "packing": "8192", "policy_upsample": "2", "neftune_alpha": "5",
          "data": "train+dev"}

A, B = BATCH_A, BATCH_B
X = R.PARAM_TUNING, C.EXPLORATION  # a sweep or a tuning candidate
PLANS: tuple[RunPlan, ...] = (
    # --- week 1: batch A on clean-v4 ------------------------------------------------------------
    RunPlan(48101, "sft-a-smoke", "wang.lei", (1,), When("2026-11-03 10:02:11"),
            Work(kind="crash", setup_s=231, crash_after_s=214),
            A, "a-r01", R.PLANNED_EXPERIMENT),
    RunPlan(48102, "sft-a-smoke", "wang.lei", (1,), When(after=48101, gap_s=1733),
            Work(target=96, **{**_TRAIN1, "ckpt_every": 96, "log_every": 8}, hold_s=75),
            A, "a-r02", R.FAULT_RETRY, C.CONFIG_ERROR, retry_of=48101),
    RunPlan(48110, "sft-a-full", "wang.lei", (1, 2), When("2026-11-03 13:15:02", 48102, wait_s=3),
            Work(target=5200, fail_step=3950, hang_s=5680,
                 data_waits=((250, 341), (1733, 536), (2911, 277), (3466, 512)), **_TRAIN2),
            A, "a-r03", R.PLANNED_EXPERIMENT),
    # the learning-rate sweep on the two free nodes; lr1e-5 queues until the diverged run is
    # cancelled, lr5e-6 runs into its 18 h limit
    RunPlan(48112, "sft-a-lr5e-6", "he.jun", (3,), When("2026-11-03 14:21:40"),
            Work(target=2400, limit_s=18 * 3600, **_TRAIN1),
            A, "a-r04", *X, params={"lr": "5e-6"}),
    RunPlan(48113, "sft-a-lr2e-5", "he.jun", (4,), When("2026-11-03 14:21:42"),
            Work(target=1600, stop_after_s=2815, diverges_at=40, **{**_TRAIN1, "log_every": 8}),
            A, "a-r05", *X, params={"lr": "2e-5"}),
    RunPlan(48114, "sft-a-lr1e-5", "he.jun", (4,), When("2026-11-03 14:21:45", 48113),
            Work(target=1600, **_TRAIN1),
            A, "a-r06", *X, params={"lr": "1e-5"}),
    # gpu-node-02 is out for repair until the next morning (the SLA credit on the bill)
    RunPlan(48118, "sft-a-full", "wang.lei", (3, 4), When(after=(48110, 48112, 48114), gap_s=2710),
            Work(target=5200, start_step=3600, hold_s=1930, **{**_TRAIN2, "setup_s": 690}),
            A, "a-r07", R.FAULT_RETRY, C.INFRA_FAULT, retry_of=48110),
    RunPlan(48119, "sft-a-lr1e-5-wu10", "he.jun", (1,), When("2026-11-04 13:41:07", 48110),
            Work(target=1600, **_TRAIN1),
            A, "a-r08", *X, params={"lr": "1e-5", "warmup": "0.1"}),
    RunPlan(48121, "eval-a", "sun.yue", (3,),
            When("2026-11-04 15:40:10", 48118, wait_s=21, dependency=True),
            Work(target=240, **_EVAL), A, "a-r09", R.PLANNED_EXPERIMENT),
    # eval-a finds stale refund-policy replies: the data gets fixed (batch B). Meanwhile the
    # sweep settles the schedule knobs on clean-v4 (they carry over); then the nodes wait.
    RunPlan(48125, "sft-a-lr1e-5-wd0", "he.jun", (2,), When("2026-11-05 10:20:29", 48110),
            Work(target=2800, **_TRAIN1),
            A, "a-r10", *X, params={"lr": "1e-5", "weight_decay": "0"}),
    RunPlan(48126, "sft-a-lr1e-5-neft5", "he.jun", (3,), When("2026-11-05 10:20:31", 48121),
            Work(target=2800, **_TRAIN1),
            A, "a-r11", *X, params={"lr": "1e-5", "neftune_alpha": "5"}),
    RunPlan(48127, "sft-a-lr1e-5-ep2", "he.jun", (4,), When("2026-11-05 10:20:33", 48118),
            Work(target=3400, **_TRAIN1),
            A, "a-r12", *X, params={"lr": "1e-5", "epochs": "2"}),
    RunPlan(48128, "sft-a-lr1e-5-cosmin", "he.jun", (1,), When("2026-11-05 10:20:36", 48119),
            Work(target=2800, **_TRAIN1),
            A, "a-r13", *X, params={"lr": "1e-5", "min_lr_ratio": "0.1"}),
    RunPlan(48129, "sft-a-lr1e-5-wu3", "he.jun", (1,),
            When("2026-11-05 10:20:38", 48128, dependency=True),
            Work(target=1600, **_TRAIN1),
            A, "a-r14", *X, params={"lr": "1e-5", "warmup": "0.03"}),
    RunPlan(48130, "sft-a-lr1e-5-wd0-neft5", "he.jun", (2,),
            When("2026-11-05 10:20:40", 48125, dependency=True),
            Work(target=1600, **_TRAIN1),
            A, "a-r15", *X, params={"lr": "1e-5", "weight_decay": "0", "neftune_alpha": "5"}),
    # --- week 2: batch B on clean-v5 ------------------------------------------------------------
    RunPlan(48135, "tok-throughput-check", "zhou.qi", (4,), When("2026-11-09 15:02:18", 48127),
            Work(kind="opaque", duration_s=2941), B),
    # sized to end before the 08:00 maintenance window; the lr1e-5 run is not, and is preempted
    RunPlan(48136, "sft-b-lr1e-5-wu10", "he.jun", (1,), When("2026-11-09 17:46:12", 48128),
            Work(target=1200, **_TRAIN1),
            B, "b-r01", *X, params={"lr": "1e-5", "warmup": "0.1", "time": "13:30:00"}),
    RunPlan(48137, "sft-b-lr7e-6", "he.jun", (2,), When("2026-11-09 17:46:15", 48125),
            Work(target=1200, **_TRAIN1),
            B, "b-r02", *X, params={"lr": "7e-6", "time": "13:30:00"}),
    RunPlan(48138, "sft-b-lr1e-5", "he.jun", (3,), When("2026-11-09 22:04:05", 48126),
            Work(target=1600, stop_at="2026-11-10 08:00:04", **_TRAIN1),
            B, "b-r03", *X, params={"lr": "1e-5", "qos": "scavenger"}),
    RunPlan(48139, "fw-upgrade-burnin", "chen.hao", (1, 2, 3, 4),
            When("2026-11-10 07:59:58", (48136, 48137, 48138, 48135), wait_s=8),
            Work(kind="opaque", duration_s=13_702), account="platform"),
    RunPlan(48140, "sft-b-full", "wang.lei", (1, 2), When("2026-11-10 09:45:10", 48139, wait_s=5),
            Work(target=4800, **{**_TRAIN2, "setup_s": 470}),
            B, "b-r04", R.DATA_FIX, C.DATA_QUALITY),
    RunPlan(48141, "eval-b", "sun.yue", (1,),
            When("2026-11-10 09:46:02", 48140, wait_s=19, dependency=True),
            Work(target=240, **_EVAL), B, "b-r05", R.PLANNED_EXPERIMENT),
    RunPlan(48142, "sft-b-lr1e-5", "he.jun", (3,), When("2026-11-10 09:50:44", 48139, wait_s=6),
            Work(target=1600, start_step=800, **_TRAIN1),
            B, "b-r06", R.FAULT_RETRY, C.INFRA_FAULT, retry_of=48138),
    RunPlan(48143, "sft-b-pack8k", "he.jun", (4,), When("2026-11-10 09:52:20", 48139, wait_s=7),
            Work(target=1600, **_PACK1),
            B, "b-r07", *X, params={"packing": "8192"}),
    RunPlan(48144, "sft-b-pack8k-lr1e-5", "he.jun", (3,), When("2026-11-10 09:54:31", 48142),
            Work(target=2000, **_PACK1),
            B, "b-r08", *X, params={"lr": "1e-5", "packing": "8192"}),
    RunPlan(48145, "sft-b-pack8k-wu10", "he.jun", (4,), When("2026-11-11 09:12:40", 48143),
            Work(target=2400, **_PACK1),
            B, "b-r09", *X, params={"lr": "1e-5", "packing": "8192", "warmup": "0.1"}),
    RunPlan(48146, "sft-b-pack8k-ep2", "he.jun", (3,), When("2026-11-11 09:14:02", 48144),
            Work(target=3000, **_PACK1),
            B, "b-r10", *X, params={"lr": "1e-5", "packing": "8192", "epochs": "2"}),
    RunPlan(48147, "sft-b-full-pack8k", "wang.lei", (1, 2),
            When("2026-11-11 16:52:30", (48141, 48140), wait_s=4),
            Work(target=4400, **{**_PACK2, "setup_s": 470}),
            B, "b-r11", R.PLANNED_EXPERIMENT, params={"lr": "1e-5", "packing": "8192"}),
    RunPlan(48148, "eval-b-pack8k", "sun.yue", (1,),
            When("2026-11-11 16:53:10", 48147, wait_s=15, dependency=True),
            Work(target=240, **_EVAL), B, "b-r12", R.PLANNED_EXPERIMENT),
    # clean-v4's schedule findings, re-checked on clean-v5 while the candidate is evaluated
    RunPlan(48149, "sft-b-pack8k-wd0", "he.jun", (4,), When("2026-11-12 14:02:33", 48145),
            Work(target=1600, **_PACK1),
            B, "b-r13", *X, params={"lr": "1e-5", "packing": "8192", "weight_decay": "0"}),
    RunPlan(48150, "sft-b-pack8k-neft5", "he.jun", (2,), When("2026-11-12 19:05:48", 48147),
            Work(target=1600, **_PACK1),
            B, "b-r14", *X, params={"lr": "1e-5", "packing": "8192", "neftune_alpha": "5"}),
    # business adds refund-policy cases: eval-v3 grows to eval-v3.1 and the candidate is re-run
    RunPlan(48152, "eval-b-v3.1", "sun.yue", (1,), When("2026-11-13 10:15:27", 48148, wait_s=3),
            Work(target=272, **_EVAL), B, "b-r15", R.EVAL_REWORK, C.GOAL_CHANGE),
    # a weekend grid over policy-case upsampling × learning rate (× NEFTune in the second wave,
    # chained behind the first with --dependency=afterany), one node each
    RunPlan(48153, "sft-b-up2-lr1e-5", "he.jun", (1,), When("2026-11-13 14:35:10", 48152),
            Work(target=3000, **_PACK1),
            B, "b-r16", *X, params={"lr": "1e-5", "packing": "8192", "policy_upsample": "2"}),
    RunPlan(48154, "sft-b-up3-lr1e-5", "he.jun", (2,), When("2026-11-13 14:35:12", 48150),
            Work(target=3000, **_PACK1),
            B, "b-r17", *X, params={"lr": "1e-5", "packing": "8192", "policy_upsample": "3"}),
    RunPlan(48155, "sft-b-up2-lr8e-6", "he.jun", (3,), When("2026-11-13 14:35:14", 48146),
            Work(target=3000, **_PACK1),
            B, "b-r18", *X, params={"lr": "8e-6", "packing": "8192", "policy_upsample": "2"}),
    RunPlan(48156, "sft-b-up3-lr8e-6", "he.jun", (4,), When("2026-11-13 14:35:16", 48149),
            Work(target=3000, **_PACK1),
            B, "b-r19", *X, params={"lr": "8e-6", "packing": "8192", "policy_upsample": "3"}),
    RunPlan(48157, "sft-b-up2-lr1e-5-neft5", "he.jun", (1,),
            When("2026-11-13 14:35:18", 48153, dependency=True),
            Work(target=1600, **_PACK1),
            B, "b-r20", *X,
            params={"lr": "1e-5", "packing": "8192", "policy_upsample": "2",
                    "neftune_alpha": "5"}),
    RunPlan(48158, "sft-b-up3-lr1e-5-neft5", "he.jun", (2,),
            When("2026-11-13 14:35:20", 48154, dependency=True),
            Work(target=1600, **_PACK1),
            B, "b-r21", *X,
            params={"lr": "1e-5", "packing": "8192", "policy_upsample": "3",
                    "neftune_alpha": "5"}),
    RunPlan(48159, "sft-b-up2-lr8e-6-neft5", "he.jun", (3,),
            When("2026-11-13 14:35:22", 48155, dependency=True),
            Work(target=1600, **_PACK1),
            B, "b-r22", *X,
            params={"lr": "8e-6", "packing": "8192", "policy_upsample": "2",
                    "neftune_alpha": "5"}),
    RunPlan(48160, "sft-b-up3-lr8e-6-neft5", "he.jun", (4,),
            When("2026-11-13 14:35:24", 48156, dependency=True),
            Work(target=1600, **_PACK1),
            B, "b-r23", *X,
            params={"lr": "8e-6", "packing": "8192", "policy_upsample": "3",
                    "neftune_alpha": "5"}),
    # --- week 3: full-scale candidates, the final run and its reproduction ----------------------
    RunPlan(48161, "sft-b-cand-up2", "wang.lei", (1, 2),
            When("2026-11-16 10:30:12", (48157, 48158), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r24", *X, params={"lr": "1e-5", "packing": "8192", "policy_upsample": "2"}),
    RunPlan(48162, "eval-b-cand-up2", "sun.yue", (1,),
            When("2026-11-16 10:31:40", 48161, wait_s=17, dependency=True),
            Work(target=272, **_EVAL), B, "b-r25", R.PLANNED_EXPERIMENT),
    RunPlan(48163, "sft-b-cand-up3", "wang.lei", (3, 4),
            When("2026-11-16 10:33:05", (48159, 48160), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r26", *X, params={"lr": "1e-5", "packing": "8192", "policy_upsample": "3"}),
    RunPlan(48164, "eval-b-cand-up3", "sun.yue", (3,),
            When("2026-11-16 10:33:50", 48163, wait_s=12, dependency=True),
            Work(target=272, **_EVAL), B, "b-r27", R.PLANNED_EXPERIMENT),
    RunPlan(48166, "sft-b-cand-up2-neft5", "wang.lei", (1, 2),
            When("2026-11-17 16:40:12", (48162, 48161), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r28", *X, params={**_FINAL, "data": "train"}),
    RunPlan(48167, "eval-b-cand-up2-neft5", "sun.yue", (1,),
            When("2026-11-17 16:41:02", 48166, wait_s=14, dependency=True),
            Work(target=272, **_EVAL), B, "b-r29", R.PLANNED_EXPERIMENT),
    RunPlan(48168, "sft-b-cand-up2-lr8e-6", "wang.lei", (3, 4),
            When("2026-11-17 16:43:29", (48164, 48163), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r30", *X, params={"lr": "8e-6", "packing": "8192", "policy_upsample": "2"}),
    RunPlan(48169, "eval-b-cand-up2-lr8e-6", "sun.yue", (3,),
            When("2026-11-17 16:44:15", 48168, wait_s=11, dependency=True),
            Work(target=272, **_EVAL), B, "b-r31", R.PLANNED_EXPERIMENT),
    # the winner retrained on train+dev, twice (two seeds) for the release review
    RunPlan(48174, "sft-b-final", "wang.lei", (1, 2),
            When("2026-11-19 10:30:12", (48167, 48166), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r32", R.PLANNED_EXPERIMENT, params={**_FINAL, "seed": "1"}),
    RunPlan(48175, "eval-b-final", "sun.yue", (1,),
            When("2026-11-19 10:31:40", 48174, wait_s=17, dependency=True),
            Work(target=272, **_EVAL), B, "b-r33", R.PLANNED_EXPERIMENT),
    RunPlan(48176, "sft-b-final-seed2", "wang.lei", (3, 4),
            When("2026-11-19 10:32:51", (48169, 48168), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r34", R.PLANNED_EXPERIMENT, params={**_FINAL, "seed": "2"}),
    RunPlan(48177, "eval-b-final-seed2", "sun.yue", (3,),
            When("2026-11-19 10:33:30", 48176, wait_s=13, dependency=True),
            Work(target=272, **_EVAL), B, "b-r35", R.PLANNED_EXPERIMENT),
    # the two seeds disagree by 0.8 pt around the 92% bar: the review asks for two more
    RunPlan(48178, "sft-b-final-seed3", "wang.lei", (1, 2),
            When("2026-11-20 16:21:07", (48175, 48174), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r36", R.PLANNED_EXPERIMENT, params={**_FINAL, "seed": "3"}),
    RunPlan(48179, "eval-b-final-seed3", "sun.yue", (1,),
            When("2026-11-20 16:21:55", 48178, wait_s=16, dependency=True),
            Work(target=272, **_EVAL), B, "b-r37", R.PLANNED_EXPERIMENT),
    RunPlan(48180, "sft-b-final-seed4", "wang.lei", (3, 4),
            When("2026-11-20 16:22:40", (48177, 48176), wait_s=2), Work(target=4400, **_CAND),
            B, "b-r38", R.PLANNED_EXPERIMENT, params={**_FINAL, "seed": "4"}),
    RunPlan(48181, "eval-b-final-seed4", "sun.yue", (3,),
            When("2026-11-20 16:23:21", 48180, wait_s=12, dependency=True),
            Work(target=272, **_EVAL), B, "b-r39", R.PLANNED_EXPERIMENT),
    # held until the release is approved; the rental ends first
    RunPlan(48183, "export-int8-eval", "wang.lei", (1,),
            When("2026-11-20 18:04:51", never_starts=True), Work(kind="none"),
            B, "b-r40", R.PLANNED_EXPERIMENT),
)
