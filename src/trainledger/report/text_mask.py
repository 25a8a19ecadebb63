"""An alert's or a driver's text with its money masked, its quantities kept (``restrict_text``:
the text restricted as the figures it quotes, masked for a role that may not see them).

The texts are written from review/texts.py's templates (``alert_*``, ``drv_*``) and stored with the
alert, so the parts that are money are known by name: review/status.py ``MONEY_PARTS``. A stored
text is matched against its language's templates; each money part's number becomes the word
"restricted" / "受限" (a currency code after it stays), every other part — the work done and planned,
hours, rounds, shares — stays as written. Text after a template (a note appended to it) and a text no
template matches (an older wording) fall back to ``FIGURE``: every number but a percentage, a work
in Mtoken or an amount of hours is masked — closed rather than open.
"""

from __future__ import annotations

import re
from functools import cache
from string import Formatter
from typing import Any

from trainledger.model.restricted import Restricted, Withheld

# a figure in a free text: every number but a percentage (the bound, a share), the work in Mtoken and hours
FIGURE = re.compile(r"(?<![A-Za-z0-9_.,])[+\-−]?\d(?:,?\d)*(?:\.\d+)?(?![A-Za-z0-9_]|\.\d|,\d|\s*[%％]"
                    r"|\s*(?:Mtoken|百万|hour|h\b|工时|小时|GPU|gpu_hour|卡时))")
# a money part as review/texts.py ``both`` writes it: a signed decimal with separators, a currency after it
_MONEY = r"[+\-−]?\d[\d,]*(?:\.\d+)?(?: [A-Z]{3})?"
_NUMBER = re.compile(r"[+\-−]?\d[\d,]*(?:\.\d+)?")


@cache
def _templates(zh: bool) -> tuple[tuple[re.Pattern[str], re.Pattern[str], tuple[str, ...]], ...]:
    """Each alert and driver template of one language as a pattern — whole, and followed by a note —
    with the group names of its money parts."""
    from trainledger.review.status import MONEY_PARTS
    from trainledger.review.texts import TEXT

    out = []
    for key, money in MONEY_PARTS.items():
        pattern, groups, n = "", [], 0
        for literal, field, _spec, _conv in Formatter().parse(TEXT[key][1 if zh else 0]):
            pattern += re.escape(literal)
            if field is None:
                continue
            name, n = f"g{n}", n + 1  # a part named twice is two groups, each masked when money
            if field in money:
                groups.append(name)
                pattern += f"(?P<{name}>{_MONEY})"
            else:
                pattern += f"(?P<{name}>.*?)"
        out.append((re.compile(pattern, re.S), re.compile(pattern + r"(?P<_rest>.+)", re.S), tuple(groups)))
    return tuple(out)


def masked(text: Any, lang: str) -> Any:
    """``text`` with the money it quotes replaced by the word "restricted" / "受限": the money parts of
    the template it was written from; a note after it, or a text no template matches, every ``FIGURE``."""
    from trainledger.model.restricted import word

    if not isinstance(text, str):
        return text
    w = word(lang)
    found = None
    for whole, noted, money in _templates(lang.lower().startswith("zh")):
        if (m := whole.fullmatch(text)) is not None:
            found = (m, money, len(text))
            break
        if (m := noted.fullmatch(text)) is not None and (found is None or m.start("_rest") > found[2]):
            found = (m, money, m.start("_rest"))  # the longest template part wins
    if found is None:
        return FIGURE.sub(w, text)
    m, money, end = found
    out = text[:end]
    for a, b in sorted((m.span(g) for g in money), reverse=True):  # right to left: earlier offsets hold
        out = out[:a] + _NUMBER.sub(w, out[a:b], count=1) + out[b:]
    return out + FIGURE.sub(w, text[end:])


def restrict_text(text: Any, kind: str, lang: str) -> Any:
    """A text that quotes restricted figures: a role that may not see them reads it with its money
    masked (``masked``), the rest of the sentence kept; a text without money stays as it is."""
    if not isinstance(text, str) or isinstance(text, Withheld) or (shown := masked(text, lang)) == text:
        return text
    return Restricted(text, kind, shown)
