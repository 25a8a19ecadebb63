"""Render the cross-batch report (``report.cross.CrossReport``) as JSON, Markdown or HTML, in en or zh-CN.

``tables`` turns the view model into titled tables of display text once; Markdown and HTML both
print those tables (the HTML adds the spend-over-time charts of report/charts.py, each with its
numbers as text beneath). ``as_json`` is the documented contract (docs/cli.md, ``report``): money
as exact decimal strings with their currency and basis, never summed across bases.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from trainledger.mdtext import inline as _inline
from trainledger.model.restricted import ADMIN, is_withheld
from trainledger.model.restricted import note as access_note
from trainledger.report import charts, freshness
from trainledger.report import primitives as prim
from trainledger.report.cross import (
    SCHEMA,
    UNDATED,
    CrossReport,
    Figure,
    Share,
    curve_json,
    text,
    trip_json,
)
from trainledger.report.cross_access import cross_for_role
from trainledger.report.cross_text import dates_note, t
from trainledger.report.i18n import v

FORMATS = ("md", "html", "xlsx", "json")
PARTS = ("price", "volume", "efficiency", "rework", "other", "not_split")  # review/variance.py
CAPACITY_PARTS = ("total", "attributed", "unheld", "job_without_batch", "held_not_imported",
                  "difference")  # cross.CapacityControl
LABOR_PARTS = ("timesheet_hours", "batches_hours", "pooled_hours", "unattributed_hours", "difference",
               "batches_lines", "pooled_lines", "unattributed_lines")  # cross.LaborControl


# -- JSON ----------------------------------------------------------------------------------------

def _fig(f: Figure) -> dict[str, Any]:
    return {"basis": f.basis, "currency": f.currency, "cash": f.cash, "low": text(f.low),
            "expected": text(f.expected), "high": text(f.high), "lines": f.lines}


def _share(s: Share) -> dict[str, Any]:
    """GPU-hours rounded to 6 places, with their exact values (``…_exact``: primitives.exact_quantity,
    a rational when the hours do not terminate) when those differ."""
    out = {"basis": s.basis, "currency": s.currency}
    for k in ("gpu_hours", "part_gpu_hours"):
        out[k] = prim.rounded_quantity(getattr(s, k))
        if (exact := prim.exact_quantity(getattr(s, k))) != out[k]:
            out[f"{k}_exact"] = exact
    return {**out, "amount": text(s.amount), "part_amount": text(s.part_amount),
            "unclassified_gpu_hours": prim.rounded_quantity(s.unclassified_gpu_hours),
            "share": None if s.share is None else text(s.share)}


def as_json(r: CrossReport, role: str = ADMIN) -> dict[str, Any]:
    """The documented contract, as ``role`` may see it (report/cross_access.py ``cross_for_role``): a
    withheld figure reads "restricted" and ``access`` says what was withheld."""
    r, seen = cross_for_role(r, role)
    sc = r.scope
    return {**({"access": seen.as_dict()} if seen.withheld else {}),
        "schema": SCHEMA,
        "scope": {"project": sc.project, "from": sc.start.isoformat() if sc.start else None,
                  "to": sc.end.isoformat() if sc.end else None, "by": sc.by, "days": r.zone,
                  "months": "billing_period_or_day"},
        "attribution_id": r.attribution_id, "as_of": r.as_of, "stale": r.stale, "periods": list(r.periods),
        "spend": [{"period": c.period, "project": c.project, "batch": c.batch, **_fig(c.figure)} for c in r.spend],
        "batches": [{"batch": b.batch, "project": b.project, "name": b.name, "team": b.team,
                     "first_day": b.first.isoformat() if b.first else None,
                     "last_day": b.last.isoformat() if b.last else None,
                     "totals": [_fig(f) for f in b.totals], "effective": [_share(s) for s in b.effective],
                     "rework": [_share(s) for s in b.rework], "plan_version": b.plan_version,
                     "plan_vs_actual": [{"basis": p.basis, "currency": p.currency, "plan": trip_json(p.plan),
                                         "ac": trip_json(p.ac), "ev": trip_json(p.ev), "eac": trip_json(p.eac),
                                         **{k: text(x) for k, x in p.parts}} for p in b.plan]}
                    for b in r.batches],
        "totals": [_fig(f) for f in r.totals],
        "effective_by_period": [{"period": p, **_share(s)} for p, s in r.effective_by_period],
        "unattributed": [{"period": u.period, "reason": u.reason, "basis": u.basis, "currency": u.currency,
                          "amount": text(u.amount), "lines": u.lines} for u in r.unattributed],
        "capacity_control": [{"capacity": c.capacity, "basis": c.basis, "currency": c.currency,
                              **{k: text(getattr(c, k)) for k in CAPACITY_PARTS}} for c in r.capacity_control],
        "control": [{"currency": c.currency, "billed_total": text(c.billed_total), "attributed": text(c.attributed),
                     "unattributed": text(c.unattributed), "difference": text(c.difference),
                     "attributed_from_lines": text(c.attributed_lines),
                     "unattributed_from_lines": text(c.unattributed_lines)} for c in r.control],
        "unattributed_noncash": [{"period": c.period, "reason": c.reason, "pool": c.pool or None, "unit": c.unit,
                                  "quantity": text(c.quantity), **_fig(c.figure)} for c in r.noncash],
        "labor_control": [{"currency": c.currency, **{k: text(getattr(c, k)) for k in LABOR_PARTS}}
                          for c in r.labor_control],
        "spend_curves": [curve_json(c) for c in r.curves],
        "undated_outside_window": [{"project": c.project, "batch": c.batch, **_fig(c.figure)}
                                   for c in r.undated_outside],
    }


def to_json(r: CrossReport, role: str = ADMIN) -> str:
    return json.dumps(as_json(r, role), ensure_ascii=False, indent=2) + "\n"


# -- tables of display text ----------------------------------------------------------------------

@dataclass(frozen=True)
class Table:
    id: str
    title: str
    head: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    note: str = ""


def _amt(x: Decimal, cur: str, cash: bool) -> str:
    return prim.amount(x, cur, exact=cash)


def _rng(f: Figure) -> str:
    s = _amt(f.expected, f.currency, f.cash)
    if f.low != f.high:
        s += f" ({_amt(f.low, f.currency, f.cash)}–{_amt(f.high, f.currency, f.cash)})"
    return s


def _trip(x: tuple[Decimal, Decimal, Decimal], cur: str) -> str:
    s = prim.amount(x[1], cur)
    return s if x[0] == x[2] else f"{s} ({prim.amount(x[0], cur)}–{prim.amount(x[2], cur)})"


def _pct(s: Decimal | None) -> str:
    return prim.DASH if s is None else f"{(s * 100).quantize(Decimal('0.01'))} %"


def _period(p: str, lang: str) -> str:
    return t("undated", lang) if p == UNDATED else p


def tables(r: CrossReport, lang: str) -> list[Table]:
    L = lambda k: t(k, lang)  # noqa: E731 - the report's words in the chosen language
    out = [Table("spend", L("spend"), (L("period"), L("project"), L("batch"), L("basis"), L("currency"), L("amount")),
                 tuple((_period(c.period, lang), c.project, c.batch, v(c.figure.basis, lang), c.figure.currency,
                        _rng(c.figure)) for c in r.spend), dates_note(r.zone, lang))]
    windowed = r.scope.start is not None or r.scope.end is not None
    out.append(Table("batches", L("batches_window" if windowed else "batches"),
                     (L("project"), L("batch"), L("first"), L("last"), L("basis"), L("currency"), L("amount")),
                     tuple((b.project, b.batch, b.first.isoformat() if b.first else prim.DASH,
                            b.last.isoformat() if b.last else prim.DASH, v(f.basis, lang), f.currency, _rng(f))
                           for b in r.batches for f in b.totals)))
    if r.undated_outside:
        out.append(Table("undated", L("undated_outside"), (L("project"), L("batch"), L("basis"), L("currency"),
                                                           L("amount")),
                         tuple((c.project, c.batch, v(c.figure.basis, lang), c.figure.currency, _rng(c.figure))
                               for c in r.undated_outside)))
    out.append(Table("totals", L("totals"), (L("basis"), L("currency"), L("amount")),
                     tuple((v(f.basis, lang), f.currency, _rng(f)) for f in r.totals), L("rounding")))
    rows = []
    for b in r.batches:
        for e, w in zip(b.effective, b.rework, strict=True):
            rows.append((b.project, b.batch, v(e.basis, lang), e.currency, prim.quantity(e.gpu_hours, 2),
                         prim.quantity(e.part_gpu_hours, 2), _pct(e.share), prim.quantity(e.unclassified_gpu_hours, 2),
                         prim.quantity(w.part_gpu_hours, 2), _pct(w.share),
                         f"{_amt(w.part_amount, w.currency, w.basis in charts.CASH)} {w.currency}"))
    out.append(Table("shares", L("shares"), (L("project"), L("batch"), L("basis"), L("currency"), L("held_hours"),
                                             L("effective_hours"), L("effective_share"), L("unclassified_hours"),
                                             L("rework_hours"), L("rework_share"), L("rework_cost")), tuple(rows),
                     L("share_note") + " " + L("rework_note")))
    out.append(Table("effective_trend", L("effective_trend"),
                     (L("period"), L("basis"), L("currency"), L("held_hours"), L("unclassified_hours"),
                      L("effective_share")),
                     tuple((_period(p, lang), v(s.basis, lang), s.currency, prim.quantity(s.gpu_hours, 2),
                            prim.quantity(s.unclassified_gpu_hours, 2), _pct(s.share))
                           for p, s in r.effective_by_period)))
    out.append(Table("unattributed", L("unattributed"), (L("period"), L("reason"), L("basis"), L("currency"),
                                                         L("amount"), L("lines")),
                     tuple((_period(u.period, lang), v(u.reason, lang), v(u.basis, lang), u.currency,
                            _amt(u.amount, u.currency, u.basis == "billed"), str(u.lines))
                           for u in r.unattributed), L("unattributed_note")))
    if r.noncash:
        out.append(Table("noncash", L("noncash"), (L("period"), L("reason"), L("pool"), L("basis"), L("currency"),
                                                   L("quantity"), L("amount"), L("lines")),
                         tuple((_period(c.period, lang), v(c.reason, lang), c.pool or prim.DASH,
                                v(c.figure.basis, lang), c.figure.currency,
                                f"{prim.quantity(c.quantity, 2)} {prim.unit(c.unit, lang)}", _rng(c.figure),
                                str(c.figure.lines)) for c in r.noncash), L("noncash_note")))
    heads = (L("batch"), L("plan_version"), L("basis"), L("currency"), L("plan"), L("ac"), L("ev"), L("eac"),
             L("variance"), *(L(k) for k in PARTS))
    rows = []
    for b in r.batches:
        if not b.plan:  # one cell per header: batch, "no plan", a dash under every other
            rows.append((b.batch, L("no_plan"), *([prim.DASH] * (len(heads) - 2))))
        for p in b.plan:
            parts = dict(p.parts)
            rows.append((b.batch, f"v{b.plan_version}", v(p.basis, lang), p.currency, _trip(p.plan, p.currency),
                         _trip(p.ac, p.currency), *(_trip(x, p.currency) if x else L("unknown_work")
                                                    for x in (p.ev, p.eac)),
                         p.ac[1] if is_withheld(p.ac[1]) else prim.amount(p.ac[1] - p.plan[1], p.currency),
                         *(prim.amount(parts[k], p.currency) for k in PARTS)))
    out.append(Table("plan", L("plan_vs_actual"), heads, tuple(rows), L("to_date")))
    out.append(Table("control", L("control"),
                     (L("currency"), L("billed_total"), f"{L('attributed')} ({L('engine')})",
                      f"{L('attributed')} ({L('from_lines')})", f"{L('unattributed_short')} ({L('engine')})",
                      f"{L('unattributed_short')} ({L('from_lines')})", L("difference")),
                     tuple((c.currency, *(_amt(x, c.currency, True) for x in (
                         c.billed_total, c.attributed, c.attributed_lines, c.unattributed, c.unattributed_lines,
                         c.difference))) for c in r.control)))
    if r.labor_control:
        out.append(Table("labor_control", L("labor_control"),
                         (L("currency"), *(f"{L(k)} ({L(src)})" for k, src in (
                             ("timesheet_hours", "engine"), ("batches_hours", "engine"),
                             ("batches_hours", "from_lines"),
                             ("pooled_hours", "engine"), ("pooled_hours", "from_lines"),
                             ("unattributed_hours", "engine"), ("unattributed_hours", "from_lines"))),
                          L("difference")),
                         tuple((c.currency, *(prim.quantity(x, 2) for x in (
                             c.timesheet_hours, c.batches_hours, c.batches_lines, c.pooled_hours, c.pooled_lines,
                             c.unattributed_hours, c.unattributed_lines, c.difference))) for c in r.labor_control)))
    if r.capacity_control:
        out.append(Table("capacity_control", L("capacity_control"),
                         (L("capacity"), L("basis"), L("currency"), *(L(f"cap_{k}") for k in CAPACITY_PARTS)),
                         tuple((c.capacity, v(c.basis, lang), c.currency,
                                *(_amt(getattr(c, k), c.currency, False) for k in CAPACITY_PARTS))
                               for c in r.capacity_control)))
    return out


def scope_line(r: CrossReport, lang: str) -> str:
    sc = r.scope
    window = (f"{sc.start.isoformat() if sc.start else '…'} – {sc.end.isoformat() if sc.end else '…'}"
              if sc.start or sc.end else t("all_dates", lang))
    return (f"{t('project', lang)}: {sc.project or t('all_projects', lang)} · {t('window', lang)}: {window} · "
            f"{t('by', lang)}: {t('by_' + sc.by, lang)} · {t('attribution', lang)} #{r.attribution_id}")


def to_markdown(r: CrossReport, lang: str = "en", role: str = ADMIN) -> str:
    r, seen = cross_for_role(r, role, lang)
    out = [f"# {t('title', lang)}", "", _inline(scope_line(r, lang)), ""]
    out += [f"**{_inline(stale)}**", ""] if (stale := freshness.note(r.stale, lang)) else []
    out += [f"_{access_note(seen, lang)}_", ""] if seen.withheld else []
    for tb in tables(r, lang):
        out += [f"## {tb.title}", ""]
        out += prim.md_table(list(tb.head), [list(row) for row in tb.rows]) if tb.rows else [t("none", lang)]
        if tb.note:
            out += ["", f"_{_inline(tb.note)}_"]
        out.append("")
    if r.curves:
        out += [f"## {t('curves', lang)}", ""]
        for c in r.curves:
            ch = charts.spend_curve(curve_json(c), lang)
            out += [f"### {_inline(ch['title'])}", ""]
            out += prim.md_table(list(ch["head"]), [list(row) for row in ch["rows"]]) + [""]
    return "\n".join(out)


def to_html(r: CrossReport, lang: str = "en", role: str = ADMIN) -> str:
    r, seen = cross_for_role(r, role, lang)
    return prim.html_env().get_template("cross.html.j2").render(
        r=r, lang=lang, t=lambda k: t(k, lang), scope=scope_line(r, lang), tables=tables(r, lang),
        charts=[charts.spend_curve(curve_json(c), lang) for c in r.curves],
        access_note=access_note(seen, lang), stale_note=freshness.note(r.stale, lang))


def render(r: CrossReport, fmt_: str, lang: str = "en", role: str = ADMIN) -> str:
    """``r`` as ``role`` may see it (report/cross_access.py ``cross_for_role``; default admin: the local user)."""
    if fmt_ == "json":
        return to_json(r, role)
    if fmt_ == "md":
        return to_markdown(r, lang, role)
    if fmt_ == "html":
        return to_html(r, lang, role)
    raise ValueError(f"unknown format {fmt_!r}; xlsx is written by report/cross_xlsx.py")
