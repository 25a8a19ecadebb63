"""Renderers: JSON (the contract), Markdown and HTML (people, ``en`` or ``zh-CN``).

labels.py     headings and row labels (texts in ../messages.py); number formatting
view.py       Estimate / Comparison JSON -> labelled, formatted rows (shared by md and html), picking
              the ``*_zh`` fields for zh-CN
markdown.py   Markdown layout
html.py       HTML layout via templates/report.html.j2 (autoescaped)
jsonout.py    JSON text with Decimal money written as exact JSON numbers
"""

from __future__ import annotations

from trainledger.errors import BadInput
from trainledger.estimate.render.html import compare_html, estimate_html
from trainledger.estimate.render.jsonout import dumps
from trainledger.estimate.render.markdown import compare_markdown, estimate_markdown
from trainledger.estimate.render.view import compare_view, estimate_view

FORMATS = ("json", "md", "html")
LANGS = ("en", "zh-CN")


def check(fmt: str, lang: str) -> None:
    if fmt not in FORMATS:
        raise BadInput(f"unknown format {fmt!r}", remedy="use json, md or html")
    if lang not in LANGS:
        raise BadInput(f"unknown language {lang!r}", remedy="use en or zh-CN")


def render_estimate(d: dict, fmt: str, lang: str = "en") -> str:
    """``d`` is ``Estimate.to_dict()``."""
    check(fmt, lang)
    if fmt == "json":
        return dumps(d)
    v = estimate_view(d, lang)
    return estimate_markdown(v) if fmt == "md" else estimate_html(v)


def render_compare(d: dict, fmt: str, lang: str = "en") -> str:
    """``d`` is ``Comparison.to_dict()``."""
    check(fmt, lang)
    if fmt == "json":
        return dumps(d)
    v = compare_view(d, lang)
    return compare_markdown(v) if fmt == "md" else compare_html(v)


__all__ = ["FORMATS", "LANGS", "dumps", "render_compare", "render_estimate"]
