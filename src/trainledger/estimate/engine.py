"""``run(spec)``: the estimate in the seed's fixed order, as the stages of ``stages.py``.

    task type -> data -> memory -> throughput -> overhead -> prices -> rounds -> inference -> totals

``run`` sets up the context (price book, currency, dated pricing, sampler, ledger history), runs
the stages, and either refuses with every problem at once (failed stages and every missing price
item, one error) or reads the figures into an ``Estimate``.
"""

from __future__ import annotations

from datetime import date

from trainledger.errors import BadInput, NotFound
from trainledger.estimate.accelerator import accelerator_for, compute_price, setup_assumptions
from trainledger.estimate.messages import Msg
from trainledger.estimate.montecarlo import Pct, Sampler, tornado
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.result import Estimate, GpuInfo, Split
from trainledger.estimate.spec import EstimateSpec
from trainledger.estimate.stages import STAGES, Context, Outcome, Problem, run_stages
from trainledger.estimate.tasks import RAG_ROUTE
from trainledger.model.vocab import TaskType
from trainledger.pricebook import SAMPLE_PRICE_BOOK, PriceBook, load_price_book

__all__ = ["STAGES", "EstimateFailed", "accelerator_for", "compute_price", "run", "setup_assumptions"]


class EstimateFailed(BadInput):
    """Some stages could not run, or prices are missing: every problem, in one message."""

    def __init__(self, problems: tuple[Problem, ...], missing: dict[str, str], book_path: str) -> None:
        self.problems = problems
        self.missing = dict(missing)
        lines = [f"{p.stage}: {p.message}" + (f" (remedy: {p.remedy})" if p.remedy else "") for p in problems]
        if missing:
            lines.append(f"{len(missing)} price item(s) missing from {book_path}: " + ", ".join(missing))
        remedy = "fix the inputs named above"
        if missing:
            remedy = "add these items to the price book (see docs/pricebook.md), or pass --price-book"
        BadInput.__init__(self, "the estimate could not be made:\n  - " + "\n  - ".join(lines), remedy=remedy)


def run(
    spec: EstimateSpec,
    *,
    book: PriceBook | None = None,
    on: date | None = None,
    history_ratios: list[float] | None = None,
    history_note: str = "",
    history_warning: str | None = None,
    rag_route: str = RAG_ROUTE,
    labor_rates: dict | None = None,
    price_notes: tuple[str, ...] = (),
    price_warnings: tuple[str, ...] = (),
) -> Estimate:
    """The whole pipeline. Warnings and notes are catalogue messages (``messages.Msg``): English
    in ``warnings`` / ``notes``, Chinese in ``warnings_zh`` / ``notes_zh`` of ``to_dict()``.
    ``rag_route`` is kept for callers that passed either language's text; both give the message.
    Raises ``EstimateFailed`` (a ``BadInput``) listing every problem when a stage fails or prices
    are missing; a single failure keeps its own error type. ``labor_rates`` (role ->
    ``workspace_book.LaborRateRange``) replace the book's ``labor:<role>`` prices."""
    on = on or spec.on or date.today()
    book = book or load_price_book(spec.price_book or SAMPLE_PRICE_BOOK)
    currency = spec.currency or book.currency or "USD"
    pricing = Pricing(book, on, currency, collect_missing=True, labor_rates=labor_rates)
    try:
        sampler = Sampler(spec.samples, spec.seed)
    except ValueError as exc:
        raise BadInput(
            f"--samples {spec.samples}: {exc}", remedy="pass --samples 100 or more (default 100000)"
        ) from None
    ctx = Context(
        spec,
        pricing,
        sampler,
        on,
        tuple(history_ratios or ()),
        history_note,
        history_warning,
        rag_route,
        tuple(price_notes),
        tuple(price_warnings),
    )
    out = run_stages(ctx)
    refuse(out, pricing, book)
    return assemble(ctx, out, book, currency)


def refuse(out: Outcome, pricing: Pricing, book: PriceBook) -> None:
    """Raise when the estimate cannot be made; one failure and nothing else keeps its own error."""
    failed = [p for p in out.problems if p.kind != "skipped"]
    if len(failed) == 1 and not pricing.missing:
        p = failed[0]
        cls = NotFound if p.kind == "NotFound" else BadInput
        raise cls(p.message, remedy=p.remedy)
    if not failed and len(pricing.missing) == 1:
        item, message = next(iter(pricing.missing.items()))
        raise NotFound(message, remedy=f"add {item} to {book.path} (see docs/pricebook.md) or pass --price-book")
    if failed or pricing.missing:
        raise EstimateFailed(tuple(failed), pricing.missing, book.path)


def assemble(ctx: Context, out: Outcome, book: PriceBook, currency: str) -> Estimate:
    f = out.figures
    trains = ctx.spec.task is not TaskType.RAG
    acc, shape, training, sampler = f["acc"], f["shape"], f["training"], ctx.sampler
    drawer = [u.as_assumption() for u in sampler.uncertain()] + list(out.assumptions)
    drawer += list(ctx.pricing.fx_used.values())
    gpu_info = None if acc is None else GpuInfo(acc.id, acc.name, acc.memory_bytes, acc.peak_tflops, acc.source)
    rounds, gpu_h = f["rounds"], f["gpu_h"]
    compute_final, run_round = f["compute_final"], f["run_round"]
    return Estimate(
        task=ctx.spec.task,
        name=ctx.spec.name,
        currency=currency,
        priced_on=ctx.on.isoformat(),
        price_book=book.path,
        samples=sampler.n,
        seed=ctx.spec.seed,
        gpu=gpu_info,
        memory=training,
        gpus_used=f["used"],
        gpus_chosen=f["chosen"],
        flops_model=f["flops_m"],
        flops_hardware=f["flops_h"],
        tokens=ctx.spec.tokens or 0.0,
        params=ctx.spec.params or 0.0,
        active_params=(shape.active_params if shape else 0.0),
        mfu=Pct.of(f["mfu"]) if trains else Pct.zero(),
        overhead=Pct.of(f["overhead"]) if trains else Pct.zero(),
        rounds=Pct.of(rounds),
        effective_gpu_hours=Pct.of(f["eff"]),
        gpu_hours=Pct.of(gpu_h),
        programme_gpu_hours=Pct.of(gpu_h * rounds),
        wallclock_days=f["wall"],
        cost={
            "compute": Pct.of(f["compute_prog"]),
            "data": Pct.of(f["data_total"]),
            "labor": Pct.of(f["labor_total"]),
            "total": Pct.of(f["total"]),
        },
        cost_final_run={
            "compute": Pct.of(compute_final),
            "labor": Pct.of(run_round),
            "total": Pct.of(compute_final + run_round),
        },
        data_lines={k: Pct.of(v) for k, v in f["data_lines"].items()},
        labor_lines={k: Pct.of(v) for k, v in f["labor_lines"].items()},
        inference=f["inference"],
        assumptions=tuple(drawer),
        sensitivity=tuple(s for s in tornado(sampler, f["total"]) if s.swing > 0),
        warnings=out.warnings,
        notes=out.notes + ((Msg("note.plan_table_ignored"),) if ctx.spec.plan_ignored else ()),
        split=Split.of(f),
    )
