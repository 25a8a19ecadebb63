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


@pytest.mark.parametrize(("stage", "expected_gb"), [(0, 120.0), (1, 31.4)])
def test_zero_paper_figure_1(stage, expected_gb):
    # Rajbhandari et al. 2020 (ZeRO, arXiv:1910.02054) Figure 1: a 7.5B model, Nd = 64, K = 12:
    # baseline (DDP) 120 GB; P_os 31.4 GB per device. (P_os+g and P_os+g+p: DeepSpeed's own
    # estimators below, which count what the implementation holds.)
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


# ---------------------------------------------------------------- the frameworks' own estimators
# DeepSpeed, deepspeed/runtime/zero/stage_1_and_2.py (documented in the DeepSpeed "Memory
# Requirements" docs, deepspeed.readthedocs.io/en/latest/memory.html):
#   estimate_zero2_model_states_mem_needs(total_params, num_gpus_per_node, num_nodes, cpu_offload,
#                                         additional_buffer_factor=1.5)
#     cpu_offload:  gpu_mem = 2 * total_params
#                   cpu_mem = total_params * max(4 * total_gpus, 16) * additional_buffer_factor
#     else:         gpu_mem = 4 * total_params + int(16 * total_params / total_gpus)
# and deepspeed/runtime/zero/stage3.py estimate_zero3_model_states_mem_needs(total_params,
# largest_layer_params, ..., zero_init=True, additional_buffer_factor=1.5):
#     largest_layer_memory = 4 * largest_layer_params
#     offload params + optimizer: gpu_mem = largest_layer_memory; cpu_mem = total_params * 18 * gpus_factor * 1.5
#     offload optimizer:          gpu_mem = largest_layer_memory + int(2 * total_params / total_gpus)
#                                 cpu_mem = total_params * 16 * gpus_factor * 1.5
#     no offload:                 gpu_mem = largest_layer_memory + int(18 * total_params / total_gpus)
# (gpus_factor = 1 / num_nodes). Our ZeRO-3 gather buffers (two layers' weights) stand for the
# largest-layer term and are at least as large; the model-state terms must agree exactly.


def ds_zero2(total_params, total_gpus, offload):
    if offload:
        return 2 * total_params, total_params * max(4 * total_gpus, 16) * 1.5
    return 4 * total_params + int(16 * total_params / total_gpus), None


def ds_zero3(total_params, total_gpus, nodes, offload):
    if offload == "optimizer+params":
        return 0, total_params * 18 / nodes * 1.5
    if offload == "optimizer":
        return int(2 * total_params / total_gpus), total_params * 16 / nodes * 1.5
    return int(18 * total_params / total_gpus), None


@pytest.mark.parametrize("gpus", [8, 64, 512])
@pytest.mark.parametrize("offload", ["none", "optimizer"])
def test_zero2_model_states_agree_with_deepspeeds_estimator(gpus, offload):
    s = shape(7e9)
    bd = per_gpu(s, Setup(TaskType.PRETRAIN, offload=offload), Parallel(2), gpus, A100)
    gpu_mem, cpu_mem = ds_zero2(7e9, gpus, offload != "none")
    assert bd.model_states == pytest.approx(gpu_mem, rel=1e-9)
    assert bd.host_per_node == pytest.approx(cpu_mem or 0.0, rel=1e-9)


@pytest.mark.parametrize("gpus", [8, 64, 512])
@pytest.mark.parametrize("offload", ["none", "optimizer", "optimizer+params"])
def test_zero3_model_states_agree_with_deepspeeds_estimator(gpus, offload):
    s = shape(7e9)
    bd = per_gpu(s, Setup(TaskType.PRETRAIN, offload=offload), Parallel(3), gpus, A100)
    gpu_mem, cpu_mem = ds_zero3(7e9, gpus, gpus // 8, offload)
    assert bd.model_states == pytest.approx(gpu_mem, rel=1e-6)
    assert bd.host_per_node == pytest.approx(cpu_mem or 0.0, rel=1e-9)
    # the gather buffers stand for DeepSpeed's 4 x largest layer (an MLP matrix h x 4h here)
    assert bd.zero3_buffers >= 4 * (4096 * 4 * 4096)


def test_ddp_and_zero1_are_the_zero_papers():
    # DDP (PyTorch DistributedDataParallel replicates everything): (2 + 2 + 12) bytes/param;
    # ZeRO-1: 4 + 12/N (Rajbhandari et al. 2020, section 5.1)
    s = shape(7e9)
    assert per_gpu(s, Setup(TaskType.PRETRAIN), Parallel(0), 64, A100).model_states == pytest.approx(16 * 7e9)
    z1 = per_gpu(s, Setup(TaskType.PRETRAIN), Parallel(1), 64, A100).model_states
    assert z1 == pytest.approx(4 * 7e9 + 12 * 7e9 / 64)


def test_zero2_keeps_the_full_16_bit_gradients_during_backward():
    s = shape(7e9)
    z2 = per_gpu(s, Setup(TaskType.PRETRAIN), Parallel(2), 1024, A100)
    assert z2.gradients >= 2 * 7e9  # never sharded below one full 16-bit copy


def test_offload_host_memory_beyond_a_node_is_a_warning(book):
    from tests.estimate.helpers import estimate

    e = estimate(
        book,
        task="full_finetune",
        params="70B",
        tokens="1B",
        gpu="a100-80gb",
        gpus=8,
        zero_stage=2,
        offload="optimizer",
        samples=500,
    )
    host = e.memory.costed.breakdown.host_per_node
    assert host == pytest.approx(e.params * max(4 * 8, 16) * 1.5, rel=1e-6)
    assert any("host memory" in w for w in e.warnings) == (host > 2048 * GIB)
    assert any("host memory" in n for n in e.notes)


# ---------------------------------------------------------------- PyTorch FSDP
# PyTorch docs, torch.distributed.fsdp.ShardingStrategy (pytorch.org/docs/stable/fsdp.html):
#   FULL_SHARD: "Parameters, gradients, and optimizer states are sharded" (unshard via all-gather
#     before forward / backward, reshard after; gradients reduce-scattered after backward);
#   SHARD_GRAD_OP: "Gradients and optimizer states are sharded during computation, and
#     additionally, parameters are sharded outside computation" (kept unsharded from forward
#     through backward);
#   HYBRID_SHARD: "Apply FULL_SHARD within a node, and replicate parameters across nodes";
#   NO_SHARD: like DDP.
# With MixedPrecision(param_dtype=bf16) the sharded flat parameter stays fp32 (the master copy),
# the gradient shard is fp32 and Adam's two moments are per shard: 4 + 4 + 8 = 16 bytes/param.


def fsdp(mode, gpus, task=TaskType.PRETRAIN, **kw):
    from trainledger.estimate.memory import FSDP_MODES

    return per_gpu(shape(7e9), Setup(task, **kw), Parallel(FSDP_MODES[mode], fsdp=mode), gpus, A100)


@pytest.mark.parametrize("gpus", [8, 64, 512])
def test_fsdp_full_shard_shards_all_three(gpus):
    assert fsdp("full", gpus).model_states == pytest.approx(16 * 7e9 / gpus)
    # one FSDP unit gathered (and the next prefetched) in 16 bits
    assert fsdp("full", gpus).zero3_buffers > 0


@pytest.mark.parametrize("gpus", [8, 64, 512])
def test_fsdp_hybrid_shard_shards_within_a_node_only(gpus):
    assert fsdp("hybrid", gpus).model_states == pytest.approx(16 * 7e9 / 8)


def test_fsdp_shard_grad_op_keeps_16_bit_parameters_unsharded_in_computation():
    assert fsdp("shard_grad_op", 64).model_states == pytest.approx(2 * 7e9 + 16 * 7e9 / 64)
    assert fsdp("shard_grad_op", 64).zero3_buffers == 0


def test_fsdp_no_shard_is_ddp():
    ddp = per_gpu(shape(7e9), Setup(TaskType.PRETRAIN), Parallel(0), 64, A100).model_states
    assert fsdp("no_shard", 64).model_states == pytest.approx(ddp) == pytest.approx(16 * 7e9)


def test_fsdp_full_shard_holds_less_than_deepspeed_zero3_by_its_16_bit_shard():
    z3 = per_gpu(shape(7e9), Setup(TaskType.PRETRAIN), Parallel(3), 64, A100).model_states
    assert z3 - fsdp("full", 64).model_states == pytest.approx(2 * 7e9 / 64)


def test_fsdp_lora_shards_the_frozen_base_at_its_precision():
    s = shape(7e9)
    a = adapter_params(s, 16)
    bd = fsdp("full", 8, task=TaskType.LORA)
    assert bd.model_states == pytest.approx((2 * (7e9) + 16 * a) / 8)


def test_fsdp_is_given_without_zero_stage_or_offload(book):
    from tests.estimate.helpers import estimate

    e = estimate(book, task="full_finetune", params="13B", tokens="1B", gpu="a100-80gb", gpus=16, fsdp="hybrid")
    assert e.training_strategy.startswith("fsdp-hybrid") and "--fsdp hybrid" in str(e.memory.scope)
    with pytest.raises(BadInput, match="without --zero-stage"):
        estimate(book, task="full_finetune", params="13B", tokens="1B", gpu="a100-80gb", fsdp="full", zero_stage=3)


def test_qlora_65b_fits_one_48gb_gpu_as_the_paper_says(book):
    # QLoRA (Dettmers et al. 2023, arXiv:2305.14314), abstract: "finetune a 65B parameter model on a
    # single 48GB GPU" (4-bit NF4 base, paged optimizers, gradient checkpointing)
    from tests.estimate.helpers import estimate

    e = estimate(
        book, task="qlora", params="65.2B", layers=80, hidden=8192, tokens="10M", gpu="a6000", seq_len=512, samples=500
    )
    assert e.gpu.memory_bytes == 48 * GIB and e.memory.min_gpus == 1
    row = next(a for a in e.assumptions if a.name == "QLoRA paged optimizer")
    assert "2305.14314" in row.source and row.owner == "requester"
    # a 16-bit LoRA base of the same model does not fit one such GPU
    lora = estimate(
        book, task="lora", params="65.2B", layers=80, hidden=8192, tokens="10M", gpu="a6000", seq_len=512, samples=500
    )
    assert lora.memory.min_gpus > 1
