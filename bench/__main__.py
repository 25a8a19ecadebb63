"""``python -m bench``: run every registered benchmark and print its median figures."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = ("bench.startup", "bench.bench_montecarlo", "bench.bench_pipeline", "bench.bench_scale",
              "bench.bench_mapped", "bench.bench_engine", "bench.bench_import",
              "bench.bench_serve")
TARGETS_MS = {"montecarlo_core (100k samples, 20 inputs)": 100.0,
              "trainledger --help CPU": 300.0, "trainledger batch list CPU": 300.0,
              "ratio import / duckdb, wall (goal ≤ 1.5)": 1.5}
# start-up and the import ratio: a busy machine is no failure
REPORT_ONLY = {"trainledger --help CPU", "trainledger batch list CPU", "ratio import / duckdb, wall (goal ≤ 1.5)"}


def main() -> int:
    worst = 0
    for name in BENCHMARKS:
        module = importlib.import_module(name)
        print(f"{name}: median of repeated runs")
        for label, value, unit in module.main():
            target = TARGETS_MS.get(label)
            verdict = (
                "" if target is None else (f"  (target < {target:g} {unit}: {'ok' if value < target else 'MISSED'})")
            )
            if target is not None and value >= target and label not in REPORT_ONLY:
                worst = 1
            print(f"  {label:<45} {value:8.1f} {unit}{verdict}")
    return worst


if __name__ == "__main__":
    sys.exit(main())
