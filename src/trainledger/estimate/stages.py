"""The estimate as a list of stages, in the seed's fixed order, each with one signature::

    stage(ctx: Context, figures: Mapping[str, Any]) -> StageOutput(figures, assumptions, notes, warnings)

    task_type_stage   the accelerator, the model's shape, the RAG route (no training compute)
    data_stage        licensing, cleaning, labelling, validation, evaluation set (data_costs.py)
    memory_stage      what each GPU holds -> the setup and the GPU count (layout.py)
    throughput_stage  training FLOPs / (peak x MFU) -> effective GPU-hours (throughput.py)
    overhead_stage    x the overhead factor (sourced prior, or the workspace's finished batches)
    prices_stage      x the dated GPU-hour price (units normalised, FX)
    rounds_stage      experiment rounds and the people who run them (labor.py: build + run per round)
    inference_stage   serving, estimated beside the training budget, never added to it
    totals_stage      the programme: compute x rounds + data + labor; known vs placeholder money

A stage reads the figures of the stages before it and adds its own; the runner (``run_stages``)
merges them in order. A stage that raises one of the tool's errors (``errors.TrainledgerError``)
becomes a ``Problem`` record and the later stages that need its figures are skipped with a problem
of their own — so one run reports every problem at once (``engine.run`` raises them together).
Missing prices do not stop a stage: ``Pricing`` collects them and the engine lists them all.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

import numpy as np

from trainledger.errors import TrainledgerError
from trainledger.estimate import calibrate
from trainledger.estimate.accelerator import accelerator_for, compute_price, setup_assumptions
from trainledger.estimate.catalog import GIB
from trainledger.estimate.data_costs import data_cost
from trainledger.estimate.inference import estimate_inference
from trainledger.estimate.labor import labor_cost
from trainledger.estimate.layout import plan_training
from trainledger.estimate.memory import GPUS_PER_NODE, derive_shape
from trainledger.estimate.messages import Msg
from trainledger.estimate.montecarlo import Pct, Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import guided_rounds_prior, priors, rounds_prior
from trainledger.estimate.quantities import Uncertain, fmt_num
from trainledger.estimate.spec import EstimateSpec
from trainledger.estimate.tasks import RAG_ROUTE, RAG_ROUTE_EN, RAG_ROUTE_ZH
from trainledger.estimate.throughput import MFU_CEILING, accelerator_assumptions, mfu_model, training_flops
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence, TaskType

CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 (arXiv:2203.15556)


@dataclass(frozen=True)
class Context:
    """What every stage may read: the request, the dated prices, the sampler, the ledger history."""

    spec: EstimateSpec
    pricing: Pricing
    sampler: Sampler
    on: date
    history_ratios: tuple[float, ...] = ()
    history_note: str = ""
    history_warning: str | None = None
    rag_route: str = RAG_ROUTE
    price_notes: tuple[str, ...] = ()  # where the prices come from (the workspace's own book)
    price_warnings: tuple[str, ...] = ()  # the workspace's book could not be read

    @property
    def n(self) -> int:
        return self.sampler.n

    @property
    def trains(self) -> bool:
        return self.spec.task is not TaskType.RAG


@dataclass(frozen=True)
class StageOutput:
    figures: Mapping[str, Any] = field(default_factory=dict)
    assumptions: tuple[Assumption, ...] = ()
    notes: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Problem:
    """A stage that could not run: its error (message and remedy), or the stage it waited for."""

    stage: str
    kind: str  # the error's class name, or "skipped"
    message: str
    remedy: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "kind": self.kind, "message": self.message, "remedy": self.remedy}


Stage = Callable[[Context, Mapping[str, Any]], StageOutput]


# 1. task type ---------------------------------------------------------------------------------
def task_type_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    spec = ctx.spec
    if not ctx.trains:
        note = RAG_ROUTE if ctx.rag_route in (RAG_ROUTE, RAG_ROUTE_EN, RAG_ROUTE_ZH) else ctx.rag_route
        acc = accelerator_for(spec) if (spec.gpu or spec.gpu_memory_gb) else None
        return StageOutput({"acc": acc, "shape": None}, notes=(note,))
    acc = accelerator_for(spec)
    rows = [u.as_assumption() for u in accelerator_assumptions(acc)]
    shape = derive_shape(
        spec.params, spec.active_params, layers=spec.layers, hidden=spec.hidden, heads=spec.heads, vocab=spec.vocab
    )
    if shape.derived:
        rows.append(
            Assumption(
                Msg("name.model_shape"),
                Evidence.ASSUMED,
                Msg("src.model_shape"),
                value=Msg(
                    "value.model_shape", layers=shape.layers, hidden=shape.hidden, heads=shape.heads, vocab=shape.vocab
                ),
                owner="requester",
                note=Msg("note.give_shape"),
            )
        )
    warnings = ()
    if spec.task is TaskType.PRETRAIN and spec.tokens < spec.params:
        warnings = (
            Msg(
                "warn.implausible_pretrain",
                params=fmt_num(spec.params),
                tokens=fmt_num(spec.tokens),
                ratio=CHINCHILLA_TOKENS_PER_PARAM,
            ),
        )
    return StageOutput({"acc": acc, "shape": shape}, tuple(rows), warnings=warnings)


# 2. data ---------------------------------------------------------------------------------------
def data_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    d = data_cost(ctx.sampler, ctx.spec.data, ctx.spec.task.value, ctx.pricing, ctx.spec.tokens)
    return StageOutput(
        {"data_total": d.total, "data_lines": d.lines, "data_ph": d.placeholders, "data_ph_lines": d.placeholder_lines}
    )


# 3. memory -> setup and GPU count ---------------------------------------------------------------
def memory_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    spec = ctx.spec
    if not ctx.trains:
        return StageOutput({"training": None, "used": 0, "chosen": False})
    notes: list = []
    training = plan_training(spec, f["acc"], f["shape"], notes)
    mp = training.costed.parallel.model_parallel
    warnings: tuple = ()
    if spec.gpus is not None and spec.gpus % mp:
        warnings = (Msg("warn.gpus_not_multiple", gpus=spec.gpus, mp=mp),)
    host = training.costed.breakdown.host_per_node
    if host > 0:
        m = priors()["memory"]
        notes.append(Msg("note.host_memory", need=host / GIB))
        if host > m["host_gib_per_node"] * GIB:
            warnings += (
                Msg("warn.host_memory", need=host / GIB, have=m["host_gib_per_node"], source=m["host_source"]),
            )
    return StageOutput(
        {"training": training, "used": training.gpus, "chosen": training.chosen},
        tuple(setup_assumptions(spec, training.setup)),
        tuple(notes),
        warnings,
    )


# 4. throughput -> effective GPU-hours -----------------------------------------------------------
def throughput_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    n = ctx.n
    if not ctx.trains:
        return StageOutput({"flops_m": 0.0, "flops_h": 0.0, "mfu": np.ones(n), "eff": np.zeros(n)})
    acc, shape, setup, used = f["acc"], f["shape"], f["training"].setup, f["used"]
    fl = training_flops(shape, setup, ctx.spec.tokens)
    mm = mfu_model(acc, shape, setup, used, ctx.spec, f["training"].costed.parallel.tp)
    mfu = np.full(n, mm.fixed_product)
    for factor in mm.factors:
        mfu = mfu * ctx.sampler.draw(factor)
    mfu = np.minimum(mfu, MFU_CEILING)
    rows = tuple(
        Assumption(
            name,
            Evidence.MEASURED if "scale" in name else Evidence.ASSUMED,
            why,
            value=f"x{mult:.3f}",
            owner="platform team",
        )
        for name, mult, why in mm.fixed
    )
    if used > GPUS_PER_NODE and ctx.spec.network is None:
        rows += (
            Assumption(
                Msg("name.network_choice"),
                Evidence.ASSUMED,
                Msg("src.network_default"),
                value=Msg("network.infiniband"),
                owner="requester",
            ),
        )
    eff = fl.model_total / (acc.peak_flops() * mfu) / 3600.0
    return StageOutput({"flops_m": fl.model_total, "flops_h": fl.hardware_total, "mfu": mfu, "eff": eff}, rows)


# 5. overhead ---------------------------------------------------------------------------------
def overhead_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    n = ctx.n
    if not ctx.trains:
        return StageOutput({"overhead": np.ones(n), "gpu_h": np.zeros(n)})
    ov = calibrate.overhead_from_history(list(ctx.history_ratios), ctx.spec.task.value)
    overhead = ctx.sampler.draw(ov)
    rows: tuple = ()
    if not ctx.history_ratios:
        rows = (
            Assumption(
                Msg("name.overhead_calibration"),
                Evidence.ASSUMED,
                ctx.history_note or Msg("hist.none_given"),
                value=Msg("value.sourced_prior"),
                owner="platform team",
            ),
        )
    notes = (ctx.history_note,) if ctx.history_note else ()
    # the workspace's ledger could not be read (calibrate.workspace_ratios)
    warnings = (ctx.history_warning,) if ctx.history_warning else ()
    return StageOutput({"overhead": overhead, "gpu_h": f["eff"] * overhead}, rows, notes, warnings)


# 6. prices -----------------------------------------------------------------------------------
def prices_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    if not ctx.trains:
        return StageOutput({"compute_final": np.zeros(ctx.n)}, notes=ctx.price_notes, warnings=ctx.price_warnings)
    warnings: list = list(ctx.price_warnings)
    price = compute_price(ctx.spec, f["acc"], ctx.pricing, warnings)
    return StageOutput(
        {"compute_final": f["gpu_h"] * ctx.sampler.draw(price)}, notes=ctx.price_notes, warnings=tuple(warnings)
    )


# 7. rounds, and the people who run them -----------------------------------------------------------
def rounds_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    spec = ctx.spec
    if spec.rounds:
        rounds_u = Uncertain(
            Msg("name.rounds"),
            *spec.rounds,
            unit="x",
            evidence="assumed",
            source=Msg("src.requester_rounds"),
            owner="requester",
        )
    elif spec.several_rounds is not None:
        rounds_u = guided_rounds_prior(spec.task.value, spec.several_rounds)
    else:
        rounds_u = rounds_prior(spec.task.value)
    rounds = ctx.sampler.draw(rounds_u)
    lab = labor_cost(ctx.sampler, spec.labor, spec.task.value, ctx.pricing)
    return StageOutput(
        {
            "rounds": rounds,
            "build": lab.build,
            "run_round": lab.run,
            "labor_lines": lab.lines,
            "labor_ph": lab.placeholders,
        }
    )


# 8. inference, separately ----------------------------------------------------------------------
def inference_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    shape = f["shape"]
    inf = estimate_inference(
        ctx.sampler,
        ctx.spec.inference,
        ctx.pricing,
        train_acc=f["acc"],
        active_params=shape.active_params if shape else ctx.spec.active_params,
        params=ctx.spec.params,
    )
    return StageOutput({"inference": inf})


# 9. totals -----------------------------------------------------------------------------------
def totals_stage(ctx: Context, f: Mapping[str, Any]) -> StageOutput:
    """The programme's money, split into what rests on the requester's inputs, dated prices and
    sourced priors (``known``) and what rests on the task type's placeholders (``placeholder``):
    ``known + placeholder == total`` sample by sample, so their means add up exactly."""
    rounds = f["rounds"]
    compute_prog = f["compute_final"] * rounds
    labor_total = f["build"] + f["run_round"] * rounds
    total = compute_prog + f["data_total"] + labor_total
    placeholder = placeholder_money(f, rounds)
    warnings: list = []
    data_ph, labor_ph = f["data_ph"], f["labor_ph"]
    if data_ph or labor_ph:
        items = [Msg(f"warn.ph.data.{x}") for x in data_ph] + [Msg(f"warn.ph.labor.{p}") for p in labor_ph]
        warnings.append(Msg("warn.placeholders", items=items))
    warnings += ctx.pricing.summary_warnings()
    used = f["used"]
    wall = Pct.zero()  # rag: no training run, no days
    notes: tuple = ()
    if used:
        wall = Pct.of(f["gpu_h"]).scaled(1.0 / used / 24.0)
        if wall.p50 > 365:
            warnings.append(Msg("warn.long_run", days=wall.p50, gpus=used))
        notes = chosen_note(f["training"], wall)
    return StageOutput(
        {
            "compute_prog": compute_prog,
            "labor_total": labor_total,
            "total": total,
            "placeholder": placeholder,
            "known": total - placeholder,
            "wall": wall,
        },
        notes=notes,
        warnings=tuple(warnings),
    )


def chosen_note(training, wall: Pct) -> tuple:
    """When the tool chose the GPU count: why (the memory minimum or the schedule), whether it
    rounded to whole nodes, and the days the costed run takes at P50 — all from the plan costed."""
    if training is None or not training.chosen:
        return ()
    rounded = Msg("note.rounded_nodes") if training.rounded else ""
    if training.chosen_by == "schedule":
        target = priors()["schedule"]["target_days"]
        return (Msg("note.gpus_chosen_schedule", gpus=training.gpus, target=target, rounded=rounded, days=wall.p50),)
    return (Msg("note.gpus_chosen_memory", gpus=training.gpus, rounded=rounded, days=wall.p50),)


def placeholder_money(f: Mapping[str, Any], rounds: np.ndarray) -> np.ndarray:
    """The samples of the money whose quantities came from the task type's placeholders: data lines
    fed by a placeholder field, labor phases the spec left out (run labor x rounds)."""
    out = np.zeros(rounds.shape)
    for line, arr in f["data_lines"].items():
        if line in f["data_ph_lines"]:
            out = out + arr
    for key, arr in f["labor_lines"].items():
        phase = key.split(":", 1)[0]
        if phase in f["labor_ph"]:
            out = out + (arr * rounds if phase == "run" else arr)
    return out


STAGES: tuple[tuple[Stage, tuple[str, ...]], ...] = (
    (task_type_stage, ()),
    (data_stage, ()),
    (memory_stage, ("acc", "shape")),
    (throughput_stage, ("acc", "shape", "training", "used")),
    (overhead_stage, ("eff",)),
    (prices_stage, ("acc", "gpu_h")),
    (rounds_stage, ()),
    (inference_stage, ("acc", "shape")),
    (
        totals_stage,
        ("compute_final", "rounds", "build", "run_round", "data_total", "data_lines", "labor_lines", "gpu_h", "used"),
    ),
)


@dataclass(frozen=True)
class Outcome:
    figures: Mapping[str, Any]
    assumptions: tuple[Assumption, ...]
    notes: tuple[str, ...]
    warnings: tuple[str, ...]
    problems: tuple[Problem, ...]


def run_stages(ctx: Context, stages=STAGES) -> Outcome:
    """Run the stages in order; a failing stage is a problem record, not a crash."""
    figures: dict[str, Any] = {}
    rows: list[Assumption] = []
    notes: list[str] = []
    warnings: list[str] = []
    problems: list[Problem] = []
    for stage, needs in stages:
        name = stage.__name__.removesuffix("_stage")
        missing = [k for k in needs if k not in figures]
        if missing:
            problems.append(Problem(name, "skipped", f"needs {', '.join(missing)} from a stage that failed"))
            continue
        try:
            out = stage(ctx, figures)
        except TrainledgerError as exc:
            problems.append(Problem(name, type(exc).__name__, exc.message, exc.remedy))
            continue
        figures.update(out.figures)
        rows += out.assumptions
        notes += out.notes
        warnings += out.warnings
    return Outcome(figures, tuple(rows), tuple(notes), tuple(warnings), tuple(problems))
