"""sheet: the batch cost sheet (成本底稿) in json, md, html or xlsx, or its cost lines as csv — each
as one role may see it (``--role``, default admin: the local user)."""

from __future__ import annotations

from pathlib import Path

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.model.restricted import ADMIN, ROLES
from trainledger.report.render import FORMATS, render


@click.command("sheet")
@click.argument("batch_id")
@click.option("--format", "fmt", type=click.Choice((*FORMATS, "csv")), default="md", show_default=True,
              help="csv: the batch's cost lines (formula-safe).")
@click.option("--lang", type=click.Choice(["en", "zh-CN"]), default=None, help="Default: the workspace language.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Write to a file instead of stdout.")
@click.option("--role", type=click.Choice(ROLES), default=ADMIN, show_default=True,
              help="Print restricted fields (labor rates, unit prices …) as this role may see them"
                   " (docs/web.md). / 按角色输出受限字段。")
@click.pass_context
def sheet(ctx: click.Context, batch_id: str, fmt: str, lang: str | None, out: str | None, role: str) -> None:
    """Render one batch's cost sheet. / 输出训练批次成本底稿。"""
    if fmt == "xlsx" and not out:
        raise click.UsageError("--format xlsx writes a workbook: give --out FILE.xlsx"
                               " / xlsx 格式需要 --out 指定输出文件")
    with open_ws(ctx) as wsp:
        data = wsp.sheet(batch_id)
        if fmt == "csv":
            from trainledger.report.csv_lines import to_csv

            text = to_csv(wsp.ledger.cost_lines(batch_id), role)
        elif fmt == "xlsx":
            from trainledger.report.xlsx import write_xlsx

            write_xlsx(data, wsp.ledger.cost_lines(batch_id), out, role)
            click.echo(f"wrote {out}")
            return
        else:
            text = render(data, fmt, lang or ctx.obj.get("lang") or wsp.config.get("workspace.language"), role)
    if out:
        Path(out).write_text(text, encoding="utf-8")
        click.echo(f"wrote {out}")
    else:
        click.echo(text, nl=False)


COMMANDS = (sheet,)
