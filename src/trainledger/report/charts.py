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
    spend_curve      cumulative actual spend by day (or week) against the plan's total, with the EAC
                     low / expected / high of review/status.py (a curve dict of report/cross.py)
    sheet_charts     all of the above for one sheet, in reading order

Bar lengths are proportional to the values (``SCALE`` pixels for the largest); each ``<rect>`` carries
``data-value`` (the exact decimal text) so tests and readers can check the proportion.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from markupsafe import Markup, escape

from trainledger import fmt
from trainledger.model.restricted import is_withheld
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
        rows = [r for r in rows if not is_withheld(r.get("expected"))]  # restricted for this role: no bar
        if not rows:
            continue
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
    step so the bridge still ends on the actual. A basis whose figures this role may not see (one
    labor role's plan: report/plan_access.py ``mark_internal``) is not drawn: its chart says so, its table
    prints the word."""
    from trainledger.review.texts import t as pt

    p = s.get("plan_vs_actual") or {}
    out = []
    for row in p.get("variance", []):
        basis, cur = row["basis"], row["currency"]
        cid = f"chart-bridge-{basis}-{cur}"
        title = f"{pt('bridge', lang)}: {v(basis, lang)} · {cur}"
        keys = ["plan", *BRIDGE, *(k for k in ("other", "not_split") if row.get(k)), "actual"]
        if any(is_withheld(row.get(k)) for k in keys):
            out.append({"id": cid, "title": title, "svg": withheld_svg(cid, title, lang), "basis": basis,
                        "currency": cur, "withheld": True, "head": [t("item", lang), t("amount", lang)],
                        "rows": [[pt(k, lang), str(row[k]) if is_withheld(row[k]) else
                                  f"{fmt.amount(_d(row[k]), cur)} {cur}"] for k in keys]})
            continue
        plan, actual = _d(row["plan"]), _d(row["actual"])
        parts = [(k, _d(row[k])) for k in BRIDGE]
        parts += [(k, _d(row[k])) for k in ("other", "not_split") if row.get(k) and _d(row[k])]  # when any
        if not plan and not actual and not any(x for _, x in parts):
            continue
        steps = [("total", plan, pt("plan", lang))] + [("delta", x, pt(k, lang)) for k, x in parts]
        residual = actual - plan - sum((x for _, x in parts), Decimal(0))
        if residual:
            steps.append(("delta", residual, t("chart_residual", lang)))
        steps.append(("total", actual, pt("actual", lang)))
        # a decomposition, not a bill: each step at the minor unit
        out.append({"id": cid, "title": title, "svg": waterfall(cid, title, steps, lang), "basis": basis,
                    "currency": cur, "head": [t("item", lang), t("amount", lang)],
                    "rows": [[lbl, f"{fmt.amount(x, cur)} {cur}"] for _k, x, lbl in steps]})
    return out


def withheld_svg(chart_id: str, title: str, lang: str, what: str = "") -> Markup:
    """A chart this role may not see drawn: its frame and the note, no shape and no figure."""
    note = t("chart_withheld", lang) + (f": {what}" if what else "")
    return _svg(chart_id, 520.0, 40.0, [f'<text class="restricted" x="8.00" y="24.00" font-size="12" '
                                        f'fill="#5b6478">{escape(note)}</text>'], title)


def spend_curve(c: dict[str, Any], lang: str) -> dict[str, Any]:
    """One curve (``report.cross.curve_json``): a step line of the cumulative spend per day or week, the
    plan's total (its low–high as a band), and the EAC range as a bar right of the last day. Heights
    are proportional to the amounts; every point carries ``data-day`` and ``data-value``. A series
    this role may not see (the plan, the EAC, the spend itself of one labor role's plan:
    report/plan_access.py ``mark_internal``) is left out of the drawing, a line under the chart names it
    as restricted, and its table rows print the word."""
    from trainledger.report.cross_text import t as ct

    cur, exact = c["currency"], c["basis"] in CASH
    hide_pts = is_withheld(c.get("actual")) or any(is_withheld(p["cumulative"]) for p in c["points"])
    hide_plan = any(is_withheld(c["plan"].get(k)) for k in ("low", "expected", "high"))
    hide_eac = bool(c.get("eac")) and any(is_withheld(c["eac"].get(k)) for k in ("low", "expected", "high"))
    hidden = [name for name, gone in ((t("chart_actual", lang), hide_pts), (ct("plan_expected", lang), hide_plan),
                                      (ct("eac", lang), hide_eac)) if gone]
    pts = [(p["day"], Decimal(0) if hide_pts else _d(p["cumulative"])) for p in c["points"]]
    plan = {k: Decimal(0) if hide_plan else _d(c["plan"][k]) for k in ("low", "expected", "high")}
    eac = {k: Decimal(0) if hide_eac else _d(c["eac"][k]) for k in ("low", "expected", "high")} \
        if c.get("eac") else None  # None: unknown
    top = max([Decimal(0), plan["high"], eac["high"] if eac else Decimal(0),
               Decimal(0) if hide_pts else _d(c.get("actual"))] + [val for _day, val in pts])
    left, plot_w, plot_h, top_pad = 70.0, 460.0, 200.0, 16.0
    width, height = left + plot_w + 260.0, top_pad + plot_h + 40.0 + (16.0 if hidden else 0.0)
    scale = plot_h / float(top) if top > 0 else 0.0
    from datetime import date

    days = [date.fromisoformat(d) for d, _v in pts]
    span = max((days[-1] - days[0]).days, 1) if days else 1

    def y(v: Decimal) -> float:
        return top_pad + plot_h - float(v) * scale

    def x(i: int) -> float:  # proportional to the day
        return left + plot_w * (days[i] - days[0]).days / span if len(pts) > 1 else left + plot_w / 2

    body = [f'<line x1="{_n(left)}" y1="{_n(y(Decimal(0)))}" x2="{_n(left + plot_w)}" y2="{_n(y(Decimal(0)))}" '
            f'stroke="#d9dee8"/>']
    if not hide_plan:
        body.append(f'<rect class="plan-range" x="{_n(left)}" y="{_n(y(plan["high"]))}" width="{_n(plot_w)}" '
                    f'height="{_n(float(plan["high"] - plan["low"]) * scale)}" fill="#5b6478" fill-opacity="0.12" '
                    f'data-low="{_f(plan["low"])}" data-high="{_f(plan["high"])}"/>')
        body.append(f'<line class="plan" x1="{_n(left)}" y1="{_n(y(plan["expected"]))}" x2="{_n(left + plot_w)}" '
                    f'y2="{_n(y(plan["expected"]))}" stroke="#5b6478" stroke-dasharray="6 4" '
                    f'data-value="{_f(plan["expected"])}"/>')
    path, prev = [], None
    for i, (_day, val) in enumerate(pts if not hide_pts else ()):
        if prev is not None:
            path.append(f"{_n(x(i))},{_n(y(prev))}")
        path.append(f"{_n(x(i))},{_n(y(val))}")
        prev = val
    if path:
        body.append(f'<polyline class="actual" points="{" ".join(path)}" fill="none" stroke="#2f6fdf" '
                    f'stroke-width="2"/>')
    for i, (day, val) in enumerate(pts if not hide_pts else ()):
        body.append(f'<circle class="point" cx="{_n(x(i))}" cy="{_n(y(val))}" r="3" fill="#2f6fdf" '
                    f'data-day="{escape(day)}" data-value="{_f(val)}"/>')
    ex = left + plot_w + 24
    money = lambda v: fmt.amount(v, cur, exact=exact)  # noqa: E731 - the actual: cash keeps every digit
    est = lambda v: fmt.amount(v, cur)  # noqa: E731 - plan and EAC are estimates: at the minor unit
    if eac is None:  # no useful work measured: no EAC bar (never one at 0), the word instead
        body.append(f'<text class="eac-unknown" x="{_n(ex)}" y="{_n(top_pad + 12)}" font-size="11">'
                    f'{escape(ct("eac", lang))}: {escape(ct("unknown_work", lang))}</text>')
    elif not hide_eac:
        body.append(f'<rect class="eac-range" x="{_n(ex)}" y="{_n(y(eac["high"]))}" width="14" '
                    f'height="{_n(float(eac["high"] - eac["low"]) * scale)}" fill="{COLOURS["up"]}" '
                    f'fill-opacity="0.35" data-low="{_f(eac["low"])}" data-high="{_f(eac["high"])}"/>')
        body.append(f'<line class="eac" x1="{_n(ex - 4)}" y1="{_n(y(eac["expected"]))}" x2="{_n(ex + 18)}" '
                    f'y2="{_n(y(eac["expected"]))}" stroke="{COLOURS["up"]}" stroke-width="2" '
                    f'data-value="{_f(eac["expected"])}"/>')
        body.append(f'<text x="{_n(ex + 22)}" y="{_n(y(eac["expected"]) + 4)}" font-size="11">'
                    f'{escape(ct("eac", lang))} {escape(est(eac["expected"]))}</text>')
    if not hide_plan:
        body.append(f'<text x="{_n(left + 4)}" y="{_n(y(plan["expected"]) - 4)}" font-size="11">'
                    f'{escape(ct("plan_expected", lang))} {escape(est(plan["expected"]))}</text>')
    for i in sorted({0, len(pts) - 1}) if pts else ():
        body.append(f'<text x="{_n(x(i))}" y="{_n(top_pad + plot_h + 16)}" text-anchor="middle" font-size="11">'
                    f"{escape(pts[i][0])}</text>")
    if top > 0:
        body.append(f'<text x="{_n(left - 6)}" y="{_n(y(top) + 4)}" text-anchor="end" font-size="11">'
                    f"{escape(fmt.quantity(top, 0))}</text>")
    body.append(f'<text x="{_n(left)}" y="{_n(top_pad + plot_h + 32)}" font-size="10" fill="#5b6478">'
                f'{escape(ct("legend", lang))}</text>')
    if hidden:  # the legend names what this role's copy leaves out
        body.append(f'<text class="restricted" x="{_n(left)}" y="{_n(top_pad + plot_h + 48)}" font-size="10" '
                    f'fill="#5b6478">{escape(t("chart_withheld", lang))}: {escape(", ".join(hidden))}</text>')
    cid = f"chart-spend-{c['batch']}-{c['basis']}-{cur}"
    title = f"{ct('curve_title', lang)}: {c['batch']} · {v(c['basis'], lang)} · {cur}"
    step = ct("day" if c["step"] == "day" else "week", lang)

    def cell(val: Any, show) -> str:
        return str(val) if is_withheld(val) else f"{show(val)} {cur}"

    rows = [[p["day"], cell(p["cumulative"], money)] for p in c["points"]]
    if is_withheld(c.get("undated")) or _d(c.get("undated")):
        rows.append([ct("undated_spend", lang), cell(c["undated"], money)])
    rows += [[ct(f"plan_{k}", lang), cell(c["plan"][k], est)] for k in ("low", "expected", "high")]
    rows += [[ct(f"eac_{k}", lang), cell(c["eac"][k], est) if c.get("eac") else ct("unknown_work", lang)]
             for k in ("low", "expected", "high")]
    return {"id": cid, "title": title, "svg": _svg(cid, width, height, body, title), "basis": c["basis"],
            "currency": cur, "head": [step, ct("cumulative", lang)], "rows": rows,
            **({"withheld": hidden} if hidden else {})}


def sheet_charts(s: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """Every chart of a sheet, in reading order."""
    charts = [c] if (c := compute_hours(s, lang)) else []
    curves = [spend_curve(c, lang) for c in (s.get("plan_vs_actual") or {}).get("spend_curves", [])]
    return charts + cost_by_basis(s, lang) + variance_bridge(s, lang) + curves
