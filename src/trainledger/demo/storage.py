"""An OSS inventory snapshot (CSV) of everything the project keeps, as of the end of the period.

Checkpoints come from the runs' own ``checkpoint_saved`` events (the last three per run survive
rotation, ``save_total_limit=3``), so sizes and dates agree with the progress log; every completed
16-GPU training run exported a candidate model. Governance findings on purpose: a stale cache
nobody owns (no owner, purpose or dates), a dedup scratch copy with no owner, and the timed-out
sweep run's last checkpoint (copied by hand after the time limit) with neither a retention nor a
review date.
Checkpoints carry no ``storage_class`` (the workspace's prefix rules classify them) and no
``batch`` (the prefix rules attribute them); a few objects name their batch explicitly.
"""

from __future__ import annotations

import csv
import io
import random
from datetime import UTC, datetime

from trainledger.demo.scenario import BATCH_A, BATCH_B, FINAL_RUN, INVENTORY_DATE
from trainledger.demo.timeline import Job

COLUMNS = ("path", "size_bytes", "storage_class", "tier", "owner", "purpose", "retention_until",
           "review_at", "last_modified", "snapshot_date", "batch")
GB = 10**9
CKPT_GB = 91.4  # Qwen2.5-7B: bf16 weights + fp32 master copy + Adam moments, ZeRO-sharded
WEIGHTS_GB = 15.2  # bf16 weights only
KEEP_LAST = 3
CKPT_ROOT = "oss://train-ckpt/"

# (path, GB, class, tier, owner, purpose, retention_until, review_at, last_modified, batch)
STATIC = (
    ("oss://train-data/raw/tickets-2026-10-31/", 186.4, "raw_data", "infrequent",
     "data-gov: liu.yang", "工单原始快照，按数据制度留存 / raw snapshot kept per data policy",
     "2029-10-31", "", "2026-10-31T14:10:00Z", ""),
    ("oss://train-data/raw/tickets-2026-11-06/", 189.1, "raw_data", "standard",
     "data-gov: liu.yang", "工单原始快照（含政策版本字段）/ raw snapshot with policy version",
     "2029-11-06", "", "2026-11-06T03:40:00Z", ""),
    ("oss://train-data/processed/clean-v4/", 41.7, "processed_data", "standard", "zhou.qi",
     "批次 A 训练集 / training set of batch A", "", "2026-12-31", "2026-11-02T11:02:00Z", ""),
    ("oss://train-data/processed/clean-v4-dedup-tmp/", 44.9, "processed_data", "standard", "",
     "去重中间结果 / dedup intermediate", "", "2026-12-01", "2026-11-02T07:31:00Z", ""),
    ("oss://train-data/processed/clean-v5/", 39.2, "processed_data", "standard", "zhou.qi",
     "批次 B 训练集（剔除过期退款政策样本）/ training set of batch B", "2027-11-30", "",
     "2026-11-07T09:12:00Z", ""),
    ("oss://train-cache/tokenized/clean-v4-qwen2.5/", 96.3, "cache", "standard", "wang.lei",
     "分词缓存，加速数据加载 / tokenized cache", "", "2026-12-15", "2026-11-03T04:55:00Z", BATCH_A),
    ("oss://train-cache/tokenized/clean-v5-qwen2.5/", 90.8, "cache", "standard", "wang.lei",
     "分词缓存，加速数据加载 / tokenized cache", "", "2027-01-15", "2026-11-09T08:20:00Z", BATCH_B),
    ("oss://train-cache/tmp/shard-dump-2026-09/", 642.7, "cache", "standard", "", "", "", "",
     "2026-09-14T10:03:00Z", ""),
    ("oss://train-models/release/cs-assistant-7b-v1/", WEIGHTS_GB, "final_artifact", "standard",
     "li.na", "发布制品，待上线审批 / release artefact, awaiting go-live approval", "2028-11-30",
     "", "2026-11-20T09:30:00Z", BATCH_B),
    ("oss://train-logs/csa-sft-2026-11-a/", 6.8, "", "standard", "wang.lei",
     "训练与调度日志，复盘用 / logs for the review", "2027-11-30", "", "2026-11-07T02:40:00Z", ""),
    ("oss://train-logs/csa-sft-2026-11-b/", 9.6, "", "standard", "wang.lei",
     "训练与调度日志，复盘用 / logs for the review", "2027-11-30", "", "2026-11-21T14:25:00Z", ""),
    ("oss://train-eval/csa-sft-2026-11-a/eval-v3/", 0.41, "eval_result", "standard", "sun.yue",
     "评测结果与逐条判定 / eval results", "2027-11-30", "", "2026-11-04T18:40:00Z", ""),
    ("oss://train-eval/csa-sft-2026-11-b/eval-v3/", 0.86, "eval_result", "standard", "sun.yue",
     "评测结果与逐条判定 / eval results", "2027-11-30", "", "2026-11-12T14:30:00Z", ""),
    ("oss://train-eval/csa-sft-2026-11-b/eval-v3.1/", 4.37, "eval_result", "standard", "sun.yue",
     "评测结果（含新增政策用例）/ eval results incl. new policy cases", "2027-11-30", "",
     "2026-11-21T14:20:00Z", ""),
    ("oss://train-backup/raw/tickets-2026-10-31/", 186.4, "backup", "archive",
     "data-gov: liu.yang", "原始快照异地备份 / off-site backup of the raw snapshot", "2029-10-31",
     "", "2026-11-01T18:00:00Z", ""),
    ("oss://train-backup/release/cs-assistant-7b-v1/", WEIGHTS_GB, "backup", "archive", "li.na",
     "发布制品备份 / backup of the release artefact", "2028-11-30", "", "2026-11-20T10:05:00Z",
     BATCH_B),
)
NO_DATES_RUN = "a-r04"  # the TIMEOUT sweep run: its last checkpoint was never given a date


def _z(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _bytes(gb: float, rng: random.Random) -> int:
    return int(gb * GB) + rng.randint(0, 4096) * 4096


def rows(jobs: tuple[Job, ...], seed: int) -> list[dict[str, str]]:
    rng = random.Random(f"{seed}:storage")
    snap = INVENTORY_DATE.isoformat()
    out: list[dict[str, str]] = []

    def add(path, gb, cls, tier, owner, purpose, keep, review, modified, batch):
        out.append(dict(zip(COLUMNS, (path, str(_bytes(gb, rng)), cls, tier, owner, purpose, keep,
                                      review, modified, snap, batch), strict=True)))

    for entry in STATIC:
        add(*entry)
    for job in jobs:
        ckpts = job.checkpoints[-KEEP_LAST:]
        p = job.plan
        final = p.run == FINAL_RUN
        for step, ts in ckpts:
            undated = p.run == NO_DATES_RUN and (step, ts) == ckpts[-1]
            keep = "2027-05-31" if final else ""
            review = "" if final or undated else (
                "2026-12-15" if p.batch == BATCH_A else "2026-12-31")
            purpose = "" if undated else "断点续训检查点 / resume checkpoint"
            size = CKPT_GB + rng.uniform(-0.05, 0.05)
            add(f"{CKPT_ROOT}{p.batch}/{p.run}/step-{step:05d}/", size, "", "standard", p.user,
                purpose, keep, review, _z(ts), "")
    for job in jobs:  # candidates: exported at the end of every completed full-scale run
        p = job.plan
        if len(p.nodes) != 2 or job.state != "COMPLETED" or not job.checkpoints:
            continue
        assert job.end is not None
        step = job.checkpoints[-1][0]
        keep, review = ("2027-05-31", "") if p.run == FINAL_RUN else ("", "2026-12-31")
        add(f"oss://train-models/candidates/{p.batch}/{p.run}-step{step}/", WEIGHTS_GB,
            "candidate_model", "standard", p.user,
            "候选模型，用于对比评测 / candidate for comparison", keep, review, _z(job.end), "")
    return out


def render(jobs: tuple[Job, ...], seed: int) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    w.writeheader()
    w.writerows(rows(jobs, seed))
    return buf.getvalue()
