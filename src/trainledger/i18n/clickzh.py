"""click's help pages and usage errors in the chosen language.

click says its fixed words through ``gettext`` (``Usage:``, ``Options``, ``Show this message and
exit.``, ``No such option``); the help of trainledger's commands and options is English in the
code. ``speaking(lang)`` is a context manager the root group enters for one invocation: for
zh-CN it routes click's ``gettext`` to texts_click.py and renders each command's help text and
each option's help from texts_help.py (looked up by the English), and puts everything back on
exit. A help text the table lacks stays English — tests/i18n/test_help_zh.py fails on it.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from functools import cache
from typing import Any

import click

from trainledger.i18n.core import is_zh

_MODULES = ("click.core", "click.decorators", "click.exceptions", "click.formatting", "click.parser",
            "click.types", "click.termui", "click.utils")


@cache
def _click_zh() -> dict[str, str]:
    from trainledger.i18n.registry import table

    return {en: zh for en, zh in table("click").values()}


@cache
def _help_zh() -> dict[str, str]:
    from trainledger.i18n.registry import table

    return {en.strip(): zh for en, zh in table("help").values()}


ACTIVE = False
"""True while ``speaking`` Chinese (LazyGroup's command list reads it)."""


def help_text(english: str | None) -> str | None:
    """A command's or option's help in Chinese (the English when the table lacks it)."""
    if not english:
        return english
    return _help_zh().get(english.strip(), _click_zh().get(english, english))


def _gettext(message: str) -> str:
    return _click_zh().get(message, message)


def _ngettext(singular: str, plural: str, n: int) -> str:
    return _gettext(singular if n == 1 else plural)


@contextlib.contextmanager
def speaking(lang: str) -> Iterator[None]:
    """click in ``lang`` for the duration of the block (nothing changes for English)."""
    if not is_zh(lang):
        yield
        return
    saved: list[tuple[Any, str, Any]] = []

    def patch(obj: Any, name: str, value: Any) -> None:
        if hasattr(obj, name):
            saved.append((obj, name, getattr(obj, name)))
            setattr(obj, name, value)

    for name in _MODULES:
        module = importlib.import_module(name)
        patch(module, "_", _gettext)
        patch(module, "ngettext", _ngettext)
    inner_help_text = click.Command.format_help_text
    inner_record = click.Option.get_help_record
    inner_short = click.Command.get_short_help_str

    def format_help_text(self: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        english = self.help
        self.help = help_text(english)
        try:
            inner_help_text(self, ctx, formatter)
        finally:
            self.help = english

    def get_help_record(self: click.Option, ctx: click.Context) -> Any:
        english = self.help
        self.help = help_text(english)
        try:
            return inner_record(self, ctx)
        finally:
            self.help = english

    def get_short_help_str(self: click.Command, limit: int = 45) -> str:
        english, short = self.help, self.short_help
        self.help, self.short_help = help_text(english), help_text(short)
        try:
            return inner_short(self, limit)
        finally:
            self.help, self.short_help = english, short

    inner_help_option = click.Command.get_help_option

    def get_help_option(self: click.Command, ctx: click.Context) -> Any:
        cached = self._help_option
        try:
            return inner_help_option(self, ctx)  # made with click's words in Chinese ...
        finally:
            self._help_option = cached  # ... and not kept for an English run after this one

    global ACTIVE
    patch(click.Command, "get_help_option", get_help_option)
    patch(click.Command, "format_help_text", format_help_text)
    patch(click.Option, "get_help_record", get_help_record)
    patch(click.Command, "get_short_help_str", get_short_help_str)
    ACTIVE = True
    try:
        yield
    finally:
        ACTIVE = False
        for obj, name, value in reversed(saved):
            setattr(obj, name, value)
