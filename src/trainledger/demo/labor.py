"""Time entries by role and activity, and vendor invoices.

Hours are kept at the level the seed asks for (role × activity × phase per day, not minute-level
attendance). The ``batch`` column is filled for batch-specific work and empty for shared build
work and weekly coordination. Invoices separate the platform vendor's one-time onboarding
(delivery) from its per-upgrade support (ongoing), and include one USD invoice for external eval
annotation, which must never be summed with CNY.
"""

from __future__ import annotations

import csv
import io

from trainledger.demo.scenario import BATCH_A as A
from trainledger.demo.scenario import BATCH_B as B

TIMESHEET_COLUMNS = ("date", "person", "role", "activity", "phase", "hours", "recurrence", "batch")
INVOICE_COLUMNS = ("invoice_id", "vendor", "date", "amount", "currency", "stage", "description",
                   "batch")

# date, person, role, phase, hours, recurrence ("-": default by phase), batch (A, B, "-": shared),
# activity (the rest of the line). "#" lines are comments.
_TIMESHEET = """
# week 1 — build: environment onboarding, data pipeline, job templates; batch A runs and sweeps
2026-11-02 chen.hao platform_support     build   7.5 -       - environment adaptation
2026-11-02 chen.hao vendor               build     2 -       - vendor coordination
2026-11-02 zhou.qi  data_prep            build     5 -       - data pipeline
2026-11-02 zhou.qi  data_prep            run       3 -       A data pipeline
2026-11-02 wang.lei training_engineering build     6 -       - job template and config
2026-11-02 li.na    project_coordination run     1.5 -       A approval
2026-11-03 chen.hao platform_support     build     4 -       - environment adaptation
2026-11-03 chen.hao platform_support     build     3 -       - observability and access
2026-11-03 wang.lei training_engineering run       3 -       A config
2026-11-03 wang.lei training_engineering rework  1.5 -       A fault handling
2026-11-03 wang.lei training_engineering run       2 -       A submission and monitoring
2026-11-03 he.jun   training_engineering run       3 -       A config
2026-11-03 he.jun   training_engineering run     1.5 -       A submission and monitoring
2026-11-03 zhou.qi  data_prep            build     6 -       - data pipeline
2026-11-04 chen.hao platform_support     rework    5 -       A fault handling
2026-11-04 chen.hao vendor               rework  1.5 -       A vendor coordination
2026-11-04 wang.lei training_engineering rework  2.5 -       A fault handling
2026-11-04 wang.lei training_engineering run       2 -       A submission and monitoring
2026-11-04 he.jun   training_engineering run       2 -       A submission and monitoring
2026-11-04 sun.yue  business_eval        run       3 -       A evaluation
2026-11-05 sun.yue  business_eval        run       7 -       A evaluation
2026-11-05 he.jun   training_engineering run       4 -       A config
2026-11-05 he.jun   training_engineering run     2.5 -       A submission and monitoring
2026-11-05 chen.hao platform_support     rework    3 -       A fault handling
2026-11-06 li.na    project_coordination run     1.5 ongoing - weekly review
2026-11-06 li.na    project_coordination run       2 -       B approval
2026-11-06 zhou.qi  data_prep            rework    7 -       B data pipeline
2026-11-06 sun.yue  business_eval        rework    4 -       B evaluation
2026-11-06 he.jun   training_engineering run       2 -       A submission and monitoring
2026-11-06 chen.hao platform_support     build     3 -       - archive and retention setup
# week 2 — data fix, batch B runs and sweeps, eval rework after the goal change
2026-11-09 zhou.qi  data_prep            rework    6 -       B data pipeline
2026-11-09 zhou.qi  data_prep            run       2 -       B data loader benchmark
2026-11-09 he.jun   training_engineering run       2 -       B config
2026-11-09 he.jun   training_engineering run       1 -       B submission and monitoring
2026-11-10 chen.hao platform_support     run       5 -       - driver and firmware upgrade
2026-11-10 chen.hao vendor               run       2 ongoing - vendor coordination
2026-11-10 wang.lei training_engineering run       3 -       B submission and monitoring
2026-11-10 he.jun   training_engineering rework    1 -       B fault handling
2026-11-10 he.jun   training_engineering run     1.5 -       B submission and monitoring
2026-11-11 sun.yue  business_eval        run       5 -       B evaluation
2026-11-11 wang.lei training_engineering run       2 -       B config
2026-11-11 he.jun   training_engineering run       2 -       B submission and monitoring
2026-11-12 sun.yue  business_eval        rework    6 -       B evaluation
2026-11-12 li.na    project_coordination rework  1.5 -       B approval
2026-11-12 he.jun   training_engineering run     1.5 -       B submission and monitoring
2026-11-13 sun.yue  business_eval        rework    3 -       B evaluation
2026-11-13 wang.lei training_engineering rework  1.5 -       B evaluation
2026-11-13 he.jun   training_engineering rework    3 -       B config
2026-11-13 li.na    project_coordination run     1.5 ongoing - weekly review
# week 3 — candidates, the final run and its seeds, release review and preparation
2026-11-16 wang.lei training_engineering run     2.5 -       B config
2026-11-16 wang.lei training_engineering run     1.5 -       B submission and monitoring
2026-11-17 sun.yue  business_eval        run       6 -       B evaluation
2026-11-17 wang.lei training_engineering run       2 -       B submission and monitoring
2026-11-18 wang.lei training_engineering run     1.5 -       B submission and monitoring
2026-11-19 sun.yue  business_eval        run       5 -       B evaluation
2026-11-19 wang.lei training_engineering run       2 -       B config
2026-11-19 wang.lei training_engineering run     1.5 -       B submission and monitoring
2026-11-19 li.na    project_coordination run     1.5 -       B approval
2026-11-20 sun.yue  business_eval        run       4 -       B evaluation
2026-11-20 li.na    project_coordination run       3 -       B approval
2026-11-20 wang.lei training_engineering run       5 -       B release prep
2026-11-20 chen.hao platform_support     run       3 one_time B release prep
2026-11-20 li.na    project_coordination run     1.5 ongoing - weekly review
2026-11-20 li.na    vendor               run       1 ongoing - vendor coordination
"""
_BATCH = {"A": A, "B": B, "-": ""}


def _timesheet_rows() -> tuple[tuple[str, ...], ...]:
    out = []
    for line in _TIMESHEET.strip().splitlines():
        if line.startswith("#"):
            continue
        day, person, role, phase, hours, rec, batch, activity = line.split(maxsplit=7)
        out.append((day, person, role, activity, phase, hours, "" if rec == "-" else rec,
                    _BATCH[batch]))
    return tuple(out)


TIMESHEET = _timesheet_rows()

# (invoice_id, vendor, date, amount, currency, stage, description, batch)
INVOICES = (
    ("YQ-2026-1106-01", "云桥智算服务有限公司（示例）", "2026-11-06", "48000.00", "CNY", "delivery",
     "H800 集群环境接入与适配（一次性）：驱动/NCCL/镜像/Slurm 接入与验收 / cluster onboarding",
     ""),
    ("YQ-2026-1120-02", "云桥智算服务有限公司（示例）", "2026-11-20", "12000.00", "CNY", "ongoing",
     "版本升级支持（按次）：11-10 驱动与固件升级及烧机验证 / per-upgrade support", ""),
    ("YQ-2026-1120-03", "云桥智算服务有限公司（示例）", "2026-11-20", "6500.00", "CNY", "ongoing",
     "训练框架版本适配支持（批次 B 打包 8k 序列）/ framework adaptation for batch B", B),
    ("LW-88213", "LabelWorks Inc. (demo)", "2026-11-14", "3400.00", "USD", "delivery",
     "External eval annotation: 320 new refund-policy cases for eval-v3.1", B),
)


def _render(columns: tuple[str, ...], data: tuple[tuple[str, ...], ...]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(columns)
    w.writerows(data)
    return buf.getvalue()


def render_timesheet() -> str:
    return _render(TIMESHEET_COLUMNS, TIMESHEET)


def render_invoices() -> str:
    return _render(INVOICE_COLUMNS, INVOICES)
