"""The bill stage's allocation at scale: the frame path (Ibis on DuckDB) against a hand-written
DuckDB SQL of the same allocation (the practical limit), a plain pandas script (what an analyst
writes) and, at a smaller size, the Python engine. Reports CPU seconds and peak RSS of each (one
subprocess per method, so RSS is its own), the ratios, and whether all agree to the cent.

Synthetic: ``TRAINLEDGER_BENCH_ROWS`` node-hour bill rows (default 1,000,000) over 128 nodes,
``TRAINLEDGER_BENCH_ATTEMPTS`` job attempts (default rows / 10), each on one node with a setup and
an effective segment, 1/8 of them without a batch (generated in columns: seconds at 10M rows).
Issue 7's size, 10M bill rows × 1M attempts, is ``make bench-engine`` (= ``TRAINLEDGER_BENCH_ROWS=
10000000 python -m bench.bench_engine``; ``ENGINE_ROWS=`` to change it): ~11 CPU-minutes of the
three methods, 9.5 GiB peak (pandas), 53 minutes' wall on the shared 2-core machine under load
(2026-12-01, when the split was one-level: frame 290 CPU-s / 6.3 GiB, hand SQL 357 / 6.9 GiB, pandas
40 / 9.3 GiB, all agreeing to the cent; DuckDB's CPU on an oversubscribed machine counts its threads
waiting). The Python engine runs on ``TRAINLEDGER_BENCH_PY_ROWS`` (default 5,000) rows of the same
shape, where all four must agree; its CPU is ``bill_stage`` alone (the derived runs are the frame
path's input too). Each method's CPU excludes imports; the frame path's includes Ibis compiling the
expression (~0.4 s). The hand SQL and the pandas script split in two levels as the engine does
(largest remainder over the runs and the rest no job held, then each run's share over its states,
same tie-break orders). The pandas script lists segments under the hours they touch (the bills are
hourly).

Then the whole attribute as ``Workspace.attribute`` runs it after loading the facts —
``engine.attribute`` (derived runs, every stage, conservation, views), the summary, and the
ledger's replace of every line and run (SQLite) — with ``--engine python`` and ``--engine duckdb``
on generated workspaces of the small shape at ``TRAINLEDGER_BENCH_ATTRIBUTE_SIZES`` bill rows
(default 5,000, 200,000, 1,000,000; attempts = rows / 10): the median CPU of
``TRAINLEDGER_BENCH_REPEAT`` (3) runs in one subprocess per engine, split into engine / summary /
ledger write, its peak RSS (and above the generated facts), and whether both engines stored
identical figures (the lines, runs and summary digests the audit chain records, verified).
``TRAINLEDGER_BENCH_ATTRIBUTE_ONLY=1`` runs only this part. Reports, never fails.

Measured 2026-12-01 (shared machine at a load of 10-16, ``TRAINLEDGER_BENCH_ATTRIBUTE_SIZES=1000000
TRAINLEDGER_BENCH_REPEAT=1``), with the DuckDB engine's lines kept as columns (engine/lines.py):
1M bill rows × 100k attempts, 1.76M lines, identical stored figures on both engines — python
117.4 CPU-s (engine 80.5 / summary 2.0 / ledger write 34.8), peak 2.6 GiB; duckdb 54.7 CPU-s
(26.0 / 2.4 / 26.3), peak 2.8 GiB (2.5 GiB after the stage dropped its DuckDB tables before making
lines). Before (same size, a quieter machine): python 87.1, duckdb
70.0 CPU-s (41.8 / 3.5 / 24.7), 2.7 / 2.9 GB.

Facts as columns (2026-12-01, same command, ``TRAINLEDGER_BENCH_ATTRIBUTE_SIZES=1000000
TRAINLEDGER_BENCH_REPEAT=1``, load 10-15 on the 2 shared cores both times): the generated facts are
now the lake's Arrow tables behind ``Facts``' row views (bill rows 138 MiB, jobs 17 MiB at 1M,
against ~0.74 GB as dicts), so the conversion the service used to do before the engine
(``to_pylist``) is now inside the timed engine. Before: python 123.4 CPU-s (84.1 / 2.6 / 36.6),
peak 2.63 GiB; duckdb 64.0 (28.7 / 3.4 / 31.8), peak 2.52 GiB. After the Arrow facts alone (rows
still walked as dicts a chunk at a time): python 157.6 (120.9 / 2.2 / 34.6), 2.68 GiB — the
oracle now makes its dicts per pass —; duckdb 70.2 (36.6 / 3.1 / 30.4), 2.45 GiB; stored figures
identical on both engines and to before. With value lists and null-type empty columns as well
(7c51a11, load 13-15): duckdb 85.3 CPU-s (41.5 / 3.6 / 40.2 — the unchanged ledger write
went 31.8 → 40.2: the load), peak 2.02 GiB; python 190.0, 2.54 GiB; identical figures. With the
bill stage walking value lists and the checks
on columns, the DuckDB engine alone (``attribute``, no summary or ledger write) at 1M: 39.8 CPU-s,
peak 1.79 GiB (RSS after it 0.82 GiB), the peak while the node lines are assembled
(``columns.node_columns``: the backend's pieces, their sorted copy and the slices' line tables,
on top of DuckDB's freed buffer pool). With that pool given back before the lines are made
(``stage.release``): 33.6 CPU-s, peak 1.52 GiB, RSS after 0.81 GiB, the peak now inside DuckDB's
split query (its working set, bounded by ``engine.memory_limit``, 2 GB, and spilled past it); the
line columns hold 1.76M lines in 178 MiB. The 10M × 1M run was started and stopped: on the
overloaded machine it got 77 CPU-s in 19 minutes' wall. Scaling 1M linearly, 10M would hold the
Arrow facts (~1.5 GiB), the backend's pieces (~1.7 GiB as Arrow) and the lines' columns (~1.8 GiB)
at once while the lines are assembled: above the 4 GB goal until the pieces are consumed a slice
at a time instead of whole (not done).
Derived runs at 200k bill rows (17,274 runs): 1.1 CPU-s of the ~8 s engine — not vectorised.

The split result a chunk at a time (2026-12-02, load 10-20 on the 2 shared cores; same command,
``TRAINLEDGER_BENCH_ATTRIBUTE_ENGINES=duckdb``): DuckDB sorts the pieces into a Parquet file in its
spill directory and the stage reads them back ``CHUNK`` bill rows at a time, making each chunk's
lines there (``stage.Pieces``); routes are dictionary-encoded, ``Facts`` hold ``source_sha256``
dictionary-encoded (680 MB of text at 10M rows), and the child drops the facts before the summary
and the ledger write as ``Workspace.attribute`` does. Figures stay identical (same digest).

  | bill rows | run | CPU-s (engine / summary / ledger write) | peak RSS | RSS after the engine |
  |---|---|---|---|---|
  | 1M | before | 55.7 (28.6 / 1.6 / 25.5) | 1,601 MiB | 1,091 MiB |
  | 1M | chunks, routes encoded | 62.6 (32.6 / 1.9 / 28.1) | 1,682 MiB | 893 MiB |
  | 1M | + sha encoded, facts dropped | 75.7 (41.6 / 2.6 / 31.6) | 1,591 MiB | 833 MiB |
  | 3M | before | 264.0 (164.2 / 5.1 / 94.8) | 4,490 MiB | 2,013 MiB |
  | 3M | chunks, routes encoded | 295.3 (190.1 / 5.4 / 99.9) | 4,204 MiB | 1,903 MiB |

(CPU rose with the load, 10 → 20, between the runs.) The peak after the engine at 3M went 3,549 →
3,275 MiB and after the ledger write 4,092 → 3,752; the highest RSS sample (``_PeakSampler``) of
the after runs is in the bench's own ``ledger.verify`` reading every line back after the write
(4,038 MiB at 3M, 1,574 at 1M), not in attribution. At 1M the engine's peak is inside DuckDB's
split query (bounded by ``engine.memory_limit``); what the chunks remove is the whole split result
and its sorted copy in Python after it.
The 10M attribute (same knobs, ``TRAINLEDGER_BENCH_ATTRIBUTE_SIZES=10000000``, under a 4 GiB RSS guard)
was killed at 4,080 MiB after ~11 minutes' wall, before DuckDB had written the split result: the
generated facts alone had brought the child to 2.3 GiB (the generator's Python lists and the plain
``source_sha256`` column before ``Facts`` encode it), and 1M derived runs are Python objects
(``runs.py``). So 10M does not fit 4 GB in this bench: the part before the split (facts + 1M runs
+ DuckDB's routing) is already at the limit. The bill-stage comparison at 10M (frame, hand SQL and
pandas under the same DuckDB budget, pandas ``TRAINLEDGER_BENCH_PANDAS_NODES=16``; the generator in
its own process) ran in the same hour: the frame path took 311.9 CPU-s at a peak of 2,404 MiB with
DuckDB's 2 GB limit (before, with DuckDB's default limit of 80 % of RAM: 290 CPU-s, 6.3 GiB), the
hand SQL 495.9 CPU-s at 2,368 MiB, pandas 76.7 CPU-s at 2,141 MiB (was 9.3 GiB all nodes at once);
all three agree to the cent (22 buckets). Frame / SQL CPU 0.6×, pandas / frame 0.2× (goal ≥ 20×: not
met, as before; under load 15-20 DuckDB's CPU counts its threads waiting). 63 minutes' wall.
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pyarrow as pa
import pyarrow.parquet as pq

NODES, SLOTS = 128, 8
T0 = datetime(2026, 10, 1, tzinfo=UTC)
PRICES = ("288.00", "99.99", "7.01", "80.00", "0.03")
METHODS = ("frame", "sql", "pandas")


def generate(root: Path, rows: int, attempts: int, seed: int = 7) -> None:
    """bills.parquet (lake-shaped) and holdings.parquet (holdings_table's schema), built in
    columns (numpy), so 10M bill rows take seconds and little memory."""
    import numpy as np

    from trainledger.engine.frame.holdings import SCHEMA, micros

    rnd = np.random.default_rng(seed)
    hours = max(1, rows // NODES)
    n = hours * NODES
    hour_us = 3600 * 1_000_000
    p0 = micros(T0) + np.repeat(np.arange(hours, dtype=np.int64), NODES) * hour_us
    node_names = np.array([f"gpu-{k:03d}" for k in range(NODES)], dtype=object)
    none = pa.nulls(n, pa.string())
    b = {"billed_cost": pa.array(np.array(PRICES, dtype=object)[rnd.integers(0, len(PRICES), n)], pa.string()),
         "currency": pa.array(["CNY"] * n, pa.string()),
         "charge_period_start": pa.array(p0, pa.timestamp("us", "UTC")),
         "charge_period_end": pa.array(p0 + hour_us, pa.timestamp("us", "UTC")),
         "charge_category": pa.array(["Usage"] * n, pa.string()), "commitment_discount_status": none,
         "commitment_discount_id": none, "resource_id": pa.array(np.tile(node_names, hours), pa.string()),
         "resource_name": none, "service_name": pa.array(["ECS"] * n, pa.string()),
         "service_category": pa.array(["Compute"] * n, pa.string()), "tags": pa.array(["{}"] * n, pa.string()),
         "source_sha256": pa.array(["s"] * n, pa.string()), "row": pa.array(np.arange(1, n + 1, dtype=np.int64)),
         "idx": pa.array(np.arange(n, dtype=np.int64)), "p0": pa.array(p0), "p1": pa.array(p0 + hour_us)}
    pq.write_table(pa.table(b, schema=BILL_SCHEMA), root / "bills.parquet")
    end = micros(T0) + hours * hour_us
    per_node = max(1, attempts // NODES)
    parts = []
    for k in range(NODES):  # per node: attempts one after another, each a setup and an effective segment
        dur = rnd.integers(600, 20 * 3600, per_node) * 1_000_000
        gap = rnd.integers(0, 3 * 3600, per_node) * 1_000_000
        start = micros(T0) + int(rnd.integers(0, hour_us)) + np.concatenate(([0], np.cumsum(dur + gap)[:-1]))
        keep = start + dur <= end
        i = np.flatnonzero(keep)
        if not len(i):
            continue
        start, dur = start[i], dur[i]
        setup = dur // 10
        gpus = np.array((1, 2, 4, 8))[rnd.integers(0, 4, len(i))]
        run = np.array([f"{k}-{j}" for j in i], dtype=object)
        batch = np.array([None if j % 8 == 0 else f"b{j % 10}" for j in i], dtype=object)
        for state, a, z in (("setup", start, start + setup), ("effective", start + setup, start + dur)):
            parts.append({"run_id": run, "batch_id": batch, "state": np.full(len(i), state, dtype=object),
                          "node": np.full(len(i), node_names[k], dtype=object), "start_us": a, "end_us": z,
                          "gpus_num": gpus, "pn_exp": np.zeros(len(i), np.int64), "exact": np.ones(len(i), bool)})
    cols = {name: np.concatenate([p[name] for p in parts]) for name in SCHEMA.names}
    pq.write_table(pa.table({k: pa.array(v, SCHEMA.field(k).type) for k, v in cols.items()}, schema=SCHEMA),
                   root / "holdings.parquet")


def run_frame(root: Path) -> dict:
    """The frame engine's own expressions (``split.prepare`` and ``split.pieces``) on the files."""
    import ibis

    from trainledger.engine.frame import split

    con = ibis.duckdb.connect(**_duckdb_settings(root))  # the engine's own: engine.memory_limit, spilled
    h = con.read_parquet(str(root / "holdings.parquet"))
    nodes = h.select("node").distinct()
    prepared = split.prepare(con.read_parquet(str(root / "bills.parquet")), nodes, None, (), 1)
    p = split.pieces(prepared, h, gpus_per_node=SLOTS, scale=1, views=1)
    key = ibis.cases((p.is_idle == 1, "unattributed | capacity_unheld | CNY"),
                     (p.batch_id.isnull(), "unattributed | job_without_batch | CNY"),
                     else_="batch | " + p.batch_id + " | " + p.state + " | CNY")
    out = p.mutate(k=key).group_by("k").aggregate(units=ibis._.units.sum())
    return {r["k"]: str(Decimal(int(r["units"])).scaleb(-2)) for r in con.to_pyarrow(out).to_pylist()
            if int(r["units"]) != 0}


BILL_SCHEMA = pa.schema([
    ("billed_cost", pa.string()), ("currency", pa.string()), ("charge_period_start", pa.timestamp("us", "UTC")),
    ("charge_period_end", pa.timestamp("us", "UTC")), ("charge_category", pa.string()),
    ("commitment_discount_status", pa.string()), ("commitment_discount_id", pa.string()),
    ("resource_id", pa.string()), ("resource_name", pa.string()), ("service_name", pa.string()),
    ("service_category", pa.string()), ("tags", pa.string()), ("source_sha256", pa.string()), ("row", pa.int64()),
    ("idx", pa.int64()), ("p0", pa.int64()), ("p1", pa.int64())])


SQL = """
with b as (select source_sha256 || ':' || row as rid, resource_id as node,
                  epoch(charge_period_start)::bigint * 1000000 as p0, epoch(charge_period_end)::bigint * 1000000 as p1,
                  replace(billed_cost, '.', '')::hugeint as units from read_parquet('{bills}')),
h as (select * from read_parquet('{holdings}')),
j as (select b.rid, h.run_id, h.state, h.batch_id,
             sum(h.gpus_num::hugeint * (least(h.end_us, b.p1) - greatest(h.start_us, b.p0))) as w
      from b join h on b.node = h.node and h.start_us < b.p1 and h.end_us > b.p0 group by all),
u as (select rid, sum(w) as used from j group by rid),
r as (select b.rid, b.units, coalesce(u.used, 0) as used,
             greatest({slots} * (b.p1 - b.p0) - coalesce(u.used, 0), 0) as rest0
      from b left join u using (rid) where b.node in (select node from h)),
r2 as (select rid, units, case when rest0 = 0 and used = 0 then 1 else rest0 end as rest,
              used + case when rest0 = 0 and used = 0 then 1 else rest0 end as total from r),
l1 as (select rid, 0 as is_idle, run_id, sum(w) as w from j group by rid, run_id
       union all select rid, 1, null, rest from r2),
a1 as (select l1.*, r2.units, (r2.units * l1.w) // r2.total as fl, (r2.units * l1.w) % r2.total as rem
       from l1 join r2 using (rid)),
s1 as (select *, fl + case when row_number() over (partition by rid order by rem desc, is_idle, run_id) - 1
                      < units - sum(fl) over (partition by rid) then 1 else 0 end as got from a1),
a2 as (select j.rid, j.run_id, j.state, j.batch_id, s1.got,
              (s1.got * j.w) // greatest(s1.w, 1) as fl, (s1.got * j.w) % greatest(s1.w, 1) as rem
       from j join s1 on s1.is_idle = 0 and s1.rid = j.rid and s1.run_id = j.run_id),
s2 as (select *, fl + case when row_number() over (partition by rid, run_id order by rem desc, state) - 1
                      < got - sum(fl) over (partition by rid, run_id) then 1 else 0 end as share from a2),
s as (select 0 as is_idle, batch_id, state, share from s2
      union all select 1, null, null, got from s1 where is_idle = 1)
select case when is_idle = 1 then 'unattributed | capacity_unheld | CNY'
            when batch_id is null then 'unattributed | job_without_batch | CNY'
            else 'batch | ' || batch_id || ' | ' || state || ' | CNY' end as k, sum(share)::varchar as cents
from s group by 1
"""


def _duckdb_settings(root: Path) -> dict[str, str]:
    """What the engine gives DuckDB (``stage.duckdb_config``: ``engine.memory_limit``, default 2GB, and
    a spill directory), for the frame path and the hand SQL alike: the same budget for both."""
    from trainledger.engine.frame.stage import duckdb_config

    return duckdb_config(SimpleNamespace(values={}, path=str(root / "trainledger.toml")))


def run_sql(root: Path) -> dict:
    import duckdb

    q = SQL.format(bills=root / "bills.parquet", holdings=root / "holdings.parquet", slots=SLOTS)
    con = duckdb.connect(config=_duckdb_settings(root))
    return {k: str(Decimal(int(c)).scaleb(-2)) for k, c in con.sql(q).fetchall() if int(c) != 0}


PANDAS_NODES = int(os.environ.get("TRAINLEDGER_BENCH_PANDAS_NODES", "32"))  # nodes per pass of the pandas script


def run_pandas(root: Path) -> dict:
    """The analyst's script, a group of ``PANDAS_NODES`` nodes at a time (a node's bill rows only meet
    its own segments, so the groups' sums add up): all 128 at once needed 9.3 GiB at 10M bill rows."""
    import pandas as pd

    nodes = sorted(set(pd.read_parquet(root / "holdings.parquet", columns=["node"]).node))
    total: dict[str, int] = {}
    for at in range(0, len(nodes), PANDAS_NODES):
        group = nodes[at:at + PANDAS_NODES]
        b = pd.read_parquet(root / "bills.parquet", filters=[("resource_id", "in", group)],
                            columns=["row", "resource_id", "charge_period_start", "charge_period_end", "billed_cost"])
        h = pd.read_parquet(root / "holdings.parquet", filters=[("node", "in", group)])
        for k, v in _pandas_buckets(b, h).items():
            total[k] = total.get(k, 0) + v
    return {k: str(Decimal(v).scaleb(-2)) for k, v in total.items() if v != 0}


def _pandas_buckets(b, h) -> dict[str, int]:
    import numpy as np
    import pandas as pd

    b = b[b.resource_id.isin(set(h.node))]
    b = pd.DataFrame({"row": b["row"].to_numpy(), "node": b.resource_id.to_numpy(),
                      "p0": b.charge_period_start.dt.as_unit("us").astype("int64").to_numpy(),
                      "p1": b.charge_period_end.dt.as_unit("us").astype("int64").to_numpy(),
                      "units": b.billed_cost.str.replace(".", "", regex=False).astype("int64").to_numpy()})
    hour = 3600 * 1_000_000  # the bills are hourly: each segment is listed under the hours it touches
    h0, h1 = h.start_us.to_numpy() // hour, (h.end_us.to_numpy() - 1) // hour
    counts = h1 - h0 + 1
    idx = np.repeat(np.arange(len(h)), counts)
    h = h.iloc[idx].assign(hour=h0[idx] + np.arange(len(idx)) - np.repeat(np.cumsum(counts) - counts, counts))
    j = b.assign(hour=b.p0 // hour).merge(h, on=["node", "hour"])
    j = j[(j.start_us < j.p1) & (j.end_us > j.p0)]
    j = j.assign(w=j.gpus_num * (j[["end_us", "p1"]].min(axis=1) - j[["start_us", "p0"]].max(axis=1)))
    j["batch_id"] = j["batch_id"].fillna("")
    pieces = j.groupby(["row", "run_id", "state", "batch_id"], as_index=False)["w"].sum()
    used = pieces.groupby("row")["w"].sum().rename("used")
    b = b.join(used, on="row").fillna({"used": 0})
    b["rest"] = (SLOTS * (b.p1 - b.p0) - b.used).clip(lower=0)
    b.loc[(b.rest == 0) & (b.used == 0), "rest"] = 1
    b["total"] = b.used + b.rest
    # level one: each run (the sum of its states) and the rest no job held, largest remainder per row
    runs = pieces.groupby(["row", "run_id"], as_index=False)["w"].sum()
    idle = pd.DataFrame({"row": b["row"], "run_id": "", "w": b.rest, "is_idle": 1})
    top = pd.concat([runs.assign(is_idle=0), idle]).merge(b[["row", "units", "total"]], on="row")
    prod = top.units.astype("int64") * top.w.astype("int64")  # < 2**63 at these prices
    top["fl"], top["rem"] = prod // top.total.astype("int64"), prod % top.total.astype("int64")
    top = top.sort_values(["row", "rem", "is_idle", "run_id"], ascending=[True, False, True, True])
    top["rn"] = top.groupby("row").cumcount()
    top["left"] = top.units - top.groupby("row")["fl"].transform("sum")
    top["got"] = top.fl + (top.rn < top.left).astype("int64")
    # level two: each run's share over its states, largest remainder per (row, run)
    got = top[top.is_idle == 0][["row", "run_id", "w", "got"]].rename(columns={"w": "rw"})
    p = pieces.merge(got, on=["row", "run_id"])
    prod = p.got.astype("int64") * p.w.astype("int64")
    rw = p.rw.astype("int64").clip(lower=1)
    p["fl"], p["rem"] = prod // rw, prod % rw
    p = p.sort_values(["row", "run_id", "rem", "state"], ascending=[True, True, False, True])
    p["rn"] = p.groupby(["row", "run_id"]).cumcount()
    p["left"] = p.got - p.groupby(["row", "run_id"])["fl"].transform("sum")
    p["share"] = p.fl + (p.rn < p.left).astype("int64")
    idle = top[top.is_idle == 1]
    p = pd.concat([p.assign(is_idle=0), pd.DataFrame({"batch_id": "", "state": "", "share": idle.got,
                                                      "is_idle": 1})], ignore_index=True)
    p["k"] = "batch | " + p.batch_id + " | " + p.state + " | CNY"
    p.loc[p.batch_id == "", "k"] = "unattributed | job_without_batch | CNY"
    p.loc[p.is_idle == 1, "k"] = "unattributed | capacity_unheld | CNY"
    out = p.groupby("k")["share"].sum()
    return {k: int(v) for k, v in out.items()}


CONFIG = """[workspace]
currency = "CNY"
[cluster]
gpus_per_node = 8
[[projects]]
id = "p"
goal = "g"
{batches}
[[rules]]
id = "wckey"
source = "slurm"
field = "wckey"
match = "template"
"""
BATCH = """[[batches]]
id = "b{i}"
project = "p"
goal = "g"
data_snapshot = "d"
data_processing_version = "v"
model_version = "m"
code_version = "c"
config_version = "k"
team = "t"
"""


class _Columns:
    """Rows appended as column lists and turned into Arrow record batches every ``FLUSH`` rows (the
    lake's schema; a column never given is Arrow's null type, as ``Facts`` compacts a lake table's
    empty columns): ten million bill rows never stand as Python objects."""

    FLUSH = 500_000

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = pa.schema([f.with_nullable(True) for f in schema])
        self.cols: dict[str, list] = {}
        self.batches: list[pa.RecordBatch] = []
        self.n = 0

    def add(self, **values) -> None:
        for k, v in values.items():
            self.cols.setdefault(k, []).append(v)
        self.n += 1
        if self.n % self.FLUSH == 0:
            self.flush()

    def flush(self) -> None:
        got = len(next(iter(self.cols.values()), ()))
        if not got:
            return
        if not self.batches:  # a column never given is null type, as Facts holds it (context.compact)
            self.schema = pa.schema([f if f.name in self.cols else pa.field(f.name, pa.null()) for f in self.schema])
        arrays = [pa.array(self.cols[f.name], f.type) if f.name in self.cols else pa.nulls(got, f.type)
                  for f in self.schema]
        self.batches.append(pa.RecordBatch.from_arrays(arrays, schema=self.schema))
        self.cols = {}

    def table(self) -> pa.Table:
        self.flush()
        return pa.Table.from_batches(self.batches, schema=self.schema)


def small_tables(rows: int, attempts: int, seed: int = 11) -> tuple[pa.Table, pa.Table]:
    """The bill_lines and jobs tables of the small shape as ``Lake.read`` gives them (the lake's
    schemas, every column; timestamps µs UTC), generated a chunk at a time."""
    from trainledger.lake.schemas import BILL_LINES, JOBS

    rnd = random.Random(seed)
    nodes = 16
    hours = max(1, rows // nodes)
    t0, hour = int(T0.timestamp()) * 1_000_000, 3_600_000_000
    bills = _Columns(BILL_LINES)
    for h in range(hours):
        for n in range(nodes):
            t = t0 + h * hour
            bills.add(billed_cost=rnd.choice(PRICES), currency="CNY", charge_period_start=t,
                      charge_period_end=t + hour, charge_category="Usage", resource_id=f"gpu-{n:03d}",
                      service_category="Compute", tags="{}", source_sha256="2" * 64, row=h * nodes + n + 1)
    jobs = _Columns(JOBS)
    end_us = t0 + hours * hour
    for n in range(nodes):
        t = t0 + rnd.randrange(3600) * 1_000_000
        for i in range(max(1, attempts // nodes)):
            dur = rnd.randrange(600, 20 * 3600) * 1_000_000
            if t + dur > end_us:
                break
            jobs.add(job_id=f"{n}{i:05d}", job_name="j", account="a", wckey="" if i % 8 == 0 else f"b{i % 10}",
                     comment="", user="u", submit=t, eligible=t, start=t, end=t + dur, state="COMPLETED",
                     exit_code="0:0", gpus=rnd.choice((1, 2, 4, 8)), gpu_type="h800", nodes=f"gpu-{n:03d}",
                     restarts=0, tags="{}", is_step=False, source_sha256="1" * 64, row=jobs.n + 1)
            t += dur + rnd.randrange(3 * 3600) * 1_000_000
    return bills.table(), jobs.table()


def small_workspace(root: Path, rows: int, attempts: int, seed: int = 11, *, derive: bool = True):
    """Facts for the engines (jobs and bill rows of the same shape, as the lake holds them: Arrow
    tables behind ``Facts``' row views) and its context (with the derived runs unless ``derive``
    is false: ``attribute`` derives its own)."""
    from trainledger import workspace
    from trainledger.engine import Facts
    from trainledger.engine.frame.oracle import context

    (root / "trainledger.toml").write_text(CONFIG.format(batches="".join(BATCH.format(i=i) for i in range(10))),
                                           encoding="utf-8")
    config = workspace.load(root)
    bills, jobs = small_tables(rows, attempts, seed)
    facts = Facts(jobs=jobs, bill_lines=bills)
    as_of = (T0 + timedelta(days=400)).date()
    if not derive:
        return facts, SimpleNamespace(config=config, as_of=as_of)
    return facts, context(facts, config, lambda *a: None, as_of)


def run_python(root: Path) -> dict:
    from trainledger.engine.frame.oracle import python_bill_buckets

    spec = json.loads((root / "spec.json").read_text())
    facts, ctx = small_workspace(root, spec["rows"], spec["attempts"])
    t = time.process_time()
    out = python_bill_buckets(facts, ctx)
    spec_cpu = time.process_time() - t
    (root / "python_cpu.txt").write_text(str(spec_cpu))
    return {" | ".join(map(str, k)): str(v) for k, v in out.items()}


def write_small(root: Path, rows: int, attempts: int) -> None:
    """The small workspace's bill rows and derived holdings as the files the other methods read."""
    from trainledger.engine.frame import holdings_table
    from trainledger.engine.frame.holdings import micros

    facts, ctx = small_workspace(root, rows, attempts)
    cols = {f.name: [r.get(f.name) for r in facts.bill_lines] for f in BILL_SCHEMA if f.name not in ("idx", "p0", "p1")}
    cols |= {"idx": list(range(len(facts.bill_lines))),
             "p0": [micros(r["charge_period_start"]) for r in facts.bill_lines],
             "p1": [micros(r["charge_period_end"]) for r in facts.bill_lines]}
    pq.write_table(pa.table(cols, schema=BILL_SCHEMA), root / "bills.parquet")
    pq.write_table(holdings_table(ctx.runs).table, root / "holdings.parquet")
    (root / "spec.json").write_text(json.dumps({"rows": rows, "attempts": attempts}))


RUNNERS = {"frame": run_frame, "sql": run_sql, "pandas": run_pandas, "python": run_python}
ENGINES = ("python", "duckdb")


def _attribute_child(engine: str, root: Path) -> None:
    """What ``Workspace.attribute`` does after loading the facts — ``engine.attribute`` (derived
    runs, every stage, conservation, views), the summary, and the ledger's replace of every line
    and run (SQLite, one transaction, with the figures' fingerprints) — on a generated workspace,
    ``repeat`` times; CPU per run (and per part), peak RSS, and digests of the stored figures."""
    import hashlib
    import statistics
    import warnings

    warnings.simplefilter("ignore")
    import ibis  # noqa: F401  start-up, not attribution

    from trainledger.engine import attribute
    from trainledger.engine.frame import stage  # noqa: F401
    from trainledger.ledger import Ledger, figures

    spec = json.loads((root / "spec.json").read_text())
    facts, ctx = small_workspace(root, spec["rows"], spec["attempts"], derive=False)
    ledger = Ledger.open(f"sqlite:///{root}/ledger-{engine}.db")
    for p in ctx.config.projects:
        ledger.upsert_project(p)
    for b in ctx.config.batches:
        ledger.upsert_batch(b)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sampler = _PeakSampler()
    cpus, parts = [], []
    phases = {}  # the peak RSS after each phase (MiB) and the RSS then: which phase set the peak
    for _ in range(spec["repeat"]):
        if facts is None:  # made again for each run, outside the clock
            facts, _ = small_workspace(root, spec["rows"], spec["attempts"], derive=False)
        t0 = time.process_time()
        result = attribute(facts, ctx.config, lambda *a: None, ctx.as_of, engine=engine)
        facts = None  # as Workspace.attribute: the lake's rows go before the summary and the ledger write
        t1 = time.process_time()
        phases["engine"] = _rss()
        summary = result.summary() | {"as_of": ctx.as_of.isoformat()}
        t2 = time.process_time()
        phases["summary"] = _rss()
        ledger.replace_cost_lines(result.lines, summary=summary,
                                  runs=[info.run for info in result.runs.values() if info.batch_id])
        t3 = time.process_time()
        phases["ledger write"] = _rss()
        cpus.append(t3 - t0)
        parts.append((t1 - t0, t2 - t1, t3 - t2))
        lines = len(result.lines)
        del result, summary
    log, chain_problems, figure_problems, _ = ledger.verify()
    rec = figures.recorded(log)
    digest = hashlib.sha256(f"{rec.lines_digest}|{rec.runs_digest}|{rec.summary_digest}".encode()).hexdigest()
    if chain_problems or figure_problems:
        digest = "NOT VERIFIED: " + "; ".join(chain_problems + figure_problems)
    ledger.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    sampler.stop()
    median = statistics.median(cpus)
    (root / f"attr-{engine}.json").write_text(json.dumps(
        {"cpu": median, "cpus": cpus, "parts": parts[cpus.index(median)] if median in cpus else parts[0],
         "rss": rss, "facts_rss": base, "lines": lines, "digest": digest, "phases": phases,
         "peak_at": sampler.peak}))


class _PeakSampler:
    """Every 0.2 s, the RSS and what the main thread is running (its innermost trainledger frames):
    the highest sample says which step holds the peak (``peak_at``: MiB, the frames)."""

    def __init__(self) -> None:
        import threading

        self.peak: tuple[float, str] = (0.0, "")
        self._main, self._stop = threading.main_thread().ident, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.2):
            now = _rss()[1]
            if now > self.peak[0]:
                frame, where = sys._current_frames().get(self._main), []
                while frame is not None and len(where) < 4:
                    name = frame.f_code.co_filename
                    if "trainledger" in name:
                        where.append(f"{Path(name).stem}.{frame.f_code.co_name}:{frame.f_lineno}")
                    frame = frame.f_back
                self.peak = (now, " < ".join(where))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def _rss() -> tuple[float, float]:
    """(peak RSS so far, RSS now) in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return peak, now


def attribute_bench(tmp: Path, sizes: list[int], repeat: int) -> list[tuple[str, float, str]]:
    """python vs duckdb ``attribute`` at each size: median CPU of ``repeat`` runs, peak RSS
    (``TRAINLEDGER_BENCH_ATTRIBUTE_ENGINES=duckdb``: the DuckDB engine alone, e.g. at 10M rows)."""
    engines = [e for e in os.environ.get("TRAINLEDGER_BENCH_ATTRIBUTE_ENGINES", ",".join(ENGINES)).split(",") if e]
    out = []
    for rows in sizes:
        root = tmp / f"attr-{rows}"
        root.mkdir()
        (root / "spec.json").write_text(json.dumps({"rows": rows, "attempts": rows // 10, "repeat": repeat}))
        res = {}
        for engine in engines:
            env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
            subprocess.run([sys.executable, "-m", "bench.bench_engine", "--attribute", engine, str(root)], check=True,
                           env=env, cwd=Path(__file__).resolve().parent.parent)
            res[engine] = json.loads((root / f"attr-{engine}.json").read_text())
        first = res[engines[0]]
        same = len({r["digest"] for r in res.values()}) == 1 and not first["digest"].startswith("NOT")
        verdict = ("identical stored lines, runs and summary on both engines" if same else "FIGURES DIFFER") \
            if len(engines) > 1 else f"figures {'verified' if same else 'NOT VERIFIED'} (digest {first['digest'][:16]})"
        print(f"  attribute @{rows:,} bill rows, {rows // 10:,} attempts: {first['lines']:,} lines, {verdict}")
        for engine in engines:
            r = res[engine]
            out.append((f"attribute {engine} @{rows:,} CPU (median of {repeat})", r["cpu"] * 1000, "ms"))
            for part, cpu in zip(("engine", "summary", "ledger write"), r["parts"], strict=True):
                out.append((f"  of which {part}", cpu * 1000, "ms"))
            out.append((f"attribute {engine} @{rows:,} peak RSS", r["rss"], "MiB"))
            out.append((f"attribute {engine} @{rows:,} peak RSS above the facts", r["rss"] - r["facts_rss"], "MiB"))
            for phase, (peak, now) in r.get("phases", {}).items():
                out.append((f"  peak RSS after {phase} (RSS then {now:,.0f} MiB)", peak, "MiB"))
            if r.get("peak_at"):
                print(f"  attribute {engine} @{rows:,}: highest RSS sample {r['peak_at'][0]:,.0f} MiB in"
                      f" {r['peak_at'][1] or '?'}")
        if len(engines) > 1:
            out.append((f"attribute python/duckdb CPU ratio @{rows:,}", res["python"]["cpu"] / res["duckdb"]["cpu"],
                        "x"))
    return out


def _child(method: str, root: Path) -> None:
    import warnings

    warnings.simplefilter("ignore")
    import duckdb  # noqa: F401  imports are start-up, not the allocation: loaded before the clock
    import ibis  # noqa: F401
    import pandas  # noqa: F401

    import trainledger.engine.frame.oracle  # noqa: F401
    import trainledger.engine.frame.split  # noqa: F401

    t = time.process_time()
    buckets = RUNNERS[method](root)
    cpu = time.process_time() - t
    if method == "python":
        cpu = float((root / "python_cpu.txt").read_text())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB → MiB
    (root / f"{method}.json").write_text(json.dumps({"cpu": cpu, "rss": rss, "buckets": buckets}))


def measure(method: str, root: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    subprocess.run([sys.executable, "-m", "bench.bench_engine", "--child", method, str(root)], check=True, env=env,
                   cwd=Path(__file__).resolve().parent.parent)
    return json.loads((root / f"{method}.json").read_text())


def _compare(results: dict[str, dict]) -> str:
    ref = results["sql"]["buckets"]
    bad = [m for m, r in results.items() if r["buckets"] != ref]
    return "all agree to the cent" if not bad else f"DISAGREE: {', '.join(bad)} differ from sql"


def main():
    sizes = [int(x) for x in os.environ.get("TRAINLEDGER_BENCH_ATTRIBUTE_SIZES", "5000,200000,1000000").split(",") if x]
    repeat = int(os.environ.get("TRAINLEDGER_BENCH_REPEAT", "3"))
    if os.environ.get("TRAINLEDGER_BENCH_ATTRIBUTE_ONLY") == "1":
        with tempfile.TemporaryDirectory() as tmp:
            return attribute_bench(Path(tmp), sizes, repeat)
    rows = int(os.environ.get("TRAINLEDGER_BENCH_ROWS", "1000000"))
    attempts = int(os.environ.get("TRAINLEDGER_BENCH_ATTEMPTS", str(rows // 10)))
    py_rows = int(os.environ.get("TRAINLEDGER_BENCH_PY_ROWS", "5000"))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small"
        small.mkdir()
        write_small(small, py_rows, py_rows // 10)
        res = {m: measure(m, small) for m in (*METHODS, "python")}
        print(f"  small ({py_rows:,} bill rows, {py_rows // 10:,} attempts): {_compare(res)};"
              f" {len(res['sql']['buckets'])} buckets")
        for m in (*METHODS, "python"):
            out.append((f"engine {m} @{py_rows:,} CPU", res[m]["cpu"] * 1000, "ms"))
        out.append((f"engine python/frame CPU ratio @{py_rows:,}", res["python"]["cpu"] / res["frame"]["cpu"], "x"))
        big = Path(tmp) / "big"
        big.mkdir()
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
        subprocess.run([sys.executable, "-m", "bench.bench_engine", "--generate", str(big), str(rows), str(attempts)],
                       check=True, env=env, cwd=Path(__file__).resolve().parent.parent)  # its memory is not ours
        methods = [m for m in os.environ.get("TRAINLEDGER_BENCH_METHODS", ",".join(METHODS)).split(",") if m]
        res = {m: measure(m, big) for m in methods}
        print(f"  big ({rows:,} bill rows, {attempts:,} attempts): {_compare(res)}")
        for m in methods:
            out.append((f"engine {m} @{rows:,} CPU", res[m]["cpu"] * 1000, "ms"))
            out.append((f"engine {m} @{rows:,} peak RSS", res[m]["rss"], "MiB"))
        if {"frame", "sql"} <= set(res):
            out.append((f"engine frame/sql CPU ratio @{rows:,}", res["frame"]["cpu"] / res["sql"]["cpu"], "x"))
        if {"frame", "pandas"} <= set(res):
            out.append((f"engine pandas/frame CPU ratio @{rows:,}", res["pandas"]["cpu"] / res["frame"]["cpu"], "x"))
        out.extend(attribute_bench(Path(tmp), sizes, repeat))
    return out


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], Path(sys.argv[3]))
    elif len(sys.argv) == 5 and sys.argv[1] == "--generate":
        generate(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "--attribute":
        _attribute_child(sys.argv[2], Path(sys.argv[3]))
    else:
        for label, value, unit in main():
            print(f"  {label:<45} {value:10.1f} {unit}")
