"""LazyGroup: the root ``trainledger`` group, built from a table of commands.

* ``--help`` lists the table's names and short help without importing a command module;
  ``get_command`` imports the one module a command lives in, when it runs.
* Every loaded command (and every command of a loaded group) also accepts the global options
  after its own name: ``--workspace``, ``--lang``, ``--quiet``, ``--verbose``. Given there, they
  override the value given before the subcommand (``ctx.obj``). A command that declares one of
  these options itself (``sheet --lang``) keeps its own.
* An option or argument given an empty value on the command line (``--tz ""``) is a usage error.
* A ``trainledger …`` command printed for the user to run names ``--workspace DIR`` when the
  command ran on a workspace elsewhere than ``.`` (cli/output.py ``runnable``).
* The error edge: ``TrainledgerError`` and ``OSError`` become ``error: …`` plus the remedy and
  exit code 2; any other exception is an internal error, exit code 3, one line plus how to see
  the traceback (``--verbose``).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import click
from click.core import ParameterSource

GLOBAL_LANGS = ("en", "zh-CN")
_INJECTED = "_trainledger_globals"

REPORT_HINT = ("this is a bug in trainledger, not in your input: run the command again with --verbose and"
               " report the traceback, with the command line, to the trainledger maintainers")
"""English of ``cli.report_hint`` (trainledger/i18n/texts_cli.py)."""


def _t(msg_id: str, ctx: click.Context | None = None, **params: Any) -> str:
    """A ``cli.*`` message in the command's language (trainledger/i18n)."""
    from trainledger.i18n import ZH, choose, clickzh, text

    lang = ZH if clickzh.ACTIVE else choose.of(ctx or click.get_current_context(silent=True))
    return text("cli." + msg_id, lang, **params)


def _store(key: str, *, flag: bool = False) -> Callable[[click.Context, click.Parameter, Any], None]:
    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if ctx.get_parameter_source(param.name) not in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            return
        if flag and not value:
            return
        ctx.ensure_object(dict)[key] = value
    return callback


def _global_options() -> tuple[click.Option, ...]:
    """Fresh copies for one command (click parameters are not shared between commands)."""
    return (
        click.Option(["--workspace"], type=click.Path(file_okay=False), default=None, expose_value=False,
                     callback=_store("workspace"), help="Workspace directory (global option)."),
        click.Option(["--lang"], type=click.Choice(GLOBAL_LANGS), default=None, expose_value=False,
                     callback=_store("lang"), help="Language of reports and messages (global option)."),
        click.Option(["-q", "--quiet"], is_flag=True, default=False, expose_value=False,
                     callback=_store("quiet", flag=True), help="Only results and errors (global option)."),
        click.Option(["-v", "--verbose"], is_flag=True, default=False, expose_value=False,
                     callback=_store("verbose", flag=True), help="Every warning; tracebacks (global option)."),
    )


def _not_empty(param: click.Parameter) -> None:
    """Wrap ``param``'s callback so an empty value typed on the command line is refused."""
    if getattr(param, "is_flag", False) or getattr(param, "count", False):
        return
    if not isinstance(param.type, click.types.StringParamType | click.Path):
        return
    inner = param.callback

    def callback(ctx: click.Context, p: click.Parameter, value: Any) -> Any:
        given = ctx.get_parameter_source(p.name) in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT)
        values = value if isinstance(value, tuple | list) else (value,)
        if given and any(isinstance(x, str) and not x.strip() for x in values):
            raise click.BadParameter(_t("not_empty", ctx), ctx=ctx, param=p)
        return inner(ctx, p, value) if inner else value

    param.callback = callback


def _inherit_lang(param: click.Parameter) -> None:
    """A command with a ``--lang`` of its own takes the global ``--lang`` when its own is not given,
    so ``trainledger --lang zh-CN jobs`` and ``trainledger jobs --lang zh-CN`` mean the same; with
    neither, the language every command speaks (TRAINLEDGER_LANG, the workspace's, the locale, en:
    trainledger/i18n/choose.py)."""
    inner = param.callback

    def callback(ctx: click.Context, p: click.Parameter, value: Any) -> Any:
        if value is None and ctx.get_parameter_source(p.name) not in (ParameterSource.COMMANDLINE,
                                                                      ParameterSource.ENVIRONMENT):
            from trainledger.i18n import choose

            value = choose.of(ctx)
        return inner(ctx, p, value) if inner else value

    param.callback = callback


def prepare(cmd: click.Command) -> click.Command:
    """Give ``cmd`` (and, for a group, each of its commands) the global options and the empty
    value check. Idempotent."""
    if getattr(cmd, _INJECTED, False):
        return cmd
    for param in cmd.params:
        _not_empty(param)
        if param.name == "lang" and param.expose_value:
            _inherit_lang(param)
    taken = {o for p in cmd.params for o in (*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ()))}
    taken |= {p.name for p in cmd.params}
    for opt in _global_options():
        if opt.name not in taken and not set(opt.opts) & taken:
            _not_empty(opt)
            cmd.params.append(opt)
    setattr(cmd, _INJECTED, True)
    if isinstance(cmd, click.Group):
        for sub in cmd.commands.values():
            prepare(sub)
    return cmd


def load(target: str) -> click.Command:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


class LazyGroup(click.Group):
    """A group whose commands are rows ``(name, "module:attribute", short help)``."""

    def __init__(self, *args: Any, commands_table: tuple[tuple[str, str, str], ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = {name: (target, short) for name, target, short in commands_table}
        for param in self.params:
            _not_empty(param)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [*self.table, *sorted(n for n in self.commands if n not in self.table)]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return prepare(self.commands[cmd_name])
        if cmd_name not in self.table:
            return None
        cmd = prepare(load(self.table[cmd_name][0]))
        self.commands[cmd_name] = cmd
        return cmd

    def resolve_command(self, ctx: click.Context, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=2)
            hint = _t("did_you_mean", ctx, names=_t("or", ctx).join(repr(c) for c in close)) if close else ""
            raise click.UsageError(_t("no_such_command", ctx, name=repr(name), hint=hint), ctx)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from trainledger.i18n import clickzh

        rows = [(name, clickzh.help_text(short) if clickzh.ACTIVE else short)
                for name, (_, short) in self.table.items()]
        rows += [(n, c.get_short_help_str(80)) for n, c in sorted(self.commands.items()) if n not in self.table]
        if rows:
            with formatter.section(_t("commands", ctx)):
                formatter.write_dl(rows)

    def main(self, args: Any = None, *a: Any, **kw: Any) -> Any:
        """click in the command's language from the start: --help, usage and click's own errors
        (trainledger/i18n/clickzh.py). The language is read off the command line before parsing."""
        from trainledger.i18n import choose, clickzh

        argv = list(sys.argv[1:] if args is None else args)
        flag, workspace = choose.scan(argv)
        with clickzh.speaking(choose.choose(flag, workspace)):
            return super().main(argv, *a, **kw)

    def invoke(self, ctx: click.Context) -> Any:
        from trainledger.cli.output import runnable_output
        from trainledger.errors import TrainledgerError

        with runnable_output(ctx):  # a printed `trainledger …` remedy names --workspace DIR (cli/output.py)
            try:
                return super().invoke(ctx)
            except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
                raise
            except TrainledgerError as exc:
                from trainledger.i18n import choose

                click.echo(_t("error", ctx, message=exc.text(choose.of(ctx))), err=True)
                sys.exit(2)
            except BrokenPipeError:  # `trainledger batch list | head -1`: the reader has all it wanted
                with contextlib.suppress(OSError, ValueError, AttributeError):  # no flush error at exit
                    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
                sys.exit(141)
            except OSError as exc:
                from trainledger.i18n import choose

                click.echo(_t("error", ctx, message=os_message(exc, choose.of(ctx))), err=True)
                sys.exit(2)
            except Exception as exc:  # noqa: BLE001 - the edge: no traceback unless asked for
                if (ctx.obj or {}).get("verbose"):
                    traceback.print_exc(file=sys.stderr)
                first = (str(exc).splitlines() or [""])[0][:200]
                click.echo(_t("internal", ctx, kind=type(exc).__name__, first=first) + "\n  " + _t("report_hint", ctx),
                           err=True)
                sys.exit(3)


_OS_REMEDY = {
    errno.EACCES: "choose a path you may write to, or fix its permissions",
    errno.EPERM: "choose a path you may write to, or fix its permissions",
    errno.EROFS: "the file system is read-only: choose a path on a writable one",
    errno.ENOTDIR: "a part of the path is a file, not a directory: choose another path",
    errno.EEXIST: "the path exists already: choose another one, or remove it",
    errno.ENOENT: "check the path (its parent directories must exist or be creatable)",
    errno.ENOSPC: "the disk is full: free some space and run the command again",
    errno.EISDIR: "the path is a directory: give a file name",
}


def os_message(exc: OSError, lang: str = "en") -> str:
    """An ``OSError`` as one sentence naming the path and the remedy, in ``lang``."""
    from trainledger.i18n import is_zh, localize, text
    from trainledger.i18n.registry import table

    what = exc.strerror or str(exc)
    code = f"os.{errno.errorcode.get(exc.errno or 0, '')}"
    if is_zh(lang) and code in table("cli"):
        what = text("cli." + code, lang)
    remedy = (localize(_OS_REMEDY[exc.errno], lang) if exc.errno in _OS_REMEDY
              else text("cli.os.default_remedy", lang))
    return ((f"{exc.filename}: {what}" if exc.filename is not None else what)
            + "\n  " + text("cli.remedy", lang, remedy=remedy))
