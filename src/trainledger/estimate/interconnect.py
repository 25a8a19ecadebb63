"""Communication the MFU rows do not contain: expert parallelism's all-to-all, and the interconnect.

The MFU rows (data/mfu.toml) were measured on dense models on NVLink/NVSwitch nodes joined by
InfiniBand. Two things change a plan's utilisation beyond them, both as sourced, dated factors
on the MFU-derived time (data/priors.toml ``[moe.*]``, ``[interconnect.*]``, ``[network.*]``):

- **mixture of experts**: the experts' compute efficiency (``moe.compute``) and the exposed part of
  the all-to-all that dispatches tokens to experts on other GPUs and combines them back, a function
  of the spec (top_k, moe_layers, ep, hidden, precision) and the accelerator's link and NIC
  bandwidth (``moe_all_to_all``): ``factor = 1 / (1 + (1 - overlap) x r)`` with ``r`` the
  all-to-all time over the compute time of one token (see priors.toml for the formula);
- **interconnect of multi-GPU plans**: PCIe-only cards training a full-gradient model with data
  parallelism, reduced NVLink (A800 / H800) under tensor parallelism, and the scale-out network
  (InfiniBand = the MFU rows' own, RoCE, Ethernet without RDMA) once the plan spans nodes
  (``interconnect_factors``). A single-GPU plan gets none of them.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainledger.estimate.catalog import Accelerator
from trainledger.estimate.memory import GPUS_PER_NODE, ModelShape, Setup
from trainledger.estimate.messages import Msg
from trainledger.estimate.priors import prior, priors
from trainledger.estimate.quantities import Uncertain
from trainledger.model.vocab import TaskType

OVERLAPS = ("none", "partial", "full")
NETWORKS = ("infiniband", "roce", "ethernet")
BF16_BYTES = 2.0


@dataclass(frozen=True, slots=True)
class MoePlan:
    """The expert-parallel layout the all-to-all is costed for."""

    top_k: int
    moe_layers: int
    ep: int
    overlap: str


def moe_plan(spec, shape: ModelShape, gpus: int) -> MoePlan:
    d = priors()["moe"]["defaults"]
    ep = spec.ep if spec.ep is not None else max(1, min(int(d["ep_max"]), gpus))
    return MoePlan(
        top_k=spec.top_k if spec.top_k is not None else int(d["top_k"]),
        moe_layers=spec.moe_layers if spec.moe_layers is not None else shape.layers,
        ep=min(ep, gpus),
        overlap=spec.ep_overlap or "partial",
    )


def a2a_bytes_per_token(plan: MoePlan, hidden: int, precision: str) -> float:
    """Bytes one token sends off its GPU per training step: per MoE layer, the forward dispatch (1 byte
    per value under FP8, 2 under BF16) and combine and the two backward all-to-alls (BF16), of
    top_k copies of the hidden vector, of which (ep - 1) / ep go to another GPU."""
    dispatch = 1.0 if precision == "fp8" else BF16_BYTES
    per_copy = hidden * (dispatch + 3 * BF16_BYTES)
    return plan.moe_layers * plan.top_k * per_copy * (plan.ep - 1) / plan.ep


def a2a_seconds_per_token(plan: MoePlan, nbytes: float, acc: Accelerator) -> float | None:
    """Line-rate time of those bytes: within a node over the link; across nodes the in-node share
    over the link and the out-of-node share over the NIC, whichever is slower. None when the
    catalog has no interconnect for the accelerator."""
    if plan.ep <= 1 or nbytes == 0:
        return 0.0
    if acc.link_gbps is None or (plan.ep > GPUS_PER_NODE and acc.network_gbps is None):
        return None
    if plan.ep <= GPUS_PER_NODE:
        return nbytes / (acc.link_gbps * 1e9)
    remote = nbytes * (plan.ep - GPUS_PER_NODE) / (plan.ep - 1)
    local = nbytes - remote
    return max(local / (acc.link_gbps * 1e9), remote / (acc.network_gbps * 1e9))


def comm_ratio(a2a_s: float, hw_flops_per_token: float, acc: Accelerator, mfu_mode: float) -> float:
    """All-to-all time over compute time of one token at the utilisation prior's mode."""
    compute_s = hw_flops_per_token / (acc.peak_flops() * mfu_mode)
    return a2a_s / compute_s


def a2a_factor(ratio: float, overlap: Uncertain, eff: Uncertain) -> tuple[float, float, float]:
    """(low, mode, high) of 1 / (1 + (1 - overlap) x ratio / efficiency): the ends pair the worst
    overlap with the worst efficiency and the best with the best (a wider band than their product)."""

    def f(o: float, e: float) -> float:
        return 1.0 / (1.0 + (1.0 - o) * ratio / e)

    return f(overlap.low, eff.low), f(overlap.mode, eff.mode), f(overlap.high, eff.high)


def moe_all_to_all(
    spec, acc: Accelerator, shape: ModelShape, setup: Setup, gpus: int, hw_flops_per_token: float, mfu_mode: float
) -> Uncertain:
    """The MFU factor of expert parallelism's exposed all-to-all, with the figures it rests on."""
    plan = moe_plan(spec, shape, gpus)
    nbytes = a2a_bytes_per_token(plan, shape.hidden, setup.precision)
    secs = a2a_seconds_per_token(plan, nbytes, acc)
    # the name seeds the factor's random stream: it must not change with the GPU count
    name = Msg("name.moe_a2a")
    if secs is None:
        return prior(name, "moe.no_link", unit="x")
    overlap = prior(Msg("name.moe_overlap"), f"moe.overlap.{plan.overlap}")
    eff = prior(Msg("name.moe_efficiency"), "moe.efficiency")
    ratio = comm_ratio(secs, hw_flops_per_token, acc, mfu_mode)
    lo, mo, hi = a2a_factor(ratio, overlap, eff)
    where = "link" if plan.ep <= GPUS_PER_NODE else "network"
    src = Msg(
        "src.moe_a2a",
        mb=nbytes / 1e6,
        layers=plan.moe_layers,
        top_k=plan.top_k,
        hidden=shape.hidden,
        ep=plan.ep,
        overlap_level=Msg(f"overlap.{plan.overlap}"),
        where=Msg(f"a2a.{where}"),
        ratio=ratio,
        overlap=overlap.source,
        eff=eff.source,
        link=acc.interconnect_source,
    )
    assumed = spec.top_k is None or spec.ep is None or spec.moe_layers is None or spec.ep_overlap is None
    return Uncertain(
        name,
        lo,
        mo,
        hi,
        unit="x",
        evidence="assumed" if assumed or overlap.evidence == "assumed" else "measured",
        source=src,
        owner="platform team",
    )


def interconnect_factors(spec, acc: Accelerator, setup: Setup, gpus: int, tp: int) -> list[Uncertain]:
    """Sourced factors for multi-GPU plans whose links differ from the MFU rows' (NVLink + InfiniBand)."""
    if gpus <= 1:
        return []
    out = []
    peft = setup.task in (TaskType.LORA, TaskType.QLORA)
    if acc.link == "pcie" and not peft:
        out.append(prior(Msg("name.link_pcie", acc=acc.id), "interconnect.pcie", unit="x"))
    if acc.id in ("a800-80gb", "h800") and tp > 1:
        out.append(prior(Msg("name.link_reduced", acc=acc.id), "interconnect.nvlink_reduced", unit="x"))
    if gpus > GPUS_PER_NODE:
        net = spec.network or "infiniband"
        if net != "infiniband":
            out.append(prior(Msg("name.network", network=Msg(f"network.{net}")), f"network.{net}", unit="x"))
    return out
