"""The training setup: the least-GPU plan (``min_gpus``, ``strategy``) and the run that is costed.

The on-GPU options the request leaves open are searched: ZeRO-3 with tensor parallelism 1, 2, 4 or
8 (or the given ``--zero-stage`` / ``--tp`` / ``--pp``) and selective or full recomputation. CPU
offload is *not* searched: with parameter offload every model would "fit" on one GPU, bounded only
by host memory, which the tool estimates (DeepSpeed's formulas, ``memory.host_bytes``) and checks
against a typical node's but does not know for your nodes. Offload is used only when ``--offload``
asks for it (optimizer offload needs ZeRO >= 1, parameter offload ZeRO-3, as
in DeepSpeed), and then it costs throughput (priors.toml [offload]). ``memory.min_gpus_scope`` says
what was searched. Two questions get two answers:

- the least-GPU plan: the fewest GPUs that hold the model under any of those setups. It is what
  ``memory.min_gpus`` and ``memory.strategy`` name; its own per-GPU figures (at ``min_gpus``) are
  in ``memory.least_gpu_plan``;
- the costed run: the fastest setup that fits at the GPU count used: selective before full
  recomputation (+~33% hardware FLOPs). Its memory is evaluated with its own parallel layout —
  the layout its feasibility was checked with — so what is costed fits. ``memory.per_gpu_bytes``
  and the other figures of the ``memory`` block describe this run.

When the tool chooses the GPU count, the setup is fixed first — the fastest one that fits on some
count — and the count is at least that setup's minimum. The setup therefore never flips with the
token count (a flip to a cheaper setup at a larger count would make more tokens cost less).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from trainledger.errors import BadInput
from trainledger.estimate.catalog import Accelerator
from trainledger.estimate.memory import MemoryPlan, ModelShape, Setup, plan_memory
from trainledger.estimate.messages import Msg
from trainledger.estimate.priors import overhead_prior, priors
from trainledger.estimate.throughput import MFU_CEILING, mfu_model, training_flops

RECOMPUTE_ORDER = ("selective", "full")


@dataclass(frozen=True, slots=True)
class TrainingPlan:
    least: MemoryPlan  # the least-GPU plan, its figures at its own min_gpus
    least_setup: Setup
    costed: MemoryPlan  # the costed run: its layout and per-GPU figures at `gpus`
    setup: Setup
    gpus: int
    chosen: bool  # the tool chose the GPU count
    scope: Msg  # what min_gpus was searched over
    chosen_by: str = "given"  # "given", "memory" (the fewest that hold it) or "schedule" (~target days)
    rounded: bool = False  # the tool rounded its count up to whole 8-GPU nodes

    # the JSON ``memory`` block's reading: figures of the costed run, min_gpus of the least-GPU plan
    @property
    def min_gpus(self) -> int:
        return self.least.min_gpus

    @property
    def strategy(self) -> str:
        return self.least.strategy

    @property
    def breakdown(self):
        return self.costed.breakdown

    @property
    def parallel(self):
        return self.costed.parallel


def nodes_round(n: int, mp: int) -> int:
    if n <= 8:
        return n
    m = 8 * mp // math.gcd(8, mp)
    return -(-n // m) * m


def setups(spec) -> list[Setup]:
    """The setups the request leaves open, fastest first."""
    base = dict(
        task=spec.task,
        seq_len=spec.seq_len,
        micro_batch=spec.micro_batch,
        precision=spec.precision,
        optimizer=spec.optimizer,
        lora_rank=spec.lora_rank,
        flash_attention=spec.flash_attention,
    )
    z, offload = spec.zero_stage, spec.offload or "none"
    if offload != "none" and z == 0:
        raise BadInput("CPU offload needs ZeRO stage 1, 2 or 3", remedy="drop --offload or use --zero-stage 1-3")
    if offload == "optimizer+params" and z is not None and z < 3:
        raise BadInput("parameter offload needs ZeRO-3", remedy="use --zero-stage 3 or --offload optimizer")
    recomputes = (spec.recompute,) if spec.recompute else RECOMPUTE_ORDER
    return [Setup(recompute=rc, offload=offload, **base) for rc in recomputes]


def scope(spec) -> Msg:
    """What ``min_gpus`` was searched over: the options left open, those given, and offload."""
    open_, given = [], []
    for flag, value, searched in (
        ("--fsdp", spec.fsdp, None),
        ("--zero-stage", spec.zero_stage, None if spec.fsdp else "3"),
        ("--tp", spec.tp, "1/2/4/8"),
        ("--pp", spec.pp, "1" if spec.zero_stage in (None, 3) else "1-128"),
        ("--recompute", spec.recompute, "/".join(RECOMPUTE_ORDER)),
        ("--offload", spec.offload, None),
    ):
        if value is not None:
            given.append(f"{flag} {value}")
        elif searched is not None:
            open_.append(f"{flag} {searched}")
    offload = Msg("scope.offload_given" if spec.offload else "scope.offload_not_searched")
    return Msg("scope.min_gpus", searched=open_ or ["-"], given=given or ["-"], offload=offload)


def plan_training(spec, acc: Accelerator, shape: ModelShape, notes: list) -> TrainingPlan:
    par = dict(zero_stage=spec.zero_stage, tp=spec.tp, pp=spec.pp, fsdp=spec.fsdp)
    cap = float(acc.memory_bytes)
    feasible: list[tuple[Setup, MemoryPlan]] = []
    err = None
    for su in setups(spec):
        try:
            feasible.append((su, plan_memory(shape, su, acc, **par)))
        except BadInput as exc:
            err = err or exc
    if not feasible:
        raise err  # type: ignore[misc]
    least_setup, least = min(feasible, key=lambda p: p[1].min_gpus)  # ties keep the faster setup
    chosen = spec.gpus is None
    costed = None
    chosen_by, rounded = "given", False
    if chosen:
        setup, first = feasible[0]  # fixed before the count: it never flips with the tokens
        used, chosen_by, rounded = choose_gpus(spec, acc, shape, setup, first)
        costed = plan_memory(shape, setup, acc, gpus=used, **par)
    else:
        used = spec.gpus
        for setup, p in feasible:
            if p.min_gpus <= used:
                try:
                    costed = plan_memory(shape, setup, acc, gpus=used, **par)
                except BadInput:  # no whole-replica layout of this setup on `used` GPUs
                    continue
                if costed.breakdown.total <= cap:
                    break
                costed = None
        if costed is None:
            plan_memory(shape, least_setup, acc, gpus=used, **par)  # raises with the remedy
            raise BadInput(f"{used} x {acc.id} cannot hold the model under any supported setup")
    _explain_choice(spec, feasible, setup, used, chosen, notes)
    return TrainingPlan(least, least_setup, costed, setup, used, chosen, scope(spec), chosen_by, rounded)


def _explain_choice(spec, feasible, setup: Setup, used: int, chosen: bool, notes: list) -> None:
    """Notes when the costed run is slower than the fastest setup the request leaves open."""

    def fewest(**kw) -> int | None:
        ns = [p.min_gpus for su, p in feasible if all(getattr(su, k) == v for k, v in kw.items())]
        return min(ns) if ns else None

    if spec.recompute is None and setup.recompute != "selective":
        n = fewest(recompute="selective", offload=setup.offload)
        if n is None or chosen:
            notes.append(Msg("note.selective_no_fit_any"))
        else:
            notes.append(Msg("note.selective_no_fit", gpus=used, n=n))


def choose_gpus(spec, acc: Accelerator, shape: ModelShape, setup: Setup, plan: MemoryPlan) -> tuple[int, str, bool]:
    """Enough GPUs for ~target_days at the modes of MFU and overhead, in whole replicas (a
    multiple of tensor x pipeline parallelism); never below the minimum of the setup that is
    costed. Returns (count, "memory" | "schedule", rounded to whole nodes)."""
    mp = plan.parallel.model_parallel
    n = plan.min_gpus
    fl = training_flops(shape, setup, spec.tokens)
    ov = overhead_prior(spec.task.value).mode
    for _ in range(2):  # the scale factor depends on the count: one refinement is enough
        mm = mfu_model(acc, shape, setup, n, spec, plan.parallel.tp)
        mode = mm.fixed_product
        for f in mm.factors:
            mode *= f.mode
        hours = fl.model_total / (acc.peak_flops() * min(mode, MFU_CEILING)) / 3600 * ov
        wanted = math.ceil(hours / (24 * priors()["schedule"]["target_days"]))
        n = max(plan.min_gpus, -(-wanted // mp) * mp)  # whole replicas: a multiple of tp x pp
    by = "schedule" if wanted > plan.min_gpus else "memory"
    out = nodes_round(n, mp)
    return out, by, out != n
