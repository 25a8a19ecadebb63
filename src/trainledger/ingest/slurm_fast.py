"""``import slurm`` of ``sacct --parsable2`` output a block at a time: the per-row path's rows,
quarantine and row hashes (``SlurmImporter.parse`` / ``validate`` / ``normalise``), at a fraction
of the cost.

    fastlines.blocks ─► lines split at ``|`` by Arrow (sacct quotes nothing: ``QUOTE_NONE``)
                     ─► each job's attempts and steps numbered, an allocation told its steps'
                        GPU type — one pass in file order, as ``SlurmImporter.parse`` does
                     ─► plain rows: every column once per distinct value (hostlists, AllocTRES,
                        Comment tags, states) or by numpy (times, ``coltime``), the row hash by
                        ``focus_fast.hash_rows``
                     ─► any other row (the wrong width, a value refused, a time that is not
                        plain — DST, an offset, Unknown is plain), ``colrows.per_row``: the
                        importer's own steps on the same ``Record``
                     ─► one Arrow batch of jobs per block, rows in file order

An allocation and the steps after it are read in one block (the lines from the block's last
allocation on wait for the next one). A header the per-row reader reads otherwise (blank lines
before it, ``--parsable``'s trailing ``|``, a missing column) gives the file back (``NotFast``).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from trainledger.ingest import colrows, coltime, fastlines
from trainledger.ingest import slurm as S
from trainledger.ingest import vector as V
from trainledger.ingest.base import Context, Record, dumps
from trainledger.ingest.delimited import FIELD_LIMIT, resolve_header
from trainledger.ingest.fastcsv import NotFast
from trainledger.ingest.focus_fast import hash_rows
from trainledger.ingest.keys import canon_for, canon_number, canon_time_local, row_key
from trainledger.lake.schemas import JOBS

STR = pa.string()
TIMES = ("submit", "eligible", "start", "end")
TEXTS = ("job_name", "account", "wckey", "comment", "user", "exit_code", "alloc_tres")
ADDED = ("step", "attempt", "gpu_type_from_steps", "cancelled_by")  # what parse / normalise add to extra
_NAIVE_T = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$"  # canon_time_local keeps it


class Plan:
    """The header: which field feeds which column, the unmodelled ones, the row-hash order."""

    def __init__(self, importer: S.SlurmImporter, line: str) -> None:
        fields = line.rstrip("\r\n").split("|")
        if not any(h.strip() for h in fields):
            raise NotFast("a blank first line")
        header = [h.strip() for h in fields]
        if header[-1] == "" or len(header) < 2:  # `sacct --parsable` ends lines with '|'
            raise NotFast("the header ends with the delimiter")
        try:
            plan, missing = resolve_header(header, importer.columns, importer.require_any)
        except ValueError:
            raise NotFast("the per-row path reports the header") from None
        if missing:
            raise NotFast("the per-row path reports the header")
        self.width = len(header)
        self.at = dict(plan)
        used = set(self.at.values())
        self.extra = [(header[i], i) for i in range(self.width) if i not in used]
        if any(h in ADDED for h, _ in self.extra):
            raise NotFast("an unmodelled column named like what the reader adds to extra")
        by_name = {c.name: c for c in importer.columns}
        canon: dict[int, Any] = {i: "loose" for i in range(self.width) if i not in used}
        canon.update({i: canon_for(by_name[name]) for name, i in plan})
        self.keyed = sorted((h.casefold(), i, canon[i]) for i, h in enumerate(header))


class State:
    """What the pass in file order carries from block to block."""

    def __init__(self) -> None:
        self.starts: dict[tuple[str, str], list[str]] = {}  # each job's allocations' Start texts
        self.row = 1  # the next row's number
        self.carry = b""  # lines waiting for the next block (an allocation and its steps so far)
        self.line = 2  # the physical line of the carried bytes


def batches(importer: S.SlurmImporter, path: Path, ctx: Context) -> Iterator[Any]:
    """(lake batch, quarantine entries, rows read, bytes read) per block (one block read ahead:
    the last one reads its waiting lines to the end)."""
    plan: Plan | None = None
    st = State()
    pending: fastlines.Block | None = None
    for block in fastlines.blocks(path, ctx.watch):
        if pending is not None:
            plan = plan or _plan(importer, pending)
            yield _next(importer, plan, st, pending, path, ctx, final=False)
        pending = block
    if pending is not None:
        plan = plan or _plan(importer, pending)
        yield _next(importer, plan, st, pending, path, ctx, final=True)


def _plan(importer: S.SlurmImporter, block: fastlines.Block) -> Plan:
    end = block.data.find(b"\n") + 1 or len(block.data)
    return Plan(importer, block.data[:end].decode("utf-8"))


def _next(importer: S.SlurmImporter, plan: Plan, st: State, block: fastlines.Block, path: Path, ctx: Context,
          final: bool) -> Any:
    data, line = block.data, block.line
    if line == 1:  # the header
        end = data.find(b"\n") + 1 or len(data)
        data, line = data[end:], 2
    if st.carry:
        data, line = st.carry + data, st.line
    return _block(importer, plan, st, data, line, block.done, path, ctx, final)


def _lines(data: bytes) -> tuple[pa.Array, np.ndarray]:
    """Each line of ``data`` with its end (large_string), and the byte offset of each."""
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == 10) + 1
    if not len(ends) or ends[-1] != len(data):
        ends = np.append(ends, len(data))
    offsets = np.concatenate(([0], ends)).astype(np.int64)
    if len(offsets) > 1 and int(np.diff(offsets).max()) > FIELD_LIMIT:
        raise NotFast("a line longer than the per-row reader's field limit")
    text = pa.LargeStringArray.from_buffers(len(ends), pa.py_buffer(offsets), pa.py_buffer(data))
    return text, offsets


def _block(
    importer: S.SlurmImporter, plan: Plan, st: State, data: bytes, line: int, done: int, path: Path,
    ctx: Context, final: bool,
) -> Any:
    if not data:
        st.carry = b""
        return None, [], 0, done
    text, offsets = _lines(data)
    content = pc.utf8_rtrim(text, characters="\r\n").cast(STR)
    lines = text.to_pylist()
    blank = np.asarray(pc.equal(content, "").to_numpy(zero_copy_only=False), dtype=bool)
    no_bar = ~np.asarray(pc.match_substring(content, "|").to_numpy(zero_copy_only=False), dtype=bool)
    for j in np.flatnonzero(no_bar & ~blank):  # a whitespace-only line is no row either
        blank[j] = not lines[j].strip()
    rows_at = np.flatnonzero(~blank)  # line indices of the rows
    parts = pc.split_pattern(content.filter(pa.array(~blank)), "|")
    width = pc.list_value_length(parts).to_numpy(zero_copy_only=False)
    good = width == plan.width
    fields = parts.filter(pa.array(good))
    cols = [pc.list_element(fields, k) for k in range(plan.width)] if good.any() else []
    # the pass in file order: attempts, steps, held groups; and where the next block starts
    def col(name: str) -> list[Any] | None:
        i = plan.at.get(name)
        return None if i is None else cols[i].to_pylist() if cols else []

    jobs, clusters, start_texts = col("job_id") or [], col("cluster"), col("start")
    gtype = _gpu_types(cols[plan.at["alloc_tres"]]) if cols and "alloc_tres" in plan.at else []
    n_rows = len(rows_at)
    good_at = np.flatnonzero(good)  # row index → position among the good rows
    cut = n_rows
    if not final:  # the last allocation and what follows it wait for the next block
        for r in range(n_rows - 1, -1, -1):
            if good[r]:
                g = int(np.searchsorted(good_at, r))
                if jobs[g] and "." not in jobs[g].strip():
                    cut = r
                    break
    if cut < n_rows:
        at = int(offsets[rows_at[cut]])
        st.carry, st.line = data[at:], line + int(rows_at[cut])
    else:
        st.carry = b""
    extra_add = _sequence(st, good[:cut], jobs, clusters, start_texts, gtype)
    first_row = st.row
    st.row += cut
    n_good = int(good[:cut].sum())
    cols = [c.slice(0, n_good) for c in cols]
    return _rows(importer, plan, cols, extra_add, good[:cut], rows_at[:cut], lines, line, first_row, path, ctx,
                 done)


def _gpu_types(arr: pa.Array) -> list[str | None]:
    def one(v: str) -> str | None:
        try:
            return S.gpus_of(S.parse_tres(v or ""))[1]
        except ValueError:
            return None

    return V.per_distinct(arr, one, STR).to_pylist()


def _sequence(
    st: State, good: np.ndarray, jobs: list[Any], clusters: list[Any] | None, starts: list[Any] | None,
    gtype: list[str | None],
) -> dict[str, list[Any]]:
    """``SlurmImporter.parse``'s numbering, in file order, for the good rows: ``extra``'s step,
    attempt and gpu_type_from_steps (None: not set)."""
    n = int(good.sum())
    step: list[Any] = [None] * n
    attempt: list[Any] = [None] * n
    from_steps: list[Any] = [None] * n
    held: list[int] = []

    def flush() -> None:
        if len(held) > 1 and not gtype[held[0]]:
            types = {gtype[s] for s in held[1:] if gtype[s]}
            if len(types) == 1:
                from_steps[held[0]] = types.pop()

    g = 0
    for ok in good.tolist():
        if not ok:  # a row of the wrong width: parse yields it alone
            flush()
            held = []
            continue
        raw = jobs[g]
        if raw:
            cluster = (clusters[g] or "").strip() if clusters is not None else ""
            job, dot, name = raw.strip().partition(".")
            seen = st.starts.setdefault((cluster, job), [])
            if dot:
                step[g] = name
                if seen:
                    attempt[g] = len(seen)
            else:
                start = ((starts[g] if starts is not None else None) or "").strip()
                if start not in seen:
                    seen.append(start)
                attempt[g] = seen.index(start) + 1
            if dot and held and _same_job(held[0], cluster, job, jobs, clusters):
                held.append(g)
                g += 1
                continue
            flush()
            held = [] if dot else [g]
        else:
            flush()
            held = []
        g += 1
    flush()
    return {"step": step, "attempt": attempt, "gpu_type_from_steps": from_steps}


def _same_job(h: int, cluster: str, job: str, jobs: list[Any], clusters: list[Any] | None) -> bool:
    own = (clusters[h] or "").strip() if clusters is not None else ""
    return (own, jobs[h].strip()) == (cluster, job)


def _rows(
    importer: S.SlurmImporter, plan: Plan, cols: list[pa.Array], added: dict[str, list[Any]], good: np.ndarray,
    rows_at: np.ndarray, lines: list[str], line: int, first_row: int, path: Path, ctx: Context, done: int,
) -> Any:
    n = len(good)
    m = int(good.sum())
    odd: list[Record] = []
    for r in np.flatnonzero(~good).tolist():  # the wrong width: quarantined by validate
        raw = lines[rows_at[r]]
        fields, width = raw.rstrip("\r\n").split("|"), plan.width
        problem = f"has {len(fields)} fields, the header has {width}"  # as read_delimited says it
        remedy = importer.width_remedy if len(fields) > width else importer.short_remedy
        odd.append(Record(first_row + r, line + int(rows_at[r]), raw, row_key(raw)[0], {}, None, problem, remedy))
    table = None
    if m:
        coded = [V.Coded.of(c, importer.nulls) for c in cols]
        keys = _row_hash(plan, coded, m)
        plain, table = _plain(importer, plan, coded, added, m, ctx, keys, good, first_row)
        good_rows = np.flatnonzero(good)
        texts = [c.to_pylist() for c in cols] if not plain.all() else []
        for g in np.flatnonzero(~plain).tolist():
            r = int(good_rows[g])
            fields = [t[g] for t in texts]
            values = {name: (None if fields[i] == "" else fields[i]) for name, i in plan.at.items()}
            extra = {h: fields[i] for h, i in plan.extra if fields[i] != ""}
            for k in ("step", "attempt"):
                if added[k][g] is not None:
                    extra[k] = added[k][g]
            if added["gpu_type_from_steps"][g] is not None:
                extra["gpu_type_from_steps"] = added["gpu_type_from_steps"][g]
            raw = lines[rows_at[r]]
            odd.append(Record(first_row + r, line + int(rows_at[r]), raw, keys[g].as_py(), values, extra))
    odd.sort(key=lambda rec: rec.row)
    rows, entries = colrows.per_row(importer, odd, ctx, path)
    return colrows.merged(table, rows, JOBS), entries, n, done


def _row_hash(plan: Plan, coded: list[V.Coded], m: int) -> pa.Array:
    spelled = []
    for name, i, canon in plan.keyed:
        values = coded[i].values
        if canon == "loose":
            spelt = V.canon_loose_local_column(values)
        elif canon is canon_time_local:
            kept = V._np(pc.match_substring_regex(values, _NAIVE_T)) | ~V._np(pc.is_valid(values))
            spelt = V.patch(values, ~kept, values, canon_time_local, STR)
        elif canon is canon_number:
            spelt = V.canon_column(values, canon_number)
        elif canon is None:
            spelt = values
        else:  # pragma: no cover - the slurm columns use the spellings above
            spelt = V.per_distinct(values, canon, STR)
        spelled.append((name, coded[i].codes, spelt))
    return hash_rows(spelled, m)


class _Col:
    """One column converted per distinct value: the value, and which values make a row odd."""

    def __init__(self, coded: V.Coded | None, fn: Any, type_: pa.DataType, default: Any, null_odd: bool) -> None:
        self.coded = coded
        if coded is None:
            self.values, self.bad = None, np.zeros(0, bool)
            self.default, self.type = default, type_
            return
        out: list[Any] = []
        bad: list[bool] = []
        for v in coded.values.to_pylist():
            if v is None:
                out.append(default)
                bad.append(null_odd)
                continue
            try:
                got = fn(v)
            except (ValueError, TypeError, ArithmeticError):
                out.append(default)
                bad.append(True)
                continue
            out.append(default if got is None else got)
            bad.append(got is None and null_odd)
        self.values = pa.array(out, type_)
        self.bad = np.array(bad, bool)
        self.default, self.type = default, type_

    def odd(self, m: int) -> np.ndarray:
        return np.zeros(m, bool) if self.coded is None else self.coded.mask(self.bad)


def _plain(
    importer: S.SlurmImporter, plan: Plan, coded: list[V.Coded], added: dict[str, list[Any]], m: int, ctx: Context,
    keys: pa.Array, good: np.ndarray, first_row: int,
) -> tuple[np.ndarray, pa.Table | None]:
    """Which good rows are plain, and their lake rows."""
    def c(name: str) -> V.Coded | None:
        i = plan.at.get(name)
        return None if i is None else coded[i]

    tz = ctx.cfg
    strip = _Col(c("job_id"), lambda v: v.strip() or None, STR, None, True)
    cluster = _Col(c("cluster"), lambda v: v.strip() or None, STR, "", False)
    raw_id = _Col(c("job_id_raw"), lambda v: v.strip() or None, STR, "", False)
    state = _Col(c("state"), lambda v: S.first_word(v, ctx), STR, None, True)
    nodes = _Col(c("nodes"), lambda v: S.node_names(v, ctx), STR, "", False)
    restarts = _Col(c("restarts"), lambda v: S.nonneg_integer(v), pa.int64(), 0, False)
    odd = strip.odd(m) | cluster.odd(m) | raw_id.odd(m) | state.odd(m) | nodes.odd(m) | restarts.odd(m)
    times: dict[str, pa.Array] = {}
    for name in TIMES:
        col = c(name)
        if col is None:
            times[name] = pa.nulls(m, coltime.TS)
            continue
        values, bad = _times(col.values, tz)
        odd |= col.mask(bad)
        times[name] = col.rows(values)
    tres_col = c("alloc_tres")
    tres = V.per_distinct(tres_col.values, _tres, pa.struct([("n", pa.int64()), ("t", STR), ("f", STR)])) \
        if tres_col is not None else None
    if tres_col is not None:
        odd |= tres_col.mask(~V._np(pc.is_valid(tres.field("n"))) & V._np(pc.is_valid(tres_col.values)))
    start, end = times["start"], times["end"]
    odd |= V._np(pc.less(end, start))
    plain = ~odd
    if not plain.any():
        return plain, None
    keep = np.flatnonzero(plain)
    k = len(keep)
    coded = [x.filter(plain) for x in coded]
    take = pa.array(keep)

    def rows(col: _Col) -> pa.Array:
        if col.coded is None:
            return pa.array([col.default] * k, col.type)
        return col.coded.filter(plain).rows(col.values)

    def c2(name: str) -> V.Coded | None:
        i = plan.at.get(name)
        return None if i is None else coded[i]

    out: dict[str, pa.Array] = {}
    for name in TEXTS:
        col = c2(name)
        out[name] = pa.array([""] * k, STR) if col is None else pc.fill_null(col.rows(), "")
    job_id = rows(strip)
    out.update(cluster=rows(cluster), job_id=job_id, job_id_raw=rows(raw_id), state=rows(state), nodes=rows(nodes),
               restarts=rows(restarts))
    for name in TIMES:
        out[name] = times[name].take(take)
    null_tres = (0, None, None)
    if tres_col is None:
        gpus, gtype, gnotes = (pa.array([v] * k, t) for v, t in zip(null_tres, (pa.int64(), STR, STR), strict=True))
    else:
        tc = c2("alloc_tres")
        empty = _tres("")
        filled = [pc.fill_null(tres.field(f), e) if e is not None else tres.field(f)
                  for f, e in zip("ntf", (empty["n"], None, None), strict=True)]
        gpus, gtype, gnotes = (tc.rows(x) for x in filled)
    from_steps = [added["gpu_type_from_steps"][j] for j in keep.tolist()]
    flags: list[pa.Array] = [gnotes]
    if any(f is not None for f in from_steps):
        gt, gp = gtype.to_pylist(), gpus.to_pylist()
        note: list[str | None] = [None] * k
        for j, f in enumerate(from_steps):
            if f and gt[j] is None and gp[j]:
                gt[j] = f
                note[j] = V._dumps(f"GPU type {f} from the job's steps (its AllocTRES names none)")
        gtype = pa.array(gt, STR)
        flags.append(pa.array(note, STR))
    s_, sub = out["start"], out["submit"]
    before = pc.fill_null(pc.less(s_, sub), False)
    flags.append(V.with_nulls(pa.array([V._dumps("Start is before Submit")] * k, STR), pc.invert(before)))
    st_flag = V.per_distinct(out["state"], lambda v: None if v in S.STATES
                             else V._dumps(f"State {v!r} is not a known Slurm state"), STR)
    flags.append(st_flag)
    tags = V.per_distinct(out["comment"], _tags, pa.struct([("t", STR), ("f", STR)]))
    flags.append(tags.field("f"))
    out["gpus"], out["gpu_type"], out["tags"] = gpus, gtype, tags.field("t")
    out["is_step"] = V.per_distinct(job_id, lambda v: "." in v, pa.bool_())
    pairs = [(h, V.json_string(coded[i].rows())) for h, i in plan.extra]
    for name in ("step", "attempt", "gpu_type_from_steps"):
        vals = [added[name][j] for j in keep.tolist()]
        if any(v is not None for v in vals):
            arr = pa.array([None if v is None else str(v) for v in vals], STR)
            pairs.append((name, arr if name == "attempt" else V.json_string(arr)))
    state_raw = c2("state")
    if state_raw is not None:
        by = V.per_distinct(state_raw.values, _cancelled_by, STR)
        pairs.append(("cancelled_by", state_raw.rows(V.json_string(by))))
    out["extra"] = V.json_object(pairs, k)
    out["flags"] = V.json_list(flags, k)
    out["gpu_share"] = pa.nulls(k, STR)
    out["source_sha256"] = pa.array([ctx.sha256] * k, STR)
    good_rows = np.flatnonzero(good)
    out["row"] = pa.array(first_row + good_rows[keep], pa.int64())
    out["row_hash"] = keys.take(take)
    return plain, pa.table([out[f.name] for f in JOBS], schema=JOBS)


def _times(values: pa.Array, tz: Any) -> tuple[pa.Array, np.ndarray]:
    """``slurm_time`` of each distinct value (UTC; null for none) and which make a row odd:
    a value of no plain shape that is no ``Unknown`` / ``None`` word (the per-row steps read it)."""
    t = coltime.parse(values)
    micros, fast = coltime.local_to_utc(t, tz)
    valid = V._np(pc.is_valid(values))
    bad = valid & ~fast
    if bad.any():
        for j in np.flatnonzero(bad).tolist():
            if values[j].as_py().strip() in S.NO_TIME:
                bad[j] = False
    return coltime.to_array(micros, fast), bad


def _tres(v: str) -> dict[str, Any]:
    try:
        gpus, gpu_type, notes = S.gpus_of(S.parse_tres(v))
    except ValueError:
        return {"n": None, "t": None, "f": None}
    if not 0 <= gpus < (1 << 63):  # beyond the lake's int64: the per-row steps (and the driver) say so
        return {"n": None, "t": None, "f": None}
    return {"n": gpus, "t": gpu_type, "f": ",".join(V._dumps(x) for x in notes) or None}


def _tags(v: str) -> dict[str, Any]:
    tags, notes = S.comment_tags(v)
    return {"t": dumps(tags), "f": ",".join(V._dumps(x) for x in notes) or None}


def _cancelled_by(v: str) -> str | None:
    said = v.split()
    return said[2] if len(said) >= 3 and said[1] == "by" else None
