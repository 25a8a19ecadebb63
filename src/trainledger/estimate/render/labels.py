"""Headings and row labels of the estimate and comparison reports; number formatting.

The texts themselves live in the message catalogue (``trainledger.estimate.messages``, ids
``label.*``); vocabulary values (task types, evidence levels, labor roles) go through
``trainledger.model.vocab.label``.
"""

from __future__ import annotations

from trainledger.estimate.messages import text
from trainledger.model.vocab import label


def t(key: str, lang: str, **kw) -> str:
    """Heading or row label ``key`` (catalogue id ``label.<key>``) in ``lang``."""
    return text(f"label.{key}", lang, **kw)


def vocab(value: str, lang: str) -> str:
    return label(value, lang)


def fmt_money(x, currency: str) -> str:
    """3 significant figures with separators: the honest precision of a budget range."""
    from trainledger.estimate.quantities import round_sig

    v = round_sig(float(x), 3)
    return f"{v:,.0f} {currency}" if abs(v) >= 100 else f"{v:,.2f} {currency}"


def fmt_qty(x) -> str:
    from trainledger.estimate.quantities import round_sig

    v = round_sig(float(x), 3)
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:g}"
