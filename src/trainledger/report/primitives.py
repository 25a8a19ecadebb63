"""The primitives every report of this package is drawn with: values, ranges, evidence badges,
tables, the JSON writer and the page templates' environment.

The batch sheet (render.py, xlsx.py), the estimate and comparison reports (estimate_view.py,
estimate_render.py) and the cross-batch report call these — never ``trainledger.fmt`` or
``trainledger.mdtext`` on their own — so one Money or one range reads the same wherever it is
printed, and a change of rule here changes every report (tests/test_report_primitives.py).

    amount / money   a money figure: at the currency's minor unit (cash ``exact``: every digit, ``†``),
                     or to ``sig`` significant figures (an estimate's range)
    quantity         GPU-hours and other quantities: ``places`` decimals, or ``sig`` significant figures
    given            an input as written (every digit, no exponent)
    number           an assumption's value (6 significant figures)
    share            a share 0..1 as a percentage
    unit_price       a rate or unit price (``money_unit``: with its currency)
    money_range      ``expected CUR (low–high)``; ``expected CUR`` when the range is a point
    span             ``low–high`` (an assumption's range)
    percentiles      P10 / P50 / P90 cells of one figure
    exact_quantity   a machine value of a quantity, exact but bounded (report JSON, the workbook's
                     ``exact`` columns): the decimal when it terminates within ``EXACT_PLACES``,
                     else the rational ``n/d`` it is (GPU-seconds / 3600), else ``EXACT_PLACES`` decimals
    unit             a unit in the reader's language (``rounds`` 轮)
    evidence / badge the evidence badge: an evidence level's label (``badge``: as HTML, coloured by level)
    md_table         a Markdown pipe table, every cell inert (``trainledger.mdtext``)
    dumps            JSON text, ``Decimal`` written as an exact JSON number
    html_env         the one Jinja environment of report/templates (autoescaped)
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import date
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any

from trainledger import fmt
from trainledger.mdtext import Md
from trainledger.mdtext import table as _table
from trainledger.model.vocab import label

DASH = fmt.DASH
MARK = fmt.MARK
PCT = ("p10", "p50", "p90")


# -- values --------------------------------------------------------------------------------------

def amount(value: Any, currency: str, *, exact: bool = False) -> str:
    """The number part of a money figure, at the currency's minor unit; ``exact`` (cash): every
    digit the source has, marked ``†``, when it is finer than the minor unit."""
    return fmt.amount(value, currency, exact=exact)


def money(value: Any, currency: str, *, sig: int | None = None, exact: bool = False) -> str:
    """``282,600.97 CNY``; with ``sig``: an estimate to ``sig`` significant figures (``1,230,000 CNY``)."""
    if sig is not None:
        return fmt.money_sig(value, currency, sig)
    return fmt.money(value, currency, exact=exact)


def quantity(value: Any, places: int = 2, *, sig: int | None = None) -> str:
    return fmt.quantity_sig(value, sig) if sig is not None else fmt.quantity(value, places)


def given(value: Any) -> str:
    """An input as given (every digit, no exponent): ``2.015E-7`` reads ``0.0000002015``."""
    d = fmt.dec(value)
    return str(value) if d is None else fmt.quantity_sig(d, max(len(d.as_tuple().digits), 1))


def number(value: Any) -> str:
    return fmt.quantity_sig(value, 6) if fmt.dec(value) is not None else str(value or "")


def share(value: Any, places: int = 1) -> str:
    return fmt.percent(value, places)


def unit_price(value: Any, currency: str) -> str:
    return fmt.unit_price(value, currency)


def money_unit(value: Any, currency: str) -> str:
    """``36.00 CNY``: a unit price with its currency."""
    return fmt.money_unit(value, currency)


def money_range(low: Any, expected: Any, high: Any, currency: str,
                figure: Callable[[Any, str], str] | None = None) -> str:
    """``1,234.50 CNY (1,100.00–1,400.00)``: the expected figure and, when it is a range, its ends.
    ``figure`` formats one amount's number part (default ``amount``)."""
    f = figure or amount
    text = f"{f(expected, currency)} {currency}"
    return text + (f" ({f(low, currency)}–{f(high, currency)})" if low != high else "")


def span(low: Any, high: Any, figure: Callable[[Any], str] = number, sep: str = "–") -> str:
    """``low–high`` (an assumption's range)."""
    return f"{figure(low)}{sep}{figure(high)}"


def percentiles(d: dict | None, figure: Callable[[Any], str]) -> list[str]:
    """The P10 / P50 / P90 cells of ``{p10, p50, p90}``; dashes when there is no figure."""
    return [DASH] * 3 if d is None else [figure(d[k]) for k in PCT]


EXACT_PLACES = 12
SECONDS = 3600  # GPU-hours are GPU-seconds / 3600: the rational a non-terminating hour figure is


def exact_quantity(value: Any) -> str | None:
    """A quantity as an exact machine value that stays short: its decimal text when it terminates
    within ``EXACT_PLACES`` places (``6.3756`` as written), else the rational it is when it is a whole
    or millisecond number of GPU-seconds over 3600 (``451/450`` for 1.00222…2), else rounded to
    ``EXACT_PLACES`` places. ``None`` and "" stay ``None``."""
    d = fmt.dec(value)
    if d is None:
        return None if value in (None, "") else str(value)
    if -_exp(d) <= EXACT_PLACES:
        return fmt.plain(d)
    short = d.normalize(context=Context(prec=60))
    if -_exp(short) <= EXACT_PLACES:
        return fmt.plain(short)
    seconds = d * SECONDS
    whole = seconds.quantize(Decimal("0.001"))
    if abs(seconds - whole) < Decimal("1e-15"):
        f = Fraction(whole) / SECONDS
        return f"{f.numerator}/{f.denominator}"
    return fmt.plain(d.quantize(Decimal(1).scaleb(-EXACT_PLACES)))


def rounded_quantity(value: Any, places: int = 6) -> str | None:
    """A quantity rounded to ``places`` decimals as plain text (JSON's figure beside an exact one)."""
    d = fmt.dec(value)
    if d is None:
        return None if value in (None, "") else str(value)
    return fmt.plain(fmt.dec(fmt.quantity(d, places, sep=False)) if -_exp(d) > places else d)


def _exp(d: Decimal) -> int:
    e = d.as_tuple().exponent
    return e if isinstance(e, int) else 0


def evidence(level: Any, lang: str) -> str:
    """The evidence badge: contract / measured / assumed … as people read it, in ``lang``."""
    if level is None or level == "":
        return DASH
    return label(str(level), lang)


def unit(value: Any, lang: str) -> str:
    """A unit in ``lang``: ``rounds`` 轮, ``gpu_hour/Mtoken`` 卡时/百万 token (the plan's units and
    ``mtoken``, review/texts.py); a unit no catalogue names (``CNY``) stays as written."""
    if value is None or value == "":
        return ""
    if not lang.lower().startswith("zh"):
        return str(value)
    from trainledger.review.texts import label as plan_label
    from trainledger.review.texts import t as plan_t

    return "/".join(plan_t("mtoken", lang) if part == "Mtoken" else plan_label(part, lang) if part.islower()
                    else part for part in str(value).split("/"))


def badge(level: Any, lang: str):
    """The evidence badge in HTML: ``<span class="tag assumed">假设</span>`` (the pages colour it by level)."""
    from markupsafe import Markup, escape

    if level is None or level == "":
        return DASH
    return Markup(f'<span class="tag {escape(level)}">{escape(evidence(level, lang))}</span>')


# -- layout --------------------------------------------------------------------------------------

def md_table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[str]:
    """A Markdown pipe table: the renderer's header as written, every cell inert (``Md`` cells are
    the renderer's own markup)."""
    return _table(list(header), [list(r) for r in rows])


def md(text: str) -> Md:
    """Markdown the renderer wrote itself (figures, ISO codes, vocabulary labels): kept as is."""
    return Md(text)


def _enc(o: object, indent: int, level: int) -> str:
    pad = " " * (indent * (level + 1))
    end = " " * (indent * level)
    if isinstance(o, Decimal):
        return format(o, "f")
    if isinstance(o, bool) or o is None or isinstance(o, str | int):
        return json.dumps(o, ensure_ascii=False)
    if isinstance(o, float):
        if not math.isfinite(o):
            raise ValueError(f"refusing to write a non-finite number {o!r} to JSON")
        return repr(o)
    if isinstance(o, date):
        return json.dumps(o.isoformat())
    if isinstance(o, dict):
        if not o:
            return "{}"
        items = [f"{pad}{json.dumps(str(k), ensure_ascii=False)}: {_enc(v, indent, level + 1)}" for k, v in o.items()]
        return "{\n" + ",\n".join(items) + f"\n{end}}}"
    if isinstance(o, list | tuple):
        if not o:
            return "[]"
        return "[\n" + ",\n".join(f"{pad}{_enc(v, indent, level + 1)}" for v in o) + f"\n{end}]"
    raise TypeError(f"cannot write {type(o).__name__} to JSON")


def dumps(obj: object, indent: int = 2) -> str:
    """JSON text where a ``Decimal`` is an exact JSON number (never a float's guess):
    ``json.loads(text, parse_float=Decimal)`` reads it back exactly. Anything else JSON cannot hold
    (an unresolved ``Restricted``) is a TypeError: fail closed."""
    return _enc(obj, indent, 0) + "\n"


def html_env(strict: bool = False):
    """A Jinja environment of report/templates (the sheet's and the estimate's pages), autoescaped;
    ``strict``: an undefined name is an error. A fresh one per page: renderers set their globals on it."""
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("trainledger.report", "templates"),
                              autoescape=jinja2.select_autoescape(["html", "j2"]),
                              undefined=jinja2.StrictUndefined if strict else jinja2.Undefined)
