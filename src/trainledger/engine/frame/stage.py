"""The bill stage on a frame backend: the same cost lines and problems as ``compute.bill_stage``.

``bill_stage_on(backend)`` is a stage with the engine's one signature ``(facts, ctx) -> StageOutput``.
The backend (``connect``: DuckDB in-process, or pyspark local mode) routes every bill row and
splits every node row in integers (``split.py``); this module turns its integer rows into cost
lines with the Python engine's own constructors (``compute._line``), so each line carries the
same source file, row, rule, reason, evidence and amount, and its GPU-hours are rebuilt from the
integers with the same decimal digits (``_weight``). Lines come out in the Python engine's order:
bill row by bill row, the billed view then the amortized one, the (run, state) pieces sorted, the
rest no job held last. A node row that touches a run the frame cannot weigh exactly
(``holdings.exact``) is split by ``compute.node_split`` itself.
"""

from __future__ import annotations

import json
import shutil
import uuid
import warnings
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal

import pyarrow as pa

from trainledger.engine import compute
from trainledger.engine.context import Context, Facts, Problem, StageOutput
from trainledger.engine.frame import split
from trainledger.engine.frame.holdings import holdings_table, micros
from trainledger.engine.timeline import exact_seconds
from trainledger.errors import ConfigError
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.model.evidence import weakest
from trainledger.model.money import EXACT, check_currency, exact_sum
from trainledger.model.vocab import ComputeState

BACKENDS = ("python", "duckdb", "spark")
HOUR = compute.HOUR
ROUTE_COLUMNS = ("billed_cost", "effective_cost", "currency", "charge_category", "commitment_discount_status",
                 "commitment_discount_id", "resource_id", "resource_name")
_CONNECTIONS: dict[str, object] = {}
PIECE = ("idx", "view", "is_idle", "run_id", "state", "scale", "exp", "units", "W")  # split.pieces
IDLE, RUN, STATE, SCALE, EXP, UNITS, W = range(2, 9)
# a node row's evidence: the bill is a contract, the split measured, in every state (unclassified too,
# as compute.node_split computes it, once per line); True/False: kept as the stage's old lookup
EVIDENCE = {True: weakest(Evidence.CONTRACT, Evidence.ASSUMED), False: weakest(Evidence.CONTRACT, Evidence.MEASURED)}


def connect(backend: str):
    """An Ibis connection for ``backend``: a new in-memory DuckDB per call (a DuckDB connection is
    not shared between threads), one Spark session per process (it starts in seconds)."""
    if backend in _CONNECTIONS:
        return _CONNECTIONS[backend]
    try:
        import ibis
    except ImportError:  # pragma: no cover - ibis is a dependency of the engine extras
        raise ConfigError(f"engine {backend} needs ibis-framework, which is not installed / 未安装 ibis",
                          remedy="pip install 'ibis-framework[duckdb]', or use --engine python"
                                 " / 安装 ibis-framework[duckdb]，或改用 --engine python") from None
    if backend == "duckdb":
        return ibis.duckdb.connect()
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
    session = (SparkSession.builder.master("local[2]").appName("trainledger")
               .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.sql.shuffle.partitions", "4").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    con = ibis.pyspark.connect(session)
    _CONNECTIONS["spark"] = con
    return con


def bill_stage_on(backend: str) -> Callable[[Facts, Context], StageOutput]:
    if backend == "python":
        return compute.bill_stage

    def frame_bill_stage(facts: Facts, ctx: Context) -> StageOutput:
        return bill_stage(facts, ctx, connect(backend))

    return frame_bill_stage


def _column(values: list) -> pa.Array:
    if any(isinstance(v, dict) for v in values):  # tags as a mapping: the JSON text tags_of reads back
        values = [json.dumps(v) if isinstance(v, dict) else v for v in values]
    arr = pa.array(values)
    return arr.cast(pa.string()) if pa.types.is_null(arr.type) else arr


def _rule_keys(ctx: Context, rows) -> list[str]:
    cols = []
    for rule in ctx.config.rules:
        if rule.source == "focus":
            col = "tags" if rule.field.startswith("tags.") else rule.field
            if col not in cols and any(col in r for r in rows[:1]):
                cols.append(col)
    return cols


def _micros(values: list) -> pa.Array:
    """Aware datetimes → epoch microseconds, exactly (Arrow keeps microseconds as int64)."""
    try:
        return pa.array(values, pa.timestamp("us", "UTC")).cast(pa.int64())
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        return pa.array([micros(v) for v in values], pa.int64())


def _bills(rows, keys: list[str]) -> pa.Table:
    cols = {"idx": pa.array(range(len(rows)), pa.int64()),
            "p0": _micros([r["charge_period_start"] for r in rows]),
            "p1": _micros([r["charge_period_end"] for r in rows])}
    for name in ROUTE_COLUMNS:
        cols[name] = _column([r.get(name) for r in rows]).cast(pa.string())
    for i, name in enumerate(keys):
        cols[f"key{i}"] = _column([r.get(name) for r in rows])
    return pa.table(cols)


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
    rows = facts.bill_lines
    if not rows:
        return compute.bill_stage(facts, ctx)
    views = 2 if compute._amortized_view(rows) else 1
    holdings = holdings_table(ctx.runs)
    keys = _rule_keys(ctx, rows)
    scratch = Scratch(con)
    try:
        return _run(scratch, _bills(rows, keys), rows, ctx, holdings, keys, views)
    finally:
        scratch.close()


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


def _run(scratch: Scratch, table: pa.Table, rows, ctx: Context, holdings, keys: list[str], views: int) -> StageOutput:
    con = scratch.con
    bills = scratch.upload(table)
    _refuse_unplain(con, bills, views)
    nodes_t = scratch.upload(pa.table({"node": pa.array(holdings.nodes, pa.string())}))
    rule_map = _rule_map(scratch, bills, ctx, keys)
    prepared = scratch.materialize(split.prepare(bills, nodes_t, rule_map, [f"key{i}" for i in range(len(keys))],
                                                 views))
    routed = con.to_pyarrow(prepared.select("idx", "route", "node", "rule_batch", "rule_id").order_by("idx"))
    route, node, rule_batch, rule_id = (routed.column(c).to_pylist()
                                        for c in ("route", "node", "rule_batch", "rule_id"))
    by_row = _Pieces(None)
    fallback: set[int] = set()
    if holdings.nodes and "node" in route:
        h = scratch.upload(holdings.table)
        slots = int(ctx.config.get("cluster.gpus_per_node"))
        pieces = split.pieces(prepared, h, gpus_per_node=slots, scale=holdings.scale, views=views)
        by_row = _Pieces(con.to_pyarrow(pieces.order_by("idx", "view")))
        if not all(holdings.table.column("exact").to_pylist()) or split.may_overflow(
                prepared, holdings, gpus_per_node=slots, views=views):  # rows split by compute.node_split
            fallback = set(con.to_pyarrow(split.fallback_rows(prepared, h, gpus_per_node=slots, scale=holdings.scale,
                                                              views=views)).column("idx").to_pylist())
    return _lines(rows, ctx, holdings, views, route, node, rule_batch, rule_id, by_row, fallback)


class _Pieces:
    """The backend's pieces (ordered by bill row, then view) read one bill row at a time:
    ``get(i)`` → {view: [piece tuples in PIECE order]} for row ``i``, asked in increasing ``i``.
    The Arrow table is turned into Python values a batch at a time, so the pieces never exist as
    Python objects all at once (at 10M bill rows they would not fit)."""

    BATCH = 65_536

    def __init__(self, table: pa.Table | None) -> None:
        self._batches = iter(()) if table is None else iter(table.to_batches(max_chunksize=self.BATCH))
        self._rows: list[tuple] = []
        self._at = 0

    def _next(self) -> tuple | None:
        while self._at >= len(self._rows):
            batch = next(self._batches, None)
            if batch is None:
                return None
            self._rows = list(zip(*(batch.column(c).to_pylist() for c in PIECE), strict=True))
            self._at = 0
        return self._rows[self._at]

    def get(self, i: int, default: dict) -> dict[int, list]:
        out: dict[int, list] = {}
        while (rec := self._next()) is not None and rec[0] <= i:
            self._at += 1
            if rec[0] == i:
                out.setdefault(rec[1], []).append(rec)
        return out or default


def _lines(rows, ctx, holdings, views, route, node, rule_batch, rule_id, by_row, fallback) -> StageOutput:
    lines: list = []
    problems: list[Problem] = []
    slots = Decimal(ctx.config.get("cluster.gpus_per_node"))
    runs = {info.run.id: info for info in ctx.runs.values()}
    columns = (("billed_cost", Basis.BILLED), ("effective_cost", Basis.AMORTIZED))[:views]
    py_index = None
    memo: dict = {}
    for i, row in enumerate(rows):
        amounts = [(v, basis, d) for v, (column, basis) in enumerate(columns)
                   if row.get(column) is not None and (d := Decimal(row[column])) != 0]
        if not amounts:
            continue
        kind = route[i]
        if kind == "node" and i in fallback:  # its pieces, if the backend made any, are skipped
            if py_index is None:
                py_index = compute._index(ctx.runs)
            make = compute.node_split(row, node[i], py_index, slots, problems)
            made = {v: make(amount) for v, _, amount in amounts}
        elif kind == "node":
            made = _split_lines(row, node[i], by_row.get(i, {}), runs, slots, holdings, problems,
                                [v for v, _, _ in amounts], memo)
        else:
            made = {v: [_direct(row, kind, rule_batch[i], rule_id[i], amount)] for v, _, amount in amounts}
        for v, basis, _ in amounts:
            out = made[v]
            if basis is Basis.AMORTIZED:
                out = [replace(ln, basis=Basis.AMORTIZED,
                               provenance=replace(ln.provenance, rule=f"{ln.provenance.rule} (EffectiveCost)"))
                       for ln in out]
            lines.extend(out)
    nodes = set(holdings.nodes)
    owned = compute.owned_nodes(ctx)
    nodes_billed = nodes - owned
    named = any(n is not None for n in node) if not owned & nodes else any(
        compute._node_of(r, nodes_billed) for r in rows)  # the backend looked for every held node
    if nodes_billed and not named:
        problems.append(compute.no_node_on_bill(nodes_billed))
    return StageOutput(tuple(lines), tuple(problems))


def _direct(row, kind: str, batch_id, rule: str | None, amount: Decimal):
    """The one line of a row not split by node: as ``compute._route`` writes it."""
    resource = row.get("resource_id") or row.get("resource_name") or ""
    if kind == "reserved_unused":
        what = row.get("commitment_discount_id") or resource or "commitment"
        return compute._line(row, amount, Basis.RESERVED_UNUSED, "commitment_unused",
                             reason=f"reserved_unused: {what}", detail=ComputeState.RESERVED_UNUSED)
    if kind == "rule":
        detail = "tagged_resource" if compute._category(row) == "compute" else str(
            row.get("service_name") or resource or "tagged_resource")
        return compute._line(row, amount, Basis.BILLED, rule, batch_id=batch_id, detail=detail)
    if kind == "commitment_purchase":
        reason = (f"commitment_purchase: commitment purchase {row['commitment_discount_id']}, paid here,"
                  " used over its term (see the amortized view)")
        return compute._line(row, amount, Basis.BILLED, "commitment_purchase", detail="commitment_purchase",
                             reason=reason)
    what = " ".join(str(x) for x in (row.get("service_name"), resource) if x) or f"bill row {row['row']}"
    return compute._line(row, amount, Basis.BILLED, compute.NO_RULE, reason=f"{compute.NO_RULE}: {what}")


def _split_lines(row, node: str, got: dict[int, list], runs, slots: Decimal, holdings, problems, views, memo):
    """The lines ``compute.node_split`` makes for one node row, per view, from the backend's shares.
    Weights are Python's GPU-seconds × ``py_scale``, rebuilt exactly from the backend's integers;
    ``memo``: (W, exp) → (weight, GPU-hours), shared by the stage's rows."""
    p0, p1 = row["charge_period_start"], row["charge_period_end"]
    period = exact_seconds(p0, p1)
    scale, places = holdings.py_scale, holdings.scale // holdings.py_scale
    first = got[views[0]]
    weights, hours = {}, {}
    for r in first:
        if r[IDLE]:
            continue
        key = (r[W], r[EXP])
        wh = memo.get(key)  # full-hour pieces repeat the same few weights: each decimal made once
        if wh is None:
            w = _weight(int(r[W]), r[EXP], places)
            wh = memo[key] = (w, w / scale / HOUR)
        weights[(r[RUN], r[STATE])], hours[(r[RUN], r[STATE])] = wh
    used = exact_sum(weights.values())
    idle = EXACT.subtract(EXACT.multiply(slots * scale, period), used)
    if idle < 0:
        held = (used / scale / period).quantize(Decimal("0.01"))
        problems.append(Problem("oversubscribed_node", f"{node} {p0.isoformat()}: jobs hold {held}"
                                f" GPUs but the node has {slots}",
                                {"node": node, "row": row["row"], "at": p0.isoformat(),
                                 "held": str(held), "slots": slots}))
        idle = Decimal(0)
    money_only = compute.charge_kind(row)
    if (neg := compute.negative_usage(row, node)) is not None:
        problems.append(neg)
    make = _Maker(row, "" if money_only else "gpu_hour")
    out = {}
    for v in views:
        shares = {(r[RUN], r[STATE]): Decimal(int(r[UNITS])).scaleb(-r[SCALE]) for r in got[v] if not r[IDLE]}
        rest = next((Decimal(int(r[UNITS])).scaleb(-r[SCALE]) for r in got[v] if r[IDLE]), None)
        lines = []
        for key in sorted(weights):
            run_id, state = key
            info, share, w = runs[run_id], shares[key], weights[key]
            if share == 0 and w == 0:
                continue  # a segment of weight 0 (no GPU in that state) holds nothing
            # measured in every state, unclassified too (engine/compute.py node_split)
            batch, reason = info.batch_id, ""
            if batch is None:
                reason = f"job_without_batch: job {info.run.source_job}"
            lines.append(make(share, Basis.BILLED, f"gpu_seconds_on_node/{info.rule}", batch, info.run.id,
                              money_only or str(state), None if money_only else hours[key], reason))
        if rest is not None and rest != 0:
            lines.append(make(rest, Basis.CAPACITY_UNHELD, "gpu_seconds_on_node/unheld", None, None,
                              money_only or ComputeState.CAPACITY_UNHELD,
                              None if money_only else idle / scale / HOUR, f"capacity_unheld: node {node}"))
        out[v] = lines
    return out


_CURRENCIES: dict[str, str] = {}


# the slots' own setters: a frozen dataclass's __setattr__ refuses, its __post_init__ is not wanted
_AMOUNT = tuple(getattr(AmountRange, n).__set__ for n in ("low", "expected", "high", "currency"))
_LINE = tuple(getattr(CostLine, n).__set__ for n in ("category", "basis", "evidence", "amount", "provenance",
                                                        "batch_id", "run_id", "detail", "quantity", "unit", "reason"))
_NEW = object.__new__


def _amount(amount: Decimal, currency: str) -> AmountRange:
    """An exact ``AmountRange``, its ``__post_init__`` not run (``_Maker`` checked what it checks)."""
    money = _NEW(AmountRange)
    low, expected, high, cur = _AMOUNT
    low(money, amount)
    expected(money, amount)
    high(money, amount)
    cur(money, currency)
    return money


def _cost_line(basis, evidence, amount, prov, batch_id, run_id, detail, quantity, unit, reason) -> CostLine:
    """A compute ``CostLine``, its ``__post_init__`` not run (``_Maker`` checked what it checks)."""
    line = _NEW(CostLine)
    s_cat, s_basis, s_ev, s_amount, s_prov, s_batch, s_run, s_detail, s_qty, s_unit, s_reason = _LINE
    s_cat(line, "compute")
    s_basis(line, basis)
    s_ev(line, evidence)
    s_amount(line, amount)
    s_prov(line, prov)
    s_batch(line, batch_id)
    s_run(line, run_id)
    s_detail(line, detail)
    s_qty(line, quantity)
    s_unit(line, unit)
    s_reason(line, reason)
    return line


class _Maker:
    """``compute._line`` for the lines of one node row (category compute, source focus, evidence
    measured), at a fraction of its cost: the row's currency is checked once (``check_currency``,
    cached), its provenance built once per rule with its own checks; an amount is a finite
    ``Decimal`` made from the backend's integers (low = expected = high); basis and evidence are
    members already; an unattributed line carries its reason. ``CostLine`` equality, hashing and
    every reader see the same objects ``compute._line`` would make (the parity suites compare them)."""

    __slots__ = ("cur", "prov", "row", "unit")

    def __init__(self, row, unit: str) -> None:
        code = row["currency"]
        if code not in _CURRENCIES:
            _CURRENCIES[code] = check_currency(code)
        self.row, self.cur, self.unit, self.prov = row, _CURRENCIES[code], unit, {}

    def __call__(self, amount: Decimal, basis: Basis, rule: str, batch_id, run_id, detail, quantity, reason: str):
        if type(amount) is not Decimal or not amount.is_finite():
            raise AssertionError(f"frame split gave {amount!r}, not a finite Decimal")  # a bug, never input
        if batch_id is None and not reason:
            raise AssertionError("an unattributed node-row line without a reason")
        prov = self.prov.get(rule)
        if prov is None:
            prov = self.prov[rule] = Provenance(self.row["source_sha256"], int(self.row["row"]), rule, "focus")
        return _cost_line(basis, EVIDENCE[False], _amount(amount, self.cur), prov, batch_id, run_id, detail,
                          quantity, self.unit, reason)
