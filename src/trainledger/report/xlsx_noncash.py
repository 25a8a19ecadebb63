"""The Control sheet's non-cash bucket and labor-hours control (report/xlsx_control.py calls ``write``).

Per currency and basis (internal, estimate, queued: engine/unattributed.py)::

    unattributed     = SUM of its reason rows below (quantity and expected amount; each row the
                       engine's), beside the engine's figure
    shared pools     the rows a declared pool spread (a view), values

Labor hours, per currency::

    batches          = SUM of the per-batch hours rows below (the engine's)
    shared pools     = SUM of the per-pool hours rows below
    unattributed     = the internal bucket's quantity cell above (a reference), 0 without one
    check            = ROUND(timesheet − (batches + shared pools + unattributed), 4): must show 0.0000

Every formula stores the engine's figure as its result. A reason row a role may not see (one role's
labor cost) is written "restricted" and its total is the engine's value, not a SUM over it.
"""

from __future__ import annotations

from decimal import Decimal

from trainledger.model.restricted import is_withheld
from trainledger.model.vocab import detail_label, reason_label
from trainledger.report.noncash import batch_name
from trainledger.report.xlsx import Book, H, dec, money_format, ref, xround

HEADS = ["currency", "basis", "reason", "detail", "line_count", "quantity", "unit", "low", "expected", "high"]
LABOR_HEADS = ["currency", "timesheet_hours", "batches_hours", "pooled_hours", "unattributed_hours", "check_hours",
               "computed"]
HOURS = "0.0000"


def write(b: Book, ws, row: int, c: dict) -> int:
    """The two blocks from ``row``; returns the next free row."""
    totals: dict[str, str] = {}  # currency → the internal bucket's quantity cell
    recs = c.get("noncash") or []
    if recs:
        b.text(ws, row, 1, H("noncash_bucket"), bold=True)
        for i, k in enumerate(HEADS, 1):
            b.text(ws, row + 1, i, H(k), bold=True)
        row += 2
        for r in recs:
            row = _basis(b, ws, row, r, totals)
        row += 1
    for rec in c.get("labor_hours") or []:
        row = _labor(b, ws, row, rec, totals.get(rec["currency"]))
    return row


def _basis(b: Book, ws, row: int, r: dict, totals: dict[str, str]) -> int:
    cur, fm = r["currency"], money_format(r["currency"])
    items = r.get("unattributed_by_reason") or []
    top, at = row, row + 1
    for x in items:
        code, detail = x.get("reason", ""), x.get("detail", "")
        _cells(b, ws, at, r, b.said(reason_label(code, "en"), reason_label(code, "zh-CN")),
               b.said(detail_label(detail, "en"), detail_label(detail, "zh-CN")), x)
        at += 1
    for p in r.get("pooled") or []:
        _cells(b, ws, at, r, H("noncash_pooled"), p.get("policy"), p)
        at += 1
    _cells(b, ws, top, r, H("noncash_unattributed"), "", r, money=False)
    if items:
        first, last = top + 1, top + len(items)
        b.formula(ws, top, 6, "SUM({a}:{z})", HOURS, cached=sum((dec(x.get("quantity")) or Decimal(0) for x in items),
                                                                 Decimal(0)),
                  a=ref(first, 6), z=ref(last, 6))
        for col, k in ((8, "low"), (9, "expected"), (10, "high")):
            if is_withheld(r.get(k)) or any(is_withheld(x.get(k)) for x in items):
                b.money(ws, top, col, r.get(k), cur) if not is_withheld(r.get(k)) else b.text(ws, top, col, r.get(k))
            else:
                # the stored result is the rows' sum as written (each rounded to the minor unit)
                b.formula(ws, top, col, "SUM({a}:{z})", fm, cached=sum((dec(x.get(k)) or Decimal(0) for x in items),
                                                                      Decimal(0)), a=ref(first, col), z=ref(last, col))
    else:
        b.number(ws, top, 6, r.get("quantity"), HOURS)
        for col, k in ((8, "low"), (9, "expected"), (10, "high")):
            b.money(ws, top, col, r.get(k), cur)
    if r.get("basis") == "internal":
        totals[cur] = ref(top, 6)
    return at


def _cells(b: Book, ws, row: int, r: dict, reason: str, detail: str, x: dict, money: bool = True) -> None:
    cur = r["currency"]
    b.text(ws, row, 1, cur)
    b.text(ws, row, 2, b.vocab(r.get("basis")))
    b.text(ws, row, 3, reason, bold=not money)
    b.text(ws, row, 4, detail)
    b.number(ws, row, 5, x.get("lines"), "0")
    b.text(ws, row, 7, b.vocab(r.get("unit")))
    if money:
        b.number(ws, row, 6, x.get("quantity"), HOURS)
        for col, k in ((8, "low"), (9, "expected"), (10, "high")):
            if is_withheld(x.get(k)):
                b.text(ws, row, col, x.get(k))
            else:
                b.money(ws, row, col, x.get(k), cur)


def _labor(b: Book, ws, row: int, rec: dict, unattributed_cell: str | None) -> int:
    b.text(ws, row, 1, H("labor_control"), bold=True)
    b.text(ws, row + 1, 1, H("labor_how"))
    for i, k in enumerate(LABOR_HEADS, 1):
        b.text(ws, row + 2, i, H(k), bold=True)
    rw = row + 3
    parts = [("batch", x["batch"] if "batch" in x else b.said(*(batch_name(x, lang) for lang in ("en", "zh-CN"))),
              x["hours"]) for x in rec.get("by_batch") or []]  # a scoped token's: the others folded (noncash.scope)
    pools = [("policy", x["policy"], x["hours"]) for x in rec.get("by_pool") or []]
    at = rw + 2
    spans = {}
    for name, rows in (("batches", parts), ("pools", pools)):
        first = at
        for head, key, hours in rows:
            b.text(ws, at, 1, H(head))
            b.text(ws, at, 2, key)
            b.number(ws, at, 3, hours, HOURS)
            at += 1
        spans[name] = (first, at - 1) if rows else None
    hours = {k: dec(rec.get(k)) or Decimal(0) for k in ("timesheet_hours", "batches_hours", "pooled_hours",
                                                       "unattributed_hours", "difference")}
    b.text(ws, rw, 1, rec["currency"])
    b.number(ws, rw, 2, rec.get("timesheet_hours"), HOURS)
    for col, name, key in ((3, "batches", "batches_hours"), (4, "pools", "pooled_hours")):
        span = spans[name]
        if span:
            b.formula(ws, rw, col, "SUM({a}:{z})", HOURS, cached=hours[key], a=ref(span[0], 3), z=ref(span[1], 3))
        else:
            b.formula(ws, rw, col, "0", HOURS, cached=Decimal(0))
    if unattributed_cell:
        b.formula(ws, rw, 5, "{u}", HOURS, cached=hours["unattributed_hours"], u=unattributed_cell)
    else:
        b.formula(ws, rw, 5, "0", HOURS, cached=Decimal(0))
    rest = hours["batches_hours"] + hours["pooled_hours"] + hours["unattributed_hours"]
    b.formula(ws, rw, 6, "ROUND({t}-({b}+{p}+{u}),4)", HOURS, cached=xround(hours["timesheet_hours"] - rest, 4),
              t=ref(rw, 2), b=ref(rw, 3), p=ref(rw, 4), u=ref(rw, 5))
    b.number(ws, rw, 7, rec.get("difference"), HOURS)
    return at + 1
