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
``extra`` are the per-row functions' (``keys.mapping_key``, ``base.dumps``) on the same object,
by the row-hash version in force: version 3 a column at a time (``rowhash.hash_columns`` over each
value's item: a text's own characters, any other value 0xFF + its JSON), version 2 (an older lake's
table, ``keys.py``) the NUL-joined or JSON text of each row, digested by blake2b.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest import colrows, coltime, fastlines, rowhash
from trainledger.ingest import vector as V
from trainledger.ingest.base import Context, Record, dumps
from trainledger.ingest.fastcsv import NotFast
from trainledger.ingest.keys import _KEY_JSON, active_version, mapping_key, row_key
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


def _rows(importer: ProgressImporter, block: fastlines.Block, path: Path, ctx: Context) -> Any:
    odd: list[Record] = []  # rows for the importer's own steps, as ``ProgressImporter.parse`` reads them
    nos: list[int] = []  # the JSON objects: their line numbers, lines and values
    lines: list[str] = []
    objs: list[dict[str, Any]] = []
    first = block.line
    every = fastlines.lines_of(block)
    rows = [(first + i, line) for i, line in enumerate(every) if line.strip()]
    flat = [flat_object(line) for _, line in rows]
    joined = _loads_joined([line for (_, line), f in zip(rows, flat, strict=True) if f])
    got = iter(joined) if joined is not None else None
    for (no, line), f in zip(rows, flat, strict=True):
        if got is not None and f:
            obj: Any = next(got)
        else:
            try:
                obj = json_loads(line)
            except ValueError as e:  # bad JSON, nested too deeply, a 5,000-digit integer
                odd.append(Record(no, no, line, row_key(line)[0], {}, None, json_problem(e)))
                continue
        if isinstance(obj, dict):
            nos.append(no)
            lines.append(line)
            objs.append(obj)
        else:
            problem = f"a JSON {type(obj).__name__}, not an object"
            odd.append(Record(no, no, line, row_key(line)[0], {}, None, problem))
    n = len(rows)
    layouts: dict[tuple[str, ...], list[int]] = {}
    for j, o in enumerate(objs):
        layouts.setdefault(tuple(o), []).append(j)
    tables = []
    for names, at in layouts.items():
        group = objs if len(at) == len(objs) else [objs[j] for j in at]
        table, plain = _group(names, group, [nos[j] for j in at], ctx)
        if table is not None:
            tables.append(table)
        odd += [Record(nos[at[j]], nos[at[j]], lines[at[j]], mapping_key(group[j]), group[j])
                for j in np.flatnonzero(~plain).tolist()]
    odd.sort(key=lambda r: r.row)
    rows, entries = colrows.per_row(importer, odd, ctx, path)
    fast = None if not tables else tables[0]
    if len(tables) > 1:  # key layouts interleave: back to file order
        fast = pa.concat_tables(tables)
        fast = fast.take(pc.sort_indices(fast["row"]))
    return colrows.merged(fast, rows, PROGRESS_EVENTS), entries, n, block.done


_JSON_WS = " \t\n\r"


def flat_object(line: str) -> bool:
    """Whether ``line`` is, but for JSON whitespace, ``{`` … ``}`` with no other brace or bracket."""
    text = line.strip(_JSON_WS)
    return (text[:1] == "{" and text[-1:] == "}" and text.count("{") == 1 and text.count("}") == 1
            and "[" not in text and "]" not in text)


def _loads_joined(lines: list[str]) -> list[Any] | None:
    """``json.loads`` of each line, by one ``json.loads`` of the lines joined as a JSON array, or None
    when that fails or does not give one value per line (then each line is read alone). Exact for
    lines ``flat_object`` accepts: each line has its only braces at its ends, so no value can
    span two lines without two lines becoming one value — which the count shows."""
    if not lines:
        return []
    try:
        got = json_loads("[" + ",".join(lines) + "]")
    except ValueError:
        return None
    return got if type(got) is list and len(got) == len(lines) else None


def _typed(vals: list[Any], kinds: set[type], want: tuple[type, ...]) -> np.ndarray:
    """Which values are of the ``want`` types (``type(v) is``: no bool for int)."""
    if kinds <= set(want):
        return np.ones(len(vals), bool)
    if not kinds & set(want):
        return np.zeros(len(vals), bool)
    return np.fromiter((type(v) in want for v in vals), bool, len(vals))


def _group(names: tuple[str, ...], objs: list[dict[str, Any]], nos: list[int], ctx: Context) -> Any:
    """(lake rows of the plain objects among ``objs`` — all with the keys ``names`` in that order —
    or None, which they are). A plain row as the module docstring says."""
    k = len(objs)
    cols = {name: [o[name] for o in objs] for name in names}
    kinds = {name: set(map(type, v)) for name, v in cols.items()}
    nothing = [None] * k
    if not all(name in cols for name in ("ts", "run", "event")):
        return None, np.zeros(k, bool)
    plain = _typed(cols["ts"], kinds["ts"], (str,))
    ts = cols["ts"] if plain.all() else [v if type(v) is str else None for v in cols["ts"]]
    times = coltime.parse(pa.array(ts, STR))
    plain &= times.fast & times.aware
    names_of: dict[str, pa.Array] = {}
    for name in ("run", "event"):
        text = _typed(cols[name], kinds[name], (str,))
        vals = cols[name] if text.all() else [v if type(v) is str else None for v in cols[name]]
        stripped = V.per_distinct(pa.array(vals, STR), str.strip, STR)
        plain &= text & V._np(pc.not_equal(stripped, ""))
        names_of[name] = stripped
    ints: dict[str, pa.Array] = {}
    for name in COUNTS:
        vals = cols.get(name, nothing)
        ok = _typed(vals, kinds.get(name, {NONE}), (int, NONE))
        vals = vals if ok.all() else [v if ok[j] else None for j, v in enumerate(vals)]
        try:
            arr = pa.array(vals, pa.int64())
        except (OverflowError, pa.ArrowException):  # beyond 64 bits: the per-row steps say so
            ok &= np.fromiter((v is None or 0 <= v <= INT64_MAX for v in vals), bool, k)
            arr = pa.array([v if ok[j] else None for j, v in enumerate(vals)], pa.int64())
        plain &= ok & V._np(pc.fill_null(pc.greater_equal(arr, 0), True))
        ints[name] = arr
    secs = cols.get("duration_s", nothing)
    plain &= _typed(secs, kinds.get("duration_s", {NONE}), (int, float, NONE))
    seconds = [None if v is None or not plain[j] else float(v) if type(v) is float or v < (1 << 53) else -1.0
               for j, v in enumerate(secs)]
    duration = pa.array(seconds, pa.float64())
    plain &= V._np(pc.fill_null(pc.and_(pc.greater_equal(duration, 0), pc.is_finite(duration)), True))
    event = names_of["event"]
    for name, need in {n: v for n, v in NEEDS.items() if v}.items():
        is_it = V._np(pc.equal(event, name))
        if is_it.any():
            for field in need:
                vals = cols.get(field, nothing)
                plain &= ~(is_it & np.fromiter((v is None for v in vals), bool, k))
    keep = np.flatnonzero(plain)
    if not len(keep):
        return None, plain
    take = pa.array(keep)
    kept = [objs[j] for j in keep.tolist()] if len(keep) < k else objs
    extra, row_hash = _texts([n for n in names], kept)
    event = event.take(take)
    out = {
        "ts": coltime.to_array(times.micros[keep], np.ones(len(keep), bool)),
        "run": names_of["run"].take(take),
        "event": event,
        **{name: ints[name].take(take) for name in COUNTS},
        "duration_s": duration.take(take),
        "extra": extra,
        "flags": V.per_distinct(event, lambda e: "[]" if e in NEEDS else dumps([f"unknown event {e!r}"]), STR),
        "source_sha256": pa.array([ctx.sha256] * len(keep), STR),
        "row": pa.array(np.array(nos, np.int64)[keep]),
        "row_hash": row_hash,
    }
    return pa.table([out[f.name] for f in PROGRESS_EVENTS], schema=PROGRESS_EVENTS), plain


def _texts(names: list[str], objs: list[dict[str, Any]]) -> tuple[pa.Array, pa.Array]:
    """(``extra``, row hash) of each object (all with the keys ``names``), as ``normalise``
    (``base.dumps`` of the keys it does not model, in their order) and ``keys.mapping_key`` write
    them: each value's JSON text is written once per column, the rows' texts joined by Arrow."""
    k = len(objs)
    texts: dict[str, pa.Array] = {}
    strs: dict[str, pa.Array | None] = {}
    for name in names:
        texts[name], strs[name] = _json_texts([o[name] for o in objs])
    extra = V.json_object([(name, pc.fill_null(texts[name], "null")) for name in names if name not in KNOWN], k)
    if active_version() == 3:
        return extra, _keys_v3(sorted(names), texts, strs, k)
    return extra, _keys(sorted(names), texts, strs, k)


BIN = pa.binary()
_MARK = pa.scalar(rowhash.JSON_MARK, BIN)
_EMPTY = pa.scalar(b"", BIN)


def _keys_v3(names: list[str], texts: dict[str, pa.Array], strs: dict[str, pa.Array | None], k: int) -> pa.Array:
    """``keys.content_key`` (version 3, ``rowhash.content_key_v3``) of each row's non-null items
    sorted by name, a column at a time: each row's item of a column is its text value's own
    characters, else 0xFF and its JSON (``rowhash.item_bytes``); a null is no item."""
    codes = np.arange(k, dtype=np.int64)
    spelled = []
    for name in names:
        item = pc.binary_join_element_wise(_MARK, texts[name].cast(BIN), _EMPTY)  # 0xFF + JSON, null stays null
        s = strs[name]
        if s is not None:
            item = pc.if_else(pc.is_valid(s), s.cast(BIN), item)
        spelled.append((name, codes, item))
    return rowhash.hash_columns(spelled, k)


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
