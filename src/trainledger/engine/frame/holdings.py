"""The Python engine's derived runs as a table the frame path joins bill rows against.

One row per (run, compute-state segment, node) of every run that holds GPUs on named nodes:
``run_id``, ``batch_id`` (null: job without batch), ``state``, ``node``, ``start_us`` / ``end_us``
(epoch microseconds) and ``gpus_num`` — the run's GPUs on that node as an integer numerator of
``gpus / len(nodes)`` over the common denominator ``scale`` (the lcm of the runs' node counts).
A split's weights are proportional to the Python engine's ``gpus_on_node × seconds``, so the
shares are the same whenever ``gpus / len(nodes)`` is a terminating decimal (the oracle rounds a
non-terminating one at 28 digits; the frame path keeps the exact ratio).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pyarrow as pa

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
SCHEMA = pa.schema([("run_id", pa.string()), ("batch_id", pa.string()), ("state", pa.string()),
                    ("node", pa.string()), ("start_us", pa.int64()), ("end_us", pa.int64()),
                    ("gpus_num", pa.int64())])


@dataclass(frozen=True)
class Holdings:
    table: pa.Table  # SCHEMA
    nodes: tuple[str, ...]  # every node a GPU run holds (a bill row for one of them is split)
    scale: int  # gpus on a node = gpus_num / scale


def _exponent(d) -> int:
    exp = d.normalize().as_tuple().exponent
    return exp if isinstance(exp, int) else 0


def micros(t: datetime) -> int:
    return (t - EPOCH) // timedelta(microseconds=1)


def holdings_table(runs: Mapping) -> Holdings:
    """``runs`` as ``derive_runs`` returns them (job id → RunInfo)."""
    held = [info for info in runs.values() if info.nodes and info.run.gpu_equivalents > 0]
    # fractional GPU-equivalents (0.25 of a GPU) and segment weights (straggler_wait) are exact
    # decimals: the scale also clears their decimal places, so every numerator is an integer
    places = max((-min(0, _exponent(info.run.gpu_equivalents * seg.weight)) for info in held
                  for seg in info.segments), default=0)
    scale = math.lcm(1, *(len(info.nodes) for info in held)) * 10**places
    cols: dict[str, list] = {name: [] for name in SCHEMA.names}
    for info in held:
        for seg in info.segments:
            num = int(info.run.gpu_equivalents * seg.weight * (scale // len(info.nodes)))
            for node in info.nodes:
                for name, value in (("run_id", info.run.id), ("batch_id", info.batch_id),
                                    ("state", str(seg.state)), ("node", node), ("start_us", micros(seg.start)),
                                    ("end_us", micros(seg.end)), ("gpus_num", num)):
                    cols[name].append(value)
    nodes = tuple(sorted({n for info in held for n in info.nodes}))
    return Holdings(pa.table(cols, schema=SCHEMA), nodes, scale)
