"""Markdown for text that comes from data (job names, tags, paths, vendor names, spec names).

Such text must stay on its line and inert: no line break can start a heading or end a table row;
no backtick or angle bracket can open code or HTML; and no Markdown punctuation can make a link,
an image, emphasis or a heading — ``[``, ``]``, ``!``, ``(``, ``)``, ``*``, ``_``, ``#``, ``~``
are backslash-escaped everywhere, and a leading ``>``, ``-``, ``+`` or ``1.`` (a quote, a list
or a rule) where the text may start a line (a sign before a digit, ``-3.00``, is left alone).
A reader of the rendered sheet sees the text exactly as it was; only the Markdown source carries
the backslashes. Both report renderers use these helpers.

``Md`` marks Markdown the renderer wrote itself (``**build**`` in a table cell): it passes as is.
"""

from __future__ import annotations

import re
from typing import Any

_LINE_BREAKS = {"\r": " ", "\n": " ", "\u2028": " ", "\u2029": " ", "\x85": " ", "\x0b": " ", "\x0c": " "}
_ESCAPES = str.maketrans(
    {
        **_LINE_BREAKS,
        "\\": "\\\\",
        "`": "\\`",
        "<": "&lt;",
        "[": "\\[",
        "]": "\\]",
        "!": "\\!",
        "(": "\\(",
        ")": "\\)",
        "*": "\\*",
        "_": "\\_",
        "#": "\\#",
        "~": "\\~",
    }
)
# at a line's start: a quote; a list item or a rule ("-" or "+" — but not a number's sign, -3.00);
# an ordered list item ("1." then a blank or the end)
_LEADING = re.compile(r"^(\s*)(?:(>|[+\-](?![0-9]))|([0-9]+)\.(?=\s|$))")


class Md(str):
    """Markdown written by a renderer, not by data: ``inline`` and ``table`` keep it as is."""


def inline(x: Any, *, lead: bool = True) -> str:
    """``x`` as one inert line of Markdown. ``lead``: the text may start a line, so a leading
    ``>``, ``-``, ``+`` or ``1.`` is escaped too (a table cell never starts one)."""
    if isinstance(x, Md):
        return str(x)
    text = str(x).translate(_ESCAPES)
    if lead:
        text = _LEADING.sub(_escape_lead, text, count=1)
    return text


def _escape_lead(m: re.Match[str]) -> str:
    if m[2]:
        return f"{m[1]}\\{m[2]}"
    return f"{m[1]}{m[3]}\\."  # "1\." — a backslash before a digit escapes nothing


def table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """A pipe table; every cell is ``inline`` with its pipes escaped."""

    def cell(x: Any) -> str:
        return inline(x, lead=False).replace("|", "\\|")

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return lines
