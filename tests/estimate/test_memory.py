"""Memory -> GPU count against hand-worked examples from the papers the formulas come from."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.errors import BadInput, NotFound
from trainledger.estimate.catalog import GIB, custom, get_accelerator
from trainledger.estimate.memory import (
    ModelShape,
    Parallel,
    Setup,
    activation_bytes,
    adapter_params,
    derive_shape,
    per_gpu,
    plan_memory,
    state_bytes,
)
from trainledger.model.vocab import TaskType

A100 = get_accelerator("a100-80gb")


def shape(params=7.5e9, layers=32, hidden=4096, heads=32, vocab=32000):
    return ModelShape(params, params, layers, hidden, heads, vocab, 4 * hidden, False)


@pytest.mark.parametrize(("stage", "expected_gb"), [(0, 120.0), (1, 31.4), (2, 16.6), (3, 1.875)])
def test_zero_paper_figure_1(stage, expected_gb):
    # Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Figure 1: a 7.5B model, Nd = 64, K = 12:
    # baseline 120 GB; P_os 31.4 GB; P_os+g 16.6 GB; P_os+g+p 1.88 GB per device.
    bd = per_gpu(shape(), Setup(TaskType.PRETRAIN), Parallel(stage), 64, A100)
    assert bd.model_states / 1e9 == pytest.approx(expected_gb, abs=0.05)


def test_bytes_per_parameter_by_optimizer():
    s = shape(1e9)

    def total(opt, prec="bf16"):
        st = state_bytes(s, Setup(TaskType.PRETRAIN, optimizer=opt, precision=prec))
        return (st["weights"] + st["gradients"] + st["optimizer_states"]) / 1e9

    assert total("adamw") == 16  # 2 + 2 + 4 master + 8 moments (ZeRO paper)
    assert total("adam8bit") == 10  # moments in 1 byte each (Dettmers et al. 2022)
    assert total("sgd") == 12  # one fp32 momentum
    assert total("adamw", "fp32") == 16  # 4 + 4 + 8, no master copy


def test_qlora_base_is_4_127_bits_per_parameter():
    # QLoRA (Dettmers et al. 2023) section 3: NF4 + double quantisation = 4 + 0.127 bits/param.
    s = shape(7e9)
    st = state_bytes(s, Setup(TaskType.QLORA, lora_rank=16))
    adapters = adapter_params(s, 16)
    assert st["weights"] == pytest.approx(7e9 * 4.127 / 8 + 2 * adapters)
    assert st["trainable"] == adapters
    # rank 16 on 32 layers: 16 * 32 * (8 * 4096 + 3 * (4096 + 16384)) = 48,234,496
    assert adapters == 16 * 32 * (8 * 4096 + 3 * (4096 + 16384))


def test_activations_korthikanti_formula():
    # Korthikanti et al. 2022 (arXiv:2205.05198) section 4: GPT-3 175B, s=2048, b=1, h=12288,
    # a=96, t=8 with sequence parallelism: per layer s*b*h*(34 + 5*a*s/h)/t without recompute,
    # 34*s*b*h/t selective; the fp32 logits 4*s*b*V/t come on top.
    s = ModelShape(175e9, 175e9, 96, 12288, 96, 51200, 4 * 12288, False)
    base = dict(task=TaskType.PRETRAIN, seq_len=2048, micro_batch=1)
    logits = 4 * 2048 * 51200 / 8
    none = activation_bytes(s, Setup(recompute="none", flash_attention=False, **base), 8)
    assert none == pytest.approx(96 * 2048 * 12288 * (34 + 5 * 96 * 2048 / 12288) / 8 + logits)
    sel = activation_bytes(s, Setup(recompute="selective", **base), 8)
    assert sel == pytest.approx(96 * 2048 * 12288 * 34 / 8 + logits)
    full = activation_bytes(s, Setup(recompute="full", **base), 8)
    assert full == pytest.approx((2 * 2048 * 12288 * 96 + 34 * 2048 * 12288) / 8 + logits)
    assert full < sel < none


def test_min_gpus_7b_full_finetune_needs_two_a100s():
    # 7B x 16 bytes = 112 GB of model states: more than one 80 GB card, even before activations.
    plan = plan_memory(derive_shape(7e9), Setup(TaskType.FULL_FINETUNE), A100)
    assert plan.min_gpus == 2 and plan.strategy.startswith("zero3")
    assert plan.breakdown.total <= A100.memory_bytes


def test_qlora_7b_fits_one_24gb_card_with_full_recompute():
    plan = plan_memory(
        derive_shape(7e9),
        Setup(TaskType.QLORA, seq_len=2048, recompute="full"),
        get_accelerator("rtx-4090"),
    )
    assert plan.min_gpus == 1
    assert plan.breakdown.total < 24 * GIB


def test_dominant_term_is_named():
    plan = plan_memory(derive_shape(70e9), Setup(TaskType.PRETRAIN), A100, zero_stage=1)
    assert plan.breakdown.dominant == "optimizer_states"
    assert "optimizer states dominate" in plan.why_en


def test_fits_on_no_gpu_count_is_a_clear_error():
    with pytest.raises(BadInput, match="fits on no number of") as err:
        plan_memory(
            derive_shape(70e9),
            Setup(
                TaskType.PRETRAIN,
                seq_len=131072,
                micro_batch=8,
                recompute="none",
                flash_attention=False,
            ),
            get_accelerator("rtx-4090"),
        )
    assert err.value.remedy and "recompute" in err.value.remedy


def test_given_gpus_below_minimum_is_an_error():
    with pytest.raises(BadInput, match="cannot hold the model"):
        plan_memory(derive_shape(70e9), Setup(TaskType.PRETRAIN), A100, gpus=4)


def test_unknown_accelerator_and_custom():
    with pytest.raises(NotFound, match="unknown accelerator"):
        get_accelerator("b300")
    acc = custom(48, 150)
    assert acc.memory_bytes == 48 * GIB and acc.family == "other"
    assert get_accelerator("A100-80GB").id == "a100-80gb"


@settings(max_examples=60, deadline=None)
@given(
    params=st.floats(1e9, 500e9),
    gpus=st.integers(1, 4096),
    extra=st.integers(1, 4096),
    tp=st.sampled_from([1, 2, 4, 8]),
)
def test_more_gpus_never_raise_memory_per_gpu_under_zero3(params, gpus, extra, tp):
    s = derive_shape(params)
    setup = Setup(TaskType.PRETRAIN)
    a = per_gpu(s, setup, Parallel(3, tp), gpus * tp, A100).total
    b = per_gpu(s, setup, Parallel(3, tp), (gpus + extra) * tp, A100).total
    assert b <= a


# ---------------------------------------------------------------- ZeRO-3 gather buffers


def test_zero3_gathers_nothing_with_one_replica():
    s = derive_shape(65e9, layers=80, hidden=8192)
    for task in (TaskType.QLORA, TaskType.LORA, TaskType.PRETRAIN):
        bd = per_gpu(s, Setup(task, recompute="full"), Parallel(3), 1, A100)
        assert bd.zero3_buffers == 0, task
        assert per_gpu(s, Setup(task), Parallel(3, tp=2), 2, A100).zero3_buffers == 0  # tp2 x dp1
    # offloaded weights are streamed in through the same buffers even on one GPU
    off = per_gpu(s, Setup(TaskType.PRETRAIN, offload="optimizer+params"), Parallel(3), 1, A100)
    assert off.weights == 0 and off.zero3_buffers > 0


def test_zero3_buffers_hold_two_layers_at_the_weights_precision():
    s = derive_shape(65e9, layers=80, hidden=8192)
    q = Setup(TaskType.QLORA, lora_rank=16)
    base_and_adapters = s.params * 4.127 / 8 + 2 * adapter_params(s, 16)  # NF4 base + bf16 adapters
    assert per_gpu(s, q, Parallel(3), 4, A100).zero3_buffers == pytest.approx(2 * base_and_adapters / 80)
    full = per_gpu(s, Setup(TaskType.PRETRAIN), Parallel(3, tp=2), 8, A100)
    assert full.zero3_buffers == pytest.approx(2 * 2 * s.params / 80 / 2)  # bf16, split over tp
    fp32 = per_gpu(s, Setup(TaskType.PRETRAIN, precision="fp32"), Parallel(3), 8, A100)
    assert fp32.zero3_buffers == pytest.approx(2 * 4 * s.params / 80)


def test_min_gpus_counts_the_buffers_that_appear_with_a_second_replica():
    # a shape where one replica fits only without the buffers: the minimum must still fit
    s = derive_shape(7e9)
    acc = get_accelerator("rtx-4090")
    for task in (TaskType.FULL_FINETUNE, TaskType.QLORA, TaskType.PRETRAIN):
        plan = plan_memory(s, Setup(task, recompute="full"), acc, zero_stage=3)
        assert plan.breakdown.total <= acc.memory_bytes
        for n in (plan.min_gpus, plan.min_gpus + 1, 2 * plan.min_gpus + 3):
            assert per_gpu(s, Setup(task, recompute="full"), plan.parallel, n, acc).total <= acc.memory_bytes


def test_strategy_names_the_attention_kernel():
    plan = plan_memory(derive_shape(7e9), Setup(TaskType.PRETRAIN, recompute="none"), A100)
    assert plan.strategy.endswith("none-recompute+flash-attention")
    eager = Setup(TaskType.PRETRAIN, recompute="none", flash_attention=False)
    assert plan_memory(derive_shape(7e9), eager, A100).strategy.endswith("+no-flash-attention")
