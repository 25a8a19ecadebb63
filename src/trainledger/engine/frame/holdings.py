"""The derived runs as a table the frame path joins bill rows against.

One row per (run, compute-state segment, node) of every run that holds GPUs on named nodes:
``run_id``, ``batch_id`` (null: job without batch), ``state``, ``node``, ``start_us`` / ``end_us``
(epoch microseconds, ``start_us < end_us``), ``gpus_num`` and ``pn_exp``. The GPUs a run holds on
one node are the Python engine's own figure (``compute.gpus_on_node``, so a change of how GPUs
are weighted flows through here): ``gpus_num / scale`` exactly, with ``scale`` a power of ten
common to all runs, and ``pn_exp`` the decimal exponent of that figure as Python holds it (the
frame path rebuilds each line's GPU-hours with the same digits).

A run whose per-node GPUs do not terminate within ``MAX_DIGITS`` digits (8 GPUs on 3 nodes) is
``exact = False``: Python multiplies a 28-digit figure and rounds, so its bill rows are split by
the Python engine itself (``stage.py``), never by a ratio that could differ in the last unit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pyarrow as pa

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_DIGITS = 12  # a per-node GPU figure with more significant digits is not split by the frame path
SCHEMA = pa.schema([("run_id", pa.string()), ("batch_id", pa.string()), ("state", pa.string()),
                    ("node", pa.string()), ("start_us", pa.int64()), ("end_us", pa.int64()),
                    ("gpus_num", pa.int64()), ("pn_exp", pa.int64()), ("exact", pa.bool_())])


@dataclass(frozen=True)
class Holdings:
    table: pa.Table  # SCHEMA
    nodes: tuple[str, ...]  # every node a GPU run holds (a bill row for one of them is split)
    scale: int  # gpus on a node = gpus_num / scale


def micros(t: datetime) -> int:
    return (t - EPOCH) // timedelta(microseconds=1)


def per_node(info) -> Decimal:
    """The GPUs ``info`` holds on each of its nodes, as the Python engine weighs them."""
    from trainledger.engine.compute import gpus_on_node

    return gpus_on_node(info)


def _exact(d: Decimal) -> bool:
    return d.is_finite() and len(d.as_tuple().digits) <= MAX_DIGITS


def holdings_table(runs: Mapping) -> Holdings:
    """``runs`` as ``derive_runs`` returns them (job id → RunInfo)."""
    held = [(info, per_node(info)) for info in runs.values() if info.nodes and info.run.gpus]
    exps = [pn.as_tuple().exponent for _, pn in held if _exact(pn)]
    shift = max([0, *(-e for e in exps)])
    scale = 10**shift
    cols: dict[str, list] = {name: [] for name in SCHEMA.names}
    for info, pn in held:
        exact = _exact(pn)
        num = int(pn.scaleb(shift)) if exact else 0  # exact: an integer (shift ≥ its digits after the point)
        exp = pn.as_tuple().exponent if exact else 0
        for seg in info.segments:
            s, e = micros(seg.start), micros(seg.end)
            if s >= e:
                continue  # an empty segment holds nothing (the Python engine never indexes it)
            for node in dict.fromkeys(info.nodes):  # a node listed twice is held once (as compute.node_split)
                for name, value in (("run_id", info.run.id), ("batch_id", info.batch_id),
                                    ("state", str(seg.state)), ("node", node), ("start_us", s), ("end_us", e),
                                    ("gpus_num", num), ("pn_exp", exp), ("exact", exact)):
                    cols[name].append(value)
    nodes = tuple(sorted({n for info, _ in held for n in info.nodes}))
    return Holdings(pa.table(cols, schema=SCHEMA), nodes, scale)
