"""The estimator's Monte Carlo at 100k samples (target: < 100 ms).

Two figures, each the median of repeated runs after one warm-up:

- ``montecarlo_core``: what the Monte Carlo itself costs — 20 uncertain inputs drawn (one
  stream each; one with a right tail, like the overhead's troubled runs), combined into GPU-hours
  and cost the way the engine does, P10/P50/P90 of the headline figures, and the tornado list;
- ``estimate_end_to_end``: the whole ``estimate.run`` for LLaMA-2-70B-like pre-training on 2,048
  A100s (memory search, priors, price book lookups, every figure's percentiles, drawer).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from datetime import date

import numpy as np

from trainledger.estimate.engine import run
from trainledger.estimate.montecarlo import Pct, Sampler, tornado
from trainledger.estimate.quantities import Uncertain
from trainledger.estimate.spec import build_spec
from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book

SAMPLES = 100_000
REPEATS = 21


def median_ms(fn: Callable[[], object], repeats: int = REPEATS) -> float:
    fn()  # warm-up: imports, caches
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def montecarlo_core(samples: int = SAMPLES) -> Pct:
    s = Sampler(samples, seed=7)
    inputs = [Uncertain(f"input {i}", 1.0, 1.5 + i / 10, 3.0 + i / 5) for i in range(19)]
    inputs.insert(1, Uncertain("overhead", 1.03, 1.11, 1.4, tail_p=0.1, tail_low=1.4, tail_mode=2.2, tail_high=4.0))
    draws = [s.draw(u) for u in inputs]
    mfu = draws[0] * 0.15
    gpu_hours = 8.4e23 / (312e12 * mfu) / 3600 * draws[1]
    compute = gpu_hours * draws[2] * draws[3]
    rest = np.sum(draws[4:], axis=0) * 1e5
    total = compute + rest
    for arr in (mfu, gpu_hours, compute, rest):
        Pct.of(arr)
    tornado(s, total)
    return Pct.of(total)


def estimate_end_to_end() -> Callable[[], object]:
    book = load_price_book(SAMPLE_PRICE_BOOK)
    spec = build_spec(
        {
            "task": "pretrain",
            "params": "70B",
            "tokens": "2T",
            "gpu": "a100-80gb",
            "gpus": 2048,
            "samples": SAMPLES,
        }
    )
    return lambda: run(spec, book=book, on=date(2026, 11, 29))


def main() -> list[tuple[str, float, str]]:
    return [
        ("montecarlo_core (100k samples, 20 inputs)", median_ms(montecarlo_core), "ms"),
        ("estimate_end_to_end (100k samples)", median_ms(estimate_end_to_end()), "ms"),
    ]
