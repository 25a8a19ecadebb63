"""The one registry: every domain's message table under a namespace.

``SOURCES`` maps a namespace to where its table lives (``"module:attribute"``) and how to read it;
a table is imported the first time one of its ids is looked up. The domain tables stay next to
their code (report/i18n.py, report/texts_estimate.py, estimate/texts_*.py, web/text.py …) so people
adding a message add it where they work; registering a new table is one row here. ``catalogue()`` gathers all of them as
``{namespaced id: (english, chinese)}`` for the tests (tests/i18n/test_registry.py): both
languages present and non-empty, the same placeholders, no id given twice.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping
from functools import cache

Pairs = Mapping[str, tuple[str, str]]


def _pairs(table: Pairs) -> Iterator[tuple[str, tuple[str, str]]]:
    yield from table.items()


def _problems(table: Mapping[str, Mapping[str, tuple[str, str]]]) -> Iterator[tuple[str, tuple[str, str]]]:
    """report/problems_i18n.py: ``kind -> {lang: (label, message template)}``."""
    for kind, by_lang in table.items():
        (en_label, en_msg), (zh_label, zh_msg) = by_lang["en"], by_lang["zh-CN"]
        yield f"{kind}.label", (en_label, zh_label)
        yield f"{kind}.message", (en_msg, zh_msg)


def _vocab(table: Mapping[str, str]) -> Iterator[tuple[str, tuple[str, str]]]:
    """model/vocab.py: ``value -> Chinese label``; the English label is the value with spaces."""
    for value, zh in table.items():
        yield value, (value.replace("_", " "), zh)


def _by_language(table: Mapping[str, Mapping[str, str]]) -> Iterator[tuple[str, tuple[str, str]]]:
    """cli/scheduler_cmds.py: ``lang -> {key: text}``."""
    en, zh = table["en"], table["zh-CN"]
    for key in {**en, **zh}:
        yield key, (en.get(key, ""), zh.get(key, ""))


def _templates(table) -> Iterator[tuple[str, tuple[str, str]]]:
    """Tables of sentences written in the code (errors, quarantine reasons): ``id -> (en, zh)``."""
    yield from table.items()


Reader = Callable[[object], Iterator[tuple[str, tuple[str, str]]]]

SOURCES: dict[str, tuple[str, Reader]] = {
    "sheet": ("trainledger.report.i18n:TEXT", _pairs),
    "sheet.key": ("trainledger.report.i18n:KEY_FIELDS", _pairs),
    "sheet.bill": ("trainledger.report.provisional:TEXT", _pairs),
    "freshness": ("trainledger.report.freshness:TEXT", _pairs),
    "problem": ("trainledger.report.problems_i18n:CATALOGUE", _problems),
    "estimate": ("trainledger.estimate.messages:MESSAGES", _pairs),
    "report.estimate": ("trainledger.report.texts_estimate:TEXT", _pairs),
    "web": ("trainledger.web.text:TEXT", _pairs),
    "xlsx": ("trainledger.report.xlsx_text:L", _pairs),
    "review": ("trainledger.review.texts:TEXT", _pairs),
    "review.term": ("trainledger.review.texts:EXTRA", _pairs),
    "vocab": ("trainledger.model.vocab:ZH", _vocab),
    "cli": ("trainledger.i18n.texts_cli:CLI", _pairs),
    "scheduler": ("trainledger.cli.scheduler_cmds:TEXT", _by_language),
    "help": ("trainledger.i18n.texts_help:HELP", _pairs),
    "click": ("trainledger.i18n.texts_click:CLICK", _pairs),
    "error": ("trainledger.i18n.texts_errors:ERRORS", _templates),
    "ingest": ("trainledger.i18n.texts_ingest:INGEST", _templates),
    "cause": ("trainledger.i18n.texts_causes:CAUSES", _templates),
    "stored": ("trainledger.i18n.texts_stored:STORED", _templates),
    "preset": ("trainledger.ingest.presets:DESCRIPTIONS", _pairs),
}
"""namespace -> ("module:attribute", reader). One row per domain table."""


@cache
def table(namespace: str) -> dict[str, tuple[str, str]]:
    """One namespace's messages by their key (without the namespace)."""
    target, reader = SOURCES[namespace]
    module, _, attr = target.partition(":")
    return dict(reader(getattr(importlib.import_module(module), attr)))


def split(msg_id: str) -> tuple[str, str]:
    """``(namespace, key)`` of a namespaced id: the longest registered namespace that prefixes it."""
    best = ""
    for i, ch in enumerate(msg_id):
        if ch == "." and msg_id[:i] in SOURCES:
            best = msg_id[:i]
    if not best:
        raise KeyError(f"{msg_id!r} is in no registered namespace ({', '.join(SOURCES)})")
    return best, msg_id[len(best) + 1:]


def entry(msg_id: str) -> tuple[str, str]:
    """``(english, chinese)`` of a namespaced id."""
    namespace, key = split(msg_id)
    return table(namespace)[key]


def catalogue() -> dict[str, tuple[str, str]]:
    """Every registered message, ``namespaced id -> (english, chinese)``. A namespaced id reached
    twice (``sheet.key.x`` from ``sheet`` and from ``sheet.key``) is a collision: ValueError."""
    out: dict[str, tuple[str, str]] = {}
    for namespace in SOURCES:
        for key, pair in table(namespace).items():
            full = f"{namespace}.{key}"
            if full in out:
                raise ValueError(f"message id {full!r} is registered twice")
            out[full] = pair
    return out
