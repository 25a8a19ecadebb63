"""FLOPs and GPU-hours against hand-worked examples."""

from __future__ import annotations

import pytest

from trainledger.estimate.catalog import get_accelerator
from trainledger.estimate.memory import ModelShape, Setup
from trainledger.estimate.throughput import (
    attention_flops,
    flops_per_token,
    mfu_model,
    scale_factor,
    training_flops,
)
from trainledger.model.vocab import TaskType

GPT3 = ModelShape(175e9, 175e9, 96, 12288, 96, 50257, 4 * 12288, False)


def test_gpt3_training_flops_match_the_paper():
    # Brown et al. 2020, Table D.1: GPT-3 175B on 300B tokens = 3.14e23 FLOPs (6*N*D).
    fl = training_flops(GPT3, Setup(TaskType.PRETRAIN, seq_len=2048), 300e9)
    six_nd = 6 * 175e9 * 300e9
    assert six_nd == pytest.approx(3.14e23, rel=0.01)
    # plus attention: 12*L*h*s per token (PaLM, Chowdhery et al. 2022, appendix B)
    assert fl.model_total == pytest.approx(six_nd + 12 * 96 * 12288 * 2048 * 300e9)


def test_recompute_adds_hardware_not_model_flops():
    attn = attention_flops(GPT3, 2048)
    base = dict(task=TaskType.PRETRAIN, seq_len=2048)
    m_sel, h_sel = flops_per_token(GPT3, Setup(recompute="selective", **base))
    m_full, h_full = flops_per_token(GPT3, Setup(recompute="full", **base))
    assert m_sel == m_full == 6 * 175e9 + attn
    assert h_sel == pytest.approx(m_sel + attn / 3)  # attention forward again
    assert h_full == pytest.approx(m_full + 2 * 175e9 + attn / 3)  # whole forward again


def test_lora_costs_four_not_six_flops_per_parameter():
    m, _ = flops_per_token(GPT3, Setup(TaskType.LORA, seq_len=2048, lora_rank=8))
    adapters = 8 * 96 * (8 * 12288 + 3 * (12288 + 4 * 12288))
    assert m == pytest.approx(4 * 175e9 + attention_flops(GPT3, 2048) + 6 * adapters)


def test_effective_hours_hand_worked():
    # 1e21 FLOPs on A100 (312 TFLOP/s dense BF16) at 50% MFU: 1e21 / (312e12 * 0.5) / 3600
    acc = get_accelerator("a100-80gb")
    assert 1e21 / (acc.peak_flops() * 0.5) / 3600 == pytest.approx(1780.6, abs=0.1)


def test_scale_penalty_starts_where_the_sources_were_measured():
    assert scale_factor(2048) == 1.0
    assert scale_factor(8192) == pytest.approx(0.98)  # one doubling above 4,096
    assert scale_factor(10**7) == 0.85


def test_mfu_adjustments_are_listed():
    h800 = get_accelerator("h800")
    moe = ModelShape(671e9, 37e9, 61, 7168, 128, 129280, 18432, False)
    mm = mfu_model(h800, moe, Setup(TaskType.PRETRAIN, precision="fp8"), 2048)
    names = [f.name for f in mm.factors]
    assert names[0].startswith("MFU (hopper, large")
    assert "MoE expert compute efficiency" in names and "FP8 end-to-end speed-up over BF16" in names
    assert "MoE all-to-all (expert parallelism)" in names
    ft = mfu_model(h800, GPT3, Setup(TaskType.QLORA), 8)
    assert {"fine-tuning utilisation factor", "QLoRA dequantisation factor"} <= {f.name for f in ft.factors}
