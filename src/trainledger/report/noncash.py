"""The unattributed bucket of the non-cash bases and the labor-hours control, as every report shows them.

The engine's records (engine/unattributed.py: the summary's ``unattributed_noncash`` and
``labor_hours``) are shown in the batch sheet's workspace section (md / json / html / xlsx), in
``attribute``'s text and in the cross-batch report. Their internal (labor) money is labor cost: it
takes the labor kinds of report/labor_kinds.py (``phase_kind``: one role's cost when one valued role
makes the figure, else the phase's), a pool's the strictest of that and its allocation pool's kind
(field_kinds.pool_kind). Hours are never restricted.

    sheet_part(summary)   the sheet's ``conservation.noncash`` (folded as the cash bucket) and
                          ``conservation.labor_hours``
    mark(cons)            those records with their labor money ``Restricted``
    money_kind(rec)       the restricted kind of a record's (or reason row's, pool's) money, or None
    md(cons, lang, f)     the sheet's Markdown part; ``cli_lines``: attribute's text
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.model.money import minor_quantum
from trainledger.model.restricted import restrict
from trainledger.report.field_kinds import pool_kind
from trainledger.report.labor_kinds import phase_kind, strictest
from trainledger.report.sheet_compute import qty

MONEY = ("low", "expected", "high")
SHEET_DETAILS = 12  # as report/sheet.py folds the cash bucket's reasons


def money_kind(rec: dict[str, Any], basis: str | None = None, policy: bool = False) -> str | None:
    """The kind of a record's internal money: one person's cost (``labor_cost_person``), whatever
    its roles. The guard (report/rate_guard.py) counts the batches' labor figures, not these: beside
    the phase costs the demo's unattributed labor (3 roles) and build pool (4 roles) give all six rates
    back (rank 6 over 6 roles), so a role that may not see rates reads their hours only. None for any
    other basis (not labor). ``phase_kind`` / ``policy`` stay for the admin's copy, which is unmasked."""
    if (basis or rec.get("basis")) != "internal":
        return None
    kind = phase_kind({"roles": [{"cost": [r]} for r in rec.get("roles") or []]})
    kind = strictest(kind, pool_kind("labor", "internal")) if policy else kind
    return strictest(kind, "labor_cost_person")


def quantize(rec: dict[str, Any], currency: str) -> dict[str, Any]:
    """A record's money as every view shows a non-cash figure: half-even to the minor unit; its quantity
    to 4 places."""
    q = minor_quantum(currency)
    out = {**rec, **{k: format(Decimal(str(rec[k])).quantize(q, ROUND_HALF_EVEN), "f") for k in MONEY if k in rec}}
    if rec.get("quantity") is not None:  # GPU-hours, GiB-months, hours: at the sheet's quantity precision
        out["quantity"] = qty(Decimal(str(rec["quantity"])))
    return out


def _fold(items: list[dict[str, Any]], currency: str) -> list[dict[str, Any]]:
    """A reason's largest ``SHEET_DETAILS`` rows, then one ``+N more`` row with the rest's exact sums."""
    if len(items) <= SHEET_DETAILS:
        return items
    kept, rest = items[:SHEET_DETAILS], items[SHEET_DETAILS:]
    acc = {k: sum((Decimal(str(x[k])) for x in rest), Decimal(0)) for k in (*MONEY, "quantity")}
    roles = sorted({r for x in rest for r in x.get("roles") or []})
    return kept + [{"reason": rest[0]["reason"] if len({x["reason"] for x in rest}) == 1 else "",
                    "detail": f"+{len(rest)} more", "folded": len(rest), "lines": sum(x["lines"] for x in rest),
                    **{k: format(v, "f") for k, v in acc.items()}, **({"roles": roles} if roles else {})}]


EN_UNITS = {"hour": "h", "gpu_hour": "GPU-h", "gib_month": "GiB-months"}  # ``attribute``'s text, as the sheet says them


def count(n: int, word: str, lang: str) -> str:
    """``n`` of ``word`` ("line", "row") in ``lang``: "1 line", "3 lines", "3 行"."""
    from trainledger.report.i18n import t

    if not lang.startswith("zh"):
        return f"{n} {word}" + ("" if n == 1 else "s")
    return f"{n} {t(word + '_unit', lang)}"


def sheet_part(summary: dict[str, Any]) -> dict[str, Any]:
    """What the batch sheet's workspace section shows of the summary: each non-cash basis's bucket, its
    reasons folded, money to the minor unit; the labor-hours control per currency."""
    recs = []
    for r in summary.get("unattributed_noncash") or []:
        cur = r["currency"]
        recs.append({**quantize(r, cur),
                     "unattributed_by_reason": [quantize(x, cur) for x in _fold(r.get("unattributed_by_reason")
                                                                               or [], cur)],
                     "pooled": [quantize(p, cur) for p in r.get("pooled") or []]})
    return {"noncash": recs, "labor_hours": list(summary.get("labor_hours") or [])}


def scope(sheet: dict[str, Any], batch: str) -> dict[str, Any]:
    """``sheet`` as a token limited to ``batch`` may read it: the labor-hours control keeps this batch's
    row and folds the other batches into one ``{"other_batches": n, "hours": …}`` row (their sum, so
    the control still adds up), as the workbook's Control shows the other batches' money as one value."""
    cons = sheet.get("conservation")
    if not isinstance(cons, dict) or not cons.get("labor_hours"):
        return sheet
    labor = []
    for rec in cons["labor_hours"]:
        rows = rec.get("by_batch") or []
        mine = [x for x in rows if x.get("batch") == batch]
        rest = [x for x in rows if x.get("batch") != batch]
        if rest:
            total = sum((Decimal(str(x["hours"])) for x in rest), Decimal(0))
            mine.append({"other_batches": sum(x.get("other_batches", 1) for x in rest),
                         "hours": format(total.copy_abs() if total.is_zero() else total, "f")})
        labor.append(dict(rec, by_batch=mine))
    return {**sheet, "conservation": {**cons, "labor_hours": labor}}


def batch_name(row: dict[str, Any], lang: str) -> str:
    """A ``by_batch`` row's name: its batch, or "other batches (n)" for the row ``scope`` folded."""
    from trainledger.report.i18n import t

    if "batch" in row:
        return str(row["batch"])
    return t("labor_other_batches", lang).format(n=row.get("other_batches", 0))


def mark(cons: dict[str, Any]) -> dict[str, Any]:
    """The sheet's conservation with the non-cash bucket's labor money ``Restricted`` (idempotent)."""
    if not isinstance(cons, dict) or not cons.get("noncash"):
        return cons

    def marked(x: dict[str, Any], kind: str | None) -> dict[str, Any]:
        return dict(x, **{k: restrict(x.get(k), kind) for k in MONEY if k in x}) if kind else x

    out = []
    for r in cons["noncash"]:
        basis = r.get("basis")
        out.append(dict(marked(r, money_kind(r)),
                        unattributed_by_reason=[marked(x, money_kind(x, basis))
                                                for x in r.get("unattributed_by_reason") or []],
                        pooled=[marked(p, money_kind(p, basis, policy=True)) for p in r.get("pooled") or []]))
    return {**cons, "noncash": out}


def _range(f, x: dict[str, Any], cur: str) -> str:
    ex, lo, hi = (f.amount(x.get(k), cur, False) for k in ("expected", "low", "high"))
    return ex if lo == hi == ex else f"{ex} ({lo}–{hi})"


def _qty(value: Any) -> str:
    from trainledger import fmt

    return fmt.quantity(value)


def table(cons: dict[str, Any], lang: str, f) -> tuple[list[str], list[list[str]]]:
    """(column heads, rows of display text) of the non-cash bucket: per basis its unattributed total,
    its reasons, then what shared pools spread (``f``: render.Figures). No rows: no such lines."""
    from trainledger.model.vocab import detail_label, reason_label
    from trainledger.report import primitives as prim
    from trainledger.report.i18n import t, v

    rows = []
    for r in cons.get("noncash") or []:
        cur, unit = r["currency"], prim.unit(r["unit"], lang)
        rows.append([v(r["basis"], lang), t("noncash_unattributed", lang), "", str(r["lines"]),
                     f"{_qty(r['quantity'])} {unit}", _range(f, r, cur), cur])
        rows += [[v(r["basis"], lang), reason_label(x.get("reason", ""), lang), detail_label(x.get("detail", ""), lang),
                  str(x["lines"]), f"{_qty(x['quantity'])} {unit}", _range(f, x, cur), cur]
                 for x in r.get("unattributed_by_reason") or []]
        rows += [[v(r["basis"], lang), t("noncash_pooled", lang), p["policy"], str(p["lines"]),
                  f"{_qty(p['quantity'])} {unit}", _range(f, p, cur), cur] for p in r.get("pooled") or []]
    heads = [t(k, lang) for k in ("basis", "reason", "detail", "lines", "quantity", "amount", "currency")]
    return heads, rows


def md(cons: dict[str, Any], lang: str, f) -> list[str]:
    """The sheet's Markdown of the non-cash bucket and the labor-hours control (``f``: render.Figures)."""
    from trainledger.report import primitives as prim
    from trainledger.report.i18n import t

    out: list[str] = []
    heads, rows = table(cons, lang, f)
    if rows:
        out += ["", f"### {t('noncash_bucket', lang)}", "", f"_{t('noncash_note', lang)}_", ""]
        out += prim.md_table(heads, rows)
    out += labor_md(cons.get("labor_hours") or [], lang)
    return out


def labor_line(rec: dict[str, Any], lang: str) -> str:
    """``timesheet 192.5 h = batches 143.5 + shared pools 36.5 + unattributed 12.5 (difference 0)``."""
    from trainledger.report.i18n import t

    return t("labor_control_line", lang).format(
        currency=rec["currency"], rows=count(rec["rows"], "row", lang), timesheet=_qty(rec["timesheet_hours"]),
        batches=_qty(rec["batches_hours"]), pooled=_qty(rec["pooled_hours"]),
        unattributed=_qty(rec["unattributed_hours"]), difference=_qty(rec["difference"]),
        by_batch=", ".join(f"{batch_name(b, lang)} {_qty(b['hours'])}" for b in rec.get("by_batch") or []) or "—",
        by_pool=", ".join(f"{p['policy']} {_qty(p['hours'])}" for p in rec.get("by_pool") or []) or "—")


def labor_md(labor: list[dict[str, Any]], lang: str) -> list[str]:
    from trainledger.report.i18n import t

    if not labor:
        return []
    return ["", f"### {t('labor_control', lang)}", "", *(f"- {labor_line(r, lang)}" for r in labor)]


def cli_lines(records: list[dict[str, Any]], labor: list[dict[str, Any]], lang: str) -> list[str]:
    """``attribute``'s text: each non-cash basis's unattributed (quantity, money range) and its reasons
    (the few largest), what pools spread, then the labor-hours control."""
    from trainledger import fmt
    from trainledger.model.vocab import detail_label, label, reason_label
    from trainledger.report.i18n import t

    out: list[str] = []
    if records:
        out.append(t("noncash_cli", lang))
    for r in records:
        cur = r["currency"]
        unit = label(r["unit"], lang) if lang.startswith("zh") else EN_UNITS.get(r["unit"], r["unit"].replace("_", " "))

        def rng(x, cur=cur):
            ex, lo, hi = (fmt.amount(x[k], cur) for k in ("expected", "low", "high"))
            return ex if lo == hi == ex else f"{ex} ({lo}–{hi})"
        basis = r["basis"] if lang == "en" else label(r["basis"], lang)
        out.append(f"    {basis}: " + t("noncash_cli_total", lang).format(
            quantity=fmt.quantity(r["quantity"]), unit=unit, amount=rng(r), currency=cur,
            lines=count(r["lines"], "line", lang)))
        items = r.get("unattributed_by_reason") or []
        for x in items[:3]:
            reason, detail = reason_label(x["reason"], lang), detail_label(x["detail"], lang)
            out.append(f"      {fmt.quantity(x['quantity']):>10} {unit}  {rng(x)} {cur}  {reason}"
                       + (f": {detail}" if detail else "") + "  "
                       + t("noncash_cli_lines", lang).format(n=count(x["lines"], "line", lang)))
        if len(items) > 3:
            out.append("      " + t("noncash_cli_more", lang).format(n=len(items) - 3))
        for p in r.get("pooled") or []:
            out.append("      " + t("noncash_cli_pooled", lang).format(
                policy=p["policy"], quantity=fmt.quantity(p["quantity"]), unit=unit, amount=rng(p), currency=cur,
                lines=count(p["lines"], "line", lang)))
    out += [f"  {t('labor_control', lang)}: {labor_line(rec, lang)}" for rec in labor]
    return out
