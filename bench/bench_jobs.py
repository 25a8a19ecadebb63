"""``import jobs --preset alibaba-openb-2023`` and ``trainledger jobs`` on a generated pod list of
the openb shape (``python -m bench.bench_jobs [ROWS]``, default 1,000,000 rows).

Prints CPU seconds, µs per row and the peak RSS of each step, each in a fresh process (so one
step's peak is not another's), and DuckDB's own CSV → Parquet of the same file as the yardstick
when DuckDB is installed.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEADER = (
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,"
    "scheduled_time\n"
)
PHASES = ("Running", "Failed", "Pending", "Succeeded")

STEP = """
import resource, sys, time
from trainledger.lake import Lake
lake = Lake(sys.argv[2])
t = time.process_time()
if sys.argv[1] == "import":
    from trainledger.ingest import import_files
    (r,) = import_files("jobs", [sys.argv[3]], lake, options={"preset": "alibaba-openb-2023"})
    assert r.accepted + r.duplicates + r.quarantined == r.rows_read
elif sys.argv[1] == "summary":
    from trainledger.analysis.jobs import job_summary
    job_summary(lake)
else:
    import duckdb
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{sys.argv[3]}')) TO '{sys.argv[2]}/duck.parquet'")
print(time.process_time() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def generate(path: Path, rows: int, seed: int = 7) -> None:
    rnd = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for i in range(rows):
            created = rnd.randrange(0, 13_000_000)
            phase = rnd.choices(PHASES, weights=(64, 23, 11, 2))[0]
            gpus = rnd.choice((0, 1, 1, 1, 2, 8))
            milli = 1000 if gpus != 1 else rnd.choice((1000, 500, 460, 250))
            scheduled = "" if phase == "Pending" else str(created + rnd.randrange(0, 300))
            deleted = created + rnd.randrange(300, 400_000)
            f.write(f"pod-{i:08d},4000,16384,{gpus},{milli if gpus else 0},,LS,{phase},{created},{deleted},"
                    f"{scheduled}\n")  # fmt: skip


def step(kind: str, lake: Path, csv: Path) -> tuple[float, float]:
    out = subprocess.run([sys.executable, "-c", STEP, kind, str(lake), str(csv)], check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1]) / 1024


def main(rows: int = 1_000_000) -> list[tuple[str, float, str]]:
    out = []
    with tempfile.TemporaryDirectory() as d:
        csv = Path(d) / "pods.csv"
        generate(csv, rows)
        for kind in ("import", "summary", "duckdb"):
            try:
                cpu, rss = step(kind, Path(d) / "lake", csv)
            except subprocess.CalledProcessError as e:
                tail = (e.stderr or "").strip().splitlines()[-1:] or ["?"]
                print(f"  {kind}: failed ({tail[0]})", file=sys.stderr)  # e.g. DuckDB not installed
                continue
            out += [(f"{kind} {rows:,} pods: CPU", cpu, "s"), (f"{kind}: per row", cpu / rows * 1e6, "µs"),
                    (f"{kind}: peak RSS", rss, "MiB")]  # fmt: skip
    return out


if __name__ == "__main__":
    t0 = time.time()
    for label, value, unit in main(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000):
        print(f"  {label:<40} {value:10.2f} {unit}")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"  (wall {time.time() - t0:.0f} s; self RSS {rss} MiB)")
