"""Sanity test against published training runs (none of them in this repository).

The priors were set from *reported MFU and reliability figures* (data/mfu.toml, data/priors.toml),
not from the GPU-hour totals below; this test only checks where those totals land. A published
total is one of two kinds, and is compared with the matching range:

- cluster time (GPUs x wall-clock, or "cumulative GPU hours of computation"): includes restarts,
  hangs and lost progress, so it is compared with ``gpu_hours`` (effective x overhead);
- throughput-derived (tokens / measured tokens-per-second-per-GPU): the time the run would take
  with no failures, so it is compared with ``effective_gpu_hours``.

Runs the estimator does *not* contain are marked strict xfail with the reason: they document its
limits, and the test fails if a change silently moves them inside (update the note then). The
report test prints where every run lands, inside or not.
"""

from __future__ import annotations

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
    ),
    "DeepSeek-AI 2024, arXiv:2412.19437 Table 1: 2.788M H800 GPU-hours (180K per trillion tokens)",
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


def _range(book, run, figure):
    _, published, inputs, _ = run
    r = estimate(book, task="pretrain", samples=100_000, **inputs).to_dict()[figure]
    return r["p10"], published, r["p90"]


def _ids(runs):
    return [r[0] for r in runs]


# Where each published total lands (gpu_hours P90/P10 ~2.1-2.5, effective ~1.7-2.0 after the
# MFU rows were set from their sources' spread and the overhead prior got its troubled-run tail).
# Cluster time is compared with gpu_hours; throughput-derived totals with effective_gpu_hours;
# LLaMA-2's Table 2 ("total GPU time") and DeepSeek-V3's total are read both ways.
CLUSTER_TIME_INSIDE = [BLOOM, DEEPSEEK_V3, LLAMA31_70B, LLAMA31_405B, MPT_7B, LLAMA2_70B, LLAMA2_13B, LLAMA2_7B]
THROUGHPUT_DERIVED_INSIDE = [LLAMA2_70B, LLAMA2_13B, LLAMA2_7B, LLAMA1_65B, DEEPSEEK_V3]


@pytest.mark.parametrize("run", CLUSTER_TIME_INSIDE, ids=_ids(CLUSTER_TIME_INSIDE))
def test_published_gpu_hours_fall_inside_p10_p90(book, run):
    p10, published, p90 = _range(book, run, "gpu_hours")
    assert p10 <= published <= p90, f"{run[0]}: {published:,} not in [{p10:,}, {p90:,}] ({run[3]})"


@pytest.mark.parametrize("run", THROUGHPUT_DERIVED_INSIDE, ids=_ids(THROUGHPUT_DERIVED_INSIDE))
def test_throughput_derived_figures_fall_inside_effective_p10_p90(book, run):
    p10, published, p90 = _range(book, run, "effective_gpu_hours")
    assert p10 <= published <= p90, f"{run[0]}: {published:,} not in [{p10:,}, {p90:,}] ({run[3]})"


KNOWN_MISSES = [
    pytest.param(
        LLAMA31_8B,
        "gpu_hours",
        marks=pytest.mark.xfail(
            strict=True,
            reason=(
                "above P90 (1.46M vs ~1.36M): 1.46M hours implies ~18% all-in MFU, below every cited H100 "
                "figure for a mid-size model (27-54%): the figure likely includes more than one final run; "
                "not tuned for"
            ),
        ),
        id="Llama-3.1-8B-gpu_hours",
    ),
    pytest.param(
        LLAMA1_65B,
        "gpu_hours",
        marks=pytest.mark.xfail(
            strict=True,
            reason=(
                "below the with-overhead P10 (1.02M vs ~1.06M), as a throughput-derived figure should be: "
                "380 tokens/s/GPU excludes restarts; inside the effective range (tested above)"
            ),
        ),
        id="LLaMA-65B-gpu_hours",
    ),
]


@pytest.mark.parametrize(("run", "figure"), KNOWN_MISSES)
def test_known_misses(book, run, figure):
    p10, published, p90 = _range(book, run, figure)
    assert p10 <= published <= p90


def test_report_where_published_runs_land(book):
    """The sanity report (``pytest -s`` or ``-rP`` shows it): every run, both figures, inside or not."""
    rows = []
    for run in [BLOOM, DEEPSEEK_V3, LLAMA31_70B, LLAMA31_405B, LLAMA31_8B, MPT_7B, *_LLAMA2, LLAMA1_65B]:
        for figure in ("effective_gpu_hours", "gpu_hours"):
            p10, published, p90 = _range(book, run, figure)
            where = "inside" if p10 <= published <= p90 else ("below P10" if published < p10 else "above P90")
            rows.append(
                f"{run[0]:16} {figure:20} {p10:>13,.0f} {published:>13,} {p90:>13,.0f}  x{p90 / p10:.2f}  {where}"
            )
            assert p10 < p90
    print(
        "\n".join(["run              figure                         P10     published           P90   P90/P10", *rows])
    )


_LLAMA2 = [LLAMA2_70B, LLAMA2_13B, LLAMA2_7B]
