"""Throughput -> duration: training FLOPs, the utilisation range, effective GPU-hours.

Model FLOPs per token (PaLM, Chowdhery et al. 2022, appendix B): 6*N for forward and backward
through the (active) parameters plus 12*L*h*s for attention; 4*N for LoRA/QLoRA, whose frozen
base needs no weight gradients. GPT-3 175B on 300B tokens gives 6*N*D = 3.15e23, the 3.14e23 of
Brown et al. 2020, Table D.1. Hardware FLOPs add what recomputation repeats: the attention
forward (selective recomputation or FlashAttention, +4*L*h*s) or the whole forward (full, +2*N
+4*L*h*s) (Korthikanti et al. 2022, section 5).

Utilisation (MFU) is relative to the dense BF16 peak; its range comes from ``data/mfu.toml`` (by
accelerator family and model size) and is adjusted by sourced factors: scale (more GPUs, lower
MFU), MoE (experts' compute and the exposed all-to-all, interconnect.py), the interconnect of
multi-GPU plans (PCIe-only cards, reduced NVLink, RoCE / Ethernet between nodes), FP8,
fine-tuning, QLoRA dequantisation, and recomputation beyond selective (the MFU sources were
measured with selective recomputation, so time scales with the extra hardware FLOPs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from trainledger.errors import BadInput
from trainledger.estimate.catalog import Accelerator
from trainledger.estimate.interconnect import interconnect_factors, moe_all_to_all
from trainledger.estimate.memory import ModelShape, Setup, adapter_params
from trainledger.estimate.messages import Msg
from trainledger.estimate.priors import FINETUNE_TASKS, mfu_prior, prior, priors
from trainledger.estimate.quantities import Uncertain
from trainledger.estimate.tasks import PROFILES
from trainledger.model.vocab import Evidence, TaskType

MFU_CEILING = 0.85  # no sampled utilisation above this: a physical sanity bound


@dataclass(frozen=True, slots=True)
class _NoSpec:
    """The request keys interconnect.py reads, all left to their defaults."""

    top_k: int | None = None
    ep: int | None = None
    moe_layers: int | None = None
    ep_overlap: str | None = None
    network: str | None = None


NO_SPEC = _NoSpec()


@dataclass(frozen=True, slots=True)
class Flops:
    model_per_token: float
    hardware_per_token: float
    tokens: float

    @property
    def model_total(self) -> float:
        return self.model_per_token * self.tokens

    @property
    def hardware_total(self) -> float:
        return self.hardware_per_token * self.tokens


def attention_flops(shape: ModelShape, seq_len: int) -> float:
    return 12.0 * shape.layers * shape.hidden * seq_len


def flops_per_token(shape: ModelShape, setup: Setup, recompute: str | None = None) -> tuple[float, float]:
    """(model, hardware) FLOPs per training token."""
    k = PROFILES[setup.task].flops_per_param_token
    attn = attention_flops(shape, setup.seq_len)
    model = k * shape.active_params + attn
    if setup.peft:
        model += 6 * adapter_params(shape, setup.lora_rank)
    rc = recompute or setup.recompute
    extra = 0.0
    if rc == "full":
        extra = 2 * shape.active_params + attn / 3
    elif rc == "selective" or setup.flash_attention:
        extra = attn / 3
    return model, model + extra


def training_flops(shape: ModelShape, setup: Setup, tokens: float) -> Flops:
    if setup.task is TaskType.RAG:
        return Flops(0.0, 0.0, 0.0)
    m, h = flops_per_token(shape, setup)
    return Flops(m, h, tokens)


def scale_factor(gpus: int) -> float:
    sc = priors()["scale"]
    if gpus <= sc["from"]:
        return 1.0
    return max(sc["floor"], 1 - sc["per_doubling"] * math.log2(gpus / sc["from"]))


@dataclass(frozen=True, slots=True)
class MfuModel:
    """The MFU as a product of uncertain factors and fixed multipliers, each with its reason."""

    factors: tuple[Uncertain, ...]
    fixed: tuple[tuple[str, float, str], ...]  # (name, multiplier, why)

    @property
    def fixed_product(self) -> float:
        out = 1.0
        for _, m, _ in self.fixed:
            out *= m
        return out


def mfu_model(acc: Accelerator, shape: ModelShape, setup: Setup, gpus: int, spec=None, tp: int = 1) -> MfuModel:
    """``spec`` (the request: MoE layout and network keys) and ``tp`` (the plan's tensor-parallel
    degree) feed the communication factors of interconnect.py; without them, their defaults."""
    base = mfu_prior(acc.family, shape.active_params)
    factors = [base]
    fixed: list[tuple[str, float, str]] = []
    sf = scale_factor(gpus)
    if sf < 1:
        sc = priors()["scale"]
        fixed.append((Msg("name.scale", gpus=gpus), sf, sc["source"]))
    fp8 = None
    if setup.precision == "fp8":
        if acc.fp8_tflops is None:
            raise BadInput(
                f"{acc.id} has no FP8 tensor cores in the catalog",
                remedy="use --precision bf16 on this accelerator",
            )
        fp8 = prior(Msg("name.fp8"), "fp8", unit="x")
    req = spec if spec is not None else NO_SPEC
    if shape.is_moe:
        factors.append(prior(Msg("name.moe_compute"), "moe.compute", unit="x"))
        mode = base.mode * (fp8.mode if fp8 else 1.0) * sf
        _, hw = flops_per_token(shape, setup)
        factors.append(moe_all_to_all(req, acc, shape, setup, gpus, hw, mode))
    if fp8 is not None:
        factors.append(fp8)
    factors += interconnect_factors(req, acc, setup, gpus, tp)
    if setup.precision == "fp32":
        fixed.append(
            (
                Msg("name.fp32"),
                0.5,
                "A100/H100 datasheets: TF32 tensor peak is half the BF16 peak",
            )
        )
    if setup.task.value in FINETUNE_TASKS:
        factors.append(prior(Msg("name.finetune"), "finetune", unit="x"))
    if setup.task is TaskType.QLORA:
        factors.append(prior(Msg("name.qlora"), "qlora", unit="x"))
    if setup.offload != "none":
        key = setup.offload.replace("+", "_")
        factors.append(prior(Msg("name.offload", offload=setup.offload), f"offload.{key}", unit="x"))
    _, hw_sel = flops_per_token(shape, setup, "selective")
    _, hw = flops_per_token(shape, setup)
    if abs(hw - hw_sel) > 1e-9 * hw:
        fixed.append(
            (
                Msg("name.recompute_vs_selective", recompute=Msg(f"recompute.{setup.recompute}")),
                hw_sel / hw,
                "Korthikanti et al. 2022: time follows hardware FLOPs; MFU sources used selective recomputation",
            )
        )
    return MfuModel(tuple(factors), tuple(fixed))


def accelerator_assumptions(acc: Accelerator) -> list[Uncertain]:
    owner = acc.owner if acc.evidence is Evidence.ASSUMED else ""
    return [
        Uncertain.point(
            Msg("name.acc_memory", acc=acc.id),
            acc.memory_gb,
            unit="GiB",
            evidence=acc.evidence,
            source=acc.source,
            owner=owner,
        ),
        Uncertain.point(
            Msg("name.acc_peak", acc=acc.id),
            acc.peak_tflops,
            unit="TFLOP/s",
            evidence=acc.evidence,
            source=acc.source,
            owner=owner,
        ),
    ]
