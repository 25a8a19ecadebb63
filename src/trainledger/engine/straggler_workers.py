"""Per-worker step times tied to a job that has another number of workers (review 5 J11).

``import steps --set job=ID`` ties a step-time file to a job; the engine then carves the file's
barrier-waiting share out of that job's effective time (engine/runs.py). Nothing checked that the
file's workers can be that job's: PAI job_2's 10 workers tied to a 16-GPU job gave "straggler wait
20.22 GPU-h" without a word. A job's workers are one per GPU (data parallel), one per node, or one
per group of GPUs (tensor / pipeline parallel inside a data-parallel rank), so their count divides
the GPUs or equals the nodes. Any other count — more workers than GPUs, or a count that divides
neither — is the problem ``steps_workers_mismatch``, naming both counts. The share is still used
(it is measured); the problem says it may be another job's.

The steps are matched to a job as engine/runs.py matches them: by the job's own id, its run key,
or its ``run`` tag, the first that has steps.
"""

from __future__ import annotations

from collections.abc import Mapping

from trainledger.engine.context import Facts, Problem, RunInfo
from trainledger.engine.rules import tags_of


def worker_counts(rows) -> dict[str, int]:
    """Steps job → how many workers its rows name (as analysis.stragglers counts a job's workers)."""
    workers: dict[str, set[str]] = {}
    for r in rows:
        workers.setdefault(str(r["job"]), set()).add(str(r["worker"]))
    return {job: len(names) for job, names in workers.items()}


def fits(workers: int, gpus: int, nodes: int) -> bool:
    """Whether ``workers`` can be a job's with ``gpus`` GPUs on ``nodes`` nodes."""
    if workers == nodes and nodes > 0:
        return True
    return 0 < workers <= gpus and gpus % workers == 0


def problems(facts: Facts, runs: Mapping[str, RunInfo]) -> list[Problem]:
    """``steps_workers_mismatch`` for each job whose tied steps name a worker count it cannot have."""
    if not facts.worker_steps:
        return []
    counts = worker_counts(facts.worker_steps)
    by_row = {(str(j["source_sha256"]), int(j["row"])): j for j in facts.jobs if not j.get("is_step")}
    out = []
    for key, info in runs.items():
        j = by_row.get((str(info.source_sha256), int(info.row)))
        raw = str(j["job_id"]) if j is not None else key
        tag = str(tags_of(j).get("run") or "") if j is not None else ""
        steps = next((k for k in (raw, key, tag) if k and k in counts), None)
        if steps is None:
            continue
        workers, gpus, nodes = counts[steps], info.run.gpus, len(info.nodes)
        if fits(workers, gpus, nodes):
            continue
        out.append(Problem(
            "steps_workers_mismatch", f"job {key}: the per-worker step times tied to it (steps job {steps}) name"
            f" {workers} workers, but the job holds {gpus} GPUs on {nodes} node(s) — {workers} workers can be"
            " neither one per node nor an even share of its GPUs, so the steps may be another job's; its"
            " straggler wait is carved from them all the same: check import steps --set job=",
            {"job_id": key, "steps_job": steps, "workers": workers, "gpus": gpus, "nodes": nodes}))
    return out
