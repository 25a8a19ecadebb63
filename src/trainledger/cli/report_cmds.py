"""sheet: the batch cost sheet (成本底稿) in json, md, html or xlsx, or its cost lines as csv — each
as one role may see it (``--role``, default admin: the local user); report: across batches."""

from __future__ import annotations

from pathlib import Path

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.cli.output import t
from trainledger.model.restricted import ADMIN, ROLES
from trainledger.report.render import FORMATS, render


@click.command("sheet")
@click.argument("batch_id")
@click.option("--format", "fmt", type=click.Choice((*FORMATS, "csv")), default="md", show_default=True,
              help="csv: the batch's cost lines (formula-safe).")
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None,
              help="Default: the workspace language; xlsx: English and Chinese side by side unless --lang is given.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write to a file instead of stdout.")
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True,
              help="Print restricted fields (labor rates, unit prices …) as this role may see them"
                   " (docs/web.md). / 按角色输出受限字段。")
@click.pass_context
def sheet(ctx: click.Context, batch_id: str, fmt: str, lang: str | None, out: str | None, role: str) -> None:
    """Render one batch's cost sheet. / 输出训练批次成本底稿。"""
    if fmt == "xlsx" and not out:
        raise click.UsageError(t("cli.sheet.xlsx_needs_out", ctx))
    with open_ws(ctx) as wsp:
        data = wsp.sheet(batch_id)
        if data.get("stale") and (out or fmt == "csv"):  # printed at the top of md / html / json / xlsx too;
            # said here when only "wrote FILE" would show, or for a CSV of lines (no place for it)
            from trainledger.report.freshness import note

            click.echo(f"! {note(data['stale'], lang or ctx.obj.get('lang') or wsp.config.get('workspace.language'))}",
                       err=True)
        if fmt == "csv":
            from trainledger.report.csv_lines import to_csv

            text = to_csv(wsp.ledger.cost_lines(batch_id), role)
        elif fmt == "xlsx":
            from trainledger.report.sheet import attributed_by_batch
            from trainledger.report.xlsx import write_xlsx

            write_xlsx(data, wsp.ledger.cost_lines(batch_id), out, role, asked_lang(ctx),
                       attributed_by_batch(wsp, data.get("attribution_id")))
            click.echo(t("cli.wrote", ctx, path=out))
            return
        else:
            text = render(data, fmt, lang or ctx.obj.get("lang") or wsp.config.get("workspace.language"), role)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        click.echo(t("cli.wrote", ctx, path=out))
    else:
        click.echo(text, nl=False)


def asked_lang(ctx: click.Context) -> str | None:
    """The workbook's language: a ``--lang`` typed on this command line (after ``sheet`` or before it),
    else None — English and Chinese side by side, the workbook the demo and the dashboard's download
    write by default (docs/cli.md *Language*). The language a command otherwise speaks
    (TRAINLEDGER_LANG, the workspace's, the locale) does not make a one-language workbook."""
    from click.core import ParameterSource

    if ctx.get_parameter_source("lang") == ParameterSource.COMMANDLINE:
        return ctx.params["lang"]
    return (ctx.obj or {}).get("lang")


@click.command("report")
@click.option("--project", default=None, help="Only this project's batches (default: every project).")
@click.option("--from", "start", default=None, metavar="DATE",
              help="First day, YYYY-MM-DD or YYYY-MM (a day of the workspace.timezone).")
@click.option("--to", "end", default=None, metavar="DATE",
              help="Last day, YYYY-MM-DD or YYYY-MM (a day of the workspace.timezone).")
@click.option("--by", type=click.Choice(["month", "batch"]), default="month", show_default=True,
              help="Spend over months, or per batch.")
@click.option("--format", "fmt", type=click.Choice(["md", "html", "xlsx", "json"]), default="md", show_default=True)
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None, help="Default: the workspace language.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write to a file instead of stdout.")
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True,
              help="Print labor cost that is one person's (a batch whose labor is one role) as this role may see it"
                   " (docs/web.md). / 按角色输出受限字段。")
@click.pass_context
def report(ctx: click.Context, project: str | None, start: str | None, end: str | None, by: str, fmt: str,
           lang: str | None, out: str | None, role: str) -> None:
    """Spend, shares, unattributed and plan vs actual across batches. / 跨批次成本报告。"""
    from trainledger.report import cross, cross_render

    if fmt == "xlsx" and not out:
        raise click.UsageError(t("cli.sheet.xlsx_needs_out", ctx))  # one language, as every line (docs/cli.md)
    with open_ws(ctx) as wsp:
        rep = cross.build(wsp, cross.scope(wsp, project, start, end, by))
        from trainledger.report.freshness import note

        if rep.stale and out:  # at the top of md / html / json / the xlsx README too; said here when only
            # "wrote FILE" would show
            click.echo(f"! {note(rep.stale, lang or ctx.obj.get('lang') or wsp.config.get('workspace.language'))}",
                       err=True)
        if fmt == "xlsx":
            from trainledger.report.cross_xlsx import write_xlsx as write_report

            write_report(rep, out, role)
            click.echo(f"wrote {out}")
            return
        text = cross_render.render(rep, fmt, lang or ctx.obj.get("lang") or wsp.config.get("workspace.language"),
                                   role)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}")
    else:
        click.echo(text, nl=False)


COMMANDS = (sheet, report)
