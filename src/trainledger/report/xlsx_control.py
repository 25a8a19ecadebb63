"""The batch workbook's Control sheet (report/xlsx.py): the workspace's conservation per currency as a
control over this workbook's own sheets, not over typed-in totals.

Per currency (the bill's cash; then the amortized view, EffectiveCost, when the bill has one)::

    this batch      = SUMIFS over Lines (its for_formulas column: the expected amount) of each basis
                      the engine counts as attributed cash (model/vocab.py CASH_BASES; amortized:
                      basis effective_cost, source kind focus), this currency
    other batches   = SUM over the table of the other batches below (each batch's attributed per
                      basis and category, the engine's: the summary's ``attributed_by_batch``; their
                      lines are in their own workbooks)
    attributed      = this batch + other batches
    unattributed    = SUM of the unattributed-by-reason rows below (each the engine's amount)
    billed          = the bills' total (the engine's, from the bill and invoices)
    check           = ROUND(billed − (attributed + unattributed), minor unit): must show 0.00

Owned and reserved capacity, per capacity (its own block)::

    this batch      = SUMIFS over Lines of the lines a capacity priced for this batch: source kind
                      "capacity", rule "capacity <id> (<file> row n): …" (engine/capacity_source.py),
                      the capacity's basis and currency
    other batches   = SUM over the capacity's rows of the other batches' table below
    attributed      = this batch + other batches
    check           = ROUND(capacity cost − (attributed + no job held + jobs without a batch
                      [+ held, jobs not imported]), minor unit): must show 0.00

Then the non-cash bases' unattributed bucket and the labor-hours control (report/xlsx_noncash.py).

So a Lines row edited, a SUMIFS range cut short or a sign flipped moves the check off 0.00. Every
formula stores the engine's Decimal as its cached result. A role that may not see some of this
batch's lines (or an unattributed row, an invoice, another batch's vendor amount) gets the engine's
figure as a value in that cell, with a note, and no formula over the hidden cells. Without the
other batches' table (an attribution made before the summary kept it, or a token limited to this
batch: ``others=None``) other batches is the engine's attributed less this batch's lines, a value,
said so.
"""

from __future__ import annotations

import re
from decimal import Decimal

from trainledger.model.restricted import Disclosure, allows, is_withheld
from trainledger.model.vocab import CASH_BASES, Basis, detail_label, reason_label
from trainledger.report import xlsx_noncash
from trainledger.report.field_kinds import LINE_KINDS, line_withheld
from trainledger.report.xlsx import Book, H, dec, lines_range, money_format, places, ref, xround
from trainledger.report.xlsx_text import L

CASH = tuple(str(b) for b in CASH_BASES)
# (title, the sheet's conservation key, the summary's attributed_by_batch key, bases, source kind)
VIEWS = (("control", "by_currency", "cash", CASH, None),
         ("amortized", "amortized_by_currency", "amortized", (str(Basis.EFFECTIVE_COST),), "focus"))
HEADS = ["currency", "billed_total", "this_batch", "other_batches", "attributed", "unattributed", "check",
         "engine_attributed", "engine_unattributed", "note"]
OTHER_HEADS = ["currency", "batch", "basis", "category", "amount"]
CAPACITY_KIND = "capacity"  # engine/capacity_source.py KIND: a job's row, priced by a capacity
FIELD = {"capacity_id": "capacity"}  # a table head → its row's key
WILDCARD = re.compile(r"[*?~]")  # a capacity id a SUMIFS criterion cannot match literally


def said(b: Book, key: str) -> str:
    """One of the workbook's own words in its language (``Book.lang``; None: both)."""
    return b.said(*L[key])


def withheld_row(row: dict, role: str) -> bool:
    """True when ``role`` may not see an other batch's amount: its category's lines are restricted
    (an external line's amount is a vendor's; report/access.py)."""
    kind = LINE_KINDS.get(row.get("category", ""))
    return kind is not None and not allows(role, kind)


def others_of(others: dict | None, key: str, batch: str) -> list[dict] | None:
    """The rows of the other batches (not ``batch``) of one view of ``attributed_by_batch``, or None."""
    if others is None or key not in others:
        return None
    return [r for r in others[key] or [] if r.get("batch") != batch]


def disclosure(others: dict | None, batch: str, role: str) -> Disclosure:
    """What the other batches' tables show and withhold for ``role`` (for the audit of a download)."""
    d = Disclosure(role)
    for key in ("cash", "amortized", "capacity"):
        for r in others_of(others, key, batch) or []:
            kind = LINE_KINDS.get(r.get("category", ""))
            if kind:
                (d.revealed if allows(role, kind) else d.withheld)[kind] += 1
    return d


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


def _other_rows(b: Book, ws, row: int, rows: list[dict], role: str, heads: list[str]) -> tuple[int, dict]:
    """The other batches' table from ``row`` (its heading, column heads, one row each); → the next free
    row and, per group (currency, or capacity and currency), (first row, last row, exact sum, why the
    group gets no SUM: a withheld or an exact-text amount, or None)."""
    b.text(ws, row, 1, H("other_batches_table"), bold=True)
    b.text(ws, row + 1, 1, said(b, "other_batches_table_note"))
    for i, k in enumerate(heads, 1):
        b.text(ws, row + 2, i, H(k), bold=True)
    at, groups = row + 3, {}
    amount_col = len(heads)
    group_of = lambda r: (r.get("capacity"), r.get("currency", "")) if "capacity" in r else r.get("currency", "")  # noqa: E731
    for r in sorted(rows, key=lambda r: (str(group_of(r)), r.get("batch", ""), r.get("basis", ""),
                                          r.get("category", ""))):  # a group's rows adjacent: one SUM
        cur, group = r.get("currency", ""), group_of(r)
        for i, k in enumerate(heads[:-1], 1):
            b.text(ws, at, i, r.get(FIELD.get(k, k)))
        why = None
        if withheld_row(r, role):
            b.text(ws, at, amount_col, L["restricted"][0])
            why = "withheld_others"
        elif not b.money(ws, at, amount_col, r.get("amount"), cur):  # exact text: a SUM would skip it
            why = "others_inexact"
        first, _, total, held = groups.get(group, (at, at, Decimal(0), None))
        groups[group] = (first, at, total + (dec(r.get("amount")) or Decimal(0)), held or why)
        at += 1
    return at + 1, groups


def _others_cell(b: Book, ws, rw: int, col: int, cur: str, listed: bool, group: tuple | None,
                 fallback: Decimal, amount_col: int) -> tuple[Decimal, str | None]:
    """The other batches' cell: SUM over their rows of the table (``group``: first row, last row, exact
    sum, why not), 0 when the table has none of this currency, or a value — a withheld or exact-text
    row, or no table (``listed`` False); → its exact value and the note that says why it is a value
    (None: a formula)."""
    fm = money_format(cur)
    if not listed:
        b.money(ws, rw, col, fallback, cur)
        return fallback, "other_batches_note"
    if group is None:  # no other batch has attributed of this currency
        b.formula(ws, rw, col, "0", fm, cached=Decimal(0))
        return Decimal(0), None
    first, last, total, why = group
    if why:  # no formula reads a withheld amount, nor skips an exact-text one
        b.money(ws, rw, col, fallback, cur)
        return fallback, why
    b.formula(ws, rw, col, "SUM({a}:{z})", fm, cached=total, a=ref(first, amount_col), z=ref(last, amount_col))
    return total, None


def write(b: Book, s: dict, lines: list, role: str, last: int, others: dict | None = None) -> None:
    ws = b.sheet("Control")
    c = s.get("conservation") or {}
    batch = (s.get("batch") or {}).get("id")
    col = lambda k: lines_range(k, last)  # noqa: E731
    row = 1
    for title, key, by_key, bases, kind in VIEWS:
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
        at = reasons_at + 2 + sum(len(r.get("unattributed_by_reason") or []) for r in recs)
        rows = others_of(others, by_key, batch)
        groups: dict = {}
        if rows is not None and recs:
            rows = [x for x in rows if x.get("currency") in {r.get("currency") for r in recs}]
            end, groups = _other_rows(b, ws, at + 1, rows, role, OTHER_HEADS)
        else:
            end = at
        mine, hidden = _mine(lines, role, bases, kind)
        reason_row = reasons_at + 2
        for n, r in enumerate(recs):
            cur, fm, rw = r.get("currency", ""), money_format(r.get("currency", "")), first + n
            d = {k: dec(r.get(k)) or Decimal(0) for k in ("billed_total", "attributed", "unattributed")}
            b.text(ws, rw, 1, cur)
            b.money(ws, rw, 2, r.get("billed_total"), cur)
            this, notes = mine.get(cur, Decimal(0)), []
            attributed = d["attributed"]
            whole = is_withheld(r.get("billed_total"))  # an invoice's currency (report/vendor_kinds.py)
            if whole:  # its totals give the invoice back: no cell shows them, no formula reads them
                for k in (3, 4, 5):
                    b.text(ws, rw, k, L["restricted"][0])
                notes = [said(b, "withheld_lines")]
            elif cur in hidden:  # no formula reads a withheld line, and no cell gives their sum away
                b.text(ws, rw, 3, L["restricted"][0])
                b.money(ws, rw, 5, r.get("attributed"), cur)
                notes = [said(b, "withheld_lines")]
            else:
                crit = f",{col('source_kind')},\"{kind}\"" if kind else ""
                text = "+".join(f"SUMIFS({col('for_formulas')},{col('basis')},\"{basis}\",{col('currency')},{{cur}}"
                                f"{crit})" for basis in bases)
                b.formula(ws, rw, 3, text, fm, cached=this, cur=ref(rw, 1))
                theirs, why = _others_cell(b, ws, rw, 4, cur, rows is not None, groups.get(cur),
                                           d["attributed"] - this, len(OTHER_HEADS))
                if why:
                    notes.append(said(b, why))
                attributed = this + theirs
                b.formula(ws, rw, 5, "{this}+{others}", fm, cached=attributed, this=ref(rw, 3), others=ref(rw, 4))
            items = r.get("unattributed_by_reason") or []
            top = reason_row
            for x in items:
                b.text(ws, reason_row, 1, cur)
                b.text(ws, reason_row, 2, x.get("reason"))
                b.text(ws, reason_row, 3, b.said(reason_label(x.get("reason", ""), "en"),
                                                 reason_label(x.get("reason", ""), "zh-CN")))
                b.text(ws, reason_row, 4, b.said(detail_label(x.get("detail", ""), "en"),
                                                 detail_label(x.get("detail", ""), "zh-CN")))
                b.money(ws, reason_row, 5, x.get("amount"), cur)
                reason_row += 1
            summed = sum((dec(x.get("amount")) or Decimal(0) for x in items), Decimal(0))
            if whole:
                b.money(ws, rw, 6, r.get("unattributed"), cur)
                b.money(ws, rw, 7, r.get("difference"), cur)  # the engine's check, as it said it
            elif any(is_withheld(x.get("amount")) for x in items):
                b.money(ws, rw, 6, r.get("unattributed"), cur)
                summed = d["unattributed"]
                notes.append(said(b, "withheld_reasons"))
            elif items:
                b.formula(ws, rw, 6, "SUM({a}:{z})", fm, cached=summed, a=ref(top, 5), z=ref(reason_row - 1, 5))
            else:
                b.formula(ws, rw, 6, "0", fm, cached=Decimal(0))
            if not whole:
                b.formula(ws, rw, 7, f"ROUND({{billed}}-({{att}}+{{un}}),{places(cur)})", "0.00",
                          cached=xround(d["billed_total"] - (attributed + summed), places(cur)),
                          billed=ref(rw, 2), att=ref(rw, 5), un=ref(rw, 6))
            b.money(ws, rw, 8, r.get("attributed"), cur)
            b.money(ws, rw, 9, r.get("unattributed"), cur)
            b.text(ws, rw, 10, "; ".join(notes))
        row = end + 1
    row = capacity(b, ws, row, c, lines, role, last, others_of(others, "capacity", batch))
    row = xlsx_noncash.write(b, ws, row, c)  # the non-cash bases' bucket, the labor-hours control
    b.text(ws, row, 1, c.get("rounding"))
    b.text(ws, row + 1, 1, c.get("rounding_zh"))


def _capacity_lines(lines: list, cap: dict, role: str) -> tuple[Decimal, bool]:
    """This batch's lines of capacity ``cap`` as the SUMIFS selects them (source kind "capacity", the
    rule naming the capacity, its basis and currency): their exact sum, and whether the role may not
    see one of them."""
    prefix = f"capacity {cap.get('capacity')} ("
    total, hidden = Decimal(0), False
    for ln in lines:
        p = ln.provenance
        if (p.source_kind == CAPACITY_KIND and p.rule.startswith(prefix) and str(ln.basis) == cap.get("basis")
                and ln.amount.currency == cap.get("currency")):
            total += Decimal(ln.amount.expected)
            hidden = hidden or line_withheld(ln, role)
    return total, hidden


def capacity(b: Book, ws, row: int, c: dict, lines: list, role: str, last: int,
             others: list[dict] | None = None) -> int:
    """Owned and reserved capacity: capacity cost = attributed (this batch's SUMIFS over Lines + the
    other batches' table) + no job held + jobs without a batch, as a formula that must show 0.00 beside
    the engine's difference (a capacity-only workspace has no bill: this is its control). Returns the
    next free row."""
    recs = c.get("capacity") or []
    if not recs:
        return row
    b.text(ws, row, 1, H("capacity_control"), bold=True)
    b.text(ws, row + 1, 1, said(b, "capacity_how"))
    occ = any("held_not_imported" in r for r in recs)  # a pool's occupancy series: its own column
    parts = ("unheld", "job_without_batch", *(("held_not_imported",) if occ else ()))
    heads = ["capacity_id", "basis", "currency", "capacity_total", "this_batch", "other_batches", "attributed",
             *parts, "formula", "computed", "note"]
    for i, k in enumerate(heads, 1):
        b.text(ws, row + 2, i, H(k), bold=True)
    first = row + 3
    groups: dict = {}
    if others is not None:
        ids = {(r.get("capacity"), r.get("currency")) for r in recs}
        rows = [x for x in others if (x.get("capacity"), x.get("currency")) in ids]
        end, groups = _other_rows(b, ws, first + len(recs) + 1, rows, role,
                                  ["capacity_id", "currency", "batch", "basis", "category", "amount"])
        # the table's own heads: the row's capacity id is in its first column
    else:
        end = first + len(recs) + 1
    crit = (f"SUMIFS({lines_range('for_formulas', last)},{lines_range('basis', last)},{{basis}},"
            f"{lines_range('currency', last)},{{cur}},{lines_range('source_kind', last)},\"{CAPACITY_KIND}\","
            f"{lines_range('rule', last)},\"capacity \"&{{id}}&\" (*\")")
    for n, r in enumerate(recs):
        rw, cur = first + n, r.get("currency", "")
        fm = money_format(cur)
        b.text(ws, rw, 1, r.get("capacity"))
        b.text(ws, rw, 2, r.get("basis"))
        b.text(ws, rw, 3, cur)
        b.money(ws, rw, 4, r.get("total"), cur)
        engine = dec(r.get("attributed")) or Decimal(0)
        this, hidden = _capacity_lines(lines, r, role)
        notes: list[str] = []
        if hidden or WILDCARD.search(str(r.get("capacity", ""))):  # the engine's figure, no formula
            b.text(ws, rw, 5, L["restricted"][0] if hidden else None)
            b.money(ws, rw, 7, r.get("attributed"), cur)
            notes.append(said(b, "withheld_lines" if hidden else "capacity_id_wildcard"))
            attributed = engine
        else:
            b.formula(ws, rw, 5, crit, fm, cached=this, basis=ref(rw, 2), cur=ref(rw, 3), id=ref(rw, 1))
            theirs, why = _others_cell(b, ws, rw, 6, cur, others is not None, groups.get((r.get("capacity"), cur)),
                                       engine - this, 6)
            if why:
                notes.append(said(b, why))
            attributed = this + theirs
            b.formula(ws, rw, 7, "{this}+{others}", fm, cached=attributed, this=ref(rw, 5), others=ref(rw, 6))
        for k, f in enumerate(parts):
            b.money(ws, rw, 8 + k, r.get(f) or "0", cur)
        col = 8 + len(parts)
        names = {f"p{k}": ref(rw, 8 + k) for k in range(len(parts))}
        summed = "+".join(f"{{{n}}}" for n in ("att", *names))
        total = dec(r.get("total")) or Decimal(0)
        rest = attributed + sum((dec(r.get(p)) or Decimal(0) for p in parts), Decimal(0))
        b.formula(ws, rw, col, f"ROUND({{total}}-({summed}),{places(cur)})", "0.00",
                  cached=xround(total - rest, places(cur)), total=ref(rw, 4), att=ref(rw, 7), **names)
        b.money(ws, rw, col + 1, r.get("difference"), cur)
        b.text(ws, rw, col + 2, "; ".join(notes))
    return end + 1
