"""The bill stage on a frame backend: the same cost lines and problems as ``compute.bill_stage``.

``bill_stage_on(backend)`` is a stage with the engine's one signature ``(facts, ctx) -> StageOutput``.
The backend (``connect``: DuckDB in-process, or pyspark local mode) routes every bill row and
splits every node row in integers (``split.py``); this module turns its integer rows into cost
lines with the Python engine's own constructors (``compute._line``), so each line carries the
same source file, row, rule, reason, evidence and amount, and its GPU-hours are rebuilt from the
integers with the same decimal digits (``_weight``). Lines come out in the Python engine's order:
bill row by bill row, the billed view then the effective-cost one, the (run, state) pieces sorted, the
rest no job held last. A node row that touches a run the frame cannot weigh exactly
(``holdings.exact``), and a credit on a node (its share of time no job held is a line of its own),
is split by ``compute.node_split`` itself; a row the backend routes ``no_rule_matched`` that is on a
billed node no job ran on (``capacity_nodes.idle_nodes``, the same function on the same columns) is
made by ``capacity_nodes.idle_node_split``, as the Python engine makes it. The backend's split result (some
25M pieces at 10M bill rows) is never held whole: it is read back in bill-row order a chunk of
``CHUNK`` bill rows at a time (``Pieces``), and each chunk's lines are final before the next.
"""

from __future__ import annotations

import shutil
import uuid
import warnings
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from trainledger.engine import capacity_nodes, compute, node_map
from trainledger.engine.context import CHUNK, Context, Facts, Problem, StageOutput, rows_of
from trainledger.engine.frame import columns as columns_mod
from trainledger.engine.frame import split
from trainledger.engine.frame.holdings import EPOCH, holdings_table, micros
from trainledger.errors import ConfigError
from trainledger.model import Basis, Evidence, Provenance
from trainledger.model.evidence import weakest
from trainledger.model.money import EXACT, check_currency
from trainledger.model.vocab import ComputeState

BACKENDS = ("python", "duckdb", "spark")
PIECE = ("idx", "view", "is_idle", "run_id", "state", "scale", "exp", "units", "W")  # what frame/columns.py reads
HOUR = compute.HOUR
# what a node row split here reads of its bill row (``_node_row``): the rest of the row is never made
NODE_COLUMNS = ("billed_cost", "effective_cost", "currency", "source_sha256", "row", "charge_period_start",
                "charge_period_end", "charge_category")
ROUTE_COLUMNS = ("billed_cost", "effective_cost", "currency", "charge_category", "commitment_discount_status",
                 "commitment_discount_id", "resource_id", "resource_name")
_CONNECTIONS: dict[str, object] = {}
# a node row's evidence: the bill is a contract, the split measured, in every state (unclassified too,
# as compute.node_split computes it, once per line); True/False: kept as the stage's old lookup
EVIDENCE = {True: weakest(Evidence.CONTRACT, Evidence.ASSUMED), False: weakest(Evidence.CONTRACT, Evidence.MEASURED)}


MEMORY_LIMIT = "2GB"  # workspace setting engine.memory_limit (workspace.py)
TEMP_DIR = ".engine-tmp"  # engine.temp_dir: under the workspace unless set


def duckdb_config(settings=None) -> dict[str, str]:
    """DuckDB's memory limit and spill directory from the workspace (``engine.memory_limit``,
    ``engine.temp_dir`` relative to the workspace, default ``<workspace>/.engine-tmp``): past the
    limit DuckDB writes intermediate results there instead of growing, so attribute's peak memory
    is bounded by the limit plus the Python side. Insertion order is not kept (every result the
    stage reads is ordered or keyed explicitly), which lets DuckDB stream and spill more."""
    values = getattr(settings, "values", None) or {}
    limit = str(values.get("engine.memory_limit") or MEMORY_LIMIT).strip()
    where = str(values.get("engine.temp_dir") or TEMP_DIR)
    root = Path(settings.path).parent if settings is not None and getattr(settings, "path", "") else Path.cwd()
    return {"memory_limit": limit, "temp_directory": str(root / where), "preserve_insertion_order": "false"}


def connect(backend: str, settings=None):
    """An Ibis connection for ``backend``: a new in-memory DuckDB per call (a DuckDB connection is
    not shared between threads) with the workspace's memory limit and spill directory
    (``duckdb_config``), one Spark session per process (it starts in seconds)."""
    if backend in _CONNECTIONS:
        return _CONNECTIONS[backend]
    try:
        import ibis
    except ImportError:  # pragma: no cover - ibis is a dependency of the engine extras
        raise ConfigError(f"engine {backend} needs ibis-framework, which is not installed / 未安装 ibis",
                          remedy="pip install 'ibis-framework[duckdb]', or use --engine python"
                                 " / 安装 ibis-framework[duckdb]，或改用 --engine python") from None
    if backend == "duckdb":
        config = duckdb_config(settings)
        try:
            return ibis.duckdb.connect(**config)
        except Exception as exc:  # noqa: BLE001 - duckdb's own error type differs between versions
            raise ConfigError(f"engine.memory_limit {config['memory_limit']!r} / engine.temp_dir"
                              f" {config['temp_directory']!r}: DuckDB refused them ({exc}) / DuckDB 不接受该设置",
                              remedy="write a size such as 2GB and a writable directory / 请填写如 2GB 的大小和"
                                     "可写目录") from exc
    if backend == "spark":
        with warnings.catch_warnings():  # pyspark 4.3 warns about pandas 3 when imported
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
            return _spark(ibis)
    raise ConfigError(f"unknown engine {backend!r} / 未知引擎", remedy=f"use one of {', '.join(BACKENDS)}")


def _spark(ibis):
    """One local-mode Spark session for the process (UTC, no UI), as an Ibis connection."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ConfigError("engine spark needs pyspark, which is not installed / 未安装 pyspark",
                          remedy="pip install 'trainledger[spark]' (and Java 17), or use --engine duckdb"
                                 " / 安装 trainledger[spark]，或改用 --engine duckdb") from None
    if shutil.which("java") is None:
        raise ConfigError("engine spark needs Java (no `java` on PATH) / Spark 需要 Java",
                          remedy="install a Java 17 runtime (Debian: openjdk-17-jre-headless), or use"
                                 " --engine duckdb / 安装 Java 17，或改用 --engine duckdb")
    try:  # the JVM starts here: a broken Java stops attribute before anything is written (review 6 K14)
        session = (SparkSession.builder.master("local[2]").appName("trainledger")
                   .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.session.timeZone", "UTC")
                   .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    except Exception as exc:  # noqa: BLE001 - pyspark raises its own and py4j's kinds here
        error = " ".join(str(exc).split())[:300] or type(exc).__name__
        raise ConfigError(f"engine spark could not start Java ({error}) / Spark 无法启动 Java",
                          remedy="check JAVA_HOME and that `java -version` runs (a Java 17 runtime, Debian:"
                                 " openjdk-17-jre-headless), or use --engine duckdb / 检查 JAVA_HOME 与"
                                 " java -version，或改用 --engine duckdb") from exc
    session.sparkContext.setLogLevel("ERROR")
    con = ibis.pyspark.connect(session)
    _CONNECTIONS["spark"] = con
    return con


def bill_stage_on(backend: str) -> Callable[[Facts, Context], StageOutput]:
    if backend == "python":
        return compute.bill_stage

    def frame_bill_stage(facts: Facts, ctx: Context) -> StageOutput:
        return bill_stage(facts, ctx, connect(backend, ctx.config))

    return frame_bill_stage


def _rule_keys(ctx: Context, rows) -> list[str]:
    cols = []
    first = rows[:1]  # one row made: the fields a rule can read
    for rule in ctx.config.rules:
        if rule.source == "focus":
            col = "tags" if rule.field.startswith("tags.") else rule.field
            if col not in cols and any(col in r for r in first):
                cols.append(col)
    return cols


def _micros(col: pa.ChunkedArray) -> pa.Array:
    """Aware timestamps → epoch microseconds, exactly (Arrow keeps microseconds as int64)."""
    if pa.types.is_timestamp(col.type) and col.type.tz is not None:
        return col.cast(pa.timestamp("us", "UTC")).cast(pa.int64())
    return pa.array([None if v is None else micros(v) for v in col.to_pylist()], pa.int64())


def _text(table: pa.Table, name: str) -> pa.ChunkedArray | pa.Array:
    if name not in table.column_names:
        return pa.nulls(table.num_rows, pa.string())
    col = table.column(name)
    return col if pa.types.is_string(col.type) else col.cast(pa.string())


def _bills(table, keys: list[str]) -> pa.Table:
    """The bill rows' columns the backend reads, from the fact table itself (the lake's Arrow
    columns, scanned in place: no row is made into a dict); ``table`` may be the rows."""
    table = table if isinstance(table, pa.Table) else rows_of(table).table
    cols = {"idx": pa.array(range(table.num_rows), pa.int64()),
            "p0": _micros(table.column("charge_period_start")), "p1": _micros(table.column("charge_period_end"))}
    for name in ROUTE_COLUMNS:
        cols[name] = _text(table, name)
    for i, name in enumerate(keys):
        col = table.column(name)
        cols[f"key{i}"] = col.cast(pa.string()) if pa.types.is_null(col.type) else col  # a field no row has
    return pa.table(cols)


def _amortized(table: pa.Table) -> bool:
    """``compute._amortized_view`` on the columns: only rows whose texts differ are compared as Decimal."""
    if "effective_cost" not in table.column_names:
        return False
    eff, billed = _text(table, "effective_cost"), pc.fill_null(_text(table, "billed_cost"), "0")
    differ = pc.and_(pc.is_valid(eff), pc.fill_null(pc.not_equal(eff, billed), True))
    if not pc.any(differ).as_py():
        return False
    cand = pa.table({"e": eff, "b": billed}).filter(differ)
    return any(Decimal(e) != Decimal(b) for e, b in zip(cand.column("e").to_pylist(), cand.column("b").to_pylist(),
                                                        strict=True))


def _rule_map(scratch, bills, ctx: Context, keys: list[str]):
    """The first matching ``focus`` rule of every distinct combination of the rule fields, decided
    by the Python matcher (its regex, tags and template semantics), as a small table."""
    if not keys:
        return None
    names = [f"key{i}" for i in range(len(keys))]
    distinct = scratch.con.to_pyarrow(bills.select(*names).distinct())
    hits: dict[str, list] = {f"k{i}": [] for i in range(len(keys))} | {"rule_batch": [], "rule_id": []}
    for rec in distinct.to_pylist():
        batch, rule = ctx.matcher.match("focus", {k: rec[n] for k, n in zip(keys, names, strict=True)})
        if batch is None:
            continue
        for i, n in enumerate(names):
            hits[f"k{i}"].append(rec[n])
        hits["rule_batch"].append(batch)
        hits["rule_id"].append(rule)
    if not hits["rule_id"]:
        return None
    schema = pa.schema([pa.field(f"k{i}", distinct.schema.field(n).type) for i, n in enumerate(names)]
                       + [pa.field("rule_batch", pa.string()), pa.field("rule_id", pa.string())])
    return scratch.upload(pa.table(hits, schema=schema))


def _refuse_unplain(con, bills, views: int) -> None:
    for column in ("billed_cost", "effective_cost")[:views]:
        bad = con.to_pyarrow(split.not_plain(bills, column)).to_pylist()
        if bad:
            raise ConfigError(f"bill_lines: {column} is not plain decimal text in bill rows {bad} — the frame"
                              " engine reads money as exact integers / 金额不是普通小数文本",
                              remedy="re-import the bill (the importers write plain text), or use --engine python")


def _weight(w: int, exp: int, scale: int) -> Decimal:
    """Python's weight ``w / (scale · 10⁶)`` with the exponent its exact Decimal sum of
    ``weight per second × exact_seconds`` has (``exp``, from the backend)."""
    coef, rem = divmod(w * 10 ** (-exp), scale * 10**6) if exp <= 0 else divmod(w, scale * 10**6 * 10**exp)
    if rem:
        raise AssertionError(f"frame weight {w}/{scale}e6 is not a multiple of 1e{exp}")  # holdings' invariant
    return Decimal(coef).scaleb(exp, EXACT)


def bill_stage(facts: Facts, ctx: Context, con) -> StageOutput:
    with warnings.catch_warnings():  # the libraries' own deprecations, not the user's concern:
        # ibis 12 calls duckdb 2.0's deprecated fetch_arrow_table; pyspark 4.3 warns about pandas 3
        warnings.filterwarnings("ignore", "fetch_arrow_table", DeprecationWarning)
        if con.name == "pyspark":
            warnings.simplefilter("ignore", FutureWarning)
            warnings.simplefilter("ignore", DeprecationWarning)
        return _bill_stage(facts, ctx, con)


def _bill_stage(facts: Facts, ctx: Context, con) -> StageOutput:
    rows = rows_of(facts.bill_lines)
    if not rows:
        return compute.bill_stage(facts, ctx)
    table = rows.table
    views = 2 if _amortized(table) else 1
    holdings = holdings_table(ctx.runs)
    keys = _rule_keys(ctx, rows)
    scratch = Scratch(con)
    try:
        got = _run(scratch, _bills(table, keys), ctx, holdings, keys, views)
    finally:
        scratch.close()  # the backend's tables go before the lines are made: the peak is one, not both
        release(con)
    pieces = got[4]
    try:
        return _lines(rows, ctx, holdings, views, *got, nodes_side=_nodes_side(table, holdings, got[0], ctx))
    finally:
        if pieces is not None:
            pieces.close()


def _nodes_side(table: pa.Table, holdings, route: pa.Array, ctx: Context) -> tuple[dict[str, str], set[int]]:
    """What ``compute`` routes by ``capacity_nodes`` (the same function on the same columns): the
    nodes without jobs (for rows routed ``no_rule_matched``) and the node rows that are credits,
    split by ``compute.node_split`` itself (their share of time no job held is a line of its own)."""
    idle = capacity_nodes.idle_nodes(table, node_map.names(holdings.nodes, ctx.config), node_map.declared(ctx.config))
    credit = pc.and_(pc.fill_null(pc.equal(route, "node"), False), capacity_nodes.credit_mask(table))
    return idle, set(pc.indices_nonzero(credit).to_pylist())


def release(con) -> None:
    """Give back what DuckDB holds once the stage's tables are dropped (its buffer pool keeps freed
    blocks, so the lines would be made on top of it): its memory limit lowered, then restored
    (at 200k bill rows the stage's peak RSS drops from 698 to 536 MiB). A Spark session is shared:
    left as it is."""
    if con.name != "duckdb":
        return
    raw = con.con
    limit = raw.execute("SELECT current_setting('memory_limit')").fetchone()[0]
    try:
        raw.execute("SET memory_limit = '32MB'")
    except Exception:  # noqa: BLE001 - it could not shrink: nothing lost, the limit is restored below
        pass
    finally:
        raw.execute(f"SET memory_limit = '{limit}'")


class Scratch:
    """The tables one stage run puts on a backend, named uniquely and dropped when it ends.
    (ibis 12's own create_table / cache / release emit ``DROP … IF EXISTS`` without a name on
    duckdb 2.0, so registration and materialisation are done here, per backend.)"""

    def __init__(self, con) -> None:
        self.con, self.names, self.spark = con, [], con.name == "pyspark"

    def _name(self, kind: str) -> str:
        self.names.append((f"tl_{uuid.uuid4().hex}", kind))
        return self.names[-1][0]

    def upload(self, table: pa.Table):
        name = self._name("arrow")
        if self.spark:
            self.con._session.createDataFrame(table).createOrReplaceTempView(name)
        else:
            self.con.con.register(name, table)  # DuckDB reads the Arrow table in place
        return self.con.table(name)

    def materialize(self, expr):
        """``expr`` computed once: a temp table on DuckDB, a cached DataFrame on Spark."""
        name, sql = self._name("table"), self.con.compile(expr)
        if self.spark:
            self.con._session.sql(sql).cache().createOrReplaceTempView(name)
        else:
            self.con.con.execute(f'CREATE TEMP TABLE "{name}" AS {sql}')
        return self.con.table(name)

    def close(self) -> None:
        for name, kind in reversed(self.names):
            if self.spark:
                self.con._session.catalog.dropTempView(name)
            elif kind == "arrow":
                self.con.con.unregister(name)
            else:
                self.con.con.execute(f'DROP TABLE IF EXISTS "{name}"')
        self.names.clear()


def _run(scratch: Scratch, table: pa.Table, ctx: Context, holdings, keys: list[str], views: int) -> tuple:
    """The backend's part: each row's route, node and rule, the pieces of the node rows split there
    (Arrow) and the rows Python splits instead."""
    con = scratch.con
    bills = scratch.upload(table)
    _refuse_unplain(con, bills, views)
    names = node_map.names(holdings.nodes, ctx.config)  # what a bill row may call each held node ([[nodes]])
    nodes_t = scratch.upload(pa.table({"name": pa.array(list(names), pa.string()),
                                       "node": pa.array(list(names.values()), pa.string())}))
    rule_map = _rule_map(scratch, bills, ctx, keys)
    prepared = scratch.materialize(split.prepare(bills, nodes_t, rule_map, [f"key{i}" for i in range(len(keys))],
                                                 views))
    routed = con.to_pyarrow(prepared.select("idx", "route", "node", "rule_batch", "rule_id").order_by("idx"))
    route, node, rule_batch, rule_id = (_few(routed.column(c)) for c in ("route", "node", "rule_batch", "rule_id"))
    del routed
    got = None
    fallback: set[int] = set()
    if holdings.nodes and pc.any(pc.equal(route, "node")).as_py():
        h = scratch.upload(holdings.table)
        slots = int(ctx.config.get("cluster.gpus_per_node"))
        pieces = split.pieces(prepared, h, gpus_per_node=slots, scale=holdings.scale, views=views)
        got = _stream(scratch, pieces.select(*PIECE))  # the run's batch comes from the runs themselves
        if not all(holdings.table.column("exact").to_pylist()) or split.may_overflow(
                prepared, holdings, gpus_per_node=slots, views=views):  # rows split by compute.node_split
            fallback = set(con.to_pyarrow(split.fallback_rows(prepared, h, gpus_per_node=slots, scale=holdings.scale,
                                                              views=views)).column("idx").to_pylist())
        fallback |= _own_gpus_rows(route, node, ctx, slots)
    return route, node, rule_batch, rule_id, got, fallback


def _own_gpus_rows(route: pa.Array, node: pa.Array, ctx: Context, slots: int) -> set[int]:
    """Node rows of a node whose own GPUs (the node map's) are not cluster.gpus_per_node: split by
    ``compute.node_split`` with the node's count (the frame's split has one count for every node;
    such nodes are few). Positions are the rows' ``idx`` (``routed`` is ordered by idx from 0)."""
    differ = sorted(n for n, g in node_map.gpus(ctx.config).items() if g and g != slots)
    if not differ:
        return set()
    mine = pc.and_(pc.equal(pc.cast(route, pa.string()), "node"),
                   pc.is_in(pc.cast(node, pa.string()), value_set=pa.array(differ, pa.string())))
    return set(pc.indices_nonzero(pc.fill_null(mine, False)).to_pylist())


def _stream(scratch: Scratch, expr) -> Pieces:
    """The pieces in bill-row order, to be read a chunk of bill rows at a time (``Pieces``). DuckDB
    sorts them (out of core past ``engine.memory_limit``) into a Parquet file in its spill directory,
    so once the stage's tables are dropped and its buffer pool given back (``release``) the split
    result is on disk, not in memory: at 10M bill rows it is some 25M pieces. Spark hands its
    result over whole (local mode, for conformance), sorted here."""
    con = scratch.con
    if scratch.spark:
        t = con.to_pyarrow(expr)
        return Pieces(t.sort_by("idx").to_batches(max_chunksize=CHUNK), t.schema)
    raw = con.con
    where = Path(raw.execute("SELECT current_setting('temp_directory')").fetchone()[0] or TEMP_DIR)
    where.mkdir(parents=True, exist_ok=True)
    path = where / f"tl_pieces_{uuid.uuid4().hex}.parquet"
    sql = con.compile(expr.order_by("idx"))
    quoted = str(path).replace("'", "''")
    try:
        raw.execute(f"COPY ({sql}) TO '{quoted}' (FORMAT parquet, ROW_GROUP_SIZE {CHUNK})")
        import pyarrow.parquet as pq

        f = pq.ParquetFile(path)
        return Pieces(f.iter_batches(batch_size=CHUNK), f.schema_arrow, path)
    except BaseException:
        path.unlink(missing_ok=True)
        raise


class Pieces:
    """The backend's pieces (``PIECE`` columns) as batches in ascending ``idx``, handed out by
    ``upto``: every piece of the bill rows before ``hi`` not handed out yet — the stage holds one
    chunk's pieces at a time. ``close`` removes the file they were read from. A batch out of order
    is refused (the lines would come out in another order than the Python engine's)."""

    def __init__(self, batches, schema: pa.Schema, path: Path | None = None) -> None:
        self._it, self.schema, self.path = iter(batches), schema, path
        self._head: pa.RecordBatch | None = None
        self._last = -1

    def _next(self) -> pa.RecordBatch | None:
        import numpy as np

        for b in self._it:
            if not b.num_rows:
                continue
            idx = b.column("idx").to_numpy()
            if idx[0] < self._last or (len(idx) > 1 and bool(np.any(idx[1:] < idx[:-1]))):
                raise AssertionError("frame pieces are not in bill-row order")  # the sort is the backend's
            self._last = int(idx[-1])
            return b
        return None

    def upto(self, hi: int) -> pa.Table | None:
        import numpy as np

        out = []
        while True:
            b = self._head if self._head is not None else self._next()
            self._head = None
            if b is None:
                break
            k = int(np.searchsorted(b.column("idx").to_numpy(), hi))
            if k < b.num_rows:
                out.append(b.slice(0, k))
                self._head = b.slice(k)
                break
            out.append(b)
        out = [b for b in out if b.num_rows]
        return pa.Table.from_batches(out, schema=self.schema) if out else None

    def close(self) -> None:
        self._it = iter(())
        if self.path is not None:
            self.path.unlink(missing_ok=True)


def _few(col: pa.ChunkedArray) -> pa.Array:
    """A per-row column of few distinct values (a route, a node name, a rule) dictionary-encoded:
    ten million bill rows' node names in 40 MB of indices, not 110 MB of text."""
    return pc.dictionary_encode(col.combine_chunks())


def _used(got: pa.Table | None, views: int) -> tuple:
    """Per bill row that has any: the sum of its (run, state) weights ``W`` (frame units) in its
    first view and the smallest of their exponents — as (idx, W_sum, exp_min) numpy-indexable
    columns sorted by idx (a row not there uses 0, 0: Python's exact sum starts at ``Decimal(0)``)."""
    if got is None or not got.num_rows:
        return None
    got = got.select(["idx", "view", "is_idle", "W", "exp"])  # only what the sums read: no copy of the text
    states = got.filter(pc.equal(got.column("is_idle"), 0))
    if views > 1:  # the first view a row has: the weights are the same in both
        first = got.group_by("idx", use_threads=False).aggregate([("view", "min")])
        states = states.join(first, "idx")
        states = states.filter(pc.equal(states.column("view"), states.column("view_min")))
    agg = states.group_by("idx", use_threads=False).aggregate([("W", "sum"), ("exp", "min")]).sort_by("idx")
    return agg.column("idx").to_numpy(), agg.column("W_sum"), agg.column("exp_min")


def _used_in(used, at: int, m: int) -> dict[int, tuple[int, int]]:
    """``_used`` of the rows ``at`` … ``at + m - 1``: position in the chunk → (W sum, exponent ≤ 0)."""
    if used is None:
        return {}
    import numpy as np

    idx, w, e = used
    lo, hi = np.searchsorted(idx, [at, at + m])
    return {int(i) - at: (int(ww), min(0, ee)) for i, ww, ee in zip(
        idx[lo:hi], w.slice(lo, hi - lo).to_pylist(), e.slice(lo, hi - lo).to_pylist(), strict=True)}


def _lines(rows, ctx, holdings, views, route, node, rule_batch, rule_id, got, fallback,
           nodes_side=({}, set())) -> StageOutput:
    """The lines of every bill row, a chunk of rows at a time: node rows split here become columns
    (``columns.node_columns``) from the chunk's pieces (``got``: a ``Pieces`` stream, read a chunk
    at a time) and per-row figures; direct and fallback rows are made whole by the Python engine's
    constructors (only those rows are made into dicts). Each chunk's lines are final when the chunk
    ends (in the Python engine's order), so the stage holds the lines made so far plus one chunk."""
    problems: list[tuple[int, Problem]] = []  # (row, problem): in bill-row order, as Python raises them
    slots = Decimal(ctx.config.get("cluster.gpus_per_node"))
    runs = {info.run.id: info for info in ctx.runs.values()}
    columns = (("billed_cost", Basis.BILLED), ("effective_cost", Basis.EFFECTIVE_COST))[:views]
    py_index = None
    scale, places = holdings.py_scale, holdings.scale // holdings.py_scale
    memo: dict = {}
    hours: dict[str, str | None] = {"": None}  # a state's GPU-hours text per (W, exp), over the stage
    per_run = columns_mod.per_run(runs)
    tables: list[pa.Table] = []

    def hours_of(w: int, exp: int) -> str:  # a state's GPU-hours as Python holds them, once per (W, exp)
        return str(_weight(w, exp, places) / scale / HOUR)

    idle, credits = nodes_side
    node_gpus = node_map.gpus(ctx.config)
    no_jobs: set[str] = set()
    indexes: dict[str, compute.Holdings] = {}  # per node of a credit row (``_node_index``)
    for at, m, col, whole in _walk(rows, route, fallback | credits):
        objects: list[tuple[int, int, object]] = []  # (position in the chunk, view, line) Python makes
        info = columns_mod.RowInfo(currency=[None] * m, sha=[None] * m, row=[None] * m, node=[None] * m,
                                   money_only=[None] * m, idle_hours=[None] * m, split=[False] * m)
        kinds, nodes_, batches, rules = (a.slice(at, m).to_pylist() for a in (route, node, rule_batch, rule_id))
        chunk = got.upto(at + m) if got is not None else None
        chunk_used = _used_in(_used(chunk, views), at, m)
        values = [col[c] for c in NODE_COLUMNS]
        for k, (billed, effective, *rest) in enumerate(zip(*values, strict=True)):
            amounts = [(v, basis, d) for v, ((_, basis), value) in enumerate(
                zip(columns, (billed, effective)[:views], strict=True))
                if value is not None and (d := Decimal(value)) != 0]
            if not amounts:
                continue
            i, kind = at + k, kinds[k]
            if kind == "node" and (i in fallback or i in credits):  # its pieces, if any, are skipped
                if i in fallback and py_index is None:
                    py_index = compute._index(ctx.runs)
                index = py_index if i in fallback else _node_index(ctx, holdings, nodes_[k], indexes)
                found: list[Problem] = []
                make = compute.node_split(whole[k], nodes_[k], index, compute.node_slots(nodes_[k], node_gpus, slots),
                                          found)
                made = {v: make(amount) for v, _, amount in amounts}
                problems.extend((i, p) for p in found)
            elif kind == "node":
                w, low = chunk_used.get(k, (0, 0))
                _node_row(k, i, (billed, effective, *rest), nodes_[k], info, w, low, slots, scale, places,
                          problems, memo)
                continue
            elif kind == "no_rule_matched" and (idle_node := capacity_nodes.idle_node_of(whole[k], idle)):
                no_jobs.add(idle_node)
                found = []
                make = capacity_nodes.idle_node_split(whole[k], idle_node,  # its own GPUs, as compute's
                                                      compute.node_slots(idle_node, node_gpus, slots), found)
                made = {v: make(amount) for v, _, amount in amounts}
                problems.extend((i, p) for p in found)
            else:
                made = {v: [_direct(whole[k], kind, batches[k], rules[k], amount)] for v, _, amount in amounts}
            for v, basis, _ in amounts:
                out = made[v]
                if basis is Basis.EFFECTIVE_COST:
                    out = [replace(ln, basis=Basis.EFFECTIVE_COST,
                                   provenance=replace(ln.provenance, rule=f"{ln.provenance.rule} (EffectiveCost)"))
                           for ln in out]
                objects.extend((k, v, ln) for ln in out)
        node_t = None
        if chunk is not None and any(info.split):
            at_ = chunk.schema.get_field_index("idx")  # the piece's position in the chunk (``info``)
            local = chunk.set_column(at_, "idx", pc.subtract(chunk.column("idx"), pa.scalar(at, pa.int64())))
            node_t = columns_mod.node_columns(local, columns_mod.RowInfo.arrays(info), per_run, hours, hours_of,
                                              str(EVIDENCE[False]))
            node_t = columns_mod.import_keys(node_t, rows, at, m)  # a second import's rows: their own key
        if node_t is not None or objects:
            tables.append(columns_mod.merge(node_t, objects).table)
    lines = columns_mod.concat(tables)
    nodes = set(holdings.nodes)
    owned = compute.owned_nodes(ctx)
    nodes_billed = nodes - owned
    billed_names = node_map.restricted(node_map.names(nodes, ctx.config), nodes_billed)
    named = bool(pc.any(pc.is_valid(node)).as_py()) if not owned & nodes else any(  # the backend looked for
        compute._node_of(r, billed_names) for r in rows.columns("resource_id", "resource_name"))  # every held node
    out = [p for _, p in sorted(problems, key=lambda x: x[0])]  # stable: a row's own problems keep their order
    if nodes_billed and not named:
        out.append(compute.no_node_on_bill(nodes_billed))
    if no_jobs:
        out.append(capacity_nodes.no_jobs_problem(no_jobs))
    return StageOutput(lines, tuple(out))


def _node_index(ctx: Context, holdings, node: str, indexes: dict) -> compute.Holdings:
    """``compute._index`` of the runs on ``node`` only, at the whole index's scale (a credit row's
    split needs no other node: the full index of a million runs is not built for it)."""
    if node not in indexes:
        on = {k: info for k, info in ctx.runs.items() if compute.holds_gpus(info) and node in info.nodes}
        indexes[node] = compute._index(on, scale=holdings.py_scale)
    return indexes[node]


def _walk(rows, route: pa.Array, fallback: set[int]):
    """Per chunk of ``CHUNK`` bill rows: (first position, size, ``NODE_COLUMNS`` as lists of values,
    the whole rows by position in the chunk of those a Python constructor reads: not split here
    — direct and fallback rows). From the columns no other row is made into a dict."""
    n = len(rows)
    for at in range(0, n, CHUNK):
        m = min(CHUNK, n - at)
        kinds = route.slice(at, m)
        want = pc.indices_nonzero(pc.fill_null(pc.not_equal(kinds, "node"), True)).to_pylist()
        want += [i - at for i in fallback if at <= i < at + m]
        if rows.is_columns:
            chunk = rows.table.slice(at, m)
            have = set(chunk.column_names)
            col = {c: chunk.column(c).to_pylist() if c in have else [None] * m for c in NODE_COLUMNS if c not in PERIOD}
            col |= {c: _micros(chunk.column(c)).to_pylist() for c in PERIOD}  # integers: no datetime per row
            whole = dict(zip(want, chunk.take(pa.array(want, pa.int64())).to_pylist(), strict=True)) if want else {}
        else:
            part = rows[at:at + m]
            col = {c: [r.get(c) for r in part] for c in NODE_COLUMNS}
            col |= {c: [None if v is None else micros(v) for v in col[c]] for c in PERIOD}
            whole = {k: part[k] for k in want}
        yield at, m, col, whole


PERIOD = ("charge_period_start", "charge_period_end")  # read as epoch microseconds (``_at`` makes the time)


def _at(us: int) -> datetime:
    return EPOCH + timedelta(microseconds=us)


def _node_row(k: int, i: int, values: tuple, node: str, info, used_w: int, low: int, slots: Decimal, scale: int,
              places: int, problems: list, memo: dict) -> None:
    """What one node row split here needs per row (``compute.node_split``'s row-level figures):
    its currency and provenance checked once, the oversubscription and negative-usage problems,
    its money-only kind and the GPU-hours no job held. ``memo``: what depends only on a few of the
    row's values (its period and used GPU-seconds; its charge category and amounts), computed once.
    ``values``: the row's ``NODE_COLUMNS``; ``k`` its place in the chunk (``info``), ``i`` in the bill."""
    billed, effective, cur, sha, number, p0, p1, category = values
    if (cur, sha) not in memo:
        if cur not in _CURRENCIES:
            _CURRENCIES[cur] = check_currency(cur)
        Provenance(sha, int(number), "gpu_seconds_on_node", "focus")  # the checks a line's provenance has
        memo[(cur, sha)] = True
    key = (p1 - p0, used_w, low)
    got = memo.get(key)
    if got is None:
        period = Decimal(p1 - p0) / 1_000_000  # timeline.exact_seconds of the period (µs)
        used = _weight(used_w, low, places)  # = the exact sum of the row's weights, with its exponent
        idle = EXACT.subtract(EXACT.multiply(slots * scale, period), used)
        held = (used / scale / period).quantize(Decimal("0.01")) if idle < 0 else None
        got = memo[key] = (held, str((Decimal(0) if held is not None else idle) / scale / HOUR))
    held, idle_hours = got
    if held is not None:
        problems.append((i, Problem("oversubscribed_node", f"{node} {_at(p0).isoformat()}: jobs hold {held}"
                                    f" GPUs but the node has {slots}",
                                    {"node": node, "row": number, "at": _at(p0).isoformat(),
                                     "held": str(held), "slots": slots})))
    kind = (category, billed, effective)
    money = memo.get(kind)
    if money is None:
        row = _row(values)
        money = memo[kind] = (compute.charge_kind(row), compute.negative_usage(row, node) is not None)
    money_only, negative = money
    if negative:
        problems.append((i, compute.negative_usage(_row(values), node)))
    info.currency[k], info.sha[k], info.row[k], info.node[k] = _CURRENCIES[cur], sha, int(number), node
    info.money_only[k] = money_only
    info.idle_hours[k] = None if money_only else idle_hours
    info.split[k] = True


def _row(values: tuple) -> dict:
    """A node row's ``NODE_COLUMNS`` as the Python engine's functions read a row (times as times)."""
    row = dict(zip(NODE_COLUMNS, values, strict=True))
    return row | {c: _at(row[c]) for c in PERIOD}


def _direct(row, kind: str, batch_id, rule: str | None, amount: Decimal):
    """The one line of a row not split by node: as ``compute._route`` writes it."""
    resource = row.get("resource_id") or row.get("resource_name") or ""
    if kind == "reserved_unused":
        what = row.get("commitment_discount_id") or resource or "commitment"
        return compute._line(row, amount, Basis.RESERVED_UNUSED, "commitment_unused",
                             reason=f"reserved_unused: {what}", detail=ComputeState.RESERVED_UNUSED)
    if kind == "rule":
        return compute._line(row, amount, Basis.BILLED, rule, batch_id=batch_id,
                             detail=compute.tagged_detail(row, resource))
    if kind == "commitment_purchase":
        reason = (f"commitment_purchase: commitment purchase {row['commitment_discount_id']}, paid here,"
                  " used over its term (see the effective-cost view)")
        return compute._line(row, amount, Basis.BILLED, "commitment_purchase", detail="commitment_purchase",
                             reason=reason)
    what = " ".join(str(x) for x in (row.get("service_name"), resource) if x) or f"bill row {row['row']}"
    return compute._line(row, amount, Basis.BILLED, compute.NO_RULE, reason=f"{compute.NO_RULE}: {what}")


_CURRENCIES: dict[str, str] = {}
