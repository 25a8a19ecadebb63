"""Render jobs as ``sacct -a --parsable2`` output *without* ``-X``: job rows plus their steps.

Local times without an offset (Asia/Shanghai), ``Unknown`` for a job that never started,
NodeList in Slurm's compressed host-list form, AllocTRES with typed GPUs.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from trainledger.demo.scenario import CPUS_PER_NODE, GPU_TYPE, GPUS_PER_NODE, LOCAL, MEM_PER_NODE_G
from trainledger.demo.timeline import Job

FIELDS = ("JobID", "JobName", "Account", "WCKey", "Comment", "User", "Submit", "Eligible", "Start",
          "End", "State", "ExitCode", "AllocTRES", "NodeList", "Restarts")


def compress_hostlist(nodes: tuple[str, ...]) -> str:
    """``("gpu-node-01", "gpu-node-02", "gpu-node-04")`` → ``gpu-node-[01-02,04]``."""
    if not nodes:
        return "None assigned"
    if len(nodes) == 1:
        return nodes[0]
    parts = [re.fullmatch(r"(.*?)(\d+)", n) for n in nodes]
    prefixes = {m.group(1) for m in parts if m}
    if len(prefixes) != 1 or not all(parts):
        return ",".join(nodes)
    width = len(parts[0].group(2))  # type: ignore[union-attr]
    nums = sorted(int(m.group(2)) for m in parts)  # type: ignore[union-attr]
    ranges: list[str] = []
    lo = prev = nums[0]
    for n in [*nums[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        ranges.append(f"{lo:0{width}d}" if lo == prev else f"{lo:0{width}d}-{prev:0{width}d}")
        if n is not None:
            lo = prev = n
    return f"{prefixes.pop()}[{','.join(ranges)}]"


def tres(nodes: int, gpus_per_node: int = GPUS_PER_NODE, billing: bool = True) -> str:
    cpu, mem = CPUS_PER_NODE * nodes, MEM_PER_NODE_G * nodes
    parts = [f"billing={cpu}"] if billing else []
    parts += [f"cpu={cpu}", f"gres/gpu:{GPU_TYPE}={gpus_per_node * nodes}", f"mem={mem}G",
              f"node={nodes}"]
    return ",".join(parts)


def _ts(t: datetime | None) -> str:
    return t.astimezone(LOCAL).strftime("%Y-%m-%dT%H:%M:%S") if t is not None else "Unknown"


def comment(job: Job) -> str:
    p = job.plan
    if p.run is None:
        return ""
    tags = [("batch", p.batch), ("run", p.run), ("reason", p.reason.value if p.reason else "")]
    if p.cause is not None:
        tags.append(("cause", p.cause.value))
    if p.retry_of is not None:
        tags.append(("retry_of", str(p.retry_of)))
    return ";".join(f"{k}={v}" for k, v in tags)


def _step_state(job: Job) -> tuple[str, str]:
    if job.state == "COMPLETED":
        return "COMPLETED", "0:0"
    if job.state == "FAILED":
        return "FAILED", job.exit_code
    return "CANCELLED", "0:15"


def job_rows(job: Job) -> list[dict[str, str]]:
    p = job.plan
    n = len(p.nodes)
    row = {
        "JobID": job.job_id, "JobName": p.name, "Account": p.account, "WCKey": p.batch,
        "Comment": comment(job), "User": p.user, "Submit": _ts(job.submit),
        "Eligible": _ts(job.eligible), "Start": _ts(job.start), "End": _ts(job.end),
        "State": job.state, "ExitCode": job.exit_code,
        "AllocTRES": tres(n) if job.start else "", "NodeList": compress_hostlist(job.nodes),
        "Restarts": "0",
    }
    if job.start is None or job.end is None:
        return [row]
    state, code = _step_state(job)
    blank = dict.fromkeys(("WCKey", "Comment", "User"), "")
    srun_start = job.start + timedelta(seconds=11)
    steps = [
        ("batch", "batch", job.start, job.end, state, code, job.nodes[:1], tres(1, billing=False)),
        ("extern", "extern", job.start, job.end, "COMPLETED", "0:0", job.nodes, tres(n)),
    ]
    if job.plan.work.kind != "opaque" or n > 1:
        name = "torchrun" if job.plan.work.kind != "opaque" else "nccl-allreduce-burnin"
        end = job.proc_end or job.end
        steps.append(("0", name, srun_start, end, state, code, job.nodes, tres(n, billing=False)))
    out = [row]
    for suffix, name, start, end, st, ec, nodes, alloc in steps:
        out.append({**row, **blank, "JobID": f"{job.job_id}.{suffix}", "JobName": name,
                    "Submit": _ts(start), "Eligible": _ts(start), "Start": _ts(start),
                    "End": _ts(end), "State": st, "ExitCode": ec, "AllocTRES": alloc,
                    "NodeList": compress_hostlist(nodes)})
    return out


def render(jobs: tuple[Job, ...]) -> str:
    lines = ["|".join(FIELDS)]
    for job in jobs:
        lines += ["|".join(r[f] for f in FIELDS) for r in job_rows(job)]
    return "\n".join(lines) + "\n"
