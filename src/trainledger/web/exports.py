"""The dashboard's ledger pages as CSV files, for one role.

    GET /imports/{import}/quarantine.csv   one import's quarantined and flagged rows (web/pages.py
                                           ``quarantine``): status, file, row, line, the columns the
                                           reason names, reason and remedy in en and zh-CN, raw text

The file is the page's view model resolved for the requester's role, as the HTML and the JSON are
(report/field_kinds.py ``quarantine_row``: a reason quoting a unit price, a rate or an invoice's amount, and a
bill's or invoice's raw text, read "restricted"), and a response that showed a restricted field is
audited the same way. Formula-injection safe: every cell goes through report/csv_lines.py ``cell``.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response

from trainledger.model.restricted import resolve
from trainledger.report.csv_lines import cell
from trainledger.web import auth, pages

QUARANTINE_COLUMNS = ("status", "file", "row", "line", "columns", "reason", "reason_zh", "remedy", "remedy_zh",
                      "raw")


def quarantine_csv(model: dict[str, Any]) -> str:
    """The rows of a resolved quarantine view model, quarantined first, then flagged."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(QUARANTINE_COLUMNS)
    for status, rows in (("quarantined", model["quarantined_rows"]), ("flagged", model["flagged_rows"])):
        for r in rows:
            values = {**r, "status": status, "columns": ";".join(r.get("columns") or [])}
            w.writerow([cell(values.get(k)) for k in QUARANTINE_COLUMNS])
    return out.getvalue()


def quarantine_download(root: Path, *, require_token: bool):
    """The endpoint of ``/imports/{import}/quarantine.csv``: a page across batches (a batch-scoped
    token may not open it, as the HTML page)."""
    from trainledger.service import Workspace

    def endpoint(request: Request) -> Response:
        ident = request.path_params["import"]
        with Workspace.open(root) as wsp:
            acc = auth.access_of(request.headers, wsp.ledger, require_token=require_token)
            auth.check_scope(acc, None, request.url.path)
            with auth.GATE.reading():
                model = pages.quarantine(wsp, ident)
            shown, seen = resolve(model, acc.role, "en")
            auth.audit_reveal(wsp.ledger, acc, request.url.path, seen)
        resp = Response(quarantine_csv(shown), media_type="text/csv; charset=utf-8")
        resp.headers["Content-Disposition"] = f'attachment; filename="quarantine-{quote(ident)}.csv"'
        return resp
    return endpoint
