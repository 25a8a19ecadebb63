"""/api/openapi.json: the dashboard's paths, their parameters and answers, and the JSON shape of each
view model (web/openapi_models.py: inferred from the view models' real answers, stored in
openapi_models.json, checked both ways by tests/web/test_openapi_models.py).

Every page path answers HTML, or its view model as JSON for ``Accept: application/json`` or
``?format=json``; ``?lang=en|zh-CN`` picks the language (then a cookie, then Accept-Language). A money
field a role may not see reads "restricted".
"""

from __future__ import annotations

import json
from typing import Any

from trainledger.model import FailureCause
from trainledger.web import openapi_models, pages, text

DOWNLOADS = {"md": "text/markdown; charset=utf-8", "json": "application/json", "html": "text/html; charset=utf-8",
             "csv": "text/csv; charset=utf-8",
             "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def _op(summary: str, params: list[str], schema_ref: str) -> dict[str, Any]:
    return {"get": {
        "summary": summary,
        "parameters": [{"name": p, "in": "path", "required": True,
                        "schema": {"type": "integer", "minimum": 1} if p == "row" else {"type": "string"}}
                       for p in params] + [
            *QUERY],
        "responses": {
            "200": {"description": "the view model as JSON (`Accept: application/json`, or `?format=json`), else"
                                   " the page as HTML; a field the token's role may not see reads \"restricted\""
                                   " and `access` names what was withheld",
                    "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}},
                                "text/html": {"schema": {"type": "string"}}}},
            "401": {"description": "no token, or a bad, expired or revoked one (`Authorization: Bearer TOKEN`)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            "403": {"description": "a batch-scoped token asked for another batch",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            **({"404": {"description": "unknown id; the body names the remedy",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "400": {"description": "malformed id",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}
               if params else {}),
            "409": {"description": "the ledger does not match its audit chain (its seal failed): no page is served"
                                   " from it until it is proved again",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            "503": {"description": "the page was still being built for the ledger's current state after the"
                                   " request waited for that build (web/cache.py ``BUILD_WAIT``): try again"
                                   " after `Retry-After` seconds",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
        }}}


QUERY = [  # what every page takes besides its path
    {"name": "lang", "in": "query", "required": False, "schema": {"type": "string", "enum": list(text.LANGS)},
     "description": "the language of the page and of its texts (then the `trainledger_lang` cookie, then"
                    " Accept-Language)"},
    {"name": "format", "in": "query", "required": False, "schema": {"type": "string", "enum": ["json"]},
     "description": "the view model as JSON, as `Accept: application/json` asks"},
    {"name": "Accept", "in": "header", "required": False, "schema": {"type": "string"},
     "description": "`application/json` (without `text/html`): the view model; anything else: the HTML page"}]


_OBJ = {"type": "object"}
OPENAPI: dict[str, Any] = {
    "openapi": "3.0.3",
    "info": {"title": "trainledger dashboard (read-only)", "version": "1",
             "description": "Every path returns HTML, or its view model with `Accept: application/json`."
                            " Money is decimal text with a currency; totals are per basis, never summed across"
                            " bases."},
    "paths": {
        "/batches": _op("training batches with totals per basis", [], "Batches"),
        "/batches/{batch}": _op("one batch's cost sheet (report/sheet.py) and its runs", ["batch"], "Batch"),
        "/batches/{batch}/runs/{run}": _op("one run: cost lines by state, retry chain", ["batch", "run"], "Run"),
        "/batches/{batch}/sheet.{fmt}": {"get": {
            "summary": "the batch sheet as a file (md, json, html, xlsx; csv: its cost lines), for the token's role",
            "parameters": [{"name": "batch", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "fmt", "in": "path", "required": True,
                            "schema": {"type": "string", "enum": list(DOWNLOADS)}},
                           {"name": "lang", "in": "query", "required": False,
                            "schema": {"type": "string", "enum": list(text.LANGS)},
                            "description": "md, html: the file's language (then the cookie, then Accept-Language);"
                                           " xlsx: only this parameter makes a one-language workbook, as"
                                           " `trainledger sheet --lang` — without it the labels are English and"
                                           " Chinese side by side, as the command line and the demo write it"}],
            "responses": {"200": {"description": "the file",
                                  "content": {t: {"schema": {"type": "string"}} for t in DOWNLOADS.values()}},
                          **{str(c): {"description": d, "content": {"application/json": {
                              "schema": {"$ref": "#/components/schemas/Error"}}}}
                             for c, d in ((401, "no or a bad token"), (403, "outside the token's batch"),
                                          (404, "unknown batch or format"))}}}},
        "/batches/{batch}/status": _op("plan status (AC, EV, EAC, alerts), variance review and decisions",
                                       ["batch"], "Status"),
        "/lines/{line}": _op("one cost line with its provenance (IMPORT-ROW-N)", ["line"], "Line"),
        "/sources/{import}/{row}": _op("one imported source row, its values and the rules that used it",
                                       ["import", "row"], "Source"),
        "/report": _op("the cross-batch report (report/cross.py; ?project= ?from= ?to= ?by=), totals per basis"
                       " of every batch and the conservation check", [], "Report"),
    },
    "security": [{"bearer": []}, {}],
    "components": {"securitySchemes": {"bearer": {
        "type": "http", "scheme": "bearer",
        "description": "`trainledger token create --role admin|finance|engineer|viewer [--batch B]`; on loopback"
                       " without a token the local user is admin. Restricted fields (labor rates, per-role labor"
                       " cost, unit prices, vendor amounts) read \"restricted\" unless the role may see them."}},
                   "schemas": {
        **openapi_models.documented(),  # Batches, Batch, Run, Line, Source, Status, Report
        "Error": {**_OBJ, "required": ["error"], "properties": {"error": {
            **_OBJ, "properties": {"status": {"type": "integer"}, "message": {"type": "string"},
                                   "remedy": {"type": "string", "nullable": True},
                                   "message_zh": {"type": "string"},
                                   "remedy_zh": {"type": "string", "nullable": True}}}}},
    }},
}


OPENAPI["paths"]["/report"]["get"]["parameters"] += [  # as `trainledger report` takes them
    {"name": "project", "in": "query", "required": False, "schema": {"type": "string"}},
    {"name": "from", "in": "query", "required": False, "schema": {"type": "string", "example": "2026-11"}},
    {"name": "to", "in": "query", "required": False, "schema": {"type": "string", "example": "2026-11-30"}},
    {"name": "by", "in": "query", "required": False, "schema": {"type": "string", "enum": ["month", "batch"]}}]


def _post(summary: str, params: list[str], fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A write: its form (or JSON object) fields, the CSRF token as a field or a header, its answers."""
    body = {**_OBJ, "required": required, "properties": {
        "csrf": {"type": "string", "description": "the CSRF token (GET /api/csrf, or the page's form)"}, **fields}}
    err = {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}
    return {"post": {
        "summary": summary,
        "parameters": [{"name": p, "in": "path", "required": True, "schema": {"type": "string"}} for p in params] + [
            {"name": "X-CSRF-Token", "in": "header", "required": False, "schema": {"type": "string"}}],
        "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": body},
                                                      "application/json": {"schema": body}}},
        "responses": {
            "201": {"description": "written (Accept: application/json): the record, as the CLI's --json prints it",
                    "content": {"application/json": {"schema": _OBJ}}},
            "303": {"description": "written (a page's form): back to the page"},
            "400": {"description": "a field is missing or wrong (the service's own check); nothing written", **err},
            "401": {"description": "no token where one is needed, or a bad one", **err},
            "403": {"description": "no or a wrong CSRF token; a role that may not write this; outside the token's"
                                   " batch", **err},
            "404": {"description": "unknown batch or run", **err}}}}


_TEXT = {"type": "string"}
OPENAPI["paths"].update({  # the ledger's pages and the two writes (web/pages.py, web/writes.py)
    "/imports": _op("every import: kind, file, content hash, rows read / accepted / duplicates / quarantined,"
                    " status, drop and replacement", [], "Imports"),
    "/imports/{import}/quarantine": _op("one import's quarantined rows (file, row, reason in en and zh-CN, raw"
                                        " text) and flagged rows", ["import"], "Quarantine"),
    "/imports/{import}/quarantine.csv": {"get": {
        "summary": "one import's quarantined and flagged rows as CSV, for the token's role (web/exports.py)",
        "parameters": [{"name": "import", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "the file", "content": {"text/csv": {"schema": {"type": "string"}}}},
                      **{str(c): {"description": d, "content": {"application/json": {
                          "schema": {"$ref": "#/components/schemas/Error"}}}}
                         for c, d in ((401, "no or a bad token"), (403, "a batch-scoped token"),
                                      (404, "unknown import"))}}}},
    "/alerts": _op("alerts open and closed, each with the decision that closed it (?batch=)", [], "Alerts"),
    "/batches/{batch}/decisions": {
        **_op("the batch's decisions, the alerts each closed, and the open alerts", ["batch"], "Decisions"),
        **_post("record a decision (continue, shrink, stop, or retarget to a child batch), as `trainledger decide`"
                " (roles admin, finance)", ["batch"], {
            "action": {"type": "string", "enum": list(pages.DECISION_ACTIONS)}, "reason": _TEXT, "by": _TEXT,
            "approver": _TEXT, "answers": {"type": "array", "items": {"type": "integer"}},
            "next_review": {"type": "string", "format": "date"},
            "child": {"type": "string", "description": "retarget only: the child batch (`decide --child`)"}},
            ["action", "reason", "by"])},
    "/batches/{batch}/runs/{run}/cause": _post(
        "confirm or set a run's failure cause, as `trainledger runs confirm` (roles admin, engineer)",
        ["batch", "run"], {"cause": {"type": "string", "enum": [c.value for c in FailureCause]},
                           "by": _TEXT, "note": _TEXT}, ["cause", "by"]),
    "/api/csrf": {"get": {"summary": "the CSRF token of this bearer token or session cookie (sets the cookie)",
                          "responses": {"200": {"description": "the token", "content": {"application/json": {
                              "schema": {**_OBJ, "required": ["csrf"], "properties": {"csrf": _TEXT}}}}}}}},
})
OPENAPI["paths"]["/alerts"]["get"]["parameters"].append(
    {"name": "batch", "in": "query", "required": False, "schema": {"type": "string"}})
OPENAPI["components"]["schemas"].update({
    "Imports": {**_OBJ, "required": ["imports"]},
    "Quarantine": {**_OBJ, "required": ["import", "quarantined_rows", "flagged_rows"]},
    "Alerts": {**_OBJ, "required": ["alerts", "open", "closed"]},
    "Decisions": {**_OBJ, "required": ["batch", "decisions", "open_alerts"]},
})
OPENAPI["info"]["title"] = "trainledger dashboard"
OPENAPI["info"]["description"] += (" Two writes (POST, with a CSRF token): a decision (admin, finance) and a run's"
                                   " failure cause (admin, engineer); each is in the hash-chained audit log.")


def openapi_text() -> str:
    return json.dumps(OPENAPI, indent=2)
