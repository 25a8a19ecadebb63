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

from trainledger.errors import NotFound
from trainledger.estimate import calibrate
from trainledger.estimate.catalog import Accelerator, catalog, custom, get_accelerator
from trainledger.estimate.data_costs import data_cost
from trainledger.estimate.inference import estimate_inference
from trainledger.estimate.labor import labor_cost
from trainledger.estimate.layout import plan_training
from trainledger.estimate.memory import derive_shape
from trainledger.estimate.messages import Msg
from trainledger.estimate.montecarlo import Pct, Sampler, tornado
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import guided_rounds_prior, rounds_prior
from trainledger.estimate.quantities import Uncertain, fmt_num
from trainledger.estimate.result import Estimate, GpuInfo
from trainledger.estimate.spec import EstimateSpec
from trainledger.estimate.tasks import RAG_ROUTE, RAG_ROUTE_EN, RAG_ROUTE_ZH
from trainledger.estimate.throughput import MFU_CEILING, accelerator_assumptions, mfu_model, training_flops
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


def setup_assumptions(spec: EstimateSpec, setup) -> list[Assumption]:
    """Drawer rows for the training setup's defaults: recomputation, CPU offload, attention kernel."""
    rows = []
    if not spec.recompute:
        rows.append(
            Assumption(
                Msg("name.recompute"),
                Evidence.ASSUMED,
                Msg("src.recompute_default"),
                value=setup.recompute,
                owner="requester",
            )
        )
    if spec.offload is None:
        rows.append(
            Assumption(
                Msg("name.offload_choice"),
                Evidence.ASSUMED,
                Msg("src.offload_default"),
                value=setup.offload,
                owner="requester",
            )
        )
    rows.append(
        Assumption(
            Msg("name.attention"),
            Evidence.ASSUMED,
            Msg("src.flash_attention" if spec.flash_attention else "src.no_flash_attention"),
            value=Msg("value.flash_attention" if spec.flash_attention else "value.no_flash_attention"),
            owner="requester",
        )
    )
    return rows


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
    history_warning: str | None = None,
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
        training, shape, used, chosen = None, None, 0, False
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
        training = plan_training(spec, acc, shape, notes)
        setup, used, chosen = training.setup, training.gpus, training.chosen
        mp = training.costed.parallel.model_parallel
        if spec.gpus is not None and spec.gpus % mp:
            warnings.append(Msg("warn.gpus_not_multiple", gpus=spec.gpus, mp=mp))
        extra += setup_assumptions(spec, setup)

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
        if history_warning:  # the workspace's ledger could not be read (calibrate.workspace_ratios)
            warnings.append(history_warning)
        gpu_h = eff * overhead

    # 4-6. data, labor, prices, rounds -----------------------------------------------------------
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
        rounds_u = guided_rounds_prior(task.value, spec.several_rounds)
    else:
        rounds_u = rounds_prior(task.value)
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
    wall = Pct.zero()  # rag: no training run, no days
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
    return Estimate(
        task=task,
        name=spec.name,
        currency=currency,
        priced_on=on.isoformat(),
        price_book=book.path,
        samples=n,
        seed=spec.seed,
        gpu=gpu_info,
        memory=training,
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
    )
