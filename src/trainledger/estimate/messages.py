"""The estimator's message catalogue: every sentence and label that ``trainledger estimate`` and
``trainledger compare`` show people, in English and Simplified Chinese side by side.

``MESSAGES`` maps a message id to ``(english, chinese)`` templates with named ``{placeholders}``
(``str.format`` syntax); both languages of one id use the same placeholders (a test checks it).
The texts live in ``texts_report.py`` (reports, guided mode, warnings, notes) and
``texts_inputs.py`` (assumption names, sources, units, owners, memory terms, compare).

Sentences are built as ``Msg(id, **params)``: a ``str`` whose value is the English text — what
the JSON contract, the sampler's input names (they seed the random streams) and every existing
consumer see — that also remembers its id and parameters, so ``msg.text("zh-CN")`` renders it in
Chinese. ``Term(value)`` is a vocabulary value (task type, labor role, phase): the identifier in
English, its ``trainledger.model.vocab`` label in Chinese. Parameters that are ``Msg``/``Term``
render in the same language as their message; lists are joined with ", " or "、".

The JSON output keeps the English text where it always was and adds a parallel ``*_zh`` field
(``warnings_zh``, ``notes_zh``, ``name_zh``, ``note_zh``, ``source_zh`` …) — see ``bilingual``. The
sources the tool ships (estimate/data/*.toml, the sample price book among them) carry a reviewed
``source_zh`` and arrive here as ``i18n.core.Twin``; so does a user's price book entry that writes
its own ``source_zh`` (pricebook.py). Other user sources (a spec) and the citations, ids and model
names inside any source stay as written.
"""

from __future__ import annotations

from trainledger.estimate.texts_inputs import INPUTS
from trainledger.estimate.texts_report import REPORT
from trainledger.i18n import core
from trainledger.i18n.core import EN_LIST_SEP, ZH_LIST_SEP, Term, is_zh, placeholders, tr

MESSAGES: dict[str, tuple[str, str]] = {**REPORT, **INPUTS}
"""Registered as the ``estimate`` namespace of the one registry (trainledger/i18n/registry.py)."""

NAMESPACE = "estimate."


def text(msg_id: str, lang: str = "en", **params: object) -> str:
    """Message ``msg_id`` in ``lang`` (``en`` or ``zh-CN``) with its placeholders filled in."""
    return core.text(NAMESPACE + msg_id, lang, **params)


class Msg(core.Msg):
    """A catalogue message of the estimator: ``trainledger.i18n.Msg`` with the ids of this table."""

    namespace = NAMESPACE


def unit_text(unit: str, lang: str) -> str:
    """A unit in ``lang``: ``person_month`` -> 人月, ``USD/person_month`` -> USD/人月."""
    if isinstance(unit, Msg):
        return unit.text(lang)
    unit = str(unit)
    if not is_zh(lang) or not unit:
        return unit
    if f"unit.{unit}" in MESSAGES:
        return text(f"unit.{unit}", lang)
    head, sep, tail = unit.partition("/")
    if sep and len(head) == 3 and head.isalpha() and head.isupper():  # a currency per a unit
        return f"{head}/{unit_text(tail, lang)}"
    return unit


def owner_text(owner: str, lang: str) -> str:
    """An owner role in ``lang`` (free-text owners, such as a person's name, stay as written)."""
    if isinstance(owner, Msg):
        return owner.text(lang)
    key = f"owner.{owner}"
    return text(key, lang) if is_zh(lang) and key in MESSAGES else str(owner)


def fixed(prefix: str, key: str, lang: str) -> str:
    """A fixed vocabulary entry ``prefix.key`` in ``lang``; the key itself when not catalogued."""
    msg_id = f"{prefix}.{key}"
    return text(msg_id, lang) if msg_id in MESSAGES else str(key)


_ZH_OF = {"unit": unit_text, "owner": owner_text}


def bilingual(d: dict, keys: tuple[str, ...] = ("name", "value", "unit", "owner", "note", "source")) -> dict:
    """``d`` with plain-``str`` values and, after each of ``keys`` whose Chinese differs, ``<key>_zh``.

    The English fields stay exactly as they were (the JSON contract); ``<key>_zh`` is absent when
    the text reads the same in both languages (numbers, identifiers, references).
    """
    out: dict = {}
    for k, v in d.items():
        out[k] = str(v) if isinstance(v, str) else v
        if k in keys and isinstance(v, str):
            zh = _ZH_OF.get(k, tr)(v, "zh-CN")
            if zh != out[k]:
                out[f"{k}_zh"] = zh
    return out


def both(items) -> tuple[list[str], list[str]]:
    """(English texts, Chinese texts) of a list of messages — the JSON's ``x`` and ``x_zh``."""
    return [str(m) for m in items], [tr(m, "zh-CN") for m in items]


__all__ = [
    "EN_LIST_SEP",
    "MESSAGES",
    "ZH_LIST_SEP",
    "Msg",
    "Term",
    "bilingual",
    "both",
    "fixed",
    "is_zh",
    "owner_text",
    "placeholders",
    "text",
    "tr",
    "unit_text",
]
