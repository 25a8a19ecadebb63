"""The ``trainledger`` command line: a thin edge over the core.

Each module here defines click commands and lists them in its ``COMMANDS`` tuple; ``main``
registers every module named in ``_MODULES``. Domain errors (``TrainledgerError``) become one
message on stderr and exit code 2; nothing below this package knows about click.
"""

from __future__ import annotations

import importlib
import sys

import click

from trainledger.errors import TrainledgerError

_MODULES = ("ledger_cmds", "report_cmds", "demo_cmd", "estimate", "imports_cmds")


class _Group(click.Group):
    def invoke(self, ctx: click.Context):  # noqa: D401 - click hook
        try:
            return super().invoke(ctx)
        except TrainledgerError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)


@click.group(cls=_Group)
@click.option(
    "--workspace",
    envvar="TRAINLEDGER_WORKSPACE",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False),
    help="Workspace directory (also TRAINLEDGER_WORKSPACE).",
)
@click.version_option(package_name="trainledger")
@click.pass_context
def cli(ctx: click.Context, workspace: str) -> None:
    """trainledger — where did this model's money go? / 模型训练成本归属、估算与复盘。"""
    ctx.obj = {"workspace": workspace}


for _name in _MODULES:
    for _cmd in importlib.import_module(f"trainledger.cli.{_name}").COMMANDS:
        cli.add_command(_cmd)


def main() -> None:
    cli(prog_name="trainledger")
