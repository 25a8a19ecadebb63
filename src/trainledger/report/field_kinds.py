"""Which kind of restricted field (model/restricted.py) a field is, by its name or by the cost line
it belongs to: the kinds every access module reads (report/access.py for the sheet, plan_access.py,
web/views.py and web/pages.py for the dashboard's pages, the workbook's Lines and the CSV).

    AMOUNT_KEYS, mark_prices     a range's amounts; every key named as a unit price (``price_per_…``,
                                 ``unit_price``), wherever it is: unit_price
    pool_kind, line_kind         an allocation pool's kind by what it draws on; a cost line's: a labor
                                 line's amounts labor_cost_person (one timesheet row), an external
                                 line's vendor_amount
    line_withheld, lines_disclosure, line_fields
                                 a line's amounts for a role: the workbook's Lines, the CSV, a page's line
    source_values                a source row (lake or raw file): unit-price and rate columns are
                                 unit_price, an invoice's amount vendor_amount; its ``flags`` when a
                                 note quotes such a column
    quarantine_row, note_kind    a quarantined or flagged row (``quarantine_row``): its reason and remedy
                                 when they quote a unit price or rate (unit_price, or labor_rate in a labor
                                 table) or an invoice's amount (vendor_amount); its raw text for a bill or
                                 an invoice, or when its reason quotes one
"""

from __future__ import annotations

import re
from typing import Any

from trainledger.model.restricted import Disclosure, allows, restrict

PRICE_COLUMN = re.compile(r"(unit_?price|price|rate)$", re.I)
# A bill row's price terms beside its charge: list and contracted cost, a discount. With the row's
# quantity (FOCUS PricingQuantity 1 on an hourly node row) each is the list or contract price, and
# their gap the discount (review 7 L1), so they are unit_price wherever a source row is shown.
PRICE_TERM_COLUMN = re.compile(r"((list|contracted)_?cost|discount\w*|官网价\w*|原价\w*|优惠\w*|折扣\w*)$", re.I)
AMOUNT_KEYS = ("low", "expected", "high")
UNIT_PRICE_KEY = re.compile(r"(^|_)(price_per_|unit_price$)")


def mark_prices(obj: Any) -> Any:
    """Every field named as a unit price, wherever it is (``price_per_gpu_hour``, ``…_price_per_gib_month``,
    ``unit_price``): its value — or a ``{amount, currency}``'s amount — is unit_price."""
    if isinstance(obj, list):
        return [mark_prices(x) for x in obj]
    if not isinstance(obj, dict):
        return obj
    out = {}
    for k, v in obj.items():
        if isinstance(k, str) and UNIT_PRICE_KEY.search(k):
            out[k] = dict(v, amount=restrict(v.get("amount"), "unit_price")) if isinstance(v, dict) \
                else restrict(v, "unit_price")
        else:
            out[k] = mark_prices(v)
    return out


LINE_KINDS = {"labor": "labor_cost_person", "external": "vendor_amount"}
INVOICE_DETAIL = "invoice "  # an invoice's reason detail (engine/assets.py): its amount is the vendor's


def pool_kind(category: str, source_basis: str) -> str | None:
    """The kind of an allocation pool (and of a batch's share of it) drawn from ``category`` lines of
    ``source_basis``: an invoice's money is vendor_amount; labor (or internal cost, which is labor) is
    labor_cost_phase — a pool sums the timesheet rows of several people."""
    cats = set(category.split("+")) if category else set()
    if "external" in cats:
        return "vendor_amount"
    if "labor" in cats or source_basis == "internal":
        return "labor_cost_phase"
    return None


def line_kind(ln) -> str | None:
    if ln.category == "allocation":  # provenance.rule = allocation/<policy>/<category> (engine/allocation.py)
        return pool_kind(ln.provenance.rule.split("/")[2] if ln.provenance.rule.count("/") >= 2 else "",
                         ln.detail.rpartition("/")[2])
    return LINE_KINDS.get(ln.category)


def line_withheld(ln, role: str) -> bool:
    """True when ``role`` may not see this ``CostLine``'s amounts (the workbook's Lines, the CSV)."""
    kind = line_kind(ln)
    return kind is not None and not allows(role, kind)


def lines_disclosure(lines: list, role: str) -> Disclosure:
    """What listing ``lines`` whole (the workbook's Lines, the CSV) shows and withholds for ``role``."""
    d = Disclosure(role)
    for ln in lines:
        kind = line_kind(ln)
        if kind:
            (d.revealed if allows(role, kind) else d.withheld)[kind] += 1
    return d


def line_fields(d: dict[str, Any], line) -> dict[str, Any]:
    """A cost line's dict (web/views.py ``line_dict``) with its amounts marked; ``line`` is the
    ``CostLine`` (or its category)."""
    kind = LINE_KINDS.get(line) if isinstance(line, str) else line_kind(line)
    if not kind:
        return d
    return dict(d, **{k: restrict(d.get(k), kind) for k in AMOUNT_KEYS if k in d})


def source_values(values: dict[str, Any] | None, kind: str) -> dict[str, Any] | None:
    """A source row's values (lake or raw file) with unit-price and rate columns marked, and an
    invoice's amount; its ``flags`` too when a note quotes one of them (``note_kind``)."""
    if values is None:
        return None
    out = {}
    for k, v in values.items():
        if PRICE_COLUMN.search(key := k.replace(" ", "")) or (kind != "invoice" and PRICE_TERM_COLUMN.search(key)):
            out[k] = restrict(v, "unit_price")
        elif kind == "invoice" and k.lower() in ("amount", "amount_text"):
            out[k] = restrict(v, "vendor_amount")
        elif k == "flags" and isinstance(v, str) and (nk := notes_kind(_flag_notes(v), _table(kind))):
            out[k] = restrict(v, nk)
        else:
            out[k] = v
    return out


# --- a quarantined or flagged row's reason (web/pages.py quarantine, a source row's flags) ---------
NOTE_COLUMN = re.compile(r"\s*([^:：]{1,80}?)\s*[:：]")  # "ContractedUnitPrice: not a number: '3,17.29'"
ZH_PRICE_COLUMN = re.compile(r"(单价|费率|价格)")
RAW_KINDS = {"bill_lines": "unit_price", "external_services": "vendor_amount"}  # a whole raw row of these tables
STRICTEST = ("labor_rate", "unit_price", "labor_cost_person", "vendor_amount")  # the fewest roles see the first
REASON_KEYS = ("reason", "reason_zh", "remedy", "remedy_zh")


def note_column(note: str) -> str | None:
    """The column a quarantine reason or a row flag is about (its label before the colon), if any."""
    m = NOTE_COLUMN.match(note)
    return m.group(1) if m else None


def note_kind(note: str, table: str | None) -> str | None:
    """The restricted kind of a reason or flag that quotes a sensitive column's value: a unit-price or
    rate column (``ContractedUnitPrice``, ``ListPrice``, ``单价``) is unit_price — labor_rate in a labor
    table —, an invoice's amount vendor_amount; None for any other column."""
    col = note_column(note)
    if col is None:
        return None
    flat = col.replace(" ", "")
    if PRICE_COLUMN.search(flat) or ZH_PRICE_COLUMN.search(flat):
        return "labor_rate" if table == "labor_entries" else "unit_price"
    if table == "external_services" and flat.lower() in ("amount", "amount_text"):
        return "vendor_amount"
    return None


def notes_kind(notes: list[str], table: str | None) -> str | None:
    """The strictest kind among ``notes``' (a reason is one note, a flagged row's reason joins them)."""
    kinds = {k for n in notes if (k := note_kind(n, table))}
    return next((k for k in STRICTEST if k in kinds), None)


def quarantine_row(row: dict[str, Any], table: str | None) -> dict[str, Any]:
    """A quarantined or flagged row of an import (web/pages.py) marked for every renderer: its reason
    and remedy, both languages, when they quote a sensitive column's value (``note_kind``), and its
    raw text when the table's rows carry prices or amounts (``RAW_KINDS``) or the reason quotes one;
    ``columns`` (the columns the reason names) stays readable, so a role that may not see the value
    still learns which column to fix."""
    notes = [str(n) for n in row.get("notes") or []] or [str(row.get("reason") or "")]
    kind = notes_kind(notes, table)
    out = dict(row, columns=[c for n in notes if (c := note_column(n))])
    out.pop("notes", None)
    if kind:
        out.update({k: restrict(row[k], kind) for k in REASON_KEYS if row.get(k) is not None})
    raw_kind = next((k for k in STRICTEST if k in {kind, RAW_KINDS.get(table or "")}), None)
    if "raw" in row and raw_kind:
        out["raw"] = restrict(row["raw"], raw_kind)
    return out


def _flag_notes(text: str) -> list[str]:
    import json

    try:
        notes = json.loads(text) if text.startswith("[") else [text]
    except ValueError:
        return [text]
    return [str(n) for n in notes] if isinstance(notes, list) else [text]


def _table(kind: str) -> str | None:
    from trainledger.ingest import KIND_TABLES

    return KIND_TABLES.get(kind)
