"""Where a capacity line came from: the job's source row, and the capacity entry as the rule.

A capacity's cost rests on two facts — the ``[[capacity]]`` entry of the workspace file and the
imported row (sacct line, pod, trace row) of the job that held its GPUs. A line a job held names
that job's row as its source (``source_kind`` "capacity": a job row, priced by a capacity), the
import it came through, and the capacity in its rule:

    capacity <id> (<workspace file> row <n>): gpu_seconds_on_node/<rule id>

``n`` is the capacity's own row (one per node and day, ``capacity.capacity_rows``): what the
capacity's GPU-hour check adds up per row. A line no job held (``capacity_unheld``, held by jobs
not imported) has no job row: it keeps the workspace file (``source_kind`` "config").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path

from trainledger.model import CostLine, Provenance

KIND = "capacity"  # a job's row, priced by a capacity
CONFIG = "config"  # the workspace file itself (a capacity's row no job held)
_RULE = re.compile(r"^capacity (?P<id>.+?) \((?P<file>.*) row (?P<row>\d+)\): (?P<rest>.*)$", re.S)


def rule_of(cap_id: str, path: str, row: int, rest: str) -> str:
    return f"capacity {cap_id} ({Path(path).name} row {row}): {rest}"


def parse_rule(rule: str) -> tuple[str, str, int, str] | None:
    """(capacity id, workspace file, capacity row, the split's own rule) of a capacity line's rule."""
    m = _RULE.match(rule)
    return None if m is None else (m["id"], m["file"], int(m["row"]), m["rest"])


def to_job_rows(lines: Iterable[CostLine], cap_id: str, path: str, runs: Mapping[str, object]) -> list[CostLine]:
    """``lines`` of one capacity with each line a run held moved onto that run's job row
    (``runs``: run id → ``RunInfo``); the rest as they are."""
    out = []
    for ln in lines:
        info = runs.get(ln.run_id) if ln.run_id and ln.provenance.source_kind == CONFIG else None
        if info is None:
            out.append(ln)
            continue
        p = ln.provenance
        out.append(replace(ln, provenance=Provenance(
            info.source_sha256, info.row, rule_of(cap_id, path, p.row, p.rule), KIND,
            info.import_key or info.source_sha256)))
    return out


def capacity_of(ln: CostLine, sha_of: Mapping[str, str], ids: set[str]) -> tuple[str, int] | None:
    """(capacity id, capacity row) of a capacity's line — on the workspace file (``sha_of``: the
    entry's hash → id) or on a job's row (its rule) — or None for any other line."""
    p = ln.provenance
    if p.source_kind == CONFIG:
        cap = sha_of.get(p.source_sha256)
        return None if cap is None else (cap, p.row)
    if p.source_kind == KIND and (got := parse_rule(p.rule)) is not None and got[0] in ids:
        return got[0], got[2]
    return None
