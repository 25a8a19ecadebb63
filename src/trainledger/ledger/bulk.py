"""Cost lines to the ledger in columns: the driver values and the row fingerprints of a chunk.

``replace_cost_lines`` writes 100k+ lines per attribution. Per value, the general path
(``backends.bind_rows`` then ``figures.fingerprints``) calls the column type's processor and
``figures._field``: ~40 Python calls a row. Here a chunk is turned into columns once, each column
is checked as a whole (its value types, the length its ``CleanString`` allows, finite decimals),
converted with the column type's own rule (``DecimalText`` → ``str(d)``; text unchanged) and
fingerprinted with ``figures.fingerprint``'s encoding (``len:type-letter value``, ``-`` for null)
— the same bytes, so the stored figures and their digests are those of the general path.

``columns_of_lines`` is the only place that reads ``CostLine`` objects: a stage that keeps its
lines as columns (``engine.lines.LineColumns``: an Arrow table of the same columns, amounts and
quantities as their ``str(Decimal)`` text) hands them over as they are — ``line_chunks`` yields
their columns a chunk at a time (``to_pylist`` per column), and no line object is built but the
first of each chunk, which ``check_first`` binds and fingerprints by the general path and compares.

Anything this path does not vouch for — a value of another type (an int in a decimal column, an
enum member other than a ``StrEnum``'s, whose text is its value), text too long or with a NUL, a
dialect whose driver type adds its own processor — sends the chunk back to the general path,
which converts or refuses it with its own error naming the column and the row. The first row of
every chunk is also bound and fingerprinted by the general path and compared: a divergence is a
bug, raised, never written.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from enum import StrEnum
from hashlib import sha256
from typing import Any

from sqlalchemy import Connection, Integer, Table

from trainledger.ledger import figures
from trainledger.ledger.types import CleanString, CleanText, DecimalText

NONE = type(None)
TypeDecoratorKinds = (DecimalText, CleanString, CleanText)


def columns_of_lines(lines: Sequence[Any], attribution_id: int) -> dict[str, list]:
    """``rows.cost_line_row`` of every line, as columns (the same values and keys)."""
    amounts = [c.amount for c in lines]
    prov = [c.provenance for c in lines]
    return {
        "attribution_id": [attribution_id] * len(lines),
        "category": [c.category for c in lines],
        "basis": [str(c.basis) for c in lines],
        "evidence": [str(c.evidence) for c in lines],
        "low": [a.low for a in amounts],
        "expected": [a.expected for a in amounts],
        "high": [a.high for a in amounts],
        "currency": [a.currency for a in amounts],
        "batch_id": [c.batch_id for c in lines],
        "run_id": [c.run_id for c in lines],
        "detail": [c.detail for c in lines],
        "quantity": [c.quantity for c in lines],
        "unit": [c.unit for c in lines],
        "reason": [c.reason for c in lines],
        "source_sha256": [p.source_sha256 for p in prov],
        "source_row": [p.row for p in prov],
        "rule": [p.rule for p in prov],
        "source_kind": [p.source_kind for p in prov],
        "import_key": [p.import_key for p in prov],
    }


class _Built:
    """A chunk of a columns part (``engine.lines.LineColumns``), its lines built only if read."""

    __slots__ = ("n", "off", "part")

    def __init__(self, part, off: int, n: int) -> None:
        self.part, self.off, self.n = part, off, n

    def __len__(self) -> int:
        return self.n

    def __iter__(self):
        return iter(self.part[self.off:self.off + self.n])

    def first(self):
        return self.part[self.off]


def line_chunks(lines, size: int, attribution_id: int):
    """(chunk, columns or None) for the write: a part held as columns (duck-typed: ``.table``) gives its
    columns as they are (decimal text); any other part gives its lines, ``size`` at a time."""
    from trainledger.ledger.rows import chunks

    parts = getattr(lines, "parts", None)
    for part in (lines,) if parts is None else parts:
        table = getattr(part, "table", None)
        if table is None:
            yield from ((chunk, None) for chunk in chunks(part, size))
            continue
        for off in range(0, table.num_rows, size):
            sl = _dense(table.slice(off, size))
            cols = {name: sl.column(name).to_pylist() for name in COLUMNS_OF_LINES if name != "attribution_id"}
            cols["attribution_id"] = [attribution_id] * sl.num_rows
            yield _Built(part, off, sl.num_rows), _Columns(cols, sl)


def _dense(sl):
    """A slice with its dictionary-encoded columns as plain ones (read once, then to Python)."""
    import pyarrow as pa

    cols = {c: sl.column(c) for c in sl.column_names}
    return pa.table({c: col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col
                     for c, col in cols.items()})


class _Columns(dict):
    """A chunk's columns as lists (the driver's values) and the Arrow slice they came from
    (``arrow``: the fingerprints are computed on it, column-wise)."""

    def __init__(self, cols: dict[str, list], arrow) -> None:
        super().__init__(cols)
        self.arrow = arrow


def _arrow_fingerprints(columns: Sequence[str], kinds: dict[str, tuple[str, int | None]], cols,
                        arrow) -> list[str] | None:
    """``figures.fingerprint`` of every row of an Arrow chunk, its fields joined by Arrow compute:
    ``len:letter value`` (length in characters, as Python's ``len``), ``-`` for null; None when a
    value holds NUL (the general path refuses it, naming the row) or a column is not in ``arrow``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    fields = []
    for name in columns:
        letter = {"text": "s", "decimal": "d", "int": "i"}[kinds[name][0]]
        if name not in arrow.column_names:
            value = cols[name][0] if len(set(cols[name])) == 1 else None  # the attribution id: one value
            if value is None:
                return None
            text = str(value)
            fields.append(pa.scalar(f"{len(text) + 1}:{letter}{text}"))
            continue
        col = arrow.column(name)
        text = col if pa.types.is_string(col.type) else pc.cast(col, pa.string())
        n = pc.cast(pc.add(pc.utf8_length(text), 1), pa.string())
        fields.append(pc.fill_null(pc.binary_join_element_wise(n, pa.scalar(":" + letter), text, ""), "-"))
    body = pc.binary_join_element_wise(*fields, ",")
    if pc.any(pc.match_substring(body, "\x00")).as_py():
        return None
    return [sha256(b).hexdigest()[:figures.FP_LEN] for b in pc.cast(body, pa.binary()).to_pylist()]


COLUMNS_OF_LINES = ("attribution_id", "category", "basis", "evidence", "low", "expected", "high", "currency",
                    "batch_id", "run_id", "detail", "quantity", "unit", "reason", "source_sha256", "source_row",
                    "rule", "source_kind", "import_key")


def _kind(table: Table, name: str, dialect) -> tuple[str, int | None] | None:
    """How the fast path converts column ``name``; None when it does not know the type."""
    typ = table.c[name].type
    if isinstance(typ, TypeDecoratorKinds):
        if typ.impl.dialect_impl(dialect).bind_processor(dialect) is not None:  # the driver converts again
            return None
        if isinstance(typ, DecimalText):
            return ("decimal", None)
        if isinstance(typ, CleanString):
            return ("text", typ.impl.length)
        return ("text", None)
    if isinstance(typ, Integer) and typ.dialect_impl(dialect).bind_processor(dialect) is None:
        return ("int", None)
    return None


def _encoded(col: list, letter: str) -> list[str]:
    """``figures._field`` of every value (its text already made): each distinct value once."""
    enc = {v: f"{len(v) + 1}:{letter}{v}" for v in set(col) if v is not None} | {None: "-"}
    return list(map(enc.__getitem__, col))


def _convert(kind: str, limit: int | None, col: list, texts: bool = False,
             encode: bool = True) -> tuple[list, list[str] | None] | None:
    """(driver values, fingerprint fields) of one column, or None when the general path must do it.
    ``texts``: decimals come as their ``str(Decimal)`` text (columns, ``line_chunks``); without
    ``encode`` the fields are left to the caller (None)."""
    types = set(map(type, col))
    if kind == "decimal" and texts and types <= {str, NONE}:
        return col, _encoded(col, "d") if encode else None
    if kind == "text":
        if not types <= {str, NONE}:
            if not all(t in (str, NONE) or issubclass(t, StrEnum) for t in types):
                return None
            col = [v if type(v) is str or v is None else v.value for v in col]  # what the driver stores
        present = [v for v in col if v is not None] if NONE in types else col
        if limit is not None and present and max(map(len, present)) > limit:
            return None
        return col, _encoded(col, "s") if encode else None
    if kind == "decimal":
        if not types <= {Decimal, NONE}:
            return None
        if NONE in types:
            text = [str(v) if v is not None else None for v in col]
            finite = all(v.is_finite() for v in col if v is not None)
        else:
            text = list(map(str, col))
            finite = all(map(Decimal.is_finite, col))
        return (text, _encoded(text, "d")) if finite else None
    if not types <= {int}:  # bool too is left to the general path
        return None
    return col, _encoded(list(map(str, col)), "i") if encode else None


def bind_and_fingerprint(conn: Connection, table: Table, columns: Sequence[str],
                         cols: dict[str, list], texts: bool = False) -> tuple[list[tuple], list[str]] | None:
    """(driver tuples, fingerprints) of a chunk held as ``cols``; None when the general path must
    convert it (see the module docstring). ``texts``: decimal columns hold ``str(Decimal)`` text."""
    if any(v is None for c in columns if c in figures.LATER_COLUMNS for v in cols[c]):
        return None  # a null in a later column leaves it out of the fingerprint: the general path
    dialect = conn.dialect
    values, fields, kinds = [], [], {}
    arrow = getattr(cols, "arrow", None)
    for name in columns:
        kind = _kind(table, name, dialect)
        got = None if kind is None else _convert(*kind, cols[name], texts, arrow is None)
        if got is None:
            return None
        values.append(got[0])
        fields.append(got[1])
        kinds[name] = kind
    if arrow is not None:
        fps = _arrow_fingerprints(columns, kinds, cols, arrow)
        return None if fps is None else (list(zip(*values, strict=True)), fps)
    bodies = [",".join(parts) for parts in zip(*fields, strict=True)]
    if any("\x00" in b for b in bodies):
        return None  # CleanText / CleanString refuse it: the general path says where
    fps = [sha256(b.encode("utf-8", "surrogatepass")).hexdigest()[:figures.FP_LEN] for b in bodies]
    return list(zip(*values, strict=True)), fps


def check_first(conn: Connection, table: Table, columns: Sequence[str], cols: dict[str, list],
                values: list[tuple], fps: list[str], row: dict | None = None) -> None:
    """The general path on the chunk's first row (``row``: its ``cost_line_row``, when ``cols`` hold
    text) must give the same driver values and fingerprint."""
    from trainledger.ledger.backends import bind_rows

    if not values:
        return
    row = {c: cols[c][0] for c in columns} if row is None else row
    if bind_rows(conn, table, columns, [row])[0] != values[0] or figures.fingerprint(row, columns) != fps[0]:
        raise AssertionError(f"ledger/bulk.py: the columnar write of {table.name} differs from the general"
                             " path on its first row")  # a bug here, never a user's input
