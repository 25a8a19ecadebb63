"""Charts of the batch sheet as inline SVG, drawn on the server from the view model (no script).

Pure functions: sheet dict → chart dicts ``{id, title, svg, rows}``; ``svg`` is a ``Markup`` string
(every label escaped with Markupsafe), ``rows`` the same numbers as text for the ``<figcaption>``
table — every charted number is on the page as text. Output is deterministic (fixed geometry,
coordinates rounded to 0.01), so screenshots reproduce.

    compute_hours    GPU-hours by compute state (lifecycle order of model/vocab.py), one bar per
                     state and basis
    cost_by_basis    one chart per basis and currency (bars per evidence level, low–high whisker);
                     never two bases in one chart
    variance_bridge  plan → price → volume → efficiency → rework → actual, a waterfall per basis and
                     currency of ``plan_vs_actual``
    sheet_charts     all of the above for one sheet, in reading order

Bar lengths are proportional to the values (``SCALE`` pixels for the largest); each ``<rect>`` carries
``data-value`` (the exact decimal text) so tests and readers can check the proportion.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from markupsafe import Markup, escape

from trainledger import fmt
from trainledger.model.vocab import CASH_BASES, rank
from trainledger.report.i18n import t, v

SCALE = 400.0  # pixels of the longest bar
LABEL_W = 190.0
ROW_H = 22.0
BAR_H = 14.0
PAD = 8.0
BRIDGE = ("price", "volume", "efficiency", "rework")
CASH = frozenset(str(b) for b in CASH_BASES)
COLOURS = {"contract": "#2b8a3e", "measured": "#2f6fdf", "assumed": "#b4541a", "up": "#b4541a",
           "down": "#2b8a3e", "total": "#5b6478", "hours": "#2f6fdf"}


def _d(x: Any) -> Decimal:
    return fmt.dec(x) or Decimal(0)


def _f(x: Any) -> str:
    """Exact decimal text for a data attribute (never scientific notation)."""
    return format(_d(x), "f")


def _n(x: float) -> str:
    """A coordinate: two decimals, no '-0.00'."""
    r = round(x, 2)
    return f"{(r if r else 0.0):.2f}"


def _svg(chart_id: str, width: float, height: float, body: list[str], title: str) -> Markup:
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="{escape(chart_id)}" role="img" '
            f'width="{_n(width)}" height="{_n(height)}" viewBox="0 0 {_n(width)} {_n(height)}">'
            f"<title>{escape(title)}</title>")
    return Markup(head + "".join(body) + "</svg>")


def hbars(chart_id: str, title: str, rows: list[dict[str, Any]]) -> Markup:
    """Horizontal bars: ``rows`` of ``{label, value, text, colour, low?, high?}`` (values ≥ 0). The longest
    bar is ``SCALE`` wide; a row with ``low``/``high`` gets a whisker over that range."""
    top = max([_d(r.get("high", r["value"])) for r in rows] + [_d(r["value"]) for r in rows] + [Decimal(0)])
    scale = SCALE / float(top) if top > 0 else 0.0
    width = LABEL_W + SCALE + 280  # room for the longest value text and its range
    body = []
    for i, r in enumerate(rows):
        y = PAD + i * ROW_H
        w = float(_d(r["value"])) * scale
        body.append(f'<text x="{_n(LABEL_W - 6)}" y="{_n(y + BAR_H - 3)}" text-anchor="end" font-size="12">'
                    f"{escape(r['label'])}</text>")
        body.append(f'<rect class="bar" x="{_n(LABEL_W)}" y="{_n(y)}" width="{_n(w)}" height="{_n(BAR_H)}" '
                    f'fill="{COLOURS.get(r.get("colour", ""), "#2f6fdf")}" data-value="{_f(r["value"])}"/>')
        end = w
        if "low" in r and _d(r["low"]) != _d(r["high"]):
            lo, hi = float(_d(r["low"])) * scale, float(_d(r["high"])) * scale
            cy = y + BAR_H / 2
            body.append(f'<line class="range" x1="{_n(LABEL_W + lo)}" y1="{_n(cy)}" x2="{_n(LABEL_W + hi)}" '
                        f'y2="{_n(cy)}" stroke="#1d2433" stroke-width="1.5" data-low="{_f(r["low"])}" '
                        f'data-high="{_f(r["high"])}"/>')
            end = max(end, hi)
        body.append(f'<text x="{_n(LABEL_W + end + 6)}" y="{_n(y + BAR_H - 3)}" font-size="12">'
                    f"{escape(r['text'])}</text>")
    return _svg(chart_id, width, PAD * 2 + ROW_H * max(len(rows), 1), body, title)


def compute_hours(s: dict[str, Any], lang: str) -> dict[str, Any] | None:
    """GPU-hours by compute state, lifecycle order; the basis named beside each state."""
    state, basis = rank("state"), rank("basis")
    rows = sorted(s.get("compute_by_state", []), key=lambda r: (state(r["state"]), basis(r["basis"])))
    rows = [r for r in rows if _d(r["gpu_hours"]) > 0]
    if not rows:
        return None
    def name(r: dict[str, Any]) -> str:
        return v(r["state"], lang) if r["state"] == r["basis"] else f"{v(r['state'], lang)} · {v(r['basis'], lang)}"

    bars = [{"label": name(r), "value": r["gpu_hours"],
             "text": fmt.quantity(r["gpu_hours"], 2), "colour": "hours"} for r in rows]
    title = t("chart_compute_hours", lang)
    return {"id": "chart-compute-hours", "title": title, "svg": hbars("chart-compute-hours", title, bars),
            "head": [t("state", lang), t("gpu_hours", lang)],
            "rows": [[b["label"], b["text"]] for b in bars]}


def cost_by_basis(s: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """One chart per basis and currency of ``totals_by_basis``: a bar per evidence level with its
    low–high range. Two bases never share a chart (their figures are never added)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in s.get("totals_by_basis", []):
        groups.setdefault((r["basis"], r["currency"]), []).append(r)
    out = []
    b_rank, e_rank = rank("basis"), rank("evidence")
    for (basis, cur), rows in sorted(groups.items(), key=lambda kv: (b_rank(kv[0][0]), kv[0][1])):
        exact = basis in CASH
        rows = sorted(rows, key=lambda r: e_rank(r["evidence"]))
        bars = []
        for r in rows:
            text = fmt.amount(r["expected"], cur, exact=exact)
            if r["low"] != r["high"]:
                text += f" ({fmt.amount(r['low'], cur, exact=exact)}–{fmt.amount(r['high'], cur, exact=exact)})"
            bars.append({"label": v(r["evidence"], lang), "value": r["expected"], "low": r["low"], "high": r["high"],
                         "text": f"{text} {cur}", "colour": r["evidence"]})
        cid = f"chart-cost-{basis}-{cur}"
        title = f"{t('chart_cost_basis', lang)}: {v(basis, lang)} · {cur}"
        out.append({"id": cid, "title": title, "svg": hbars(cid, title, bars), "basis": basis, "currency": cur,
                    "head": [t("evidence", lang), t("amount", lang)],
                    "rows": [[b["label"], b["text"]] for b in bars]})
    return out


def waterfall(chart_id: str, title: str, steps: list[tuple[str, Decimal, str]], lang: str) -> Markup:
    """A vertical waterfall: ``steps`` = (kind, value, label) with kind ``total`` (a bar from zero) or
    ``delta`` (a floating bar from the running total). Heights are proportional to |value|."""
    running = Decimal(0)
    spans = []
    for kind, val, _lbl in steps:
        if kind == "total":
            spans.append((Decimal(0), val))
            running = val
        else:
            spans.append((running, running + val))
            running += val
    lo = min([Decimal(0)] + [min(a, b) for a, b in spans])
    hi = max([Decimal(0)] + [max(a, b) for a, b in spans])
    plot_h = 220.0
    scale = plot_h / float(hi - lo) if hi > lo else 0.0
    col_w, gap, top = 70.0, 18.0, 24.0
    width = PAD * 2 + len(steps) * (col_w + gap)
    height = top + plot_h + 40

    def y(x: Decimal) -> float:
        return top + float(hi - x) * scale

    body = [f'<line x1="{_n(PAD)}" y1="{_n(y(Decimal(0)))}" x2="{_n(width - PAD)}" y2="{_n(y(Decimal(0)))}" '
            f'stroke="#d9dee8"/>']
    for i, ((kind, val, lbl), (a, b)) in enumerate(zip(steps, spans, strict=True)):
        x = PAD + i * (col_w + gap)
        y0, h = y(max(a, b)), float(abs(b - a)) * scale
        colour = COLOURS["total"] if kind == "total" else COLOURS["up"] if val > 0 else COLOURS["down"]
        body.append(f'<rect class="step {kind}" x="{_n(x)}" y="{_n(y0)}" width="{_n(col_w)}" height="{_n(h)}" '
                    f'fill="{colour}" data-value="{_f(val)}" data-from="{_f(a)}" '
                    f'data-to="{_f(b)}"/>')
        body.append(f'<text x="{_n(x + col_w / 2)}" y="{_n(y0 - 4)}" text-anchor="middle" font-size="11">'
                    f"{escape(fmt.quantity(val, 2))}</text>")
        body.append(f'<text x="{_n(x + col_w / 2)}" y="{_n(top + plot_h + 18)}" text-anchor="middle" '
                    f'font-size="12">{escape(lbl)}</text>')
    return _svg(chart_id, width, height, body, title)


def variance_bridge(s: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """plan → price → volume → efficiency → rework → actual per basis and currency (review/ variance).
    The last bar is the actual; the parts that review/ leaves unexplained, if any, show as a residual
    step so the bridge still ends on the actual."""
    from trainledger.review.texts import t as pt

    p = s.get("plan_vs_actual") or {}
    out = []
    for row in p.get("variance", []):
        basis, cur = row["basis"], row["currency"]
        plan, actual = _d(row["plan"]), _d(row["actual"])
        parts = [(k, _d(row[k])) for k in BRIDGE]
        if not plan and not actual and not any(x for _, x in parts):
            continue
        steps = [("total", plan, pt("plan", lang))] + [("delta", x, pt(k, lang)) for k, x in parts]
        residual = actual - plan - sum((x for _, x in parts), Decimal(0))
        if residual:
            steps.append(("delta", residual, t("chart_residual", lang)))
        steps.append(("total", actual, pt("actual", lang)))
        cid = f"chart-bridge-{basis}-{cur}"
        title = f"{pt('bridge', lang)}: {v(basis, lang)} · {cur}"
        # a decomposition, not a bill: each step at the minor unit
        out.append({"id": cid, "title": title, "svg": waterfall(cid, title, steps, lang), "basis": basis,
                    "currency": cur, "head": [t("item", lang), t("amount", lang)],
                    "rows": [[lbl, f"{fmt.amount(x, cur)} {cur}"] for _k, x, lbl in steps]})
    return out


def sheet_charts(s: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Every chart of a sheet, in reading order."""
    charts = [c] if (c := compute_hours(s, lang)) else []
    return charts + cost_by_basis(s, lang) + variance_bridge(s, lang)
