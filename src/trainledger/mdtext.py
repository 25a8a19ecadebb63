"""Markdown for text that comes from data (tags, paths, vendor names, spec names).

Such text must stay on its line and inert: no line break can start a heading or end a table row,
no backtick or angle bracket can open code or HTML. Both report renderers use these two helpers.
"""

from __future__ import annotations

from typing import Any

_LINE_BREAKS = str.maketrans({"\r": " ", "\n": " ", "\u2028": " ", "\u2029": " ", "\x85": " "})


def inline(x: Any) -> str:
    """``x`` as one inert line of Markdown."""
    return str(x).translate(_LINE_BREAKS).replace("\\", "\\\\").replace("`", "\\`").replace("<", "&lt;")


def table(head: list[str], rows: list[list[Any]]) -> list[str]:
    """A pipe table; every cell is ``inline`` with its pipes escaped."""

    def cell(x: Any) -> str:
        return inline(x).replace("|", "\\|")

    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return lines
