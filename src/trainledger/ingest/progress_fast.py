"""``import progress`` of a JSONL file a block at a time: the per-row path's rows, quarantine and
row hashes (``ProgressImporter.parse`` / ``validate`` / ``normalise``), at a fraction of the cost.

    fastlines.blocks ─► json.loads per line (Python's own JSON: the same objects, the same errors)
                     ─► plain rows: the columns by Arrow / numpy — ``ts`` (``coltime``), run and
                        event (once per distinct value), counts and seconds as typed
                     ─► any other row (bad JSON, a missing field, a value of another type or
                        shape): ``colrows.per_row``, the importer's own steps
                     ─► one Arrow batch of progress_events per block, rows in file order

A plain row is a JSON object whose ``ts`` is text of the plain ISO shape with its offset, whose
``run`` and ``event`` are non-blank text, whose ``step`` / ``tokens`` / ``samples`` are absent,
null or JSON integers in 0 … 2**63-1, whose ``duration_s`` is absent, null, or a finite number
>= 0 (an integer below 2**53), and whose known event has the fields it needs. The row hash and
``extra`` are the per-row functions' (``keys.mapping_key``, ``base.dumps``) on the same object.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest import colrows, coltime, fastlines
from trainledger.ingest import vector as V
from trainledger.ingest.base import Context, Record, dumps
from trainledger.ingest.fastcsv import NotFast
from trainledger.ingest.keys import _KEY_JSON, mapping_key, row_key
from trainledger.ingest.progress import KNOWN, NEEDS, ProgressImporter
from trainledger.ingest.text import json_loads, json_problem
from trainledger.lake.schemas import PROGRESS_EVENTS

STR = pa.string()
INT64_MAX = (1 << 63) - 1
COUNTS = ("step", "tokens", "samples")
NONE = type(None)


def batches(importer: ProgressImporter, path: Path, ctx: Context) -> Iterator[Any]:
    """(lake batch, quarantine entries, rows read, bytes read) per block."""
    for block in fastlines.blocks(path, ctx.watch):
        yield _rows(importer, block, path, ctx)


def _count(v: Any) -> bool:
    return v is None or (type(v) is int and 0 <= v <= INT64_MAX)


def _secs(v: Any) -> bool:
    if v is None:
        return True
    if type(v) is float:
        return v >= 0 and math.isfinite(v)
    return type(v) is int and 0 <= v < (1 << 53)


def _plain_name(v: Any) -> bool:
    return type(v) is str and bool(v.strip())


def _rows(importer: ProgressImporter, block: fastlines.Block, path: Path, ctx: Context) -> Any:
    odd: list[Record] = []  # rows for the importer's own steps, as ``ProgressImporter.parse`` reads them
    nos: list[int] = []  # the rows that may be plain: their line numbers, lines and objects
    lines: list[str] = []
    objs: list[dict[str, Any]] = []
    n = 0
    for i, line in enumerate(fastlines.lines_of(block)):
        if not line.strip():
            continue
        n += 1
        no = block.line + i
        try:
            obj = json_loads(line)
        except ValueError as e:  # bad JSON, nested too deeply, a 5,000-digit integer
            odd.append(Record(no, no, line, row_key(line)[0], {}, None, json_problem(e)))
            continue
        if not isinstance(obj, dict):
            problem = f"a JSON {type(obj).__name__}, not an object"
            odd.append(Record(no, no, line, row_key(line)[0], {}, None, problem))
        elif _candidate(obj):
            nos.append(no)
            lines.append(line)
            objs.append(obj)
        else:
            odd.append(Record(no, no, line, mapping_key(obj), obj))
    table, plain = _plain(objs, nos, ctx)
    odd += [Record(nos[j], nos[j], lines[j], mapping_key(objs[j]), objs[j]) for j in np.flatnonzero(~plain)]
    odd.sort(key=lambda r: r.row)
    rows, entries = colrows.per_row(importer, odd, ctx, path)
    return colrows.merged(table, rows, PROGRESS_EVENTS), entries, n, block.done


def _candidate(obj: dict[str, Any]) -> bool:
    get = obj.get
    return (type(get("ts")) is str and _plain_name(get("run")) and _plain_name(get("event"))
            and _count(get("step")) and _count(get("tokens")) and _count(get("samples"))
            and _secs(get("duration_s")))


def _plain(objs: list[dict[str, Any]], nos: list[int], ctx: Context) -> tuple[pa.Table | None, np.ndarray]:
    """The lake rows of the plain ones among the candidates ``objs``, and which they are."""
    m = len(objs)
    if not m:
        return None, np.zeros(0, bool)
    times = coltime.parse(pa.array([o["ts"] for o in objs], STR))
    plain = times.fast & times.aware
    event = V.per_distinct(pa.array([o["event"] for o in objs], STR), str.strip, STR)
    events = event.to_pylist()
    plain &= np.fromiter(
        (all(o.get(k) is not None for k in NEEDS.get(e, ())) for o, e in zip(objs, events, strict=True)),
        bool, m,
    )
    keep = np.flatnonzero(plain)
    if not len(keep):
        return None, plain
    objs = [objs[j] for j in keep]
    take = pa.array(keep)
    flags = V.per_distinct(
        event.take(take), lambda e: "[]" if e in NEEDS else dumps([f"unknown event {e!r}"]), STR
    )
    run = V.per_distinct(pa.array([o["run"] for o in objs], STR), str.strip, STR)
    extra, row_hash = _texts(objs)
    cols = {
        "ts": coltime.to_array(times.micros[keep], np.ones(len(keep), bool)),
        "run": run,
        "event": event.take(take),
        **{k: pa.array([o.get(k) for o in objs], pa.int64()) for k in COUNTS},
        "duration_s": pa.array([None if (v := o.get("duration_s")) is None else float(v) for o in objs],
                               pa.float64()),
        "extra": extra,
        "flags": flags,
        "source_sha256": pa.array([ctx.sha256] * len(keep), STR),
        "row": pa.array([nos[j] for j in keep], pa.int64()),
        "row_hash": row_hash,
    }
    return pa.table([cols[f.name] for f in PROGRESS_EVENTS], schema=PROGRESS_EVENTS), plain


def _texts(objs: list[dict[str, Any]]) -> tuple[pa.Array, pa.Array]:
    """(``extra``, row hash) of each object, as ``normalise`` (``base.dumps`` of the keys it does
    not model, in their order) and ``keys.mapping_key`` write them: each value's JSON text is
    written once per column of a key layout, the rows' texts are joined by Arrow."""
    m = len(objs)
    layouts: dict[tuple[str, ...], list[int]] = {}
    for j, o in enumerate(objs):
        layouts.setdefault(tuple(o), []).append(j)
    extra_parts, key_parts, order = [], [], []
    for names, rows in layouts.items():
        group = objs if len(rows) == m else [objs[j] for j in rows]
        k = len(group)
        texts: dict[str, pa.Array] = {}
        strs: dict[str, pa.Array | None] = {}
        for name in names:
            vals = [o[name] for o in group]
            texts[name], strs[name] = _json_texts(vals)
        extra_parts.append(V.json_object(
            [(name, pc.fill_null(texts[name], "null")) for name in names if name not in KNOWN], k))
        key_parts.append(_keys(sorted(names), texts, strs, k))
        order.extend(rows)
    extra = pa.concat_arrays(extra_parts)
    keys = pa.concat_arrays(key_parts)
    if len(layouts) > 1:
        back = pa.array(np.argsort(np.array(order), kind="stable"))
        extra, keys = extra.take(back), keys.take(back)
    return extra, keys


def _json_texts(vals: list[Any]) -> tuple[pa.Array, pa.Array | None]:
    """(JSON text of each value as ``keys._KEY_JSON`` writes it, null for a null; the text
    itself where every value is text or null, else None)."""
    kinds = set(map(type, vals))
    if kinds <= {str, NONE}:
        arr = _strings(vals)
        return V.json_string(arr), arr
    if kinds <= {int, NONE}:
        return pa.array([None if v is None else int.__repr__(v) for v in vals], STR), None
    if kinds <= {float, NONE} and all(v is None or math.isfinite(v) for v in vals):
        return pa.array([None if v is None else float.__repr__(v) for v in vals], STR), None
    texts = [None if v is None else _KEY_JSON(v) for v in vals]
    strs = [v if type(v) is str else None for v in vals]
    return _strings(texts), _strings(strs)


def _strings(vals: list[Any]) -> pa.Array:
    try:
        return pa.array(vals, STR)
    except (pa.ArrowException, UnicodeError):  # a lone surrogate (a "\ud800" escape): per row
        raise NotFast("text Arrow cannot hold") from None


def _keys(names: list[str], texts: dict[str, pa.Array], strs: dict[str, pa.Array | None], k: int) -> pa.Array:
    """``keys.content_key`` of each row's non-null items sorted by name: NUL-joined when every
    value is text without a NUL, else ``\x01`` and the items' JSON list (as ``content_key``)."""
    all_text = np.ones(k, bool)
    present = np.zeros(k, np.int64)
    for name in names:
        valid = V._np(pc.is_valid(texts[name]))
        present += valid
        s = strs[name]
        if s is None:
            all_text &= ~valid
        else:
            all_text &= ~valid | (V._np(pc.is_valid(s)) & ~V._np(pc.match_substring(s, "\x00")))
    all_text &= present > 0
    nul = V.join_skip([pc.binary_join_element_wise(name, strs[name], "\x00") if strs[name] is not None
                       else pa.nulls(k, STR) for name in names], "\x00", k)
    js = V.join_skip([pc.binary_join_element_wise(_KEY_JSON(name), texts[name], ",") for name in names], ",", k)
    js = pc.binary_join_element_wise("\x01[", js, "]", "")
    text = pc.if_else(pa.array(all_text), nul, js)
    return pa.array(colrows.hashes(text), STR)
