"""A batch's cost lines as CSV (``trainledger sheet BATCH --format csv``), for one role.

The columns are those of the workbook's Lines sheet (report/xlsx.py): amounts, quantity, run, detail
and the provenance of each line (source file hash; ``import_key``, the import the row came through —
64 hex digits, its first 12 the id ``imports list`` shows, empty for a line of no import —; row;
rule). The header is the columns' keys (what a script reads); the workbook heads them in both
languages. Amounts a role may not see (a labor line is one person's hours × a rate; an external
line is a vendor's amount) read "restricted".

Formula-injection safe: a cell that starts with ``=`` ``+`` ``-`` ``@`` (or a tab / carriage return)
and is not a plain number gets a leading apostrophe, so a spreadsheet opening the file shows it as
text and never runs it. Negative amounts stay numbers.
"""

from __future__ import annotations

import csv
import io
import re
from typing import Any

from trainledger.model.restricted import ADMIN, WORD, check_role
from trainledger.report import primitives as prim
from trainledger.report.field_kinds import line_withheld

COLUMNS = ("category", "basis", "evidence", "low", "expected", "high", "currency", "quantity", "unit", "batch",
           "run", "detail", "source_kind", "source_sha256", "import_key", "row", "rule", "reason")
NUMBER = re.compile(r"-?\d+(\.\d+)?")


def cell(value: Any) -> str:
    text = "" if value is None else str(value)
    if text[:1] in ("=", "+", "-", "@", "\t", "\r") and not NUMBER.fullmatch(text):
        return "'" + text
    return text


def to_csv(lines: list, role: str = ADMIN) -> str:
    check_role(role)
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLUMNS)
    for ln in lines:
        hide = line_withheld(ln, role)
        a, p = ln.amount, ln.provenance
        amounts = [WORD[0]] * 3 if hide else [format(a.low, "f"), format(a.expected, "f"), format(a.high, "f")]
        w.writerow([cell(x) for x in (
            ln.category, str(ln.basis), str(ln.evidence), *amounts, a.currency,
            "" if ln.quantity is None else prim.rounded_quantity(ln.quantity, prim.EXACT_PLACES),  # ≤ 12 places
            ln.unit, ln.batch_id, ln.run_id, ln.detail,
            p.source_kind, p.source_sha256, p.import_key, p.row, p.rule, ln.reason)])
    return out.getvalue()
