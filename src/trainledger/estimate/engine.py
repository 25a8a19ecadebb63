"""The estimate in the seed's fixed order: task type -> memory -> throughput -> overhead -> data ->
labor -> prices -> rounds -> Monte Carlo; inference beside it, never inside it.

``run(spec)`` is the whole pipeline; each stage is a function of the previous stages' values and
the sampler, so the order reads top to bottom.
"""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import date

import numpy as np

from trainledger.errors import BadInput, NotFound
from trainledger.estimate import calibrate
from trainledger.estimate.catalog import Accelerator, catalog, custom, get_accelerator
from trainledger.estimate.data_costs import data_cost
from trainledger.estimate.inference import estimate_inference
from trainledger.estimate.labor import labor_cost
from trainledger.estimate.memory import (
    MemoryPlan,
    Setup,
    derive_shape,
    explain,
    per_gpu,
    plan_memory,
)
from trainledger.estimate.messages import Msg
from trainledger.estimate.montecarlo import Pct, Sampler, tornado
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import overhead_prior, priors, rounds_prior
from trainledger.estimate.quantities import Uncertain, fmt_num
from trainledger.estimate.result import Estimate, GpuInfo
from trainledger.estimate.spec import EstimateSpec
from trainledger.estimate.tasks import RAG_ROUTE, RAG_ROUTE_EN, RAG_ROUTE_ZH
from trainledger.estimate.throughput import (
    MFU_CEILING,
    accelerator_assumptions,
    mfu_model,
    training_flops,
)
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence, TaskType
from trainledger.pricebook import SAMPLE_PRICE_BOOK, PriceBook, load_price_book

CHINCHILLA_TOKENS_PER_PARAM = 20  # Hoffmann et al. 2022 (arXiv:2203.15556)


def accelerator_for(spec: EstimateSpec) -> Accelerator:
    if spec.gpu_memory_gb is not None and spec.peak_tflops is not None:
        base = None
        if spec.gpu:
            try:
                base = get_accelerator(spec.gpu)
            except LookupError:
                base = None
        return custom(spec.gpu_memory_gb, spec.peak_tflops, spec.gpu, base)
    return get_accelerator(spec.gpu or "")


def nodes_round(n: int, mp: int) -> int:
    if n <= 8:
        return n
    m = 8 * mp // math.gcd(8, mp)
    return -(-n // m) * m


def memory_stage(spec: EstimateSpec, acc: Accelerator, shape, notes: list[Msg]) -> tuple[MemoryPlan, Setup, int, bool]:
    """(least-GPU plan evaluated at the GPU count used, the training setup, count, chosen?)."""
    base = dict(
        task=spec.task,
        seq_len=spec.seq_len,
        micro_batch=spec.micro_batch,
        precision=spec.precision,
        optimizer=spec.optimizer,
        offload=spec.offload,
        lora_rank=spec.lora_rank,
    )
    par = dict(zero_stage=spec.zero_stage, tp=spec.tp, pp=spec.pp)
    options = [spec.recompute] if spec.recompute else ["selective", "full"]
    plans, err = [], None
    for rc in options:
        try:
            plans.append((rc, plan_memory(shape, Setup(recompute=rc, **base), acc, **par)))
        except BadInput as exc:
            err = err or exc
    if not plans:
        raise err  # type: ignore[misc]
    rc_least, least = min(plans, key=lambda p: p[1].min_gpus)  # ties keep selective (first)
    setup_least = Setup(recompute=rc_least, **base)
    chosen = spec.gpus is None
    if chosen:
        used = choose_gpus(spec, acc, shape, Setup(recompute=options[0], **base), least)
    else:
        used = spec.gpus
        if used < least.min_gpus:
            plan_memory(shape, setup_least, acc, gpus=used, **par)  # raises with the remedy
    at_used = per_gpu(shape, setup_least, least.parallel, used, acc)
    why_en, why_zh = explain(at_used, shape, setup_least, least.parallel)
    plan = MemoryPlan(
        least.strategy,
        least.parallel,
        least.min_gpus,
        used,
        at_used,
        least.memory_bytes,
        why_en,
        why_zh,
    )
    # the recompute the run itself uses: the given one, else selective when it fits at `used`
    train_rc = rc_least
    if not spec.recompute and rc_least != "selective":
        try:
            plan_memory(shape, Setup(recompute="selective", **base), acc, gpus=used, **par)
            train_rc = "selective"
        except BadInput:
            notes.append(Msg("note.selective_no_fit"))
    if chosen:
        notes.append(Msg("note.gpus_chosen", gpus=used, days=priors()["schedule"]["target_days"]))
    return plan, Setup(recompute=train_rc, **base), used, chosen


def choose_gpus(spec: EstimateSpec, acc: Accelerator, shape, setup: Setup, least: MemoryPlan) -> int:
    """Enough GPUs for ~target_days at the modes of MFU and overhead; never below the minimum."""
    mp = least.parallel.model_parallel
    n = least.min_gpus
    fl = training_flops(shape, setup, spec.tokens)
    ov = overhead_prior(spec.task.value).mode
    for _ in range(2):  # the scale factor depends on the count: one refinement is enough
        mm = mfu_model(acc, shape, setup, n)
        mode = mm.fixed_product
        for f in mm.factors:
            mode *= f.mode
        hours = fl.model_total / (acc.peak_flops() * min(mode, MFU_CEILING)) / 3600 * ov
        n = max(least.min_gpus, math.ceil(hours / (24 * priors()["schedule"]["target_days"])))
    return nodes_round(n, mp)


def compute_price(spec: EstimateSpec, acc: Accelerator, pricing: Pricing, warnings: list[Msg]) -> Uncertain:
    """The GPU-hour price; for an accelerator outside the catalog with no price of its own, the
    nearest catalog accelerator's (by peak and memory) — as a visible, owned assumption."""
    item = spec.price_item or f"gpu_hour:{acc.id}"
    try:
        return pricing.rate(item, "gpu_hour")
    except NotFound:
        if spec.price_item or acc.id in catalog():
            raise
    known = [a for a in catalog().values() if f"gpu_hour:{a.id}" in pricing.book.items()]
    if not known:
        raise NotFound(
            f"no price for {item!r} and no catalog accelerator to stand in for it",
            remedy="pass --price-item or add the price to the price book",
        )
    near = min(
        known,
        key=lambda a: abs(math.log(a.peak_tflops / acc.peak_tflops)) + abs(math.log(a.memory_gb / acc.memory_gb)),
    )
    u = pricing.rate(f"gpu_hour:{near.id}", "gpu_hour", Msg("name.proxy_price", acc=near.id))
    warnings.append(Msg("warn.proxy_price", item=item, near=near.id, tflops=near.peak_tflops, gb=near.memory_gb))
    return replace(
        u,
        evidence=Evidence.ASSUMED,
        owner="procurement",
        note=Msg("note.proxy", note=u.note),
    )


def run(
    spec: EstimateSpec,
    *,
    book: PriceBook | None = None,
    on: date | None = None,
    history_ratios: list[float] | None = None,
    history_note: str = "",
    rag_route: str = RAG_ROUTE,
) -> Estimate:
    """The whole pipeline. Warnings and notes are catalogue messages (``messages.Msg``): English
    in ``warnings`` / ``notes``, Chinese in ``warnings_zh`` / ``notes_zh`` of ``to_dict()``.
    ``rag_route`` is kept for callers that passed either language's text; both give the message."""
    on = on or spec.on or date.today()
    book = book or load_price_book(spec.price_book or SAMPLE_PRICE_BOOK)
    currency = spec.currency or book.currency or "USD"
    pricing = Pricing(book, on, currency)
    sampler = Sampler(spec.samples, spec.seed)
    warnings: list[Msg] = []
    notes: list[Msg] = []
    extra: list[Assumption] = []
    n = sampler.n
    task = spec.task

    # 1. task type -------------------------------------------------------------------------
    if task is TaskType.RAG:
        notes.append(RAG_ROUTE if rag_route in (RAG_ROUTE, RAG_ROUTE_EN, RAG_ROUTE_ZH) else rag_route)
        acc = accelerator_for(spec) if (spec.gpu or spec.gpu_memory_gb) else None
        plan, setup, used, chosen, shape = None, None, 0, False, None
        flops_m = flops_h = 0.0
        eff = gpu_h = np.zeros(n)
        mfu = overhead = np.ones(n)
    else:
        acc = accelerator_for(spec)
        extra += [u.as_assumption() for u in accelerator_assumptions(acc)]
        shape = derive_shape(
            spec.params,
            spec.active_params,
            layers=spec.layers,
            hidden=spec.hidden,
            heads=spec.heads,
            vocab=spec.vocab,
        )
        if shape.derived:
            extra.append(
                Assumption(
                    Msg("name.model_shape"),
                    Evidence.ASSUMED,
                    "N ~ 12*L*h^2 with h/L ~ 128 (data/priors.toml [shape])",
                    value=Msg(
                        "value.model_shape",
                        layers=shape.layers,
                        hidden=shape.hidden,
                        heads=shape.heads,
                        vocab=shape.vocab,
                    ),
                    owner="requester",
                    note=Msg("note.give_shape"),
                )
            )
        if task is TaskType.PRETRAIN and spec.tokens < spec.params:
            warnings.append(
                Msg(
                    "warn.implausible_pretrain",
                    params=fmt_num(spec.params),
                    tokens=fmt_num(spec.tokens),
                    ratio=CHINCHILLA_TOKENS_PER_PARAM,
                )
            )

        # 2. memory -> GPU count ---------------------------------------------------------------
        plan, setup, used, chosen = memory_stage(spec, acc, shape, notes)
        if spec.gpus is not None and spec.gpus % plan.parallel.model_parallel:
            warnings.append(Msg("warn.gpus_not_multiple", gpus=spec.gpus, mp=plan.parallel.model_parallel))
        if not spec.recompute:
            extra.append(
                Assumption(
                    Msg("name.recompute"),
                    Evidence.ASSUMED,
                    Msg("src.recompute_default"),
                    value=setup.recompute,
                    owner="requester",
                )
            )

        # 3. throughput -> effective GPU-hours -> overhead ------------------------------------
        fl = training_flops(shape, setup, spec.tokens)
        flops_m, flops_h = fl.model_total, fl.hardware_total
        mm = mfu_model(acc, shape, setup, used)
        mfu = np.full(n, mm.fixed_product)
        for f in mm.factors:
            mfu = mfu * sampler.draw(f)
        mfu = np.minimum(mfu, MFU_CEILING)
        for name, mult, why in mm.fixed:
            extra.append(
                Assumption(
                    name,
                    Evidence.MEASURED if "scale" in name else Evidence.ASSUMED,
                    why,
                    value=f"x{mult:.3f}",
                    owner="platform team",
                )
            )
        eff = flops_m / (acc.peak_flops() * mfu) / 3600.0
        ov = calibrate.overhead_from_history(history_ratios or [], task.value)
        overhead = sampler.draw(ov)
        if history_note:
            notes.append(history_note)
        gpu_h = eff * overhead

    # 4-6. data, labor, prices, rounds -----------------------------------------------------------
    rounds_u = (
        Uncertain(
            Msg("name.rounds"),
            *spec.rounds,
            unit="x",
            evidence="assumed",
            source=Msg("src.requester_rounds"),
            owner="requester",
        )
        if spec.rounds
        else rounds_prior(task.value)
    )
    rounds = sampler.draw(rounds_u)
    if task is TaskType.RAG:
        compute_final = np.zeros(n)
    else:
        compute_final = gpu_h * sampler.draw(compute_price(spec, acc, pricing, warnings))
    data_total, data_lines, data_ph = data_cost(sampler, spec.data, task.value, pricing)
    build, run_round, labor_lines, labor_ph = labor_cost(sampler, spec.labor, task.value, pricing)
    if data_ph or labor_ph:
        items = [Msg(f"warn.ph.data.{f}") for f in data_ph] + [Msg(f"warn.ph.labor.{p}") for p in labor_ph]
        warnings.append(Msg("warn.placeholders", items=items))
    compute_prog = compute_final * rounds
    labor_total = build + run_round * rounds
    total = compute_prog + data_total + labor_total

    # 7. inference, separately ----------------------------------------------------------------
    inf = estimate_inference(
        sampler,
        spec.inference,
        pricing,
        train_acc=acc,
        active_params=shape.active_params if shape else spec.active_params,
        params=spec.params,
    )

    # 8. ranges, sensitivity, drawer ------------------------------------------------------------
    warnings += pricing.summary_warnings()
    wall = None
    if used:
        wall = Pct.of(gpu_h).scaled(1.0 / used / 24.0)
        if wall.p50 > 365:
            warnings.append(Msg("warn.long_run", days=wall.p50, gpus=used))
    drawer = [u.as_assumption() for u in sampler.uncertain()] + extra + list(pricing.fx_used.values())
    if task is not TaskType.RAG and not history_ratios:
        drawer.append(
            Assumption(
                Msg("name.overhead_calibration"),
                Evidence.ASSUMED,
                history_note or Msg("hist.none_given"),
                value=Msg("value.sourced_prior"),
                owner="platform team",
            )
        )
    gpu_info = None if acc is None else GpuInfo(acc.id, acc.name, acc.memory_bytes, acc.peak_tflops, acc.source)
    train_bytes = 0.0
    if plan is not None:
        train_bytes = per_gpu(shape, setup, plan.parallel, used, acc).total
    return Estimate(
        task=task,
        name=spec.name,
        currency=currency,
        priced_on=on.isoformat(),
        price_book=book.path,
        samples=n,
        seed=spec.seed,
        gpu=gpu_info,
        memory=plan,
        training_strategy=(plan.parallel.label(setup) if plan else "none"),
        training_per_gpu_bytes=train_bytes,
        gpus_used=used,
        gpus_chosen=chosen,
        flops_model=flops_m,
        flops_hardware=flops_h,
        tokens=spec.tokens or 0.0,
        params=spec.params or 0.0,
        active_params=(shape.active_params if shape else 0.0),
        mfu=Pct.of(mfu) if task is not TaskType.RAG else Pct.zero(),
        overhead=Pct.of(overhead) if task is not TaskType.RAG else Pct.zero(),
        rounds=Pct.of(rounds),
        effective_gpu_hours=Pct.of(eff),
        gpu_hours=Pct.of(gpu_h),
        programme_gpu_hours=Pct.of(gpu_h * rounds),
        wallclock_days=wall,
        cost={
            "compute": Pct.of(compute_prog),
            "data": Pct.of(data_total),
            "labor": Pct.of(labor_total),
            "total": Pct.of(total),
        },
        cost_final_run={
            "compute": Pct.of(compute_final),
            "labor": Pct.of(run_round),
            "total": Pct.of(compute_final + run_round),
        },
        data_lines={k: Pct.of(v) for k, v in data_lines.items()},
        labor_lines={k: Pct.of(v) for k, v in labor_lines.items()},
        inference=inf,
        assumptions=tuple(drawer),
        sensitivity=tuple(s for s in tornado(sampler, total) if s.swing > 0),
        warnings=tuple(warnings),
        notes=tuple(notes),
        memory_why_zh=plan.why_zh if plan else "",
    )
