"""Sentences written in the code, found by their template and said in Chinese.

Errors, remedies, quarantine reasons and row flags are written in the code as English f-strings
(``f"{path}: column {name!r} is missing"``) and reach people as finished text. Their catalogue
(texts_errors.py, texts_ingest.py; texts_causes.py: a run's cause source; texts_stored.py: a plan's
or a drop's reason the tool wrote) holds each one as a
template — the f-string with ``{name}`` for every interpolated value — beside its Chinese.
``translate`` matches a finished English text against the templates (the one with the most literal
text first), and fills the Chinese template with the values it captured; a captured value that is
itself a catalogued sentence (``{label}: {e}``) is translated too. Text no template matches is returned as it is.

tests/i18n/test_errors_catalogued.py scans the source (tests/i18n/scan.py) and fails when a
sentence the code writes has no template here — so the code keeps its readable f-strings and
the catalogue cannot fall behind it. ``code`` gives a sentence's catalogue id (the reason code
``quarantine --json`` shows beside the label).
"""

from __future__ import annotations

import re
from functools import cache, lru_cache
from string import Formatter

from trainledger.i18n.core import is_zh
from trainledger.i18n.registry import table

NAMESPACES = ("error", "ingest", "cause", "stored")
_DEPTH = 3
_MAX_INNER = 10_000  # no early stop on literal length alone: inner sentences can add more than it


def _regex(template: str) -> re.Pattern[str]:
    out, seen = [], set()
    for literal, name, _spec, _conv in Formatter().parse(template):
        out.append(re.escape(literal))
        if name is None:
            continue
        if name in seen:
            out.append(f"(?P={name})")
        else:
            seen.add(name)
            out.append(f"(?P<{name}>.+?)")
    return re.compile("".join(out), re.DOTALL)


def _literal_len(template: str) -> int:
    return sum(len(lit) for lit, *_ in Formatter().parse(template))


@cache
def _compiled() -> tuple[tuple[str, re.Pattern[str], str], ...]:
    """``(id, regex, chinese template)``, most literal text first; templates that are nothing but
    placeholders (they would match anything) are left out."""
    rows = []
    for ns in NAMESPACES:
        for key, (en, zh) in table(ns).items():
            if _literal_len(en) >= 2:
                rows.append((_literal_len(en), f"{ns}.{key}", _regex(en), zh))
    rows.sort(key=lambda r: -r[0])
    return tuple((i, rx, zh, lit) for lit, i, rx, zh in rows)


@cache
def _chinese() -> dict[str, str]:
    return {i: zh for i, _rx, zh, _lit in _compiled()}


def known_templates() -> set[str]:
    return {en for ns in NAMESPACES for en, _zh in table(ns).values()}


@lru_cache(maxsize=8192)
def _best(text: str, depth: int = 0) -> tuple[int, str, dict[str, str]] | None:
    """The template ``text`` was most likely made from: of every template that matches it whole, the
    one that explains the most literal text — its own plus that of the catalogued sentences its
    values are (``{label}: {e}`` over ``not a number: {shown}`` beats a looser ``{a}: {b} {c}``)."""
    best = None
    for msg_id, rx, _zh, lit in _compiled():
        if best is not None and lit + _MAX_INNER < best[0]:
            break  # sorted by literal length: nothing further down can win
        m = rx.fullmatch(text)
        if not m:
            continue
        values = m.groupdict()
        score = lit
        if depth < _DEPTH:
            score += sum(inner[0] for v in values.values() if (inner := _best(v, depth + 1)) is not None)
        if best is None or score > best[0]:
            best = (score, msg_id, values)
    return best


def match(text: str) -> tuple[str, dict[str, str]] | None:
    """``(catalogue id, captured values)`` of the template ``text`` was made from, or None."""
    hit = _best(text)
    return (hit[1], hit[2]) if hit else None


def code(text: str, prefer: str = "ingest") -> str | None:
    """The catalogue id of a sentence the code wrote (a quarantine reason's code), or None. The
    same English template can be written in two places (``{label}: {e}``): then the id in the
    ``prefer`` namespace."""
    hit = match(text)
    if hit is None:
        return None
    shape = _shapes()[hit[0]]
    return next((i for i, e in _shapes().items() if e == shape and i.startswith(prefer + ".")), hit[0])


@cache
def _shapes() -> dict[str, str]:
    """Each template with its placeholders unnamed: two templates of one shape match the same texts."""
    return {f"{ns}.{key}": re.sub(r"\{[^{}]*\}", "{}", en) for ns in NAMESPACES for key, (en, _zh) in table(ns).items()}


def translate(text: str, lang: str, _depth: int = 0) -> str:
    """``text`` in ``lang``: the Chinese of its template with the captured values (themselves
    translated when they are catalogued sentences); line by line for a text of several lines."""
    if not is_zh(lang) or not text:
        return text
    hit = match(text)
    if hit is None:
        if "\n" in text:
            return "\n".join(translate(line, lang, _depth) for line in text.split("\n"))
        return text
    msg_id, values = hit
    zh = _chinese()[msg_id]
    if _depth < _DEPTH:
        values = {k: translate(v, lang, _depth + 1) for k, v in values.items()}
    return spaced(zh, values)


_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z0-9]")


def spaced(zh: str, values: dict[str, str]) -> str:
    """``zh.format(**values)``, with a space where a Chinese character of the template meets a Latin
    letter or digit of a value (``不是{description}`` with ``sacct …`` -> ``不是 sacct …``): the
    zh-CN convention, while a Chinese value (``以逗号分隔的文本``) stays joined."""
    out: list[str] = []
    for literal, name, spec, conv in Formatter().parse(zh):
        out.append(literal)
        if name is None:
            continue
        v = format(values[name] if conv is None else (repr if conv == "r" else str)(values[name]), spec or "")
        if v and out and out[-1] and _CJK.match(out[-1][-1]) and _LATIN.match(v[0]):
            v = " " + v
        out.append(v)
        if v and _LATIN.match(v[-1]):
            out.append("\0")  # a marker: a space if the next literal starts with a Chinese character
    text = "".join(out)
    return re.sub("\0(?=[\u3400-\u9fff])", " ", text).replace("\0", "")
