"""Monte Carlo over every uncertain input -> P10 / P50 / P90, and the tornado list.

Each input draws from its own stream, seeded by (seed, crc32(name)): a draw never depends on
which other inputs exist or on their order, so two estimates that differ in one point value
(more tokens, more GPUs) see the same random numbers and compare monotonically.

Three-point inputs follow a triangular distribution: low and high are the lowest and highest
values the sources show (or a reviewer would defend), the mode the most likely. It is the honest
choice when a range rests on a handful of published figures: its P10-P90 keeps the spread of
those figures, where a Beta-PERT would claim more certainty than a handful of runs can give.
Samples come from the inverse CDF of one uniform array: vectorised, ~1 ms per 100k draws.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass

import numpy as np

from trainledger.estimate.quantities import Uncertain

DEFAULT_SAMPLES = 100_000
DEFAULT_SEED = 20240607


def triangular(u: np.ndarray, low: float, mode: float, high: float) -> np.ndarray:
    """Triangular quantiles of uniforms ``u`` (inverse CDF)."""
    if high == low:
        return np.full(u.shape, low)
    span = high - low
    c = (mode - low) / span
    left = low + np.sqrt(u * span * (mode - low))
    right = high - np.sqrt((1.0 - u) * span * (high - mode))
    return np.where(u < c, left, right)


class Sampler:
    """Draws named inputs and remembers them for the drawer and the tornado."""

    def __init__(self, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> None:
        if samples < 100:
            raise ValueError("at least 100 Monte Carlo samples are needed for P10/P90")
        self.n = samples
        self.seed = seed
        self.inputs: dict[str, tuple[Uncertain, np.ndarray]] = {}
        self.uniforms: dict[str, np.ndarray] = {}

    def draw(self, u: Uncertain) -> np.ndarray:
        if u.name in self.inputs:
            return self.inputs[u.name][1]
        if u.is_point:
            x = np.full(self.n, u.low)
        else:
            rng = np.random.default_rng([self.seed, zlib.crc32(u.name.encode())])
            self.uniforms[u.name] = rng.random(self.n)
            x = triangular(self.uniforms[u.name], u.low, u.mode, u.high)
        self.inputs[u.name] = (u, x)
        return x

    def uncertain(self) -> list[Uncertain]:
        return [u for u, _ in self.inputs.values()]


@dataclass(frozen=True, slots=True)
class Pct:
    p10: float
    p50: float
    p90: float

    @classmethod
    def of(cls, x: np.ndarray) -> Pct:
        lo, mid, hi = np.percentile(x, (10, 50, 90))
        return cls(float(lo), float(mid), float(hi))

    @classmethod
    def zero(cls) -> Pct:
        return cls(0.0, 0.0, 0.0)

    def scaled(self, k: float) -> Pct:
        """Percentiles commute with a positive scale: no second pass over the samples."""
        return Pct(self.p10 * k, self.p50 * k, self.p90 * k)


@dataclass(frozen=True, slots=True)
class Swing:
    name: str
    input_low: float  # the input's P10
    input_high: float  # the input's P90
    result_at_low: float  # mean result when the input is at or below its P10
    result_at_high: float  # mean result when the input is at or above its P90
    unit: str = ""

    @property
    def swing(self) -> float:
        return abs(self.result_at_high - self.result_at_low)


def tornado(sampler: Sampler, result: np.ndarray, top: int = 10) -> list[Swing]:
    """Inputs ranked by swing; swings within Monte Carlo noise (3 standard errors of the
    difference of two decile means) are left out: they would rank noise, not assumptions."""
    noise = 3.0 * float(result.std()) * math.sqrt(2.0 / (0.1 * sampler.n))
    out = []
    for name, (u, _) in sampler.inputs.items():
        if u.is_point:
            continue
        # each input is a monotone function of its uniform: its bottom decile is u <= 0.1
        q = sampler.uniforms[name]
        low_mask, high_mask = q <= 0.1, q >= 0.9
        if not low_mask.any() or not high_mask.any():
            continue
        lo, hi = triangular(np.array([0.1, 0.9]), u.low, u.mode, u.high)
        swing = Swing(
            name,
            float(lo),
            float(hi),
            float(result[low_mask].mean()),
            float(result[high_mask].mean()),
            u.unit,
        )
        if swing.swing > noise:
            out.append(swing)
    out.sort(key=lambda s: (-s.swing, s.name))
    return out[:top]
