"""Sanity test against published training runs (none of them in this repository).

The priors were set from *reported MFU and reliability figures* (data/mfu.toml, data/priors.toml),
not from the GPU-hour totals below; this test only checks where those totals land. A published
total is one of two kinds, and is compared with the matching range:

- cluster time (GPUs x wall-clock, or "cumulative GPU hours of computation"): includes restarts,
  hangs and lost progress, so it is compared with ``gpu_hours`` (effective x overhead);
- throughput-derived (tokens / measured tokens-per-second-per-GPU): the time the run would take
  with no failures, so it is compared with ``effective_gpu_hours``.

Runs the estimator does *not* contain are marked strict xfail with the reason: they document its
limits, and the test fails if a change silently moves them inside (update the note then).
``test_validation_figures_meet_their_goals`` prints where every run lands and the three figures
(coverage of P10-P90, median |ln(P50 / published)|, median P90 / P10) and checks them against the
goals. The MFU prior holds steady-state figures only (data/mfu.toml ``all_in`` lists the all-in
ones apart), so the overhead is counted once. The MoE runs give their published layout (top_k,
ep, moe_layers, ep_overlap: facts of the papers cited, not fitted values) for the all-to-all model
of estimate/interconnect.py.
"""

from __future__ import annotations

import math
import statistics

import pytest

from tests.estimate.helpers import estimate

# name, published GPU-hours, estimate inputs, citation
BLOOM = (
    "BLOOM-176B",
    1_082_990,
    dict(
        params="176B",
        tokens="366B",
        gpu="a100-80gb",
        gpus=384,
        seq_len=2048,
        layers=70,
        hidden=14336,
        vocab=250880,
    ),
    "BigScience 2022, arXiv:2211.05100 and model card: 1,082,990 A100-80GB hours on 384 GPUs",
)
DEEPSEEK_V3 = (
    "DeepSeek-V3",
    2_788_000,
    dict(
        params="671B",
        active_params="37B",
        tokens="14.8T",
        gpu="h800",
        gpus=2048,
        precision="fp8",
        layers=61,
        hidden=7168,
        vocab=129280,
        top_k=8,
        ep=64,
        moe_layers=58,
        ep_overlap="full",
    ),
    "DeepSeek-AI 2024, arXiv:2412.19437 Table 1: 2.788M H800 GPU-hours (180K per trillion tokens); "
    "section 2.1.2 / 4.2: 8 of 256 routed experts per token, all layers but the first 3 MoE; section 3.2: "
    "64-way expert parallelism over 8 nodes, DualPipe overlapping the all-to-all",
)
LLAMA31_70B = (
    "Llama-3.1-70B",
    7_000_000,
    dict(
        params="70B",
        tokens="15T",
        gpu="h100-80gb",
        seq_len=8192,
        layers=80,
        hidden=8192,
        vocab=128256,
    ),
    "Meta Llama 3.1 model card (2024-07): 7.0M H100-80GB GPU hours, 15T+ tokens",
)
LLAMA31_405B = (
    "Llama-3.1-405B",
    30_840_000,
    dict(
        params="405B",
        tokens="15.6T",
        gpu="h100-80gb",
        gpus=16384,
        seq_len=8192,
        layers=126,
        hidden=16384,
        vocab=128256,
    ),
    "Meta Llama 3.1 model card: 30.84M H100-80GB GPU hours; Dubey et al. 2024 (arXiv:2407.21783): "
    "15.6T tokens on up to 16,384 H100",
)
LLAMA31_8B = (
    "Llama-3.1-8B",
    1_460_000,
    dict(
        params="8B",
        tokens="15T",
        gpu="h100-80gb",
        seq_len=8192,
        layers=32,
        hidden=4096,
        vocab=128256,
    ),
    "Meta Llama 3.1 model card: 1.46M H100-80GB GPU hours",
)
MPT_7B = (
    "MPT-7B",
    100_320,
    dict(
        params="6.7B",
        tokens="1T",
        gpu="a100-40gb",
        gpus=440,
        seq_len=2048,
        layers=32,
        hidden=4096,
        vocab=50432,
    ),
    "MosaicML, 'Introducing MPT-7B' (2023-05-05): 1T tokens on 440 A100-40GB in ~9.5 days "
    "(= 100,320 GPU-hours of cluster time)",
)
LLAMA2_70B = (
    "LLaMA-2-70B",
    1_720_320,
    dict(params="70B", tokens="2T", gpu="a100-80gb", seq_len=4096, layers=80, hidden=8192),
    "Touvron et al. 2023, arXiv:2307.09288 Table 2: 1,720,320 A100-80GB GPU hours, 2T tokens",
)
LLAMA2_13B = (
    "LLaMA-2-13B",
    368_640,
    dict(params="13B", tokens="2T", gpu="a100-80gb", seq_len=4096, layers=40, hidden=5120),
    "Touvron et al. 2023 Table 2: 368,640 GPU hours",
)
LLAMA2_7B = (
    "LLaMA-2-7B",
    184_320,
    dict(params="7B", tokens="2T", gpu="a100-80gb", seq_len=4096, layers=32, hidden=4096),
    "Touvron et al. 2023 Table 2: 184,320 GPU hours",
)
LLAMA1_65B = (
    "LLaMA-65B",
    1_022_362,
    dict(
        params="65.2B",
        tokens="1.4T",
        gpu="a100-80gb",
        gpus=2048,
        seq_len=2048,
        layers=80,
        hidden=8192,
    ),
    "Touvron et al. 2023, arXiv:2302.13971 section 2.4 and Table 15: 380 tokens/s/GPU on 2,048 "
    "A100-80GB, 1,022,362 GPU hours (= 1.4T tokens / 380 tokens/s: throughput-derived)",
)

LLAMA1_7B = (
    "LLaMA-7B",
    82_432,
    dict(params="6.7B", tokens="1T", gpu="a100-80gb", seq_len=2048, layers=32, hidden=4096),
    "Touvron et al. 2023, arXiv:2302.13971 Table 15: 82,432 A100-80GB GPU hours (1.0T tokens, section 2.4: "
    "GPU hours from the measured throughput)",
)
LLAMA1_13B = (
    "LLaMA-13B",
    135_168,
    dict(params="13.0B", tokens="1T", gpu="a100-80gb", seq_len=2048, layers=40, hidden=5120),
    "Touvron et al. 2023, arXiv:2302.13971 Table 15: 135,168 A100-80GB GPU hours (1.0T tokens)",
)
LLAMA1_33B = (
    "LLaMA-33B",
    530_432,
    dict(params="32.5B", tokens="1.4T", gpu="a100-80gb", seq_len=2048, layers=60, hidden=6656),
    "Touvron et al. 2023, arXiv:2302.13971 Table 15: 530,432 A100-80GB GPU hours (1.4T tokens)",
)
LLAMA2_34B = (
    "LLaMA-2-34B",
    1_038_336,
    dict(params="34B", tokens="2T", gpu="a100-80gb", seq_len=4096, layers=48, hidden=8192),
    "Touvron et al. 2023, arXiv:2307.09288 Table 2: 1,038,336 A100-80GB GPU hours, 2T tokens",
)
DEEPSEEK_67B = (
    "DeepSeek-LLM-67B",
    601_200,
    dict(params="67B", tokens="2T", gpu="h800", seq_len=4096, layers=95, hidden=8192, vocab=102400),
    "DeepSeek-AI 2024, arXiv:2405.04434 (DeepSeek-V2) section 3.2.3: 300.6K H800 GPU hours per trillion "
    "tokens for DeepSeek 67B (trained on 2T tokens, arXiv:2401.02954): a measured rate",
)
DEEPSEEK_V2 = (
    "DeepSeek-V2",
    1_399_680,
    dict(
        params="236B",
        active_params="21B",
        tokens="8.1T",
        gpu="h800",
        seq_len=4096,
        layers=60,
        hidden=5120,
        vocab=102400,
        top_k=6,
        ep=8,
        moe_layers=59,
        ep_overlap="partial",
    ),
    "DeepSeek-AI 2024, arXiv:2405.04434 section 3.2.3: 172.8K H800 GPU hours per trillion tokens, 8.1T tokens; "
    "section 3.1.2: 6 of 160 routed experts per token, all layers but the first MoE; section 3.2.3: 8-way "
    "expert parallelism, shared experts' computation overlapped with the all-to-all",
)
TINYLLAMA = (
    "TinyLlama-1.1B",
    34_722,
    dict(params="1.1B", tokens="3T", gpu="a100-40gb", gpus=16, seq_len=2048, layers=22, hidden=2048),
    "TinyLlama README (github.com/jzhang38/TinyLlama, 2023-09) and Zhang et al. 2024, arXiv:2401.02385: "
    "24k tokens/s per A100-40G on 16 GPUs, 3T tokens (= 34,722 GPU-hours: throughput-derived)",
)

# Every run once, with the figure its published total compares with (see the module docstring):
# "gpu_hours" for cluster time, "effective_gpu_hours" for throughput-derived totals.
ALL_RUNS = [
    (BLOOM, "gpu_hours"),
    (DEEPSEEK_V3, "gpu_hours"),
    (LLAMA31_70B, "gpu_hours"),
    (LLAMA31_405B, "gpu_hours"),
    (LLAMA31_8B, "gpu_hours"),
    (MPT_7B, "gpu_hours"),
    (LLAMA2_70B, "gpu_hours"),
    (LLAMA2_34B, "gpu_hours"),
    (LLAMA2_13B, "gpu_hours"),
    (LLAMA2_7B, "gpu_hours"),
    (LLAMA1_65B, "effective_gpu_hours"),
    (LLAMA1_33B, "effective_gpu_hours"),
    (LLAMA1_13B, "effective_gpu_hours"),
    (LLAMA1_7B, "effective_gpu_hours"),
    (DEEPSEEK_67B, "effective_gpu_hours"),
    (DEEPSEEK_V2, "effective_gpu_hours"),
    (TINYLLAMA, "effective_gpu_hours"),
]


_CACHE: dict[tuple[str, str], tuple[float, float, float]] = {}


def _pcts(book, run, figure) -> tuple[float, float, float]:
    key = (run[0], figure)
    if key not in _CACHE:
        r = estimate(book, task="pretrain", samples=100_000, **run[2]).to_dict()[figure]
        _CACHE[key] = (r["p10"], r["p50"], r["p90"])
    return _CACHE[key]


def _range(book, run, figure):
    p10, _, p90 = _pcts(book, run, figure)
    return p10, run[1], p90


def _ids(runs):
    return [r[0] for r in runs]


# Known misses: strict xfail with the reason; the test fails if a change silently moves them inside.
MISSES = {
    "TinyLlama-1.1B": (
        "below P10 (34.7k vs ~38.6k): 24k tokens/s/GPU is 59% MFU with attention FLOPs counted, the highest "
        "small-model figure published, at the top of the assumed ampere.small row (0.20-0.44-0.62); not widened "
        "further to fit it. (Llama-3.1-8B, ~18% all-in MFU on an unpublished cluster size, lies near the top "
        "of its band since the measured rows' extremes became their 1/(n+1) and n/(n+1) quantiles.)"
    ),
}
INSIDE = [(r, f) for r, f in ALL_RUNS if r[0] not in MISSES]


@pytest.mark.parametrize(("run", "figure"), INSIDE, ids=[r[0] for r, _ in INSIDE])
def test_published_totals_fall_inside_p10_p90(book, run, figure):
    p10, published, p90 = _range(book, run, figure)
    assert p10 <= published <= p90, f"{run[0]}: {published:,} not in [{p10:,}, {p90:,}] ({run[3]})"


# LLaMA-2's Table 2 ("total GPU time") and DeepSeek-V3's total are also read as throughput-derived.
THROUGHPUT_DERIVED_TOO = [LLAMA2_70B, LLAMA2_13B, LLAMA2_7B, DEEPSEEK_V3]


@pytest.mark.parametrize("run", THROUGHPUT_DERIVED_TOO, ids=_ids(THROUGHPUT_DERIVED_TOO))
def test_also_inside_the_effective_range(book, run):
    p10, published, p90 = _range(book, run, "effective_gpu_hours")
    assert p10 <= published <= p90, f"{run[0]}: {published:,} not in [{p10:,}, {p90:,}] ({run[3]})"


KNOWN_MISSES = [
    pytest.param(r, f, marks=pytest.mark.xfail(strict=True, reason=MISSES[r[0]]), id=f"{r[0]}-{f}")
    for r, f in ALL_RUNS
    if r[0] in MISSES
] + [
    pytest.param(
        LLAMA1_65B,
        "gpu_hours",
        marks=pytest.mark.xfail(
            strict=True,
            reason=(
                "below the with-overhead P10, as a throughput-derived figure should be: 380 tokens/s/GPU "
                "excludes restarts; inside the effective range (tested above)"
            ),
        ),
        id="LLaMA-65B-gpu_hours",
    ),
]


@pytest.mark.parametrize(("run", "figure"), KNOWN_MISSES)
def test_known_misses(book, run, figure):
    p10, published, p90 = _range(book, run, figure)
    assert p10 <= published <= p90


def validation(book) -> dict:
    """Coverage of the P10-P90 band, median |ln(P50 / published)| and median P90 / P10 over ALL_RUNS
    (misses included), each run compared with its own figure."""
    rows, inside, errors, bands = [], 0, [], []
    for run, figure in ALL_RUNS:
        p10, p50, p90 = _pcts(book, run, figure)
        published = run[1]
        ok = p10 <= published <= p90
        inside += ok
        errors.append(abs(math.log(p50 / published)))
        bands.append(p90 / p10)
        where = "inside" if ok else ("below P10" if published < p10 else "above P90")
        rows.append(
            f"{run[0]:17} {figure:20} {p10:>12,.0f} {p50:>12,.0f} {p90:>12,.0f} {published:>12,}"
            f"  ln {math.log(p50 / published):+.3f}  x{p90 / p10:.2f}  {where}"
        )
    return {
        "coverage": inside / len(ALL_RUNS),
        "median_log_error": statistics.median(errors),
        "median_band": statistics.median(bands),
        "rows": rows,
        "n": len(ALL_RUNS),
    }


def test_validation_figures_meet_their_goals(book):
    """The sanity report (``pytest -s`` shows it) and its three figures against the goals:
    >= 85 % of published totals inside P10-P90, median |ln(P50 / published)| <= 0.15, median
    P90 / P10 <= 2.5 (an honest band, not a wide one)."""
    v = validation(book)
    header = f"{'run':17} {'figure':20} {'P10':>12} {'P50':>12} {'P90':>12} {'published':>12}"
    print("\n".join([header, *v["rows"]]))
    print(
        f"{v['n']} runs: coverage {v['coverage']:.0%}, median |ln(P50/published)| {v['median_log_error']:.3f}, "
        f"median P90/P10 {v['median_band']:.2f}"
    )
    assert v["coverage"] >= 0.85
    assert v["median_log_error"] <= 0.15
    assert v["median_band"] <= 2.5
