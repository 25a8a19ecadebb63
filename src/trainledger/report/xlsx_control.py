"""The batch workbook's Control sheet (report/xlsx.py): the workspace's conservation per currency as a
control over this workbook's own sheets, not over typed-in totals.

Per currency (the bill's cash; then the amortized view, EffectiveCost, when the bill has one)::

    this batch      = SUMIFS over Lines (column T, the expected amount) of each basis the engine
                      counts as attributed cash (model/vocab.py CASH_BASES; amortized: basis
                      amortized, source kind focus), this currency
    other batches   = the engine's attributed less this batch's lines (their lines are in their own
                      workbooks): a value, said so
    attributed      = this batch + other batches
    unattributed    = SUM of the unattributed-by-reason rows below (each the engine's amount)
    billed          = the bills' total (the engine's, from the bill and invoices)
    check           = ROUND(billed − (attributed + unattributed), minor unit): must show 0.00

So a Lines row edited, a SUMIFS range cut short or a sign flipped moves the check off 0.00. Every
formula stores the engine's Decimal as its cached result. A role that may not see some of this
batch's cash lines (or an unattributed row, an invoice) gets the engine's figure as a value in that
cell, with a note, and no formula over the hidden cells. Owned and reserved capacity: their own
block (total = attributed + no job held + jobs without a batch).
"""

from __future__ import annotations

from decimal import Decimal

from trainledger.model.restricted import is_withheld
from trainledger.model.vocab import CASH_BASES, detail_label, reason_label
from trainledger.report.field_kinds import line_withheld
from trainledger.report.xlsx import Book, H, dec, money_format, places, ref, xround
from trainledger.report.xlsx_text import L

CASH = tuple(str(b) for b in CASH_BASES)
VIEWS = (("control", "by_currency", CASH, None), ("amortized", "amortized_by_currency", ("amortized",), "focus"))
HEADS = ["currency", "billed_total", "this_batch", "other_batches", "attributed", "unattributed", "check",
         "engine_attributed", "engine_unattributed", "note"]


def said(b: Book, key: str) -> str:
    """One of the workbook's own words in its language (``Book.lang``; None: both)."""
    return b.said(*L[key])


def _mine(lines: list, role: str, bases: tuple[str, ...], kind: str | None) -> tuple[dict, set]:
    """This batch's lines of ``bases`` per currency: their exact sum, and the currencies where the
    role may not see one of them."""
    sums: dict[str, Decimal] = {}
    hidden: set[str] = set()
    for ln in lines:
        if str(ln.basis) not in bases or (kind and ln.provenance.source_kind != kind):
            continue
        cur = ln.amount.currency
        if line_withheld(ln, role):
            hidden.add(cur)
        sums[cur] = sums.get(cur, Decimal(0)) + Decimal(ln.amount.expected)
    return sums, hidden


def write(b: Book, s: dict, lines: list, role: str, last: int) -> None:
    ws = b.sheet("Control")
    c = s.get("conservation") or {}
    col = lambda x: f"Lines!${x}$2:${x}${max(last, 2)}"  # noqa: E731 - the builder's own range text
    row = 1
    for title, key, bases, kind in VIEWS:
        recs = c.get(key) or []
        if not recs and key != "by_currency":
            continue
        b.text(ws, row, 1, H(title), bold=True)
        b.text(ws, row + 1, 1, said(b, "control_how"))
        for i, k in enumerate(HEADS, 1):
            b.text(ws, row + 2, i, H(k), bold=True)
        first = row + 3
        reasons_at = first + len(recs) + 1  # the unattributed-by-reason rows, below the totals
        b.text(ws, reasons_at, 1, H("unattributed_by_reason"), bold=True)
        for i, k in enumerate(["currency", "reason", "reason_label", "detail", "amount"], 1):
            b.text(ws, reasons_at + 1, i, H(k), bold=True)
        at = reasons_at + 2
        mine, hidden = _mine(lines, role, bases, kind)
        for n, r in enumerate(recs):
            cur, fm, rw = r.get("currency", ""), money_format(r.get("currency", "")), first + n
            d = {k: dec(r.get(k)) or Decimal(0) for k in ("billed_total", "attributed", "unattributed")}
            b.text(ws, rw, 1, cur)
            b.money(ws, rw, 2, r.get("billed_total"), cur)
            this, notes = mine.get(cur, Decimal(0)), [said(b, "other_batches_note")]
            if cur in hidden:  # no formula reads a withheld line, and no cell gives their sum away
                b.text(ws, rw, 3, L["restricted"][0])
                b.money(ws, rw, 5, r.get("attributed"), cur)
                notes = [said(b, "withheld_lines")]
            else:
                crit = f",{col('M')},\"{kind}\"" if kind else ""
                text = "+".join(f"SUMIFS({col('T')},{col('B')},\"{basis}\",{col('G')},{{cur}}{crit})"
                                for basis in bases)
                b.formula(ws, rw, 3, text, fm, cached=this, cur=ref(rw, 1))
                b.money(ws, rw, 4, d["attributed"] - this, cur)
                b.formula(ws, rw, 5, "{this}+{others}", fm, cached=d["attributed"], this=ref(rw, 3),
                          others=ref(rw, 4))
            items = r.get("unattributed_by_reason") or []
            top = at
            for x in items:
                b.text(ws, at, 1, cur)
                b.text(ws, at, 2, x.get("reason"))
                b.text(ws, at, 3, b.said(reason_label(x.get("reason", ""), "en"),
                                            reason_label(x.get("reason", ""), "zh-CN")))
                b.text(ws, at, 4, b.said(detail_label(x.get("detail", ""), "en"),
                                            detail_label(x.get("detail", ""), "zh-CN")))
                b.money(ws, at, 5, x.get("amount"), cur)
                at += 1
            summed = sum((dec(x.get("amount")) or Decimal(0) for x in items), Decimal(0))
            if any(is_withheld(x.get("amount")) for x in items):
                b.money(ws, rw, 6, r.get("unattributed"), cur)
                summed = d["unattributed"]
                notes.append(said(b, "withheld_reasons"))
            elif items:
                b.formula(ws, rw, 6, "SUM({a}:{z})", fm, cached=summed, a=ref(top, 5), z=ref(at - 1, 5))
            else:
                b.formula(ws, rw, 6, "0", fm, cached=Decimal(0))
            b.formula(ws, rw, 7, f"ROUND({{billed}}-({{att}}+{{un}}),{places(cur)})", "0.00",
                      cached=xround(d["billed_total"] - (d["attributed"] + summed), places(cur)),
                      billed=ref(rw, 2), att=ref(rw, 5), un=ref(rw, 6))
            b.money(ws, rw, 8, r.get("attributed"), cur)
            b.money(ws, rw, 9, r.get("unattributed"), cur)
            b.text(ws, rw, 10, "; ".join(notes))
        row = at + 1
    row = capacity(b, ws, row, c)
    b.text(ws, row, 1, c.get("rounding"))
    b.text(ws, row + 1, 1, c.get("rounding_zh"))


def capacity(b: Book, ws, row: int, c: dict) -> int:
    """Owned and reserved capacity: capacity cost = attributed + no job held + jobs without a batch, as a
    formula that must show 0.00 beside the engine's difference (a capacity-only workspace has no bill:
    this is its control). Returns the next free row."""
    recs = c.get("capacity") or []
    if not recs:
        return row
    b.text(ws, row, 1, H("capacity_control"), bold=True)
    occ = any("held_not_imported" in r for r in recs)  # a pool's occupancy series: its own column
    parts = ("attributed", "unheld", "job_without_batch", *(("held_not_imported",) if occ else ()))
    for i, k in enumerate(["capacity_id", "basis", "currency", "capacity_total", *parts, "formula", "computed"], 1):
        b.text(ws, row + 1, i, H(k), bold=True)
    row += 2
    for r in recs:
        cur = r.get("currency", "")
        b.text(ws, row, 1, r.get("capacity"))
        b.text(ws, row, 2, r.get("basis"))
        b.text(ws, row, 3, cur)
        b.money(ws, row, 4, r.get("total"), cur)
        for k, f in enumerate(parts):
            b.money(ws, row, 5 + k, r.get(f) if f in ("attributed", "unheld") else r.get(f) or "0", cur)
        col = 5 + len(parts)
        names = {f"p{k}": ref(row, 5 + k) for k in range(len(parts))}
        summed = "+".join(f"{{{n}}}" for n in names)
        total = dec(r.get("total")) or Decimal(0)
        rest = sum((dec(r.get(p)) or Decimal(0) for p in parts), Decimal(0))
        b.formula(ws, row, col, f"ROUND({{total}}-({summed}),{places(cur)})", money_format(cur),
                  cached=xround(total - rest, places(cur)), total=ref(row, 4), **names)
        b.money(ws, row, col + 1, r.get("difference"), cur)
        row += 1
    return row + 1
