"""Render the runs' progress events as one JSONL stream, as a log collector would ship it.

One object per line, ``{"ts": "...+08:00", "run": "<slurm job id>", "event": ..., ...}``, in time
order across runs. The throughput check and the burn-in log nothing; the smoke test that died in
setup logged only ``start``; the held export job never started.
"""

from __future__ import annotations

import json

from trainledger.demo.scenario import LOCAL
from trainledger.demo.timeline import Job


def lines(jobs: tuple[Job, ...]) -> list[dict[str, object]]:
    out = []
    for job in jobs:
        for e in job.events:
            out.append({"ts": e.ts.astimezone(LOCAL).isoformat(timespec="seconds"),
                        "run": job.job_id, "event": e.event, **dict(e.fields)})
    # every ts has the same offset, so text order is time order
    out.sort(key=lambda d: (d["ts"], d["run"]))
    return out


def render(jobs: tuple[Job, ...]) -> str:
    return "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in lines(jobs))
