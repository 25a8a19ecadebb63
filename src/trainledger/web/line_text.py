"""A cost line's fields as the line page prints them: codes as the catalogue's words, figures at
the sheet's precision (the JSON keeps the stored codes and every digit).

``quantity``: two places with separators, as the sheet prints GPU-hours (``1.00``), and one too
small for that at three significant figures (``0.00444``), never a bare ``0.00``; ``amount``: money
at the currency's minor unit, a cash basis with every digit it has beyond it (``fmt.amount`` exact,
marked †); ``detail``: each part of ``run/data_prep`` or ``pool/billed`` as its vocabulary label;
``reason``: an unattributed reason (``job_without_batch: job 48139``) as the sheet's conservation
table names it, the id after it kept, an allocation's ``pool: spread by gpu_hours`` said in words.
"""

from __future__ import annotations

import re
from typing import Any

from trainledger import fmt
from trainledger.model.vocab import detail_label, label, reason_label
from trainledger.web.text import TEXT, coded, t

_SPREAD = re.compile(r"^(?P<pool>.+): spread by (?P<key>\w+)$")
_REASON = re.compile(r"^(?P<code>[a-z_]+): (?P<detail>.+)$")
_NO_BATCH = " (no batch named)"


def quantity(value: Any) -> str:
    d = fmt.dec(value)
    if d is None:
        return "" if value is None else str(value)
    shown = fmt.quantity(d)
    return fmt.quantity_sig(d, 3) if d and not fmt.dec(shown.replace(",", "")) else shown


def amount(value: Any, currency: str, basis: str) -> str:
    from trainledger.model import CASH_BASES

    return fmt.amount(value, currency, exact=basis in {str(b) for b in CASH_BASES})


def detail(value: Any, lang: str) -> str:
    return "/".join(label(part, lang) for part in str(value).split("/")) if value else ""


def reason(value: Any, lang: str) -> str:
    if not value:
        return ""
    text = str(value)
    zh = lang.lower().startswith("zh")
    colon, (opened, closed) = ("：", ("（", "）")) if zh else (": ", (" (", ")"))
    if m := _SPREAD.match(text):
        key = label(m["key"], lang)
        return f"{m['pool']}：按{key}分摊" if zh else f"{m['pool']}: spread by {key}"
    if m := _REASON.match(text):
        said = m["detail"]
        if said.endswith(_NO_BATCH):  # engine/assets.py: a shared timesheet row's phase/role
            said = f"{detail(said[:-len(_NO_BATCH)], lang)}{opened}{t('line_reason.no_batch_named', lang)}{closed}"
        else:
            said = detail_label(said, lang)
        return f"{_code(m['code'], lang)}{colon}{said}"
    return _code(text, lang) if re.fullmatch(r"[a-z_]+", text) else text


def _code(code: str, lang: str) -> str:
    """A reason code as the sheet names it, else as the pages' catalogue does, else as it is."""
    if f"line_reason.{code}" in TEXT:
        return coded("line_reason", code, lang)
    return reason_label(code, lang)
