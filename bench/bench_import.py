"""``import focus`` at size against DuckDB's own CSV → Parquet of the same file, in the same run;
and CPU-µs per row of the other bulk importers: FOCUS Parquet, progress JSONL, sacct.

``python -m bench.bench_import [ROWS ...]`` (default ``TRAINLEDGER_BENCH_IMPORT_ROWS`` or 1,000,000;
``make bench`` runs the default with the other benchmarks, ``make bench-import ROWS=10000000`` is
the issue's 10M-row check on its own). A synthetic FOCUS 1.0 CSV
of the shape real bills have (hourly GPU and storage lines, quoted Tags JSON, commitment discount
columns, an unmodelled provider column) is generated once per size; then, each in a fresh
process so one step's peak is not another's, trainledger imports it into a fresh lake and DuckDB
copies it to Parquet (``COPY (SELECT * FROM read_csv(...)) TO ...``). Printed: wall and CPU
seconds (median of ``REPEATS``), the ratio of trainledger's to DuckDB's, and each step's peak RSS.

Then, at ``TRAINLEDGER_BENCH_IMPORT_OTHER_ROWS`` rows (default 200,000; 0 skips them), each in a
fresh process into a fresh lake: ``import focus`` of the same bill as typed Parquet (DuckDB's
copy of a bill of that size), ``import progress`` of a JSONL stream of step events, and ``import
slurm`` of ``sacct --parsable2`` output (a job line, its ``.batch`` and ``.extern`` steps): CPU-µs
per row and peak RSS, beside ``import focus`` of the CSV of the same size.
Nothing here depends on anything outside this repository.

Measured 2026-12-01 on the shared 2-core machine under heavy load (load average 7-18, so wall
times are inflated; CPU is the steadier figure), the tree before and after the worker-thread
pipeline and the copy cuts of ``focus_fast``, alternating in one run, median of 3 at 1M rows:
import 11.06 → 10.23 CPU-s (3.99× → 3.87× DuckDB's wall, 4.07× → 3.76× its CPU), peak RSS
534 → 566 MiB. At 10M rows (one run): 108 CPU-s, 4.64× wall / 3.46× CPU, peak RSS 1.25 GiB.

Measured 2026-12-02 (same machine, load 16-20), main (row hash version 2) and this tree (version
3, a fresh lake) alternating with DuckDB in one loop, median of 3 at 1M rows: import 12.86 →
9.51 CPU-s against DuckDB's 3.22: **3.99× → 2.95× in CPU** (goal ≤ 1.5×, not met; wall ratios
under this load are not worth quoting), peak RSS 546 → 469 MiB. At 10M rows (3.2 GiB, one run,
load 10-17): import 76.5 CPU-s against DuckDB's 29.4 (2.60× CPU, 3.38× wall; before: 108 CPU-s,
3.46× / 4.64×), **peak RSS 1,261 MiB** (goal ≤ 2 GB; before 1.25 GiB). Where the CPU goes at 1M rows
(cProfile with a CPU clock, the worker run inline): the row hash 6.8 → 1.5 CPU-s (spellings
0.7, digests and fold 1.1; before: DuckDB concatenation 1.0, blake2b per row 3.0, spellings
1.5); what is left is the Parquet write (zstd) ~2.0, the converters ~1.9, dictionary encoding
~1.8, settling ~0.6 and the reading thread's CSV parse. An older lake's table still hashes with
version 2 (``keys.py``), at the earlier speed.

Measured 2026-12-02, later (same machine, load 10-15), this tree, median of 3 at 1M rows: import
6.03 CPU-s against DuckDB's 3.08: **1.96× in CPU** (2.95× before; goal ≤ 1.5×, not met), 1.58×
wall, peak RSS 399 MiB (DuckDB 524). At 10M rows (one run, load 11-14): import 56.8 CPU-s against
DuckDB's 30.2: **1.88× in CPU** (2.60× before), 2.22× wall, **peak RSS 1,202 MiB** (≤ 2 GB).
What changed, per 1M rows (in isolation, cProfile with a CPU clock): the Parquet write 1.4 →
0.85 CPU-s (a dictionary and statistics only for the columns that repeat in the first rows,
``lake/encoding.py``: building and abandoning a dictionary of amounts and row hashes, and min /
max of them, was most of it), settling 0.45 → 0.23 (one SIMD sort instead of ``np.lexsort``,
``keyset._order``), the CSV reader 0.4 less (no CR count without a CR; one ``read_csv`` block,
no copy to combine), the row conversions ~20 % less (columns of equal content converted and
spelled once, ``focus_fast._Twins``; ``extra`` per distinct value). What is left (1M rows, in
isolation): the CSV parse ~0.95 and the line check (RE2, ~1.5 ns a byte, Arrow's floor for any
per-line kernel) ~0.5, the row hash ~0.65 (29 columns folded per row), the other row work ~0.9,
the Parquet write ~0.85, settling ~0.23, the file's SHA-256 twice (identity before, the bytes
parsed while reading) ~0.4, and starting the process ~0.35 plus ~0.37 for pandas, which pyarrow
imports at its first ``pa.array`` call (DuckDB's step imports neither).

Since then DuckDB's COPY runs twice per repeat: with its default codec (snappy) and with the
lake's (zstd level 1, ``lake/encoding.py``), and both ratios are printed — like against like.
The lake keeps zstd level 1: writing our 1M-row partition with snappy saves ~0.1 CPU-s of ~1.1
but makes it 68 MiB instead of 39 (lz4 73, none 100), and a partition is written once and read
by every report; DuckDB's own zstd level 1 costs it ~0.2-0.4 CPU-s more than snappy.
Measured 2026-12-02 06:00-06:10 (load 13-22, a 10M run beside it: CPU figures inflated ~40 % and
noisy), the tree before and after, alternating with both DuckDB steps in one loop, median of 3
at 1M rows: import 9.44 → 7.83 CPU-s; DuckDB 4.01 (snappy) / 4.26 (zstd 1): **2.36× → 1.95×**
against DuckDB's default, **2.21× → 1.84×** like against like (goal ≤ 1.5×, not met); peak RSS
371 → 362 MiB. At 10M rows (one run, load 9-15): 73.4 CPU-s against DuckDB's 41.6 (snappy) /
38.1 (zstd 1): 1.76× / 1.93×, **peak RSS 1,188 MiB** (≤ 2 GB). What changed, per 1M rows,
each A/B in one process (inline, one thread): the
CSV parser no longer checks UTF-8 field by field (``check_utf8=False``, 1.30-1.45 → 1.05 CPU-s;
the block is checked whole instead, ``fastcsv._utf8``, 0.02); the row hash 0.53 → 0.40
(``rowhash``: buffers allocated once, one count unless a column has nulls, twin amount columns'
words read once); the Parquet write ~20 % less without min / max of text columns that repeat
but hold many values (``encoding.options``: kept for text of one value, which can skip a whole
partition), and ~0.18 CPU-s less again with the text columns kept as they are handed to the
writer as dictionaries (``Coded.dictionary``; no row spread, no row's text hashed again).
Still there (1M rows, inline): the CSV parse ~1.0, the line check ~0.55 (RE2 per line; a
whole-block pattern was slower, 0.79, and a numpy pass over the quotes costs as much: 26 quotes
a line in Tags JSON), dictionary encoding of the columns ~0.45, the Parquet write ~0.85, the row
hash ~0.4, the SHA-256 twice ~0.4, pandas' import ~0.3 (only because the bench and test extras
install pandas; trainledger itself does not need it). Tried and dropped: pyarrow's CSV reader
parsing into dictionary columns (3.6 CPU-s against 1.0 + 0.45), DuckDB's reader handing Arrow
columns (2.6 CPU-s for the parse alone).
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPEATS = int(os.environ.get("TRAINLEDGER_BENCH_REPEATS", "3"))
HEADER = (
    "BilledCost,EffectiveCost,ListCost,ContractedCost,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,"
    "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeFrequency,ChargeDescription,CommitmentDiscountId,"
    "CommitmentDiscountStatus,PricingCategory,ResourceId,ResourceName,ServiceName,ServiceCategory,"
    "ServiceProviderName,RegionId,SubAccountId,ConsumedQuantity,ConsumedUnit,PricingQuantity,PricingUnit,"
    "ListUnitPrice,AvailabilityZone,Tags\n"
)
T0 = datetime(2026, 10, 1, tzinfo=UTC)
TEAMS = ("vision", "speech", "llm", "rec", "infra")


def generate(path: Path, rows: int, seed: int = 7) -> None:
    """Write ``rows`` FOCUS lines: one line per resource and hour, 2,000 resources."""
    rnd = random.Random(seed)
    tags = [
        f'"{{""team"":""{t}"",""batch"":""b{b}"",""env"":""prod""}}"' for t in TEAMS for b in range(40)
    ]
    hours = [(T0 + timedelta(hours=h)).strftime("%Y-%m-%dT%H:%M:%SZ") for h in range(rows // 2000 + 2)]
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(HEADER)
        buf = []
        for i in range(rows):
            h, r = divmod(i, 2000)
            gpu = r < 1500
            qty = rnd.choice(("1", "0.5", "0.25", "1")) if gpu else f"{rnd.randrange(1, 5000)}.{rnd.randrange(100)}"
            price = "2.4800" if gpu else "0.0230"
            cost = f"{rnd.randrange(0, 300)}.{rnd.randrange(0, 10000):04d}"
            used = "Used" if gpu and r % 3 == 0 else ""
            buf.append(
                f"{cost},{cost},{cost},{cost},USD,2026-10-01T00:00:00Z,2026-11-01T00:00:00Z,{hours[h]},{hours[h + 1]},"
                f"Usage,Usage-Based,{'GPU instance hour' if gpu else 'Object storage GB-month'},"
                f"{'cd-1' if used else ''},{used},{'Committed' if used else 'Standard'},"
                f"{'i' if gpu else 'b'}-{r:06d},node-{r:06d},{'Compute Engine' if gpu else 'Object Storage'},"
                f"{'Compute' if gpu else 'Storage'},ExampleCloud,us-west-{1 + r % 3},acct-{r % 17},{qty},"
                f"{'Hours' if gpu else 'GB'},{qty},{'Hours' if gpu else 'GB'},{price},"
                f"us-west-{1 + r % 3}{'abc'[r % 3]},"
                f"{tags[rnd.randrange(len(tags))]}\n"
            )
            if len(buf) >= 10_000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


def generate_progress(path: Path, rows: int) -> None:
    """``rows`` step events of 50 runs, one a minute each, times with their offset."""
    t0 = datetime(2026, 11, 3, 10, 0, tzinfo=UTC)
    with open(path, "w", encoding="utf-8") as f:
        buf = []
        for i in range(rows):
            run, k = i % 50, i // 50
            ts = (t0 + timedelta(minutes=k)).strftime("%Y-%m-%dT%H:%M:%S+00:00")
            buf.append(f'{{"ts": "{ts}", "run": "r{run:03d}", "event": "step", "step": {k}, '
                       f'"tokens": {k * 4096}, "samples": {k * 16}, "loss": {1 + 1 / (k + 1):.5f}}}\n')
            if len(buf) >= 10_000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


SACCT_HEAD = (
    "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts\n"
)


def generate_sacct(path: Path, rows: int) -> None:
    """``rows`` sacct lines: jobs of a job line and its ``.batch`` and ``.extern`` steps."""
    t0 = datetime(2026, 11, 3, 10, 0)
    states = ("COMPLETED", "COMPLETED", "FAILED", "TIMEOUT", "CANCELLED by 1001")
    with open(path, "w", encoding="utf-8") as f:
        f.write(SACCT_HEAD)
        buf: list[str] = []
        for i in range(rows):
            j, part = divmod(i, 3)
            sub = t0 + timedelta(minutes=j)
            start, end = sub + timedelta(seconds=30), sub + timedelta(hours=1 + j % 5)
            s, st, e = (x.strftime("%Y-%m-%dT%H:%M:%S") for x in (sub, start, end))
            state = states[j % len(states)]
            tail = f"0:0|billing=64,cpu=64,gres/gpu:h800={1 + j % 8},mem=500G,node=1|gpu-node-{j % 64:02d}|0\n"
            jid = 100000 + j
            if part == 0:
                buf.append(f"{jid}|train-{j}|applied-ml|batch-{j % 30}|batch=b{j % 30};run=r{j}|user{j % 40}|"
                           f"{s}|{s}|{st}|{e}|{state}|{tail}")
            else:
                step = ("batch", "extern")[part - 1]
                buf.append(f"{jid}.{step}|{step}|applied-ml||||{st}|{st}|{st}|{e}|"
                           f"{state if part == 1 else 'COMPLETED'}|{tail}")
            if len(buf) >= 10_000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


STEP = r"""
import resource, sys, time
kind, lake, csv = sys.argv[1:4]
t, w = time.process_time(), time.perf_counter()
rows = 0
if kind.startswith("import"):
    from trainledger.ingest import import_files
    from trainledger.lake import Lake
    what = kind.split(":")[1] if ":" in kind else "focus"
    options = {"tz": "Asia/Shanghai"} if what == "slurm" else {}
    (r,) = import_files(what, [csv], Lake(lake), options=options)
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
    rows = r.rows_read
else:  # "duckdb" (its default codec, snappy) or "duckdb:CODEC:LEVEL"
    import duckdb
    con = duckdb.connect()
    con.sql("SET enable_progress_bar = false")
    _, *codec = kind.split(":")
    opts = f" (FORMAT parquet, COMPRESSION {codec[0]}, COMPRESSION_LEVEL {codec[1]})" if codec else ""
    con.sql(f"COPY (SELECT * FROM read_csv('{csv}')) TO '{lake}.duck.parquet'{opts}")
print(time.perf_counter() - w, time.process_time() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, rows)
"""


def step(kind: str, lake: Path, csv: Path) -> tuple[float, float, float]:
    return _run(kind, lake, csv)[:3]


def _run(kind: str, lake: Path, csv: Path) -> tuple[float, float, float, int]:
    out = subprocess.run([sys.executable, "-c", STEP, kind, str(lake), str(csv)], check=True,
                         capture_output=True, text=True).stdout.splitlines()[-1].split()  # fmt: skip
    return float(out[0]), float(out[1]), int(out[2]) / 1024, int(out[3])


def measure_others(rows: int) -> list[tuple[str, float, str]]:
    """CPU-µs per row and peak RSS of each bulk importer at ``rows`` rows (median of REPEATS)."""
    import duckdb

    out: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        files = {"focus CSV": root / "bill.csv", "focus Parquet": root / "bill.parquet",
                 "progress JSONL": root / "progress.jsonl", "slurm sacct": root / "sacct.txt"}
        generate(files["focus CSV"], rows)
        con = duckdb.connect()
        con.sql("SET enable_progress_bar = false")
        con.sql(f"COPY (SELECT * FROM read_csv('{files['focus CSV']}')) TO '{files['focus Parquet']}'")
        generate_progress(files["progress JSONL"], rows)
        generate_sacct(files["slurm sacct"], rows)
        kinds = {"focus CSV": "import:focus", "focus Parquet": "import:focus",
                 "progress JSONL": "import:progress", "slurm sacct": "import:slurm"}
        for label, path in files.items():
            got = [_run(kinds[label], root / f"lake-{label.replace(' ', '-')}-{i}", path) for i in range(REPEATS)]
            cpu = statistics.median(g[1] for g in got)
            n = got[0][3]
            out.append((f"import {label} ({n:,} rows): CPU per row", cpu / n * 1e6, "µs"))
            out.append((f"import {label}: peak RSS", statistics.median(g[2] for g in got), "MiB"))
    return out


def lake_codec() -> str:
    """DuckDB's COPY step writing the lake's own codec and level (``lake/encoding.py``)."""
    from trainledger.lake import encoding

    return f"duckdb:{encoding.COMPRESSION}:{encoding.COMPRESSION_LEVEL}"


def measure(rows: int) -> list[tuple[str, float, str]]:
    like = lake_codec()
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "bill.csv"
        generate(csv, rows)
        got: dict[str, list[tuple[float, float, float]]] = {"import": [], "duckdb": [], like: []}
        for i in range(REPEATS):
            for kind in got:
                got[kind].append(step(kind, Path(d) / f"lake{i}", csv))
        med = {k: [statistics.median(x[j] for x in v) for j in range(3)] for k, v in got.items()}
        size = csv.stat().st_size / 2**20
    (iw, ic, irss), (dw, dc, drss), (zw, zc, _) = med["import"], med["duckdb"], med[like]
    n = f"{rows:,} rows, {size:,.0f} MiB"
    codec = like.split(":", 1)[1].replace(":", " level ")
    return [
        (f"import focus ({n}): wall", iw, "s"),
        ("import focus: CPU", ic, "s"),
        ("import focus: CPU per row", ic / rows * 1e6, "µs"),
        ("import focus: peak RSS", irss, "MiB"),
        ("duckdb csv→parquet: wall", dw, "s"),
        ("duckdb csv→parquet: CPU", dc, "s"),
        ("duckdb: peak RSS", drss, "MiB"),
        ("ratio import / duckdb, wall (goal ≤ 1.5)", iw / dw, "×"),
        ("ratio import / duckdb, CPU", ic / dc, "×"),
        (f"duckdb csv→parquet ({codec}, as the lake): CPU", zc, "s"),
        (f"ratio import / duckdb ({codec}), wall", iw / zw, "×"),
        (f"ratio import / duckdb ({codec}), CPU", ic / zc, "×"),
    ]


DEFAULT_ROWS = int(os.environ.get("TRAINLEDGER_BENCH_IMPORT_ROWS", "1000000"))
OTHER_ROWS = int(os.environ.get("TRAINLEDGER_BENCH_IMPORT_OTHER_ROWS", "200000"))


def main(sizes: tuple[int, ...] = (DEFAULT_ROWS,)) -> list[tuple[str, float, str]]:
    figures = [figure for rows in sizes for figure in measure(rows)]
    return figures + (measure_others(OTHER_ROWS) if OTHER_ROWS else [])


if __name__ == "__main__":
    sizes = tuple(int(a.replace("_", "")) for a in sys.argv[1:]) or (DEFAULT_ROWS,)
    for label, value, unit in main(sizes):
        print(f"  {label:<50} {value:10.2f} {unit}")
