"""The derived runs as a table the frame path joins bill rows against.

One row per (run, compute-state segment, node) of every run that holds GPUs on named nodes
(``compute.holds_gpus``): ``run_id``, ``batch_id`` (null: job without batch), ``state``, ``node``,
``start_us`` / ``end_us`` (epoch microseconds, ``start_us < end_us``), ``gpus_num``, ``pn_exp`` and
``exact``. A segment's weight per second on one node is the Python engine's own figure
(``compute._index``): GPU-equivalents (a fractional ``gpu_share`` too) × (``py_scale`` / node count)
× the segment's weight (``straggler_wait`` splits an effective window), with ``py_scale`` the lcm
of the runs' node counts. ``gpus_num`` is that figure × 10**places, an integer — GPUs on the node
= ``gpus_num / scale`` with ``scale = py_scale × 10**places`` — and ``pn_exp`` its decimal exponent
as Python holds it, so the frame path rebuilds each line's GPU-hours with the same digits.

A segment whose figure has more than ``MAX_PLACES`` decimals, or whose numerator would not fit
in 64 bits (|``gpus_num``| < 2**62), is ``exact = False``: the bill rows it touches are split by the
Python engine itself (``stage.py``), never by a figure that could differ in the last unit.

64 bits per segment do not bound the split: a ``gpu_share`` with 12 decimals (× a straggler
weight) makes ``scale`` 10**12, and a month-long row's GPU-µs × that scale × its money units reach
10**39 — past ``decimal(38,0)``. ``split._rows`` checks |units| × total < 10**29 per row (proved
for all rows at once from maxima by ``split.may_overflow`` when it can be) and sends a row above
it to ``compute.node_split`` like a row touching an inexact segment (``split.fallback_rows``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pyarrow as pa

from trainledger.model.money import EXACT

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
MAX_PLACES = 12
SCHEMA = pa.schema([("run_id", pa.string()), ("batch_id", pa.string()), ("state", pa.string()),
                    ("node", pa.string()), ("start_us", pa.int64()), ("end_us", pa.int64()),
                    ("gpus_num", pa.int64()), ("pn_exp", pa.int64()), ("exact", pa.bool_())])


@dataclass(frozen=True)
class Holdings:
    table: pa.Table  # SCHEMA
    nodes: tuple[str, ...]  # every node a GPU run holds (a bill row for one of them is split)
    scale: int  # gpus on a node = gpus_num / scale
    py_scale: int = 1  # the Python engine's weights are GPU-seconds × py_scale (compute.Holdings.scale)


def micros(t: datetime) -> int:
    return (t - EPOCH) // timedelta(microseconds=1)


def _exponent(d: Decimal) -> int:
    exp = d.as_tuple().exponent
    return exp if isinstance(exp, int) else 0


def holdings_table(runs: Mapping) -> Holdings:
    """``runs`` as ``derive_runs`` returns them (job id → RunInfo)."""
    from trainledger.engine.compute import holds_gpus

    held = [info for info in runs.values() if holds_gpus(info)]
    py_scale = math.lcm(1, *(len(info.nodes) for info in held))
    figures = []  # (info, segment, weight per second as compute._index computes it)
    for info in held:
        per_node = EXACT.multiply(info.run.gpu_equivalents, Decimal(py_scale // len(info.nodes)))
        figures.extend((info, seg, EXACT.multiply(per_node, seg.weight)) for seg in info.segments)
    places = max((-_exponent(w) for _, _, w in figures if -MAX_PLACES <= _exponent(w) <= 0), default=0)
    cols: dict[str, list] = {name: [] for name in SCHEMA.names}
    for info, seg, w in figures:
        s, e = micros(seg.start), micros(seg.end)
        if s >= e:
            continue  # an empty segment holds nothing (the Python engine never indexes it)
        num = w.scaleb(places, EXACT)
        exact = -places <= _exponent(w) and num == num.to_integral_value() and abs(num) < 2**62
        for node in dict.fromkeys(info.nodes):  # a node listed twice is held once (as compute.node_split)
            for name, value in (("run_id", info.run.id), ("batch_id", info.batch_id),
                                ("state", str(seg.state)), ("node", node), ("start_us", s), ("end_us", e),
                                ("gpus_num", int(num) if exact else 0), ("pn_exp", _exponent(w)),
                                ("exact", bool(exact))):
                cols[name].append(value)
    nodes = tuple(sorted({n for info in held for n in info.nodes}))
    return Holdings(pa.table(cols, schema=SCHEMA), nodes, py_scale * 10**places, py_scale)
