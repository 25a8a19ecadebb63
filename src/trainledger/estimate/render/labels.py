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
    """3 significant figures with separators: the honest precision of a budget range (``trainledger.fmt``)."""
    from trainledger import fmt
    from trainledger.model.restricted import is_withheld

    if is_withheld(x):  # a field the role may not see (report/access.py mark_estimate): its word
        return str(x)
    return fmt.money_sig(x, currency, 3)


def fmt_qty(x) -> str:
    from trainledger import fmt

    return fmt.quantity_sig(x, 3)


def fmt_number(x) -> str:
    """An input as given (every digit, no exponent): ``2.015E-7`` reads ``0.0000002015``."""
    from trainledger import fmt

    d = fmt.dec(x)
    return str(x) if d is None else fmt.quantity_sig(d, max(len(d.as_tuple().digits), 1))
