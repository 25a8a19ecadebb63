"""Cost lines held in columns: what the frame engine hands on instead of one ``CostLine`` per line.

``LineColumns`` is a frozen Arrow table with the ledger's columns of a cost line (``COLUMNS``, the
values ``ledger.rows.cost_line_row`` gives, amounts and GPU-hours as their exact decimal text,
``str(Decimal)``), plus the expected amount as an integer of ``units`` at ``scale`` for exact sums
(and ``state_detail``: the detail is a ``ComputeState`` member, so a built line is the one made).
It is a ``Sequence[CostLine]``: indexing or iterating builds the lines (``ledger.rows.cost_line_from``'s
constructors, so every check a line has runs), but the hot path never does — conservation sums
the integers per group (``sums``), the ledger writes the columns as they are (``ledger/bulk.py``),
and the few consumers that need line objects ask for the rows they read (``Lines.select``).

``Lines`` is the attribution's lines in order: parts that are tuples of ``CostLine`` (the stages
that make few lines) or ``LineColumns`` (the frame bill stage). It too is a ``Sequence[CostLine]``
and equals a tuple of the same lines, so ``Attribution.lines`` means what it meant.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from itertools import chain, islice

import pyarrow as pa
import pyarrow.compute as pc

from trainledger.model import AmountRange, CostLine, Provenance
from trainledger.model.money import EXACT
from trainledger.model.vocab import ComputeState

TEXT = ("category", "basis", "evidence", "low", "expected", "high", "currency", "batch_id", "run_id", "detail",
        "quantity", "unit", "reason", "source_sha256")
COLUMNS = (*TEXT[:-1], "source_sha256", "source_row", "rule", "source_kind", "import_key")  # cost_line_row's keys
SCHEMA = pa.schema([*((c, pa.string()) for c in COLUMNS if c != "source_row"), ("source_row", pa.int64()),
                    ("units", pa.int64()), ("scale", pa.int32()), ("state_detail", pa.bool_())])
NULLABLE = ("batch_id", "run_id", "quantity")
BATCH = 65_536
# columns whose few distinct values repeat line after line: a frame stage may hold them
# dictionary-encoded (the same values; ``dense`` gives plain strings where a kernel needs them)
REPEATED = ("category", "basis", "evidence", "currency", "batch_id", "detail", "quantity", "unit", "reason",
            "source_sha256", "rule", "source_kind", "import_key")


def dense(col):
    """``col`` as plain strings when it is dictionary-encoded (compare and group kernels need it)."""
    return col.cast(col.type.value_type) if pa.types.is_dictionary(col.type) else col


def encoded(col):
    """``col`` dictionary-encoded (a string column of ``REPEATED``)."""
    return col if pa.types.is_dictionary(col.type) else pc.dictionary_encode(col)


def _digits(d: Decimal) -> tuple[int, int] | None:
    """(units, scale) of ``d`` when units fits 64 bits and scale ≥ 0, else None (summed by Decimal)."""
    t = d.as_tuple()
    if not isinstance(t.exponent, int) or t.exponent > 0:
        return None
    u = int(d.scaleb(-t.exponent))
    return (u, -t.exponent) if -(2**62) < u < 2**62 else None


@dataclass(frozen=True)
class LineColumns(Sequence):
    """Cost lines as one Arrow table (``SCHEMA``); ``units`` null where the amount does not fit."""

    table: pa.Table

    def __post_init__(self) -> None:
        if self.table.schema.names[:len(SCHEMA)] != SCHEMA.names:
            raise AssertionError(f"LineColumns: columns {self.table.schema.names}, not {SCHEMA.names}")

    @classmethod
    def from_lines(cls, lines: Iterable[CostLine]) -> LineColumns:
        """The lines' columns, made ``BATCH`` lines at a time (a job-heavy stage's million lines as
        Python lists of text would be ~1 GB beside the lines themselves, H12); one chunk per column."""
        parts, it = [], iter(lines)
        while chunk := list(islice(it, BATCH)):
            parts.append(cls._columns(chunk))
        if not parts:
            return cls(cls._columns([]))
        return cls(parts[0] if len(parts) == 1 else pa.concat_tables(parts).combine_chunks())

    @staticmethod
    def _columns(lines: list[CostLine]) -> pa.Table:
        cols: dict[str, list] = {c: [] for c in SCHEMA.names}
        for ln in lines:
            a, p = ln.amount, ln.provenance
            for name, value in (("category", ln.category), ("basis", str(ln.basis)), ("evidence", str(ln.evidence)),
                                ("low", str(a.low)), ("expected", str(a.expected)), ("high", str(a.high)),
                                ("currency", a.currency), ("batch_id", ln.batch_id), ("run_id", ln.run_id),
                                ("detail", str(ln.detail)), ("unit", ln.unit), ("reason", ln.reason),
                                ("quantity", None if ln.quantity is None else str(ln.quantity)),
                                ("source_sha256", p.source_sha256), ("source_row", p.row), ("rule", p.rule),
                                ("source_kind", p.source_kind), ("import_key", p.import_key)):
                cols[name].append(value)
            us = _digits(a.expected)
            cols["units"].append(None if us is None else us[0])
            cols["scale"].append(None if us is None else us[1])
            cols["state_detail"].append(type(ln.detail) is ComputeState)
        return pa.table(cols, schema=SCHEMA)

    def __len__(self) -> int:
        return self.table.num_rows

    def _build(self, t: pa.Table) -> list[CostLine]:
        cols = [t.column(c).to_pylist() for c in (*COLUMNS, "state_detail")]
        out = []
        for (cat, basis, ev, low, exp, high, cur, batch, run, detail, qty, unit, reason, sha, row, rule,
             kind, key, state) in zip(*cols, strict=True):
            if state:
                detail = ComputeState(detail)  # as the stage made it: a member, not its text
            out.append(CostLine(category=cat, basis=basis, evidence=ev,
                                amount=AmountRange(Decimal(low), Decimal(exp), Decimal(high), cur),
                                provenance=Provenance(sha, row, rule, kind, key or ""), batch_id=batch, run_id=run,
                                detail=detail, quantity=None if qty is None else Decimal(qty), unit=unit,
                                reason=reason))
        return out

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self._build(self.table.take(pa.array(range(len(self))[i], pa.int64()))))
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        return self._build(self.table.slice(i % n, 1))[0]

    def __iter__(self) -> Iterator[CostLine]:
        for batch in self.table.to_batches(max_chunksize=BATCH):
            yield from self._build(pa.Table.from_batches([batch]))

    def where(self, mask: pa.ChunkedArray | pa.Array) -> list[CostLine]:
        """The lines where ``mask`` is true, built."""
        return self._build(self.table.filter(mask))

    def sums(self, keys: Sequence[str]) -> dict[tuple, Decimal]:
        """Exact sums of the expected amount per distinct ``keys`` (integers per scale, then Decimal)."""
        t = pa.table({c: dense(self.table.column(c)) for c in (*keys, "units", "scale", "expected")})
        fits = t.filter(pc.is_valid(t.column("units")))
        out: dict[tuple, Decimal] = {}
        if fits.num_rows:
            biggest = pc.max(pc.abs(fits.column("units"))).as_py() or 0
            if biggest * fits.num_rows < 2**63:  # the int64 sums cannot wrap
                agg = fits.group_by([*keys, "scale"], use_threads=False).aggregate([("units", "sum")])
                for rec in agg.to_pylist():
                    k = tuple(rec[c] for c in keys)
                    out[k] = EXACT.add(out.get(k, Decimal(0)), Decimal(rec["units_sum"]).scaleb(-rec["scale"], EXACT))
            else:
                out = _python_sums(fits, keys)
        rest = t.filter(pc.is_null(t.column("units")))
        for k, v in _python_sums(rest, keys).items():
            out[k] = EXACT.add(out.get(k, Decimal(0)), v)
        return out


def _python_sums(t: pa.Table, keys: Sequence[str]) -> dict[tuple, Decimal]:
    out: dict[tuple, Decimal] = {}
    cols = [t.column(c).to_pylist() for c in keys]
    for *k, amount in zip(*cols, t.column("expected").to_pylist(), strict=True):
        out[tuple(k)] = EXACT.add(out.get(tuple(k), Decimal(0)), Decimal(amount))
    return out


class Lines(Sequence):
    """An attribution's lines in order: parts of ``CostLine`` tuples and ``LineColumns``."""

    __slots__ = ("parts",)

    def __init__(self, parts: Iterable[Sequence[CostLine]] = ()) -> None:
        self.parts: tuple[Sequence[CostLine], ...] = tuple(
            p if isinstance(p, LineColumns) else tuple(p) for p in parts if len(p))

    def __len__(self) -> int:
        return sum(map(len, self.parts))

    def __iter__(self) -> Iterator[CostLine]:
        return chain.from_iterable(self.parts)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(len(self))[i])
        n = len(self)
        if not -n <= i < n:
            raise IndexError(i)
        i %= n
        for p in self.parts:
            if i < len(p):
                return p[i]
            i -= len(p)
        raise IndexError(i)  # pragma: no cover

    def __eq__(self, other) -> bool:
        if isinstance(other, Lines | tuple | list):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Lines({len(self)} lines in {len(self.parts)} parts)"

    def columns(self) -> Iterator[LineColumns]:
        return (p for p in self.parts if isinstance(p, LineColumns))

    def objects(self) -> Iterator[CostLine]:
        """The lines already held as objects (every part that is not columns)."""
        return chain.from_iterable(p for p in self.parts if not isinstance(p, LineColumns))

    def _mask(self, p: LineColumns, equal: dict):
        mask = None
        for name, value in equal.items():
            col = dense(p.table.column(name))
            m = pc.is_null(col) if value is None else pc.fill_null(pc.equal(col, str(value)), False)
            mask = m if mask is None else pc.and_(mask, m)
        return mask

    def count(self, **equal) -> int:
        """How many lines have the columns ``equal`` (as ``select``), none built."""
        n = 0
        for p in self.parts:
            if isinstance(p, LineColumns):
                mask = self._mask(p, equal)
                n += len(p) if mask is None else pc.sum(mask).as_py() or 0
            else:
                n += sum(1 for ln in p if _matches(ln, equal))
        return n

    def select(self, **equal) -> list[CostLine]:
        """The lines whose columns equal ``equal`` (e.g. ``category="storage"``), in order, built;
        ``None`` matches a null (the unattributed bucket: ``batch_id=None``)."""
        out: list[CostLine] = []
        for p in self.parts:
            if isinstance(p, LineColumns):
                mask = self._mask(p, equal)
                out.extend(p.where(mask) if mask is not None else p)
            else:
                out.extend(ln for ln in p if _matches(ln, equal))
        return out


def _matches(ln: CostLine, equal: dict) -> bool:
    return all(_field(ln, k) == (None if v is None else str(v)) for k, v in equal.items())


def _field(ln: CostLine, name: str):
    """A line's value in column ``name`` as the columns hold it (text, or None)."""
    if name in ("source_sha256", "rule", "source_kind", "import_key"):
        return getattr(ln.provenance, name)
    if name == "currency":
        return ln.amount.currency
    v = getattr(ln, name)
    return None if v is None else str(v)


def as_lines(lines: Iterable[CostLine]) -> Lines:
    return lines if isinstance(lines, Lines) else Lines([lines if isinstance(lines, LineColumns) else tuple(lines)])
