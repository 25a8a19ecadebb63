"""CPU-µs per row of ``import progress`` and ``import slurm`` at 200,000 rows, by the per-row path
and by the column-at-a-time readers (``progress_fast``, ``slurm_fast``), in the same run.

``python -m bench.bench_readers [ROWS]`` (default ``TRAINLEDGER_BENCH_IMPORT_OTHER_ROWS`` or 200,000).
The files are bench_import's (step events of 50 runs; a job line and its ``.batch`` and ``.extern``
steps); each import runs in a fresh process into a fresh lake, median of ``REPEATS``; the per-row
path is the same importer with its ``fast_batches`` switched off. Both write the same lake rows
(tests/ingest/test_columnar_readers.py).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.bench_import import REPEATS, generate_progress, generate_sacct

STEP = r"""
import resource, sys, time
kind, lake, path, mode = sys.argv[1:5]
from trainledger.ingest import import_files, importer_for
from trainledger.lake import Lake
if mode == "per-row":
    type(importer_for(kind)).fast_batches = lambda self, p, c: None
t = time.process_time()
(r,) = import_files(kind, [path], Lake(lake), options={"tz": "Asia/Shanghai"} if kind == "slurm" else {})
assert r.accepted + r.duplicates + r.quarantined == r.rows_read
print(time.process_time() - t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, r.rows_read)
"""


def _run(kind: str, lake: Path, path: Path, mode: str) -> tuple[float, float, int]:
    out = subprocess.run([sys.executable, "-c", STEP, kind, str(lake), str(path), mode], check=True,
                         capture_output=True, text=True).stdout.split()  # fmt: skip
    return float(out[0]), int(out[1]) / 1024, int(out[2])


def main(rows: int) -> list[tuple[str, float, str]]:
    out: list[tuple[str, float, str]] = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        files = {"progress": root / "progress.jsonl", "slurm": root / "sacct.txt"}
        generate_progress(files["progress"], rows)
        generate_sacct(files["slurm"], rows)
        for kind, path in files.items():
            for mode in ("per-row", "column-at-a-time"):
                got = [_run(kind, root / f"lake-{kind}-{mode}-{i}", path, mode) for i in range(REPEATS)]
                n = got[0][2]
                out.append((f"import {kind} {mode} ({n:,} rows): CPU per row",
                            statistics.median(g[0] for g in got) / n * 1e6, "µs"))
                out.append((f"import {kind} {mode}: peak RSS", statistics.median(g[1] for g in got), "MiB"))
    return out


if __name__ == "__main__":
    size = int(sys.argv[1].replace("_", "")) if len(sys.argv) > 1 else int(
        os.environ.get("TRAINLEDGER_BENCH_IMPORT_OTHER_ROWS", "200000"))
    for label, value, unit in main(size):
        print(f"  {label:<58} {value:10.2f} {unit}")
