"""``import focus`` of a CSV bill a column at a time: the same lake rows, quarantine and row
hashes as the per-row path (``FocusImporter.validate`` / ``normalise``), at a fraction of the cost.

    fastcsv.chunks ─► convert the columns that quarantine (money, currency, charge period)
                  ─► rows refused: quarantine entries (file, row, line, reason, remedy, raw),
                     reasons in the order the per-row path finds them
                  ─► the rest: flags (per rule, in the per-row order), tags, extra, row_hash
                  ─► one Arrow batch of bill_lines per chunk (computed by a worker thread
                     while the caller writes the chunk before); its text columns kept as
                     they are go as dictionaries of the chunk's distinct values (``_Out``,
                     ``lake/encoding.py``: the Parquet writer hashes no row of them again)

Rows that need the per-row rules between columns (commitment discount status, capacity
reservation status, allocated charges, corrections) get them from ``focus.conformance`` itself,
row by row; every other value is computed by ``vector``. The row hash is ``keys.content_key``
of the same items (``hash_rows``), by the version in force: version 3 (a fresh lake) digests
each column's canonical values once per distinct value and folds them per row with numpy
(``rowhash.hash_columns``); version 2 (an older lake's table) builds the NUL-joined text per
distinct value, DuckDB concatenates it per row and blake2b runs per row. A Parquet batch's rows
hash the same way (``record_hashes``, for ``FocusImporter``'s Parquet reader). A column whose
values were nearly all distinct in the chunk before is not dictionary-encoded (``Plan.coded``).
A file the vectorised reader cannot promise to read alike raises ``fastcsv.NotFast``.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest import convert as cv
from trainledger.ingest import focus as F
from trainledger.ingest import rowhash
from trainledger.ingest import vector as V
from trainledger.ingest.base import FLAG, Context, as_text, dumps
from trainledger.ingest.delimited import resolve_header
from trainledger.ingest.fastcsv import Chunk, NotFast, chunks
from trainledger.ingest.keys import active_version, canon_for, canon_json, canon_loose, canon_number, content_key
from trainledger.lake.schemas import BILL_LINES

STR = pa.string()
_ALLOCATED = tuple(n.casefold() for n in F.ALLOCATED)


def _plain_numbers() -> frozenset[str]:
    cols = F.FocusImporter.columns
    return frozenset(c.name for c in cols if c.convert in (cv.money_text, cv.decimal_text)
                     and canon_for(c) is canon_number and c.on_error != FLAG)



_CONFORMANCE_EXTRA = ("capacityreservationstatus", *_ALLOCATED)
_PLAIN_NUMBERS = _plain_numbers()
AHEAD = 1  # chunks computed ahead of the one the caller writes
# the lake columns whose converter writes plain decimals (convert.money_text, decimal_text) and
# whose row-hash spelling is keys.canon_number (checked at import: _plain_numbers)
PLAIN_SHARE = 0.5  # a column with more distinct values per row than this is left unencoded


class Plan:
    """How the header's columns feed the lake (resolved once per file)."""

    def __init__(self, importer: F.FocusImporter, header: list[str]) -> None:
        try:
            plan, missing = resolve_header(header, importer.columns, ())
        except ValueError:
            raise NotFast("the per-row path reports the header") from None
        if missing:
            raise NotFast("the per-row path reports the header")
        self.header = header
        self.at = dict(plan)  # lake column → header index
        used = set(self.at.values())
        self.extra = [(header[i], i) for i in range(len(header)) if i not in used]
        by_name = {c.name: c for c in importer.columns}
        canon: dict[int, Any] = {i: canon_loose for i in range(len(header)) if i not in used}
        canon.update({i: canon_for(by_name[name]) for name, i in plan})
        canon = {i: _canon_json_cached if c is canon_json else c for i, c in canon.items()}
        self.keyed = sorted((h.casefold(), i, canon[i]) for i, h in enumerate(header))
        self.folded_extra = {h.casefold(): i for h, i in self.extra}
        # columns whose values were nearly all distinct in the chunk before: not encoded
        self.plain: frozenset[int] = frozenset()

    def coded(self, columns: list[pa.Array], nulls: frozenset[str]) -> list[V.Coded]:
        """The chunk's columns as ``vector.Coded`` — those of (nearly) all-distinct values in
        the chunk before left as they are (a dictionary of them would cost, and save nothing)."""
        cols = [V.Coded.of(c, nulls, encode=i not in self.plain) for i, c in enumerate(columns)]
        self.plain = frozenset(i for i, c in enumerate(cols) if c.distinct_share > PLAIN_SHARE)
        return cols


def batches(importer: F.FocusImporter, path: Path, ctx: Context) -> Iterator[Any]:
    """(lake batch of accepted rows, quarantine entries, rows read, bytes read) per chunk, in
    file order. A chunk's rows are computed by a worker thread while the caller writes the
    chunk before (Arrow, DuckDB and the Parquet writer let go of the GIL): at most ``AHEAD``
    chunks in flight; an exception reaches the caller at the chunk that raised it."""
    plans: list[Plan] = []
    source = chunks(path, importer.delimiter, ctx.watch, lambda h: plans.append(Plan(importer, h)))
    pending: deque[Future[Any]] = deque()
    with ThreadPoolExecutor(1, thread_name_prefix="focus-rows") as pool:
        try:
            for chunk in source:
                # the worker hashes with the row-hash version in force here (keys.hashing)
                work = contextvars.copy_context().run
                pending.append(pool.submit(work, _rows, importer, plans[0], chunk, path, ctx))
                if len(pending) > AHEAD:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        finally:
            for f in pending:
                f.cancel()


def _rows(importer: F.FocusImporter, plan: Plan, chunk: Chunk, path: Path, ctx: Context) -> Any:
    if "currency" not in plan.at and ctx.cfg.currency is None:  # as the per-row path: refused once
        raise F.no_currency_column(path)
    n = len(chunk.rows)
    cols = plan.coded(chunk.columns, importer.nulls)

    def coded(name: str) -> V.Coded | None:
        i = plan.at.get(name)
        return None if i is None else cols[i]

    # 1. the columns whose refusal quarantines the row, and the rules of ``normalise`` that do
    distinct: dict[str, V.Converted] = {}  # per distinct value
    conv: dict[str, tuple[V.Coded, V.Converted]] = {}  # (its column, per distinct value)
    refused = np.zeros(n, dtype=bool)
    convert = _Twins(ctx)
    for c in importer.columns:
        col = coded(c.name)
        if col is None or c.convert in (F._as_is, as_text) or c.on_error == FLAG:
            continue
        distinct[c.name] = got = convert(col.values, c.convert)
        conv[c.name] = (col, got)
        if got.errors is not None:
            bad = V._np(pc.is_valid(got.errors))
            if bad.any():
                refused |= col.mask(bad)
        if c.needed:
            refused |= col.mask(col.null)
    currency = conv["currency"][0].rows(conv["currency"][1].values) if "currency" in conv else pa.nulls(n, STR)
    if ctx.cfg.currency is None:
        refused |= V._np(pc.is_null(currency))
    else:
        currency = pc.fill_null(currency, ctx.cfg.currency)
    start, end = (conv[k][0].rows(conv[k][1].values) for k in ("charge_period_start", "charge_period_end"))
    refused |= V._np(pc.less(end, start))
    quarantine = [_refusal(importer, plan, conv, currency, (start, end), ctx, chunk, path, int(i))
                  for i in np.flatnonzero(refused)]
    m = n - len(quarantine)
    if m == 0:
        return None, quarantine, n, chunk.done
    if quarantine:
        keep = ~refused
        cols = [c.filter(keep) for c in cols]
        currency = currency.filter(pa.array(keep))
        rows = chunk.rows[keep]
    else:
        rows = chunk.rows

    out = _Out()
    flags: list[pa.Array] = []
    for c in importer.columns:
        col = coded(c.name)
        if col is None:
            out[c.name] = pa.nulls(m, BILL_LINES.field(c.name).type)
        elif c.name in distinct:
            out[c.name] = col.rows(distinct[c.name].values)
        elif (c.convert is F._as_is or c.convert is as_text) and col.distinct and c.name != "tags":
            out.coded[c.name] = col  # written as a dictionary; its rows only if a rule reads them
        elif c.convert is F._as_is or c.convert is as_text:
            out[c.name] = col.rows()
        else:  # a column whose refusal is a flag
            got = V.convert_column(col.values, c.convert, ctx)
            out[c.name] = col.rows(got.values)
            if got.errors is not None:
                flags.append(col.rows(_quoted(got.errors, f"{c.label}: ")))
    out["currency"] = currency
    # 2. flags in the order ``normalise`` writes them
    for name, allowed in F.ALLOWED.items():
        col = coded(name)
        if col is None:
            continue
        v = col.values
        bad = pc.and_(pc.is_valid(v), pc.invert(pc.is_in(v, value_set=pa.array(sorted(allowed)))))
        if V._np(bad).any():
            camel = F._camel(name)
            text = V.per_distinct(v, lambda x, c=camel: V._dumps(f"{c} {x!r} is not a FOCUS 1.0 value"), STR)
            flags.append(col.rows(V.with_nulls(text, pc.invert(bad))))
    for name in F.NOT_NULL:
        if name in plan.at:
            missing = pc.is_null(out[name])
            if V._np(missing).any():
                text = V.const(V._dumps(f"{F._camel(name)} is null"), m)
                flags.append(V.with_nulls(text, pc.invert(missing)))
    tags_col = coded("tags")
    extra_coded = [(h, cols[i], V.json_string(cols[i].values)) for h, i in plan.extra]
    if tags_col is None:
        tags = V.const("{}", m)
    else:
        parsed = V.per_distinct(tags_col.values, _tags, pa.struct([("t", STR), ("n", STR)]))
        tags = tags_col.rows(pc.fill_null(parsed.field("t"), "{}"))
        note = parsed.field("n")
        origin = None  # extra.Tags per distinct value: the text kept beside a note, null for NULL
        if V._np(pc.is_valid(note)).any():
            flags.append(tags_col.rows(V.per_distinct(note, V._dumps, STR)))
            origin = V.with_nulls(V.json_string(tags_col.values), pc.is_null(note))
        if tags_col.null.any():
            origin = pc.if_else(pa.array(tags_col.null), pa.scalar("null"),
                                pa.nulls(len(tags_col.values), STR) if origin is None else origin)
        if origin is not None:
            extra_coded.append(("Tags", tags_col, origin))
    # 3. the rules between columns: those of commitment discounts by column, the others (rare)
    # row by row with ``focus.conformance`` itself
    status = _status_flags(out, m)
    need = _conformance_rows(plan, out, cols)
    if need.any():
        more, fixed = _conformance(plan, out, cols, tags_col, np.flatnonzero(need))
        mask = pa.array(need)
        status = pc.replace_with_mask(status, mask, pa.array(more, STR))
        tags = pc.replace_with_mask(tags, mask, pa.array(fixed, STR))
    flags.append(status)
    out["tags"] = tags
    out["extra"] = _extra(extra_coded, m)
    out["flags"] = V.json_list(flags, m)
    out["source_sha256"] = V.const(ctx.sha256, m)
    out["row"] = pa.array(rows)
    # a converted money column's values are plain decimals already: spelled without a pattern
    spelled = {plan.at[name]: convert.plain_number(got) for name, got in distinct.items()
               if name in _PLAIN_NUMBERS}
    out["row_hash"] = _row_hash(plan, cols, m, spelled)
    arrays = [out.coded[f.name].dictionary() if f.name in out.coded else out[f.name] for f in BILL_LINES]
    schema = pa.schema([pa.field(f.name, a.type, f.nullable) for f, a in zip(BILL_LINES, arrays, strict=True)])
    return pa.RecordBatch.from_arrays(arrays, schema=schema), quarantine, n, chunk.done


class _Out(dict):  # type: ignore[type-arg]
    """The chunk's lake columns by name. A text column kept as it is (``coded``) is written as a
    dictionary of its values (``Coded.dictionary``: the Parquet writer takes it without hashing
    each row again, ``lake/encoding.py``); its rows are spread only when a rule reads them."""

    def __init__(self) -> None:
        super().__init__()
        self.coded: dict[str, V.Coded] = {}

    def __missing__(self, name: str) -> pa.Array:
        if name not in self.coded:
            raise KeyError(name)
        got = self[name] = self.coded[name].rows()
        return got


class _Twins:
    """``vector.convert_column`` of a chunk's columns, and the row-hash spelling of its plain
    numbers, computed once for columns of the same values: a bill's BilledCost, EffectiveCost,
    ListCost and ContractedCost are often one column four times (no discount, no commitment).
    Equal content is checked, never assumed (Arrow compares the buffers)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.done: list[tuple[Any, pa.Array, V.Converted]] = []
        self.spelled: dict[int, pa.Array] = {}

    def __call__(self, values: pa.Array, fn: Any) -> V.Converted:
        for f, v, got in self.done:
            if f is fn and (v is values or v.equals(values)):
                return got
        got = V.convert_column(values, fn, self.ctx)
        self.done.append((fn, values, got))
        return got

    def plain_number(self, got: V.Converted) -> pa.Array:
        key = id(got.values)
        if key not in self.spelled:
            self.spelled[key] = V.canon_plain_number_column(got.values)
        return self.spelled[key]


def _extra(pairs: list[tuple[str, V.Coded, pa.Array]], m: int) -> pa.Array:
    """The ``extra`` JSON object of each row from (name, column, JSON text per distinct value)
    pairs: built once per distinct value and spread when one column makes it (the usual
    bill: one or two unmodelled columns of few values), row by row otherwise."""
    if len(pairs) == 1:
        name, col, text = pairs[0]
        return col.rows(V.json_object([(name, text)], len(text)))
    return V.json_object([(name, col.rows(text)) for name, col, text in pairs], m)


def _quoted(errors: pa.Array, prefix: str) -> pa.Array:
    return V.per_distinct(errors, lambda e: V._dumps(prefix + e), STR)


# A bill's Tags texts repeat from chunk to chunk: each is parsed (and spelled) once per file
# rather than once per chunk. Both functions are pure, and what they return is not changed.
_canon_json_cached = functools.lru_cache(maxsize=1 << 14)(canon_json)


@functools.lru_cache(maxsize=1 << 14)
def _tags(raw: str) -> dict[str, Any]:
    tags, note = F.parse_tags(raw)
    return {"t": dumps(tags), "n": note}


def _refusal(
    importer: F.FocusImporter,
    plan: Plan,
    conv: dict[str, tuple[V.Coded, V.Converted]],
    currency: pa.Array,
    period: tuple[pa.Array, pa.Array],
    ctx: Context,
    chunk: Chunk,
    path: Path,
    i: int,
) -> dict[str, Any]:
    """The quarantine entry of row ``i``: the first reason the per-row path would give."""
    reason = remedy = None
    for c in importer.columns:
        hit = conv.get(c.name)
        if hit is None:
            continue
        col, got = hit
        k = int(col.codes[i])  # the row's value
        error = got.errors[k] if got.errors is not None else None
        if c.needed and got.values[k].as_py() is None and (error is None or not error.is_valid):
            reason, remedy = f"{c.label} is empty", f"fill in {c.label}"
            break
        if error is not None and error.is_valid:
            reason = f"{c.label}: {error.as_py()}"
            remedy = (got.remedies[k].as_py() if got.remedies is not None else None) or c.remedy
            break
    if reason is None and ctx.cfg.currency is None and currency[i].as_py() is None:
        what = "BillingCurrency is empty" if "currency" in plan.at else "no BillingCurrency column"
        reason, remedy = what, F.CURRENCY_REMEDY
    if reason is None:
        start, end = period[0][i].as_py(), period[1][i].as_py()
        reason = f"ChargePeriodEnd {end.isoformat()} is before ChargePeriodStart {start.isoformat()}"
        remedy = "check the row's charge period"
    raw = chunk.raw[i].as_py()
    return {
        "file": str(path),
        "row": int(chunk.rows[i]),
        "line": int(chunk.lines[i]),
        "reason": reason,
        "remedy": remedy,
        "raw": raw.rstrip("\r\n"),
    }


def _status_flags(out: dict[str, pa.Array], m: int) -> pa.Array:
    """The commitment discount flags of ``focus.conformance`` (its first two), as JSON items."""
    status = pc.is_valid(out["commitment_discount_status"])
    no_id = pc.and_(status, pc.is_null(out["commitment_discount_id"]))
    category = out["charge_category"]
    other = pc.and_(status, pc.and_(pc.is_valid(category), pc.not_equal(category, "Usage")))
    if not (V._np(no_id).any() or V._np(other).any()):  # the usual case: no flag in the chunk
        return pa.nulls(m, STR)
    first = V.const(V._dumps("CommitmentDiscountStatus is set but CommitmentDiscountId is null"), m)
    second = V.per_distinct(
        category,
        lambda c: V._dumps(f"CommitmentDiscountStatus is set on a {c} row (only Usage rows have one)"),
        STR,
    )
    joined = V.join_skip(
        [V.with_nulls(first, pc.invert(no_id)), V.with_nulls(second, pc.invert(other))], ",", m
    )
    return V.with_nulls(joined, pc.equal(joined, ""))


def _conformance_rows(plan: Plan, out: dict[str, pa.Array], cols: list[V.Coded]) -> np.ndarray:
    """Rows a rule of ``focus.conformance`` beyond the commitment discount ones can apply to."""
    need = V._np(pc.equal(out["charge_class"], "Correction"))
    for name in _CONFORMANCE_EXTRA:
        i = plan.folded_extra.get(name)
        if i is not None:
            need |= cols[i].mask(~cols[i].null)
    return need


def _conformance(
    plan: Plan,
    out: dict[str, pa.Array],
    cols: list[V.Coded],
    tags_col: V.Coded | None,
    rows: np.ndarray,
) -> tuple[list[str | None], list[str]]:
    """``focus.conformance`` of the given rows: (their flags as JSON items, their tags)."""
    take = pa.array(rows)
    names = (
        "commitment_discount_status",
        "commitment_discount_id",
        "charge_category",
        "charge_class",
        "charge_period_start",
        "billing_period_start",
    )
    values_of = {k: out[k].take(take).to_pylist() for k in names}
    extra_cols = [
        (h, cols[i].values.take(pa.array(cols[i].codes[rows])).to_pylist()) for h, i in plan.extra
    ]
    tag_texts = (
        tags_col.values.take(pa.array(tags_col.codes[rows])).to_pylist()
        if tags_col is not None
        else [None] * len(rows)
    )
    flags: list[str | None] = []
    tags: list[str] = []
    for j in range(len(rows)):
        values = {k: values_of[k][j] for k in names}
        extra = {h: vs[j] for h, vs in extra_cols if vs[j] is not None}
        parsed, _ = F.parse_tags(tag_texts[j])
        got = F.conformance(values, extra, parsed)
        flags.append(",".join(V._dumps(f) for f in got) if got else None)
        tags.append(dumps(parsed))
    return flags, tags


def _row_hash(plan: Plan, cols: list[V.Coded], m: int, known: dict[int, pa.Array]) -> pa.Array:
    """``keys.content_key`` of each row's non-null canonical values, sorted by folded name
    (``known``: the canonical values of some columns, per distinct value, already spelled)."""
    spelled = [(name, cols[i].codes, known[i] if i in known else V.canon_column(cols[i].values, canon))
               for name, i, canon in plan.keyed]
    return hash_rows(spelled, m)


def hash_rows(spelled: list[tuple[str, np.ndarray, pa.Array]], m: int) -> pa.Array:
    """``keys.content_key`` of each of ``m`` rows, given per column (sorted by folded name) its
    folded name, each row's code and, per code, the canonical spelling (null: no value), by
    the version in force: version 3 a column at a time (``rowhash.hash_columns``), version 2
    by ``_hash_rows_v2``."""
    if active_version() == 3:
        return rowhash.hash_columns(spelled, m)
    return _hash_rows_v2(spelled, m)


def _hash_rows_v2(spelled: list[tuple[str, np.ndarray, pa.Array]], m: int) -> pa.Array:
    """Version 2 of ``hash_rows``: each
    value's ``name NUL canon NUL`` is built once per code, the rows' are concatenated by DuckDB
    (from the codes, no string copied per column), and blake2b runs per row over its bytes less
    the last NUL. A row with no value, or a NUL inside one, takes ``content_key`` itself."""
    pieces: dict[str, pa.Array] = {}
    present = np.zeros(m, dtype=np.int64)
    odd = np.zeros(m, dtype=bool)
    for j, (name, codes, canon_v) in enumerate(spelled):
        piece = pc.binary_join_element_wise(pa.scalar(name), canon_v, pa.scalar(""), "\x00")
        pieces[f"p{j}"] = pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), piece)
        present += V._np(pc.is_valid(canon_v))[codes]
        inner = V._np(pc.match_substring(canon_v, "\x00"))
        if inner.any():
            odd |= inner[codes]
    odd |= present == 0  # no value at all, or a NUL inside one: the JSON form of content_key
    joined = V.concat_rows(pa.table(pieces), m)
    b2 = hashlib.blake2b
    keys: list[str] = []
    for chunk in joined.chunks:
        wide = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int64 if wide else np.int32)
        offsets = offsets[chunk.offset : chunk.offset + len(chunk) + 1]
        data = chunk.buffers()[2]
        blob = memoryview(data) if data is not None else memoryview(b"")
        starts, ends = offsets[:-1].tolist(), (offsets[1:] - 1).tolist()
        keys += [b2(blob[a:b], digest_size=16).hexdigest() for a, b in zip(starts, ends, strict=True)]
    for j in np.flatnonzero(odd):
        items: list[str] = []
        for name, codes, canon_v in spelled:
            s = canon_v[int(codes[j])].as_py()
            if s is not None:
                items += [name, s]
        keys[int(j)] = content_key(items)
    return pa.array(keys, STR)


def record_hashes(
    batch: pa.RecordBatch, canon: dict[str, Any], default: Any, nulls: frozenset[str]
) -> list[str] | None:
    """``keys.mapping_key(row, fold=True, canon=canon, default=default)`` of each row of a
    Parquet batch (text in ``nulls`` and nulls left out), a column at a time: text columns as
    the CSV path spells them, typed ones by the spelling function once per distinct value (per
    row for nested types). None when names repeat (a row's dict would lose one)."""
    names = batch.schema.names
    if len(set(names)) != len(names):
        return None
    m = batch.num_rows
    order = sorted(range(len(names)), key=lambda i: (names[i].casefold(), i))
    spelled = []
    for i in order:
        arr, spell = batch.column(i), canon.get(names[i], default)
        if pa.types.is_string(arr.type) or pa.types.is_large_string(arr.type):
            col = V.Coded.of(pc.cast(pc.fill_null(arr, ""), STR), nulls)
            spelled.append((names[i].casefold(), col.codes, V.canon_column(col.values, spell)))
            continue
        try:
            enc = pc.dictionary_encode(arr)
        except (pa.ArrowNotImplementedError, pa.ArrowTypeError):
            per_row = [None if v is None else spell(v) for v in arr.to_pylist()]
            spelled.append((names[i].casefold(), np.arange(m), pa.array(per_row, STR)))
            continue
        values = [spell(v) for v in enc.dictionary.to_pylist()] + [None]  # the last: null
        codes = pc.fill_null(enc.indices, len(values) - 1).to_numpy(zero_copy_only=False)
        spelled.append((names[i].casefold(), codes, pa.array(values, STR)))
    return hash_rows(spelled, m).to_pylist()
