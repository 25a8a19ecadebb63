"""The one message API: a message id and its parameters -> the text in ``en`` or ``zh-CN``.

Ids are namespaced, ``<namespace>.<key>`` (``sheet.title``, ``estimate.warn.dp_degenerate``,
``cli.import.summary``); the namespace names one domain table in ``registry.SOURCES``, loaded the
first time one of its ids is used (so ``trainledger --help`` imports no catalogue).

``Msg(id, **params)`` is a ``str`` whose value is the English text — what JSON output and every
consumer that compares strings sees — and remembers its id and parameters, so ``msg.text("zh-CN")``
renders it in Chinese. ``Term(value)`` is a vocabulary value: itself in English, its
``model/vocab.py`` label in Chinese. Parameters that are ``Msg``/``Term`` render in the language of
their message; lists are joined with ", " or "、".
"""

from __future__ import annotations

from string import Formatter

EN, ZH = "en", "zh-CN"
LANGS = (EN, ZH)
ZH_LIST_SEP = "、"
EN_LIST_SEP = ", "


def is_zh(lang: str | None) -> bool:
    return bool(lang) and str(lang).lower().startswith("zh")


def normal(lang: str | None) -> str:
    """``zh``, ``zh_CN.UTF-8``, ``zh-Hans`` -> ``zh-CN``; anything else -> ``en``."""
    return ZH if is_zh(lang) else EN


def _param(value: object, lang: str) -> object:
    if isinstance(value, Msg | Term | Twin):
        return value.text(lang)
    if isinstance(value, list | tuple):
        sep = ZH_LIST_SEP if is_zh(lang) else EN_LIST_SEP
        return sep.join(str(_param(v, lang)) for v in value)
    return value


def template(msg_id: str, lang: str) -> str:
    """The raw template of a namespaced id in ``lang`` (KeyError for an id not in the catalogue)."""
    from trainledger.i18n.registry import entry

    en, zh = entry(msg_id)
    return zh if is_zh(lang) else en


def text(msg_id: str, lang: str = EN, **params: object) -> str:
    """Message ``msg_id`` (namespaced) in ``lang`` with its placeholders filled in."""
    return template(msg_id, lang).format(**{k: _param(v, lang) for k, v in params.items()})


def placeholders(template: str) -> set[tuple[str, str | None, str]]:
    """``{(name, conversion, format spec)}`` of a template: what a translation must keep."""
    return {(name, conv, spec or "") for _, name, spec, conv in Formatter().parse(template) if name is not None}


class Msg(str):
    """A catalogue message: the ``str`` is its English text; ``.text(lang)`` renders any language.

    ``namespace`` lets a domain keep its short ids (``estimate.messages.Msg("warn.x")`` is
    ``estimate.warn.x`` in the registry)."""

    namespace = ""
    id: str
    params: dict

    def __new__(cls, msg_id: str, /, **params: object) -> Msg:
        obj = super().__new__(cls, text(cls.namespace + msg_id, EN, **params))
        obj.id = msg_id
        obj.params = params
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple, dict]:
        return (self.id,), self.params

    @property
    def key(self) -> str:
        """The namespaced id in the registry."""
        return self.namespace + self.id

    def text(self, lang: str) -> str:
        return text(self.key, lang, **self.params)

    @property
    def zh(self) -> str:
        return self.text(ZH)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r}, {str.__repr__(self)})"


class Term(str):
    """A vocabulary value (task type, labor role, phase): itself in English, its label in Chinese."""

    def text(self, lang: str) -> str:
        from trainledger.model.vocab import label

        return label(str(self), lang) if is_zh(lang) else str(self)

    @property
    def zh(self) -> str:
        return self.text(ZH)


class Twin(str):
    """A text shipped in a data file with its reviewed Chinese beside it (``source`` and
    ``source_zh`` of estimate/data/*.toml): the ``str`` is the English, ``.text(lang)`` either."""

    zh_text: str

    def __new__(cls, en: str, zh: str) -> Twin:
        obj = super().__new__(cls, en)
        obj.zh_text = zh
        return obj

    def __getnewargs__(self) -> tuple[str, str]:
        return str(self), self.zh_text

    def text(self, lang: str) -> str:
        return self.zh_text if is_zh(lang) else str(self)

    @property
    def zh(self) -> str:
        return self.zh_text

    def __repr__(self) -> str:
        return f"Twin({str.__repr__(self)}, {self.zh_text!r})"


def twins(table: object) -> object:
    """A data file's table with each ``<key>_zh`` folded into ``<key>`` as a ``Twin`` (in place,
    recursively): the tables keep the keys they had, the texts gain their Chinese."""
    rows = table.values() if isinstance(table, dict) else table if isinstance(table, list) else ()
    if isinstance(table, dict):
        for key in [k for k in table if k.endswith("_zh") and isinstance(table[k], str)]:
            en = key.removesuffix("_zh")
            zh = table.pop(key)
            if isinstance(table.get(en), str):
                table[en] = Twin(table[en], zh)
    for row in list(rows):
        if isinstance(row, dict | list):
            twins(row)
    return table


def tr(value: object, lang: str) -> str:
    """Any text in ``lang``: a ``Msg``/``Term``/``Twin`` rendered, anything else as it is."""
    if isinstance(value, Msg | Term | Twin):
        return value.text(lang)
    return "" if value is None else str(value)


def localize(value: object, lang: str) -> str:
    """``tr``, and an English sentence written in the code that the catalogue knows by its
    template (an error, a remedy, a quarantine reason: see ``patterns``) in ``lang``."""
    if isinstance(value, Msg | Term | Twin) or value is None:
        return tr(value, lang)
    if is_zh(lang) and isinstance(value, str) and value:
        from trainledger.i18n.patterns import translate

        return translate(value, lang)
    return str(value)
