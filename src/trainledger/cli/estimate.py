"""``trainledger estimate`` and ``trainledger compare``: thin click edges over the estimator.

Options left out fall back to the spec file (``--from``), then to the estimator's defaults. The
overhead is calibrated from the finished batches of the ``--workspace`` ledger; outside a workspace
(no ``trainledger.toml``), or with no finished batches, the assumptions drawer says the sourced prior
was used (``calibrate.workspace_ratios``).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import click

from trainledger.cli.output import note
from trainledger.errors import BadInput
from trainledger.estimate import calibrate, engine
from trainledger.estimate.messages import Msg, Term, text, tr
from trainledger.estimate.procurement import compare as run_compare
from trainledger.estimate.quantities import parse_count, parse_range
from trainledger.estimate.spec import build_spec, load_spec_file
from trainledger.estimate.tasks import classify
from trainledger.estimate.workspace_book import WorkspaceBook
from trainledger.model.restricted import ADMIN, ROLES
from trainledger.pricebook import SAMPLE_PRICE_BOOK, load_price_book
from trainledger.report.estimate_render import FORMATS, LANGS, render_compare, render_estimate

_TEXT_OPTS = (
    ("--task", "task type: pretrain, continued_pretrain, full_finetune, lora, qlora, rag"),
    ("--params", "parameters: 7e9, 7B, 70B…"),
    ("--active-params", "active parameters per token (mixture of experts)"),
    ("--tokens", "training tokens: 2T, 500M…"),
    ("--gpu", "accelerator id, e.g. a100-80gb, h100-80gb, h800, tpu-v5p"),
    ("--gpus", "GPUs you will run on (default: the fewest that hold it, more for a ~90-day final run)"),
    ("--seq-len", "sequence length (default 4096)"),
    ("--micro-batch", "micro-batch per GPU (default 1)"),
    ("--zero-stage", "ZeRO stage 0-3 (default: searched; min_gpus: least-GPU plan over on-GPU options left open)"),
    ("--tp", "tensor parallel degree"),
    ("--pp", "pipeline parallel degree"),
    ("--layers", "transformer layers (default: derived)"),
    ("--hidden", "hidden size (default: derived)"),
    ("--heads", "attention heads (default: hidden/128)"),
    ("--vocab", "vocabulary size (default 32000)"),
    ("--lora-rank", "LoRA rank (default 16)"),
    ("--gpu-memory-gb", "memory of an accelerator not in the catalog (GB as on its datasheet)"),
    ("--peak-tflops", "dense BF16 peak of an accelerator not in the catalog"),
    ("--price-item", "price-book item for compute (default gpu_hour:<gpu>)"),
    ("--rounds", "experiment rounds: 2, 1..3 or 1..2..4 (final-run equivalents; default: the task's prior)"),
    ("--currency", "reporting currency (default: the price book's)"),
    ("--on", "pricing date YYYY-MM-DD (default today)"),
    ("--samples", "Monte Carlo samples (default 100000)"),
    ("--seed", "Monte Carlo seed"),
    ("--name", "a name for this estimate"),
)


def _estimate_options(f):
    for flag, help_text in reversed(_TEXT_OPTS):
        f = click.option(flag, default=None, help=help_text)(f)
    return f


@click.command("estimate")
@_estimate_options
@click.option(
    "--recompute",
    type=click.Choice(["none", "selective", "full"]),
    default=None,
    help="activation recomputation (default: selective when it fits)",
)
@click.option(
    "--offload",
    type=click.Choice(["none", "optimizer", "optimizer+params"]),
    default=None,
    help="ZeRO CPU offload (default: none; not searched for min_gpus; the host memory it needs is reported)",
)
@click.option(
    "--fsdp",
    type=click.Choice(["full", "hybrid", "shard_grad_op", "no_shard"]),
    default=None,
    help="plan with PyTorch FSDP (FULL_SHARD, HYBRID_SHARD within 8-GPU nodes, SHARD_GRAD_OP, NO_SHARD) "
    "instead of DeepSpeed ZeRO",
)
@click.option(
    "--no-flash-attention",
    "flash_attention",
    flag_value=False,
    default=None,
    help="the stack has no FlashAttention: --recompute none then stores the s x s attention scores",
)
@click.option("--precision", type=click.Choice(["bf16", "fp16", "fp8", "fp32"]), default=None)
@click.option("--optimizer", type=click.Choice(["adamw", "adam8bit", "sgd"]), default=None)
@click.option(
    "--price-book",
    type=click.Path(dir_okay=False),
    default=None,
    help="TOML or CSV price book (default: the shipped sample)",
)
@click.option(
    "--from",
    "spec_file",
    type=click.Path(dir_okay=False),
    default=None,
    help="a spec TOML with the same names plus [data], [labor], [inference]",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True)
@click.option("--lang", type=click.Choice(LANGS), default=None, help="en (default) or zh-CN; also a global option")
@click.option("--guided", is_flag=True, help="answer the three questions to find the task type")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="write to FILE instead of stdout",
)
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True,
              help="Print restricted fields (labor rates, unit prices …) as this role may see them"
                   " (docs/web.md). / 按角色输出受限字段。")
@click.pass_context
def estimate(ctx: click.Context, spec_file, fmt, lang, guided, output, role, **options) -> None:
    """Estimate a training batch before it runs: P10 / P50 / P90 with every assumption.

    预估一个训练批次:任务类型 → 显存 → 吞吐 → 额外占用 → 数据 → 人力 → 单价 → 轮次。
    """
    lang = _lang(lang)
    values = load_spec_file(spec_file) if spec_file else {}
    values.update({k: v for k, v in options.items() if v is not None})
    if guided:
        values = _guided(values, lang)
    workspace = (ctx.obj or {}).get("workspace")
    wb, wb_error = WorkspaceBook.read(workspace)  # inside a workspace: its price book, currency, labor rates
    if wb is not None:
        if wb.price_book and not values.get("price_book"):
            values["price_book"] = wb.price_book
        if wb.currency and not values.get("currency"):
            values["currency"] = wb.currency
    spec = build_spec(values, where=spec_file or "options")
    hist = calibrate.workspace_ratios(workspace)
    book = load_price_book(spec.price_book or SAMPLE_PRICE_BOOK)
    est = engine.run(
        spec,
        book=book,
        history_ratios=hist.ratios,
        history_note=hist.note,
        history_warning=hist.warning,
        labor_rates=wb.labor_rates if wb else None,
        price_notes=(wb.note(book.path, spec.currency or book.currency or "USD"),) if wb else (),
        price_warnings=(
            Msg("warn.workspace_book_unreadable", workspace=str(workspace), error=wb_error, book=book.path),
        )
        if wb_error
        else (),
    )
    from trainledger.model.restricted import note as access_note
    from trainledger.report.estimate_access import estimate_for

    shown, seen = estimate_for(est.to_dict(), role, "en" if fmt == "json" else lang)  # JSON: the English word
    _emit(render_estimate(shown, fmt, lang), output)
    if output or fmt == "json":  # md / html on a terminal show their warnings already
        _echo_warnings(est.warnings, lang)
    if seen.withheld:
        click.echo(access_note(seen, lang), err=True)


def _lang(lang: str | None) -> str:
    """The command's --lang, else the global --lang (before the subcommand), else English."""
    ctx = click.get_current_context(silent=True)
    return lang or ((ctx.obj or {}).get("lang") if ctx else None) or "en"


def _echo_warnings(warnings, lang: str) -> None:
    for w in warnings:
        note(text("cli.warning", lang, text=tr(w, lang)), err=True)


def _guided(values: dict, lang: str) -> dict:
    """The seed's three questions (weights? labelled samples? several rounds?), asked in ``lang``."""
    changes = click.confirm(text("guided.q_weights", lang), default=True, err=True)
    labelled = click.prompt(text("guided.q_labelled", lang), type=int, default=0, err=True)
    rounds = click.confirm(text("guided.q_rounds", lang), default=True, err=True)
    existing = True
    if changes and labelled == 0:
        existing = click.confirm(text("guided.q_existing", lang), default=True, err=True)
    c = classify(changes, labelled, rounds, from_existing_model=existing)
    click.echo(text("guided.task_type", lang, task=Term(c.task.value)), err=True)
    for r in c.reasons(lang):
        click.echo(f"  - {r}", err=True)
    out = dict(values, task=c.task.value)
    out["data"] = _labelled_answer(dict(out.get("data") or {}), labelled, c.task.value)
    if "rounds" not in out:  # an explicit --rounds wins; else the task's prior, scaled by the answer
        out["several_rounds"] = c.several_rounds
    if c.task.value != "rag":
        for key in ("params", "tokens", "gpu"):
            if key not in out:
                out[key] = click.prompt(text(f"guided.ask_{key}", lang), err=True)
    return out


def _labelled_answer(data: dict, labelled: int, task: str) -> dict:
    """The guided answer "how many labelled samples?" as the data quantity it names: the labelled
    items (the evaluation set for rag, which trains nothing) — unless the spec's [data] gives it."""
    key, src = (
        ("eval_items", "src.guided_labelled_eval") if task == "rag" else ("labelled_items", "src.guided_labelled")
    )
    if key in data or (task == "rag" and labelled == 0):
        return data
    data[key] = {
        "low": labelled,
        "mode": labelled,
        "high": labelled,
        "evidence": "assumed",
        "source": Msg(src, n=labelled),
        "owner": "requester",
    }
    return data


def _emit(text: str, output: str | None) -> None:
    if output:
        Path(output).write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=not text.endswith("\n"))


@click.command("compare")
@click.option("--gpu", required=True, help="accelerator id")
@click.option("--gpus", required=True, help="fleet size for reserved / own hardware")
@click.option("--years", default="3", show_default=True, help="horizon in whole years")
@click.option("--utilisation", default=None, help="share of fleet hours used: 0.6 or 0.4..0.6..0.8")
@click.option("--gpu-hours-per-year", default=None, help="demand instead of utilisation: 1e6..2e6")
@click.option("--price-book", type=click.Path(dir_okay=False), default=None)
@click.option("--price-item", default=None, help="on-demand price item (default gpu_hour:<gpu>)")
@click.option(
    "--external-per-year", default=None, help="an external service's yearly quote (range), in the report currency"
)
@click.option("--currency", default=None)
@click.option("--on", default=None, help="pricing date YYYY-MM-DD (default today)")
@click.option("--samples", default="100000")
@click.option("--seed", default="20240607")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="md", show_default=True)
@click.option("--lang", type=click.Choice(LANGS), default=None, help="en (default) or zh-CN; also a global option")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None)
def compare(
    gpu,
    gpus,
    years,
    utilisation,
    gpu_hours_per_year,
    price_book,
    price_item,
    external_per_year,
    currency,
    on,
    samples,
    seed,
    fmt,
    lang,
    output,
) -> None:
    """Rent on demand vs reserved vs own hardware vs a platform or external service, N years.

    按需租用、预留、自建、平台或外部服务的 N 年总成本对比(同一口径,含退出成本)。
    """
    lang = _lang(lang)
    if utilisation and gpu_hours_per_year:
        raise BadInput("give --utilisation or --gpu-hours-per-year, not both")
    try:
        day = date.fromisoformat(on) if on else None
    except ValueError:
        raise BadInput(f"--on {on!r} is not an ISO date (YYYY-MM-DD)") from None
    book = load_price_book(price_book or SAMPLE_PRICE_BOOK)
    cmp = run_compare(
        book,
        gpu=gpu,
        gpus=_whole(gpus, "--gpus"),
        years=_whole(years, "--years"),
        utilisation=parse_range(utilisation, "--utilisation") if utilisation else None,
        gpu_hours_per_year=(parse_range(gpu_hours_per_year, "--gpu-hours-per-year") if gpu_hours_per_year else None),
        on=day,
        currency=currency.upper() if currency else None,
        price_item=price_item,
        external_per_year=parse_range(external_per_year, "--external-per-year") if external_per_year else None,
        samples=_whole(samples, "--samples"),
        seed=_whole(seed, "--seed", allow_zero=True),
    )
    _emit(render_compare(cmp.to_dict(), fmt, lang), output)
    if output or fmt == "json":
        _echo_warnings(cmp.warnings, lang)


def _whole(value: str, what: str, *, allow_zero: bool = False) -> int:
    """A whole number, as ``estimate`` requires of its counts: 8.9 GPUs or 2.9 years are refused,
    never truncated."""
    x = parse_count(value, what, allow_zero=allow_zero)
    if x != int(x):
        raise BadInput(f"{what} must be a whole number, got {value!r}")
    return int(x)


COMMANDS = (estimate, compare)
