"""Which pool holds a run that names no node: its cluster's pool, or its virtual cluster's.

A ``[[capacity]]`` pool is a cluster (``cluster = NAME``: pseudo-node ``pool:NAME``) or one of its
virtual clusters (``cluster`` and ``vc``: pseudo-node ``pool:NAME/VC``). A run of that cluster
without nodes is placed on the pool of its VC when the workspace has one, else on the cluster's
pool (then "the rest of the cluster": capacity_facts.py leaves the VCs with their own pool out of
its GPUs). A job's VC is read from ``vc_field`` when the pool names one (a jobs column such as
``account``, ``tags.KEY`` or ``extra.KEY``), else from the first of ``VC_FIELDS`` that is set:

    tags.vc, tags.queue, tags.partition      the slurm-trace preset's vc, a mapping's [tags]
    extra.Partition                          sacct's Partition column
    tags.labels.kueue.x-k8s.io/queue-name, tags.labels.volcano.sh/queue-name,
    tags.annotations.scheduling.volcano.sh/queue-name    Kueue's / Volcano's queue of a pod

``unpooled_problems`` reports the runs of a cluster with VC pools that no pool holds
(``vc_not_pooled``: their GPU time is in no capacity's cost), one problem per cluster.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from trainledger.engine.context import Problem
from trainledger.engine.rules import tags_of

VC_FIELDS = ("tags.vc", "tags.queue", "tags.partition", "extra.Partition",
             "tags.labels.kueue.x-k8s.io/queue-name", "tags.labels.volcano.sh/queue-name",
             "tags.annotations.scheduling.volcano.sh/queue-name")
EXAMPLES = 3  # VCs named in a problem's message


def job_vc(job: Mapping[str, Any] | None, field: str = "") -> str:
    """The job's virtual cluster ("" when it names none): ``field``, or the first of VC_FIELDS set."""
    if job is None:
        return ""
    tags = tags_of(job)
    extra: dict | None = None
    for name in (field,) if field else VC_FIELDS:
        if name.startswith("tags."):
            value = tags.get(name[5:])
        elif name.startswith("extra."):
            if extra is None:
                try:
                    extra = json.loads(job.get("extra") or "{}")
                except (TypeError, json.JSONDecodeError):
                    extra = {}
                extra = extra if isinstance(extra, dict) else {}
            value = extra.get(name[6:])
        else:
            value = job.get(name)
        text = "" if value is None else str(value).strip()
        if text:
            return text
    return ""


def _jobs_by_row(jobs: Iterable[Mapping[str, Any]]) -> dict[tuple[str, int], Mapping[str, Any]]:
    return {(str(j["source_sha256"]), int(j["row"])): j for j in jobs if not j.get("is_step")}


def placements(runs: Mapping[str, Any], caps, jobs: Iterable[Mapping[str, Any]]
               ) -> tuple[dict[str, Any], list[Problem]]:
    """``runs`` with every run of a pool's cluster that names no node placed on its pool (its VC's,
    else the cluster's), and the ``vc_not_pooled`` problems of the runs left without one."""
    clusters = {cap.pool: cap.nodes for cap in caps if cap.pool and not cap.vc}
    vcs = {(cap.pool, cap.vc): cap.nodes for cap in caps if cap.pool and cap.vc}
    if not clusters and not vcs:
        return dict(runs), []
    fields = {cap.pool: cap.vc_field for cap in caps if cap.pool and cap.vc}
    by_row = _jobs_by_row(jobs) if vcs else {}
    out: dict[str, Any] = {}
    left: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))  # cluster → vc → runs
    for key, info in runs.items():
        if info.nodes or (info.cluster not in clusters and info.cluster not in fields):
            out[key] = info
            continue
        vc = job_vc(by_row.get((info.source_sha256, info.row)), fields.get(info.cluster, "")) \
            if info.cluster in fields else ""
        nodes = vcs.get((info.cluster, vc)) or clusters.get(info.cluster)
        if nodes is None:
            if info.run.gpu_equivalents > 0 and info.segments:
                left[info.cluster][vc] += 1
            out[key] = info
            continue
        out[key] = replace(info, nodes=nodes)
    return out, [_unpooled(cluster, counts, fields[cluster]) for cluster, counts in sorted(left.items())]


def _unpooled(cluster: str, counts: Mapping[str, int], field: str) -> Problem:
    names = sorted(counts, key=lambda v: (-counts[v], v))
    shown = ", ".join(v or "(none)" for v in names[:EXAMPLES]) + (", …" if len(names) > EXAMPLES else "")
    jobs = sum(counts.values())
    where = field or " / ".join(VC_FIELDS[:4])
    return Problem(
        "vc_not_pooled", f"cluster {cluster}: {jobs} job(s) of {len(names)} virtual cluster(s) ({shown}) that no"
        f" [[capacity]] pool holds (the job's VC is read from {where}): their GPU time is in no capacity's cost —"
        " add a pool for the VC, or one for the whole cluster (cluster without vc)",
        {"cluster": cluster, "jobs": jobs, "vcs": len(names), "examples": shown, "field": where})
