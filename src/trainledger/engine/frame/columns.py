"""The frame bill stage's node-row lines built as columns (``engine.lines.LineColumns``), not objects.

``stage._lines`` walks the bill rows once for what is per row (route, the Python engine's own
lines for direct and fallback rows, the row's problems, its GPU-hours no job held); every piece
the backend split is then a line made here with Arrow compute, in the Python engine's order (bill
row, view, the (run, state) pieces sorted, the rest no job held last) and with its text:

* amount — the piece's integer ``units`` at ``scale`` as ``str(Decimal)`` writes it (Arrow's decimal
  text for scale ≤ 6, where the two agree; ``Decimal`` itself beyond);
* GPU-hours — ``w / scale / 3600`` of the Python weight rebuilt from (``W``, ``exp``) (``stage._weight``),
  computed once per distinct pair; the rest's per row (``RowInfo.idle_hours``); none on a money-only row;
* batch, run, rule and reason from the run; detail the state, or the row's money-only kind.

``test_frame_duckdb`` and ``test_engine_parity`` compare every built line with the Python engine's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

import pyarrow as pa
import pyarrow.compute as pc

from trainledger.engine.lines import REPEATED, SCHEMA, LineColumns, dense, encoded
from trainledger.model import Basis
from trainledger.model.vocab import ComputeState

PLAIN_SCALE = 6  # Arrow's decimal text equals str(Decimal) here (adjusted exponent ≥ -6)


@dataclass
class RowInfo:
    """Per bill row (index = the row's position), what its node lines need; None where not split here."""

    currency: list
    sha: list
    row: list
    node: list
    money_only: list  # the row's money-only kind (credit, adjustment …) or None
    idle_hours: list  # text of the rest's GPU-hours, or None on a money-only row
    split: list  # bool: its pieces become lines here

    TEXT = ("currency", "sha", "node", "money_only", "idle_hours")  # few distinct values: dictionary-encoded

    @staticmethod
    def arrays(info: RowInfo) -> RowInfo:
        """``info``'s lists as Arrow arrays (its text dictionary-encoded): a chunk's figures kept
        in a few bytes per row, not a Python object each."""
        return RowInfo(**{name: pc.dictionary_encode(pa.array(getattr(info, name), pa.string()))
                          for name in RowInfo.TEXT},
                       row=pa.array(info.row, pa.int64()), split=pa.array(info.split, pa.bool_()))


def decimal_text(units: pa.Array, scale: pa.Array) -> pa.Array:
    """``str(Decimal(units).scaleb(-scale))`` of every piece (``units`` decimal128(38, 0))."""
    units = units.cast(pa.decimal128(38, 0))
    if len(units) == 0:
        return pa.array([], pa.string())
    scales = pc.unique(scale).to_pylist()
    parts, where = [], []
    for s in scales:
        pos = pc.indices_nonzero(pc.equal(scale, s))
        u = units.take(pos)
        if 0 <= s <= PLAIN_SCALE:
            u = pa.concat_arrays([u]) if u.offset else u
            text = pa.Array.from_buffers(pa.decimal128(38, s), len(u), u.buffers(), null_count=0).cast(pa.string())
        else:
            text = pa.array([str(Decimal(int(x)).scaleb(-s)) for x in u.to_pylist()], pa.string())
        parts.append(text)
        where.append(pos)
    if len(parts) == 1:
        return parts[0]
    order = pa.concat_arrays(where)
    return pa.concat_arrays(parts).take(pc.sort_indices(order))


def _small(units: pa.Array) -> pa.Array:
    """``units`` as int64 where every value fits (for the sums), else nulls (summed as Decimal)."""
    try:
        return units.cast(pa.int64())
    except (pa.ArrowInvalid, OverflowError):
        return pa.nulls(len(units), pa.int64())


def per_run(runs) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array]:
    """Every run's id (sorted), batch, rule and reason (a job without batch says so), as the lines
    of its pieces take them (``node_columns``); built once per stage."""
    ids = sorted({info_.run.id for info_ in runs.values()})
    return (pa.array(ids, pa.string()), pa.array([runs[r].batch_id for r in ids], pa.string()),
            pa.array([f"gpu_seconds_on_node/{runs[r].rule}" for r in ids], pa.string()),
            pa.array(["" if runs[r].batch_id is not None else f"job_without_batch: job {runs[r].run.source_job}"
                      for r in ids], pa.string()))


def node_columns(pieces: pa.Table, info: RowInfo, per_run: tuple, hours: dict[str, str | None],
                 hours_of: Callable[[int, int], str], evidence: str) -> pa.Table:
    """``pieces`` (``split.pieces``: idx, view, is_idle, run_id, state, scale, exp, units, W; ``idx``
    the position in ``info``) → the lines' columns (``lines.SCHEMA`` plus ``idx``, ``view``), sorted as
    the Python engine orders them. ``hours``: GPU-hours text per (W, exp) made so far, added to."""
    split_rows = _array(info.split, pa.bool_())
    p = pieces.filter(pc.take(split_rows, pieces.column("idx")))
    zero_w = pc.equal(p.column("W").cast(pa.decimal128(38, 0)), pa.scalar(Decimal(0), pa.decimal128(38, 0)))
    zero_u = pc.equal(p.column("units").cast(pa.decimal128(38, 0)), pa.scalar(Decimal(0), pa.decimal128(38, 0)))
    idle = pc.equal(p.column("is_idle"), 1)
    keep = pc.if_else(idle, pc.invert(zero_u), pc.invert(pc.and_(zero_u, zero_w)))  # what Python skips
    p = p.filter(keep)
    p = p.take(pc.sort_indices(p, [("idx", "ascending"), ("view", "ascending"), ("is_idle", "ascending"),
                                   ("run_id", "ascending"), ("state", "ascending")]))
    per_row = {name: _array(getattr(info, name), typ) for name, typ in (
        ("money_only", pa.string()), ("node", pa.string()), ("idle_hours", pa.string()), ("currency", pa.string()),
        ("sha", pa.string()), ("row", pa.int64()))}
    schema = SCHEMA.append(pa.field("idx", pa.int64())).append(pa.field("view", pa.int64()))
    parts = [_slice(p.slice(at, SLICE), per_run, per_row, hours, hours_of, evidence)
             for at in range(0, max(p.num_rows, 1), SLICE)]
    return pa.Table.from_batches([b for t in parts for b in t.to_batches()], schema=parts[0].schema) \
        if parts[0].num_rows or len(parts) > 1 else _empty(schema)


def _array(values, typ: pa.DataType):
    """``values`` (a list, or already an Arrow array: ``RowInfo.arrays``) as an Arrow array."""
    return values if isinstance(values, pa.Array | pa.ChunkedArray) else pa.array(values, typ)


SLICE = 1 << 16  # pieces turned into lines at a time: bounds the intermediate arrays


def _empty(schema: pa.Schema) -> pa.Table:
    return pa.table({f.name: pa.array([], f.type) for f in schema}).cast(
        pa.schema([pa.field(f.name, pa.dictionary(pa.int32(), pa.string())) if f.name in REPEATED else f
                   for f in schema]))


def _slice(p: pa.Table, per_run, per_row_arrays, hours: dict, hours_of, evidence: str) -> pa.Table:
    """One slice of the sorted pieces → its lines' columns (repeated text dictionary-encoded)."""
    n = p.num_rows
    run_ids, run_batch, run_rule, run_reason = per_run
    at = pc.index_in(p.column("run_id"), value_set=run_ids)
    idx = p.column("idx")
    idle = pc.equal(p.column("is_idle"), 1)
    amort = pc.equal(p.column("view"), 1)

    def per_row(name: str, _typ=None) -> pa.Array:
        return dense(pc.take(per_row_arrays[name], idx))

    money_only = per_row("money_only")
    node = per_row("node")
    state = p.column("state")
    detail = pc.coalesce(money_only, pc.if_else(idle, pa.scalar(str(ComputeState.CAPACITY_UNHELD)), state))
    state_detail = pc.and_(idle, pc.is_null(money_only))  # the rest's detail is the member itself

    # GPU-hours: once per distinct (W, exp) of the states; the rest's per row; none when money-only
    key = pc.binary_join_element_wise(p.column("W").cast(pa.string()), p.column("exp").cast(pa.string()), "|")
    enc = pc.dictionary_encode(pc.if_else(idle, pa.scalar("", pa.string()), key)).combine_chunks()
    for k in enc.dictionary.to_pylist():
        if k not in hours:  # once per distinct (W, exp) over the whole stage
            hours[k] = hours_of(*map(int, k.split("|")))
    state_hours = pa.array([hours[k] for k in enc.dictionary.to_pylist()], pa.string()).take(enc.indices)
    quantity = pc.if_else(pc.is_valid(money_only), pa.scalar(None, pa.string()),
                          pc.if_else(idle, per_row("idle_hours"), state_hours))
    unit = pc.if_else(pc.is_valid(money_only), pa.scalar(""), pa.scalar("gpu_hour"))

    units = p.column("units").combine_chunks() if n else pa.array([], pa.decimal128(38, 0))
    scale = p.column("scale").combine_chunks().cast(pa.int32()) if n else pa.array([], pa.int32())
    amount = decimal_text(units, scale)
    billed = pc.if_else(idle, pa.scalar(str(Basis.CAPACITY_UNHELD)), pa.scalar(str(Basis.BILLED)))
    basis = pc.if_else(amort, pa.scalar(str(Basis.EFFECTIVE_COST)), billed)
    rule = pc.if_else(idle, pa.scalar("gpu_seconds_on_node/unheld"), pc.take(run_rule, at))
    rule = pc.if_else(amort, pc.binary_join_element_wise(rule, pa.scalar(" (EffectiveCost)"), ""), rule)
    reason = pc.if_else(idle, pc.binary_join_element_wise(pa.scalar("capacity_unheld: node "), node, ""),
                        pc.take(run_reason, at))
    cols = {"category": pa.array(["compute"] * n, pa.string()), "basis": basis,
            "evidence": pa.array([evidence] * n, pa.string()), "low": amount, "expected": amount, "high": amount,
            "currency": per_row("currency"),
            "batch_id": pc.if_else(idle, pa.scalar(None, pa.string()), pc.take(run_batch, at)),
            "run_id": pc.if_else(idle, pa.scalar(None, pa.string()), p.column("run_id")),
            "detail": detail, "quantity": quantity, "unit": unit, "reason": reason,
            "source_sha256": per_row("sha"), "source_row": per_row("row"),
            "rule": rule, "source_kind": pa.array(["focus"] * n, pa.string()),
            "import_key": per_row("sha"),  # its content's first import (``import_keys``: another's)
            "units": _small(units), "scale": scale, "state_detail": state_detail,
            "idx": idx, "view": p.column("view")}
    cols = {k: (v.combine_chunks() if isinstance(v, pa.ChunkedArray) else v) for k, v in cols.items()}
    names = [*SCHEMA.names, "idx", "view"]
    return pa.table({k: encoded(cols[k]) if k in REPEATED else cols[k] for k in names})


def import_keys(node_t: pa.Table, rows, at: int, m: int) -> pa.Table:
    """``node_t`` (the lines of bill rows ``at`` … ``at + m``) with each line's import key its bill
    row's, where the rows carry one (a second import of the same content: lake/rowkeys.py); else the
    content hash ``node_columns`` gave (the content's first import)."""
    if not getattr(rows, "is_columns", False) or "import_key" not in rows.table.column_names:
        return node_t
    keys = pc.take(dense(rows.table.column("import_key").slice(at, m)), node_t.column("idx"))
    return node_t.set_column(node_t.schema.get_field_index("import_key"), "import_key", encoded(keys))


def merge(node: pa.Table | None, objects: list[tuple[int, int, object]]) -> LineColumns:
    """The node lines and the Python-made lines (``(idx, view, line)`` in the order made), in bill-row
    then view order (a stable sort: each group keeps its own order)."""
    tables = []
    if node is not None and node.num_rows:
        tables.append(node)
    if objects:
        t = LineColumns.from_lines(ln for _, _, ln in objects).table
        t = pa.table({c: encoded(t.column(c)) if c in REPEATED else t.column(c) for c in t.column_names})
        t = t.append_column("idx", pa.array([i for i, _, _ in objects], pa.int64()))
        tables.append(t.append_column("view", pa.array([v for _, v, _ in objects], pa.int64())))
    if not tables:
        return LineColumns(_empty(SCHEMA))
    names = [*SCHEMA.names, "idx", "view"]
    tables = [t.select(names) for t in tables]
    tables = [tables[0], *(t.cast(tables[0].schema) for t in tables[1:])]
    t = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
    if len(tables) > 1:
        t = t.take(pc.sort_indices(t, [("idx", "ascending"), ("view", "ascending")]))
    return LineColumns(t.select(SCHEMA.names))


def concat(tables: list[pa.Table]) -> LineColumns:
    """The chunks' lines (each ``merge``'s table, in bill-row order) as one ``LineColumns``: the
    chunks side by side (no copy), each dictionary column keeping its chunk's dictionary."""
    tables = [t for t in tables if t.num_rows]
    if not tables:
        return LineColumns(_empty(SCHEMA))
    first = tables[0].schema
    return LineColumns(pa.concat_tables([tables[0], *(t.cast(first) for t in tables[1:])]))
