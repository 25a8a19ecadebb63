"""Memory -> GPU count: what each GPU must hold, the fewest GPUs that fit, and which term dominates.

Model states (ZeRO paper, Rajbhandari et al. 2020, arXiv:1910.02054, section 3.1): mixed-precision
AdamW keeps 2 bytes of 16-bit weights + 2 of gradients + K = 12 of fp32 master weights and Adam
moments per parameter. 8-bit Adam (Dettmers et al. 2022, arXiv:2110.02861) keeps 2 bytes of
moments; SGD with momentum 4. DDP replicates them; ZeRO-1 shards the optimizer states over the
data-parallel degree (4 + K/N). ZeRO-2 and ZeRO-3 follow DeepSpeed's own estimators
(``estimate_zero2_model_states_mem_needs``: 4 + 16/N, the full 16-bit gradients being held during
the backward pass and an fp32 gradient partition beside the optimizer's; ``estimate_zero3_...``:
18/N plus the gathered layers), and CPU offload's host memory per node likewise (``per_gpu``,
``host_bytes``). ``--fsdp`` plans with PyTorch FSDP instead (``fsdp_states``: FULL_SHARD 16/N,
HYBRID_SHARD 16/8 within a node, SHARD_GRAD_OP 2 + 16/N, NO_SHARD 16; its fp32 flat parameter is
the master copy). Tensor x pipeline parallelism splits all of them.

LoRA / QLoRA (Hu et al. 2021; Dettmers et al. 2023, arXiv:2305.14314): the frozen base is held in
16 bits, or in 4-bit NF4 with double-quantised constants (4 + 0.127 bits per parameter); only the
adapters (rank r on every linear layer) have gradients and optimizer states.

Activations (Korthikanti et al. 2022, arXiv:2205.05198, section 4) per layer with tensor and
sequence parallelism t: s*b*h*(34 + 5*a*s/h)/t bytes without recomputation, 34*s*b*h/t with
selective recomputation (or FlashAttention, which never stores the s x s scores), and the layer
input 2*s*b*h/t with full recomputation (plus one layer live). A 1F1B pipeline's first stage
holds p micro-batches of L/p layers, i.e. L layers: pipeline depth does not reduce it. FlashAttention
(Dao et al. 2022, arXiv:2205.14135) is assumed unless ``flash_attention=False`` (``--no-flash-attention``):
only then does ``--recompute none`` store the 5*a*s/h attention scores.

ZeRO-3 gathers each layer's weights before using them: two layers (the current and the prefetched
one) at the precision the weights are held in (16 bits, or 4.127 bits for a QLoRA base). With one
data-parallel replica nothing is sharded, so nothing is gathered — unless the weights are offloaded
to the CPU, when the same buffers stream them in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from trainledger.errors import BadInput
from trainledger.estimate.catalog import GIB, Accelerator
from trainledger.estimate.messages import Msg, Term, text
from trainledger.estimate.priors import priors
from trainledger.model.vocab import TaskType

PRECISIONS = ("bf16", "fp16", "fp8", "fp32")
OPTIMIZERS = ("adamw", "adam8bit", "sgd")
RECOMPUTE = ("none", "selective", "full")
OFFLOAD = ("none", "optimizer", "optimizer+params")
TP_CHOICES = (1, 2, 4, 8)  # tensor parallelism stays inside one 8-GPU node
MAX_GPUS = 1_000_000
QLORA_BITS = 4 + 0.127  # NF4 + double-quantised constants (QLoRA section 3)
TERMS = (
    "weights",
    "gradients",
    "optimizer_states",
    "activations",
    "zero3_buffers",
    "runtime_reserve",
)


@dataclass(frozen=True, slots=True)
class ModelShape:
    params: float
    active_params: float
    layers: int
    hidden: int
    heads: int
    vocab: int
    ffn: int
    derived: bool  # layers/hidden were derived from the parameter count

    @property
    def is_moe(self) -> bool:
        return self.active_params < self.params


def derive_shape(
    params: float,
    active_params: float | None = None,
    *,
    layers: int | None = None,
    hidden: int | None = None,
    heads: int | None = None,
    vocab: int | None = None,
) -> ModelShape:
    """Fill in layers / hidden / heads from N ~ 12*L*h^2 with h/L ~ 128 (data/priors.toml)."""
    sh = priors()["shape"]
    active = params if active_params is None else active_params
    if active > params:
        raise BadInput(
            f"active parameters {active:.3g} exceed total parameters {params:.3g}",
            remedy="--active-params is the per-token subset of a mixture-of-experts model",
        )
    derived = layers is None or hidden is None
    if hidden is None and layers is not None:
        hidden = int(round(math.sqrt(active / (12 * layers)) / 64) * 64) or 64
    if hidden is None:
        step = sh["head_dim"]
        hidden = int(round((active * sh["aspect_ratio"] / 12) ** (1 / 3) / step) * step) or step
    if layers is None:
        layers = max(1, round(active / (12 * hidden * hidden)))
    heads = heads or max(1, hidden // sh["head_dim"])
    per_layer = active / layers
    ffn = max(hidden, int((per_layer - 4 * hidden * hidden) / (3 * hidden)))
    return ModelShape(
        params,
        active,
        int(layers),
        int(hidden),
        int(heads),
        int(vocab or sh["vocab"]),
        ffn,
        derived,
    )


@dataclass(frozen=True, slots=True)
class Setup:
    """How the model is trained, as far as memory and FLOPs care."""

    task: TaskType
    seq_len: int = 4096
    micro_batch: int = 1
    precision: str = "bf16"
    optimizer: str = "adamw"
    recompute: str = "selective"
    offload: str = "none"
    flash_attention: bool = True
    lora_rank: int = 16

    def __post_init__(self) -> None:
        for name, allowed in (
            ("precision", PRECISIONS),
            ("optimizer", OPTIMIZERS),
            ("recompute", RECOMPUTE),
            ("offload", OFFLOAD),
        ):
            if getattr(self, name) not in allowed:
                raise BadInput(f"{name} {getattr(self, name)!r} is not one of {', '.join(allowed)}")
        if self.seq_len < 1 or self.micro_batch < 1 or self.lora_rank < 1:
            raise BadInput("seq-len, micro-batch and lora rank must be >= 1")

    @property
    def peft(self) -> bool:
        return self.task in (TaskType.LORA, TaskType.QLORA)


FSDP_MODES = {"full": 3, "hybrid": 3, "shard_grad_op": 2, "no_shard": 0}  # PyTorch ShardingStrategy ~ ZeRO stage


@dataclass(frozen=True, slots=True)
class Parallel:
    zero_stage: int
    tp: int = 1
    pp: int = 1
    fsdp: str = ""  # "" = DeepSpeed ZeRO; else a PyTorch FSDP sharding strategy (FSDP_MODES)

    @property
    def model_parallel(self) -> int:
        return self.tp * self.pp

    def label(self, setup: Setup) -> str:
        parts = [f"fsdp-{self.fsdp.replace('_', '-')}" if self.fsdp else f"zero{self.zero_stage}"]
        if self.tp > 1:
            parts.append(f"tp{self.tp}")
        if self.pp > 1:
            parts.append(f"pp{self.pp}")
        parts.append(f"{setup.recompute}-recompute")
        parts.append("flash-attention" if setup.flash_attention else "no-flash-attention")
        if setup.offload != "none":
            parts.append(f"offload-{setup.offload}")
        return "+".join(parts)


def adapter_params(shape: ModelShape, rank: int) -> float:
    """LoRA parameters: rank r on q, k, v, o (h x h) and the three MLP matrices (h x ffn)."""
    return float(rank * shape.layers * (8 * shape.hidden + 3 * (shape.hidden + shape.ffn)))


def state_bytes(shape: ModelShape, setup: Setup) -> dict[str, float]:
    """Unsharded totals of weights, gradients and optimizer states (incl. fp32 master), bytes."""
    mixed = setup.precision != "fp32"
    w = 2.0 if mixed else 4.0
    master = 4.0 if mixed else 0.0
    opt = {"adamw": 8.0, "adam8bit": 2.0, "sgd": 4.0}[setup.optimizer] + master
    n = shape.params
    if not setup.peft:
        return {"weights": w * n, "gradients": w * n, "optimizer_states": opt * n, "trainable": n}
    base_w = QLORA_BITS / 8 if setup.task is TaskType.QLORA else w
    a = adapter_params(shape, setup.lora_rank)
    return {
        "weights": base_w * n + w * a,
        "gradients": w * a,
        "optimizer_states": opt * a,
        "trainable": a,
    }


def activation_bytes(shape: ModelShape, setup: Setup, tp: int) -> float:
    s, b, h, a, L = setup.seq_len, setup.micro_batch, shape.hidden, shape.heads, shape.layers
    scale = 2.0 if setup.precision == "fp32" else 1.0
    full_layer = s * b * h * 34
    if setup.recompute == "none" and not setup.flash_attention:
        full_layer += 5 * a * s * s * b
    full = setup.recompute == "full"
    body = 2 * s * b * h * L + full_layer if full else full_layer * L
    logits = 4 * s * b * shape.vocab  # fp32 logits for the loss (vocab-parallel over tp)
    return scale * (body + logits) / tp


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    weights: float
    gradients: float
    optimizer_states: float
    activations: float
    zero3_buffers: float
    runtime_reserve: float
    host_per_node: float = 0.0  # CPU memory per 8-GPU node that offload needs (not a GPU term)

    @property
    def model_states(self) -> float:
        return self.weights + self.gradients + self.optimizer_states

    @property
    def total(self) -> float:
        return sum(getattr(self, t) for t in TERMS)

    @property
    def dominant(self) -> str:
        """The largest term that the model and the setup cause (the fixed reserve is not one)."""
        return max(TERMS[:-1], key=lambda t: getattr(self, t))


def reserve_bytes(acc: Accelerator) -> float:
    m = priors()["memory"]
    return m["reserve_fixed_gib"] * GIB + m["reserve_fraction"] * acc.memory_bytes


GPUS_PER_NODE = 8
HOST_BUFFER_FACTOR = 1.5  # DeepSpeed's estimators: additional_buffer_factor=1.5


def per_gpu(shape: ModelShape, setup: Setup, par: Parallel, gpus: int, acc: Accelerator) -> MemoryBreakdown:
    """Bytes each GPU holds with ``gpus`` GPUs (data-parallel degree = gpus / (tp * pp); the
    layouts costed use whole replicas, see ``whole_replicas``).

    Model states follow DeepSpeed's own estimators (deepspeed/runtime/zero/stage_1_and_2.py
    ``estimate_zero2_model_states_mem_needs`` and stage3.py ``estimate_zero3_model_states_mem_needs``):
    mixed-precision ZeRO keeps an fp32 gradient partition beside the fp32 master weights and Adam
    moments (16 bytes/trainable parameter over the data-parallel degree), ZeRO-2 holds the full
    16-bit gradients during the backward pass (4 + 16/N bytes/parameter), ZeRO-3 only shards
    (18/N). DDP and ZeRO-1 are the ZeRO paper's (2 + 2 + K) and 4 + K/N. With CPU offload the
    optimizer states and the fp32 gradients (ZeRO-2/3) live in host memory, which is counted per
    node (``host_per_node``) with the same estimators' formulas.
    """
    mp = par.model_parallel
    dp = max(1, gpus // mp)
    st = state_bytes(shape, setup)
    if par.fsdp:
        return fsdp_per_gpu(shape, setup, par, dp, st, acc)
    z = par.zero_stage
    mixed = setup.precision != "fp32"
    fp32_grads = 4.0 * st["trainable"] if mixed and z >= 2 else 0.0
    weights = st["weights"] / mp / (dp if z >= 3 else 1)
    grads16 = st["gradients"] / mp if z <= 2 else 0.0  # ZeRO-3 reduce-scatters them bucket by bucket
    grads = grads16 + fp32_grads / mp / dp
    opt = st["optimizer_states"] / mp / (dp if z >= 1 else 1)
    host = 0.0
    if setup.offload != "none":
        host = host_bytes(st, setup, z, gpus, fp32_grads)
        opt = 0.0
        grads = grads16 if z <= 1 else 0.0  # ZeRO-2/3 stream gradients to the host as they are made
    if setup.offload == "optimizer+params" and z >= 3:
        weights = 0.0
    act = activation_bytes(shape, setup, par.tp)
    return MemoryBreakdown(
        weights, grads, opt, act, gather_bytes(shape, setup, par, dp), reserve_bytes(acc), host_per_node=host
    )


def fsdp_per_gpu(shape: ModelShape, setup: Setup, par: Parallel, dp: int, st: dict, acc: Accelerator):
    weights, grads, opt, gather = fsdp_states(shape, setup, par, dp, st)
    act = activation_bytes(shape, setup, par.tp)
    return MemoryBreakdown(weights, grads, opt, act, gather, reserve_bytes(acc))


def fsdp_states(shape: ModelShape, setup: Setup, par: Parallel, dp: int, st: dict) -> tuple[float, ...]:
    """PyTorch FSDP (torch.distributed.fsdp.ShardingStrategy, with MixedPrecision): the sharded
    flat parameter stays in the original fp32 and is the master copy; gradients are reduce-
    scattered into fp32 shards; the optimizer's moments are per shard. FULL_SHARD shards all of it
    over the data-parallel ranks and gathers one unit (and the prefetched next) in 16 bits;
    HYBRID_SHARD does the same within a node and replicates across nodes; SHARD_GRAD_OP keeps the
    16-bit parameters unsharded through forward and backward; NO_SHARD is DDP."""
    mp = par.model_parallel
    mixed = setup.precision != "fp32"
    a = st["trainable"]
    w = 2.0 if mixed else 4.0
    frozen = st["weights"] - w * a  # a LoRA / QLoRA base, held at its own precision
    moments = st["optimizer_states"] - (4.0 * a if mixed else 0.0)
    if par.fsdp == "no_shard":
        s_deg = 1
    elif par.fsdp == "hybrid":
        s_deg = max(1, min(dp, GPUS_PER_NODE // mp or 1))
    else:
        s_deg = dp
    master = 4.0 * a if mixed else 0.0  # the fp32 flat parameter of the trainable weights
    weights = (frozen + (master if mixed else w * a)) / mp / s_deg
    if par.fsdp == "shard_grad_op":  # unsharded 16-bit parameters from forward through backward
        weights = (frozen + w * a) / mp + master / mp / s_deg
    grads = (4.0 if mixed else w) * a / mp / s_deg
    opt = moments / mp / s_deg
    gather = 0.0
    if par.fsdp in ("full", "hybrid") and s_deg > 1:
        layer = st["weights"] * (shape.active_params / shape.params) / shape.layers
        gather = min(2, shape.layers) * layer / par.tp
    return weights, grads, opt, gather


def host_bytes(st: dict, setup: Setup, z: int, gpus: int, fp32_grads: float) -> float:
    """Host memory per node for CPU offload, as DeepSpeed's estimators give it: ZeRO-1/2
    max(4 x params x GPUs, optimizer states + fp32 gradients) x 1.5; ZeRO-3 (states + fp32
    gradients, plus the 16-bit weights with parameter offload) x 1.5 / nodes."""
    nodes = max(1, math.ceil(gpus / GPUS_PER_NODE))
    states = st["optimizer_states"] + fp32_grads
    if z >= 3:
        if setup.offload == "optimizer+params":
            states += st["weights"]
        return states * HOST_BUFFER_FACTOR / nodes
    n = st["weights"] / (2.0 if setup.precision != "fp32" else 4.0)  # parameters held
    return max(4.0 * n * gpus, states) * HOST_BUFFER_FACTOR


def gather_bytes(shape: ModelShape, setup: Setup, par: Parallel, dp: int) -> float:
    """ZeRO-3 all-gather buffers: the current and the prefetched layer's (active) weights, at the
    precision they are held in; none when one replica holds every weight itself (dp = 1, no
    parameter offload)."""
    if par.zero_stage < 3 or (dp <= 1 and setup.offload != "optimizer+params"):
        return 0.0
    layer = state_bytes(shape, setup)["weights"] * (shape.active_params / shape.params) / shape.layers
    return min(2, shape.layers) * layer / par.tp


def min_gpus_for(shape: ModelShape, setup: Setup, par: Parallel, acc: Accelerator) -> int | None:
    """The fewest GPUs (a multiple of tp*pp) that hold the model under ``par``; None if none do."""
    mp = par.model_parallel
    if par.pp > shape.layers:
        return None
    one = per_gpu(shape, setup, par, mp, acc)
    cap = float(acc.memory_bytes)
    if one.total <= cap:
        return mp
    if par.zero_stage == 0:
        return None
    # total(dp) = fixed + shard / dp for dp >= 2 (the ZeRO-3 gather buffers appear from dp = 2 on):
    # read both off two evaluations instead of restating each stage's sharding here
    t2 = per_gpu(shape, setup, par, 2 * mp, acc).total
    t4 = per_gpu(shape, setup, par, 4 * mp, acc).total
    shard = 4.0 * (t2 - t4)
    fixed = t2 - shard / 2
    if fixed >= cap or shard <= 0:
        return None
    dp = max(2, math.ceil(shard / (cap - fixed)))
    # guard float rounding: step up until it fits
    while per_gpu(shape, setup, par, dp * mp, acc).total > cap:
        dp += 1
        if dp * mp > MAX_GPUS:
            return None
    n = dp * mp
    return n if n <= MAX_GPUS else None


@dataclass(frozen=True, slots=True)
class MemoryPlan:
    strategy: str
    parallel: Parallel
    min_gpus: int
    gpus: int  # the count the per-GPU figures are for (given, else min_gpus)
    breakdown: MemoryBreakdown
    memory_bytes: int
    why_en: str
    why_zh: str


def candidates(
    shape: ModelShape, zero_stage: int | None, tp: int | None, pp: int | None, fsdp: str | None = None
) -> list[Parallel]:
    if fsdp:
        zero_stage = FSDP_MODES[fsdp]
    stages = (3,) if zero_stage is None else (zero_stage,)
    tps = (tp,) if tp else TP_CHOICES
    if pp:
        pps: tuple[int, ...] = (pp,)
    elif zero_stage is None or zero_stage == 3:
        pps = (1,)  # under ZeRO-3 a pipeline only adds bubbles
    else:
        pps = tuple(p for p in (1, 2, 4, 8, 16, 32, 64, 128) if p <= shape.layers)
    return [Parallel(z, t, p, fsdp or "") for z in stages for t in tps for p in pps]


def plan_memory(
    shape: ModelShape,
    setup: Setup,
    acc: Accelerator,
    *,
    zero_stage: int | None = None,
    tp: int | None = None,
    pp: int | None = None,
    gpus: int | None = None,
    fsdp: str | None = None,
) -> MemoryPlan:
    if zero_stage is not None and zero_stage not in (0, 1, 2, 3):
        raise BadInput(f"--zero-stage {zero_stage} is not 0, 1, 2 or 3")
    for name, v in (("tp", tp), ("pp", pp), ("gpus", gpus)):
        if v is not None and v < 1:
            raise BadInput(f"--{name} must be >= 1")
    found = []
    if fsdp is not None and fsdp not in FSDP_MODES:
        raise BadInput(f"--fsdp {fsdp} is not one of {', '.join(FSDP_MODES)}")
    if fsdp and (zero_stage is not None or setup.offload != "none"):
        raise BadInput(
            "--fsdp is PyTorch FSDP: give it without --zero-stage (DeepSpeed) and without --offload",
            remedy="drop --zero-stage / --offload, or drop --fsdp to plan with DeepSpeed ZeRO",
        )
    for par in candidates(shape, zero_stage, tp, pp, fsdp):
        n = min_gpus_for(shape, setup, par, acc)
        if n is not None:
            found.append((n, par.model_parallel, par.tp, par))
    if not found:
        raise BadInput(
            f"the model ({shape.params:.3g} parameters, seq {setup.seq_len}, micro-batch "
            f"{setup.micro_batch}) fits on no number of {acc.id} GPUs ({acc.memory_gb:g} GB) under "
            f"{'ZeRO-' + str(zero_stage) if zero_stage is not None else 'any supported strategy'}",
            remedy="use --recompute full, a smaller --micro-batch or --seq-len, ZeRO-3, more "
            "tensor parallelism, CPU offload, or an accelerator with more memory",
        )
    n_min, _, _, par = min(found, key=lambda f: (f[0], f[1], f[2]))
    used = n_min
    if gpus is not None:
        if gpus < n_min:
            raise BadInput(
                f"{gpus} x {acc.id} cannot hold the model: it needs at least {n_min} under {par.label(setup)}",
                remedy=f"use --gpus {n_min} or more, or shard more (ZeRO-3, offload)",
            )
        n_min, par = whole_replicas(found, gpus, acc)
        used = gpus
    bd = per_gpu(shape, setup, par, used, acc)
    why_en, why_zh = explain(bd, shape, setup, par)
    return MemoryPlan(par.label(setup), par, n_min, used, bd, acc.memory_bytes, why_en, why_zh)


def whole_replicas(found: list, gpus: int, acc: Accelerator) -> tuple[int, Parallel]:
    """The least-GPU layout among ``found`` that holds the model on ``gpus`` GPUs as whole
    replicas: tensor x pipeline parallelism must divide the count (3 GPUs at tp 2 are one replica
    and one idle GPU — no framework trains on the idle one, and costing its wall-clock as if it
    did would understate the days). Refused with the nearest usable counts otherwise."""
    ok = [f for f in found if f[0] <= gpus and gpus % f[1] == 0]
    if ok:
        n, _, _, par = min(ok, key=lambda f: (f[0], f[1], f[2]))
        return n, par
    below = [gpus // f[1] * f[1] for f in found if gpus // f[1] * f[1] >= f[0]]
    hi = min(max(f[0], -(-gpus // f[1]) * f[1]) for f in found)
    degrees = "/".join(str(d) for d in sorted({f[1] for f in found}))
    problem = (
        f"{gpus} x {acc.id}: no layout that holds the model uses every GPU as a whole replica "
        f"(tensor x pipeline parallelism {degrees} does not divide {gpus})"
    )
    if below:
        lo = max(below)
        raise BadInput(problem, remedy=f"use --gpus {lo} or {hi}, or a --tp / --pp that divides {gpus}")
    raise BadInput(problem, remedy=f"use --gpus {hi}, or a --tp / --pp that divides {gpus}")


TERM_ZH = {t: text(f"term.{t}", "zh-CN") for t in TERMS}


def explain_msg(bd: MemoryBreakdown, shape: ModelShape, setup: Setup, par: Parallel) -> Msg:
    """Why the memory is what it is: the dominant term, bytes/parameter, the sharding."""
    d = bd.dominant
    st = state_bytes(shape, setup)
    held = st["weights"] + st["optimizer_states"]
    if par.fsdp:
        held = sum(fsdp_states(shape, setup, Parallel(par.zero_stage, 1, 1, par.fsdp), 1, st)[:3])
    elif par.zero_stage <= 2:
        held += st["gradients"]
    if not par.fsdp and par.zero_stage >= 2 and setup.precision != "fp32":
        held += 4.0 * st["trainable"]  # the fp32 gradient partition DeepSpeed keeps
    return Msg(
        "memory.why",
        term=Msg(f"term.{d}"),
        share=getattr(bd, d) / bd.total,
        total=bd.total / GIB,
        bpp=held / shape.params,
        precision=setup.precision,
        optimizer=setup.optimizer,
        peft=Msg("memory.peft", task=Term(setup.task.value)) if setup.peft else "",
        strategy=par.label(setup),
    )


def explain(bd: MemoryBreakdown, shape: ModelShape, setup: Setup, par: Parallel) -> tuple[str, str]:
    """(English, Chinese) of ``explain_msg``."""
    m = explain_msg(bd, shape, setup, par)
    return m.text("en"), m.text("zh-CN")
