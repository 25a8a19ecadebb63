"""What a command prints besides its result: notes and grouped warnings, honouring the global
``--quiet`` / ``--verbose`` (``ctx.obj``).

* ``note``: an aside for a person (which time zone was read, where a file went); not with --quiet.
* ``grouped``: warnings of one kind as one line with the count, the first few, and how to list
  them all (``--verbose``) — a 100k-job trace must not print a line per unmatched job.
* ``width`` / ``pad``: a text's width in terminal columns (a Chinese character takes two) and the
  text padded to a column — tables line up in zh-CN as in English.
* ``KindChoice``: the import kinds as a click choice, read from the ingest registry only when the
  value is checked, so loading the ``import`` command does not import every importer.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import click

FIRST = 3
"""How many warnings of one kind are printed before the rest are counted."""


def _flags(ctx: click.Context | None) -> dict[str, Any]:
    ctx = ctx or click.get_current_context(silent=True)
    return (ctx.obj if ctx is not None and isinstance(ctx.obj, dict) else None) or {}


def quiet(ctx: click.Context | None = None) -> bool:
    return bool(_flags(ctx).get("quiet"))


def verbose(ctx: click.Context | None = None) -> bool:
    return bool(_flags(ctx).get("verbose"))


def note(text: str, *, ctx: click.Context | None = None, err: bool = False) -> None:
    """An aside (not a result): hidden by --quiet."""
    if not quiet(ctx):
        click.echo(text, err=err)


def lang(ctx: click.Context | None = None) -> str:
    """The command's language (trainledger/i18n/choose.py: --lang, TRAINLEDGER_LANG, the workspace's,
    the locale, else en)."""
    from trainledger.i18n import choose

    return choose.of(ctx or click.get_current_context(silent=True))


def t(msg_id: str, ctx: click.Context | None = None, **params: Any) -> str:
    """Message ``msg_id`` (namespaced, e.g. ``cli.import.summary``) in the command's language."""
    from trainledger.i18n import text

    return text(msg_id, lang(ctx), **params)


def grouped(items: Iterable[tuple[str, str]], *, ctx: click.Context | None = None, indent: str = "  ",
            list_all: str | None = None) -> list[str]:
    """``(kind, message)`` warnings grouped by kind, in first-seen order, as printed lines.

    One warning of a kind prints as itself; more print as ``! kind: N warnings, e.g.:`` with the
    first ``FIRST`` and ``… and M more (how to list all)``. ``--verbose`` prints every one;
    ``--quiet`` prints none. Returns the lines it printed (for tests)."""
    if quiet(ctx):
        return []
    by_kind: dict[str, list[str]] = {}
    for kind, message in items:
        by_kind.setdefault(kind, []).append(message)
    show_all = verbose(ctx)
    how = list_all if list_all is not None else t("cli.grouped.list_all", ctx)
    lines: list[str] = []
    for kind, messages in by_kind.items():
        if len(messages) == 1:
            lines.append(t("cli.grouped.one", ctx, indent=indent, kind=kind, message=messages[0]))
            continue
        shown = messages if show_all else messages[:FIRST]
        lines.append(t("cli.grouped.many" if show_all else "cli.grouped.many_eg", ctx, indent=indent, kind=kind,
                       n=len(messages)))
        lines += [f"{indent}    - {m}" for m in shown]
        if len(messages) > len(shown):
            lines.append(t("cli.grouped.more", ctx, indent=indent, n=len(messages) - len(shown), how=how))
    for line in lines:
        click.echo(line)
    return lines


def width(text: str) -> int:
    """``text``'s width in terminal columns: East Asian wide and full-width characters (汉字, （）) take
    two, combining marks none, the rest one."""
    import unicodedata

    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in str(text))


def pad(text: str, columns: int, align: str = "<") -> str:
    """``text`` left- (``<``) or right-aligned (``>``) in ``columns`` terminal columns, as ``format(text,
    "<15")`` would be for ASCII; a text wider than the column is kept whole."""
    room = " " * max(0, columns - width(text))
    return f"{text}{room}" if align == "<" else f"{room}{text}"


def reason_text(row: dict[str, Any], language: str) -> str:
    """A quarantined or flagged row's reason in ``language``: a flagged row's notes one by one, a
    flag code (``no_purpose``) as its label — codes appear only in JSON."""
    import re

    from trainledger.i18n import localize

    notes = row.get("notes")
    if not notes:
        return localize(row.get("reason"), language)
    if language != "en":  # a bill's provisional / vendor note as the sheet says it (report/flag_text.py)
        from trainledger.report.flag_text import flags_text

        return flags_text(notes, language, row.get("kind"), row.get("import") or "")

    def one(note: str) -> str:
        return note.replace("_", " ") if re.fullmatch(r"[a-z]+(?:_[a-z]+)+", note) else note
    return "; ".join(one(n) for n in notes)


class KindChoice(click.Choice):
    """``click.Choice`` over the ingest registry's kinds, loaded on first use."""

    name = "kind"

    def __init__(self) -> None:
        super().__init__((), case_sensitive=True)

    @property
    def choices(self) -> tuple[str, ...]:  # type: ignore[override]
        from trainledger.ingest import KINDS

        return KINDS

    @choices.setter
    def choices(self, value: Any) -> None:  # click's __init__ assigns; the registry is the truth
        pass


# -- commands the user is told to run carry the workspace ------------------------------------------

_NO_WORKSPACE = frozenset({"init", "demo"})
"""Commands that take no workspace (``init DIR``, ``demo --dir DIR``): printed as they are."""
_OPTIONAL_WORKSPACE = frozenset({"estimate", "compare", "presets"})
"""Commands that run outside a workspace too: given ``--workspace`` only when it is one."""
_DOCUMENTS = frozenset({"sheet", "report", "export"})
"""Commands whose result is a document (the cost sheet the dashboard serves too, a report, an
export): printed as rendered, like a saved or served copy; their errors and warnings still get it."""
_GLOBAL_FLAG = r"(?:--lang[ =]\S+|-q|--quiet|-v|--verbose)"
_END = "`)）；;\n"
"""Where a command written without backticks ends."""


def _commands() -> frozenset[str]:
    from trainledger.cli import COMMANDS

    return frozenset(name for name, _, _ in COMMANDS)


def workspace_of(ctx: click.Context | None = None) -> str | None:
    """The workspace as the user typed it, when a printed command needs to name it: given with
    ``--workspace`` (or TRAINLEDGER_WORKSPACE) and not the current directory."""
    import os

    ws = _flags(ctx).get("workspace")
    if not ws:
        return None
    try:
        if os.path.realpath(ws) == os.path.realpath(os.getcwd()):
            return None
    except OSError:
        pass
    return str(ws)


def runnable(text: Any, ctx: click.Context | None = None) -> Any:
    """``text`` with every ``trainledger CMD …`` it tells the user to run given ``--workspace DIR``
    (shell-quoted, as typed) when the command ran on a workspace elsewhere than ``.``, so the remedy
    pastes as printed. Commands that name ``--workspace`` already, ``init``, ``demo``, and
    ``estimate`` / ``compare`` / ``presets`` outside a workspace are left alone, and so is a JSON
    document (a program's input, equal to the dashboard's JSON). Only printed text: the ledger and
    the audit log keep the command as recorded."""
    if not isinstance(text, str) or "trainledger " not in text or text.lstrip()[:1] in ("{", "["):
        return text
    ws = workspace_of(ctx)
    if ws is None:
        return text
    import re
    import shlex
    from pathlib import Path

    names = _commands()
    is_workspace = (Path(ws) / "trainledger.toml").is_file()
    option = f"--workspace {shlex.quote(ws)}"
    pattern = re.compile(rf"(?<![\w/.\-])trainledger((?: {_GLOBAL_FLAG})*) ([a-z][a-z-]*)(?![\w-])")

    def one(m: re.Match[str]) -> str:
        name = m.group(2)
        if name not in names or name in _NO_WORKSPACE or (name in _OPTIONAL_WORKSPACE and not is_workspace):
            return m.group(0)
        rest = text[m.end():]
        stop = min((i for i in (rest.find(c) for c in _END) if i >= 0), default=len(rest))
        if "--workspace" in m.group(1) or re.search(r"(?<!\S)--workspace(?:[ =]|$)", rest[:stop]):
            return m.group(0)
        return f"trainledger {option}{m.group(1)} {name}"
    return pattern.sub(one, text)


class runnable_output:  # noqa: N801 - used as ``with runnable_output(ctx):``
    """While a command runs, ``click.echo`` prints through ``runnable``: the one place every
    notice, warning, summary and error line passes (cli/lazy.py ``LazyGroup.invoke``) — on stdout
    except a document's (``_DOCUMENTS``), on stderr always."""

    def __init__(self, ctx: click.Context) -> None:
        self.ctx = ctx

    def __enter__(self) -> runnable_output:
        self.echo = click.echo
        ctx, echo = self.ctx, self.echo

        def echo_runnable(message: Any = None, file: Any = None, nl: bool = True, err: bool = False,
                          **kwargs: Any) -> None:
            if err or file is not None or ctx.invoked_subcommand not in _DOCUMENTS:
                message = runnable(message, ctx)
            echo(message, file, nl, err, **kwargs)
        click.echo = echo_runnable  # type: ignore[assignment]
        return self

    def __exit__(self, *exc: Any) -> None:
        click.echo = self.echo  # type: ignore[assignment]
