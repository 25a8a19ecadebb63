"""The bill stage's split on Spark local mode (issue 7 item 11's "same workload on Spark at 1M rows").

``bench_engine.py``'s workload — ``TRAINLEDGER_BENCH_SPARK_ROWS`` node-hour bill rows (default
1,000,000) over 128 nodes, rows / 10 job attempts (``bench_engine.generate``) — split by the frame
engine's own expressions (``split.prepare`` and ``split.pieces``, as ``--engine spark`` runs them,
on the session ``frame.stage.connect("spark")`` makes: ``local[2]``) and summed per bucket (batch
and state, or the unattributed reason) in integers of minor units; the same on DuckDB, and
``bench_engine``'s hand-written DuckDB SQL. All three must agree to the cent.

Each method runs in its own subprocess. Measured around the method alone (imports and, for Spark,
the session's start are shown apart): wall time and CPU of the process **tree** — the child and
every process under it, so the JVM Spark runs in counts (``/proc/<pid>/stat`` utime + stime) — and
peak RSS of the tree, sampled every 0.1 s by the parent (the sum of the processes' resident sets at
one moment), beside the sum of each process's own peak (``VmHWM``; an upper bound). Spark's own
start (JVM and session) is reported as its own line. Reports, never fails; ``make bench-spark``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal
from pathlib import Path

METHODS = ("spark", "frame", "sql")
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            out.setdefault(ppid, []).append(int(entry))
    return out


def tree(pid: int) -> list[int]:
    """``pid`` and every process under it (the JVM a pyspark driver starts, its workers)."""
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, ()))
    return out


def _stat(pid: int) -> list[str]:
    with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as f:
        return f.read().rsplit(")", 1)[1].split()


def tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) the processes of ``pid``'s tree have used so far."""
    total = 0
    for p in tree(pid):
        try:
            fields = _stat(p)
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
        except (OSError, IndexError, ValueError):
            continue
    return total / TICK


def tree_rss(pid: int) -> int:
    """Bytes resident in ``pid``'s tree now."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/statm", encoding="ascii") as f:
                total += int(f.read().split()[1]) * PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


def tree_hwm(pid: int) -> int:
    """Σ of each process's own peak resident set (VmHWM), bytes: an upper bound of the tree's peak."""
    total = 0
    for p in tree(pid):
        try:
            with open(f"/proc/{p}/status", encoding="ascii") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        total += int(line.split()[1]) * 1024
        except (OSError, IndexError, ValueError):
            continue
    return total


def buckets_frame(con, root: Path) -> dict[str, str]:
    """The frame engine's split of the files on ``con`` (``bench_engine.run_frame``'s, with the routed
    rows materialised once as ``frame/stage.py`` does), summed per bucket in minor units."""
    import ibis

    from bench.bench_engine import SLOTS
    from trainledger.engine.frame import split
    from trainledger.engine.frame.stage import Scratch

    scratch = Scratch(con)  # the routed rows computed once, as the stage does (a cached DataFrame on Spark)
    try:
        h = con.read_parquet(str(root / "holdings.parquet"))
        nodes = h.select("node").distinct()
        prepared = scratch.materialize(split.prepare(con.read_parquet(str(root / "bills.parquet")), nodes, None,
                                                     (), 1))
        p = split.pieces(prepared, h, gpus_per_node=SLOTS, scale=1, views=1)
        key = ibis.cases((p.is_idle == 1, "unattributed | capacity_unheld | CNY"),
                         (p.batch_id.isnull(), "unattributed | job_without_batch | CNY"),
                         else_="batch | " + p.batch_id + " | " + p.state + " | CNY")
        out = p.mutate(k=key).group_by("k").aggregate(units=ibis._.units.sum())
        return {r["k"]: str(Decimal(int(r["units"])).scaleb(-2)) for r in con.to_pyarrow(out).to_pylist()
                if int(r["units"]) != 0}
    finally:
        scratch.close()


def _child(method: str, root: Path) -> None:
    import warnings

    warnings.simplefilter("ignore")
    import duckdb  # noqa: F401  start-up, not the split: loaded before the clock
    import ibis  # noqa: F401

    import bench.bench_engine as be
    from trainledger.engine.frame import stage

    me = os.getpid()
    start = {"cpu": 0.0, "wall": 0.0}
    if method == "spark":
        t, c = time.perf_counter(), tree_cpu(me)
        con = stage.connect("spark")  # the engine's own session: local[2], UTC, 4 shuffle partitions
        start = {"cpu": tree_cpu(me) - c, "wall": time.perf_counter() - t}
    t, c = time.perf_counter(), tree_cpu(me)
    if method == "spark":
        buckets = buckets_frame(con, root)
    elif method == "frame":
        buckets = buckets_frame(stage.connect("duckdb"), root)
    else:
        buckets = be.run_sql(root)
    wall, cpu = time.perf_counter() - t, tree_cpu(me) - c
    hwm, procs = tree_hwm(me), len(tree(me))
    (root / f"{method}.json").write_text(json.dumps({"cpu": cpu, "wall": wall, "start": start, "hwm": hwm,
                                                     "procs": procs, "buckets": buckets}))
    if method == "spark":
        con._session.stop()


def measure(method: str, root: Path) -> dict:
    """The child's figures and the peak RSS of its tree, sampled while it runs."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    proc = subprocess.Popen([sys.executable, "-m", "bench.bench_spark", "--child", method, str(root)], env=env,
                            cwd=Path(__file__).resolve().parent.parent)
    peak = [0]

    def sample() -> None:
        while proc.poll() is None:
            peak[0] = max(peak[0], tree_rss(proc.pid))
            time.sleep(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    proc.wait()
    sampler.join()
    if proc.returncode:
        raise SystemExit(f"bench_spark: {method} failed (exit {proc.returncode})")
    return json.loads((root / f"{method}.json").read_text()) | {"peak": peak[0]}


def main() -> list[tuple[str, float, str]]:
    from bench.bench_engine import generate

    rows = int(os.environ.get("TRAINLEDGER_BENCH_SPARK_ROWS", "1000000"))
    attempts = int(os.environ.get("TRAINLEDGER_BENCH_SPARK_ATTEMPTS", str(rows // 10)))
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate(root, rows, attempts)
        res = {m: measure(m, root) for m in METHODS}
        ref = res["sql"]["buckets"]
        bad = [m for m in METHODS if res[m]["buckets"] != ref]
        total = sum(Decimal(v) for v in ref.values())
        verdict = "all agree to the cent" if not bad else f"DISAGREE: {', '.join(bad)} differ from sql"
        print(f"  spark @{rows:,} bill rows, {attempts:,} attempts: {verdict}; {len(ref)} buckets,"
              f" {total:,} CNY split")
        s = res["spark"]
        out.append(("spark session start wall", s["start"]["wall"], "s"))
        out.append(("spark session start CPU (tree)", s["start"]["cpu"], "s"))
        for m in METHODS:
            r = res[m]
            out.append((f"{m} @{rows:,} wall", r["wall"], "s"))
            out.append((f"{m} @{rows:,} CPU (process tree)", r["cpu"], "s"))
            out.append((f"{m} @{rows:,} peak RSS (tree, sampled)", r["peak"] / 2**20, "MiB"))
            out.append((f"{m} @{rows:,} Σ per-process peak RSS ({r['procs']} procs)", r["hwm"] / 2**20, "MiB"))
        out.append((f"spark/sql wall ratio @{rows:,}", s["wall"] / res["sql"]["wall"], "x"))
        out.append((f"spark/sql CPU ratio @{rows:,}", s["cpu"] / res["sql"]["cpu"], "x"))
        out.append((f"spark/frame(duckdb) CPU ratio @{rows:,}", s["cpu"] / res["frame"]["cpu"], "x"))
    return out


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--child":
        _child(sys.argv[2], Path(sys.argv[3]))
    else:
        for label, value, unit in main():
            print(f"  {label:<55} {value:10.2f} {unit}")
