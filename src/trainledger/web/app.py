"""The dashboard as a Starlette app: one route per view model, HTML or JSON by ``Accept``.

``create_app(root)`` serves the workspace at ``root`` read-only: every request opens the workspace,
builds its view model (web/views.py) and closes it, so a running ``import`` or ``attribute`` is seen
on the next request. ``Accept: application/json`` (or ``?format=json``) returns the view model; any
other request gets the server-rendered page. Errors from errors.py keep their HTTP status and
their remedy, in both forms. Only GET (and HEAD) are routed: this slice has no write endpoint.
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from trainledger import fmt
from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.model.vocab import label
from trainledger.web import text, views

LOOPBACK_NAMES = ("localhost",)


def check_host(host: str, *, allow_remote: bool) -> None:
    """Loopback only: any other address needs tokens, which this version does not have yet."""
    if host in LOOPBACK_NAMES:
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    if not allow_remote:
        raise BadInput(f"--host {host} is not a loopback address; the dashboard has no access control yet",
                       remedy="serve on 127.0.0.1 (the default) and reach it through an SSH tunnel;"
                              " binding another address will need --allow-remote and tokens")
    raise BadInput(f"--allow-remote needs tokens (`Authorization: Bearer TOKEN`), which come in a later"
                   f" version; refusing to serve {host} without them",
                   remedy="serve on 127.0.0.1 for now / 目前请绑定回环地址 127.0.0.1，令牌功能尚未提供")


def _env() -> Environment:
    return Environment(loader=PackageLoader("trainledger.web", "templates"),
                       autoescape=select_autoescape(["html", "j2"]))


def wants_json(request: Request) -> bool:
    if request.query_params.get("format") == "json":
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


_DECIMAL = re.compile(r"-?\d+\.\d+")
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.S)


def embed_sheet(html: str) -> tuple[str, str]:
    """The style and the body of report/render.py's page, to place inside the dashboard's layout."""
    style = _STYLE.search(html)
    body = _BODY.search(html)
    return (style.group(1) if style else ""), (body.group(1) if body else html)


def create_app(root: str | Path, *, default_lang: str | None = None) -> Starlette:
    from trainledger.service import Workspace

    root = Path(root)
    env = _env()

    def lang_of(request: Request) -> str:
        return text.choose(request.query_params.get("lang"), request.cookies.get(text.COOKIE),
                           request.headers.get("accept-language"), default_lang or "en")

    def respond(request: Request, template: str, model: dict[str, Any], status: int = 200, **extra) -> Response:
        lang = lang_of(request)
        if wants_json(request):
            resp: Response = JSONResponse(model, status_code=status)
        else:
            page = env.get_template(template).render(
                m=model, lang=lang, t=lambda k: text.t(k, lang), v=lambda x: label(x, lang) if x else "",
                amount=lambda x, cur: fmt.amount(x, cur), qty=lambda x: "" if x is None else fmt.quantity(x),
                isdec=lambda x: isinstance(x, str) and _DECIMAL.fullmatch(x) is not None,
                path=request.url.path, **extra)
            resp = HTMLResponse(page, status_code=status)
        if request.query_params.get("lang") and text.normal(request.query_params["lang"]):
            resp.set_cookie(text.COOKIE, lang, samesite="lax", httponly=True)
        resp.headers["Content-Language"] = lang
        resp.headers["Vary"] = "Accept, Accept-Language, Cookie"
        return resp

    def page(build, template: str):
        def endpoint(request: Request) -> Response:
            with Workspace.open(root) as wsp:
                model = build(wsp, request)
            extra = {}
            if template == "batch.html.j2" and not wants_json(request):
                from trainledger.report.render import to_html

                extra["sheet_style"], extra["sheet_body"] = embed_sheet(to_html(model["sheet"], lang_of(request)))
            if template == "report.html.j2" and "html" in model:
                extra["report_style"], extra["report_body"] = embed_sheet(model.pop("html"))
            return respond(request, template, model, **extra)
        return endpoint

    def row_of(request: Request) -> int:
        raw = request.path_params["row"]
        if not raw.isdigit() or int(raw) < 1:
            raise BadInput(f"row {raw!r} is not a row number", remedy="rows are numbered from 1 (header excluded)")
        return int(raw)

    def error(request: Request, exc: Exception) -> Response:
        if isinstance(exc, TrainledgerError):
            status, message, remedy = exc.http_status, exc.message, exc.remedy
        elif isinstance(exc, HTTPException):
            status, message, remedy = exc.status_code, exc.detail or "", "see /batches, or /api/openapi.json"
            if status == 404:
                message = f"no page at {request.url.path}"
        else:
            raise exc
        from trainledger.i18n import ZH, localize  # the English as written, and its Chinese beside it

        zh = (exc.where(ZH) + localize(exc.detail, ZH)) if isinstance(exc, TrainledgerError) else localize(message, ZH)
        model = {"error": {"status": status, "message": message, "remedy": remedy, "message_zh": zh,
                           "remedy_zh": localize(remedy, ZH) if remedy else None}}
        return respond(request, "error.html.j2", model, status=status)

    def openapi(request: Request) -> Response:
        return JSONResponse(OPENAPI)

    routes = [
        Route("/", lambda r: Response(status_code=307, headers={"location": "/batches"}), methods=["GET"]),
        Route("/batches", page(lambda w, r: views.batches(w), "batches.html.j2"), methods=["GET"]),
        Route("/batches/{batch}", page(lambda w, r: views.batch(w, r.path_params["batch"]), "batch.html.j2"),
              methods=["GET"]),
        Route("/batches/{batch}/runs/{run}",
              page(lambda w, r: views.run(w, r.path_params["batch"], r.path_params["run"]), "run.html.j2"),
              methods=["GET"]),
        Route("/batches/{batch}/status",
              page(lambda w, r: views.plan_status(w, r.path_params["batch"]), "status.html.j2"), methods=["GET"]),
        Route("/lines/{line}", page(lambda w, r: views.line(w, r.path_params["line"]), "line.html.j2"),
              methods=["GET"]),
        Route("/sources/{import}/{row}",
              page(lambda w, r: views.source(w, r.path_params["import"], row_of(r)), "source.html.j2"),
              methods=["GET"]),
        Route("/report", page(lambda w, r: views.report(w, r.query_params, lang_of(r), html=not wants_json(r)),
                              "report.html.j2"), methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={TrainledgerError: error, HTTPException: error,
                                                         NotFound: error, BadInput: error})


def _op(summary: str, params: list[str], schema_ref: str) -> dict[str, Any]:
    return {"get": {
        "summary": summary,
        "parameters": [{"name": p, "in": "path", "required": True,
                        "schema": {"type": "integer", "minimum": 1} if p == "row" else {"type": "string"}}
                       for p in params] + [
            {"name": "lang", "in": "query", "required": False, "schema": {"type": "string", "enum": list(text.LANGS)}}],
        "responses": {
            "200": {"description": "the view model (JSON) or the page (HTML)",
                    "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema_ref}"}},
                                "text/html": {"schema": {"type": "string"}}}},
            **({"404": {"description": "unknown id; the body names the remedy",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                "400": {"description": "malformed id",
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}
               if params else {}),
        }}}


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
        "/batches/{batch}/status": _op("plan status (AC, EV, EAC, alerts), variance review and decisions",
                                       ["batch"], "Status"),
        "/lines/{line}": _op("one cost line with its provenance (IMPORT-ROW-N)", ["line"], "Line"),
        "/sources/{import}/{row}": _op("one imported source row, its values and the rules that used it",
                                       ["import", "row"], "Source"),
        "/report": _op("the cross-batch report (report/cross.py; ?project= ?from= ?to= ?by=), totals per basis"
                       " of every batch and the conservation check", [], "Report"),
    },
    "components": {"schemas": {
        "Batches": {**_OBJ, "required": ["batches"], "properties": {"batches": {"type": "array", "items": _OBJ}}},
        "Batch": {**_OBJ, "required": ["batch", "runs", "sheet"]},
        "Run": {**_OBJ, "required": ["batch", "run", "by_state", "retry_chains"]},
        "Status": {**_OBJ, "required": ["batch", "status", "review", "decisions"]},
        "Line": {**_OBJ, "required": ["id", "basis", "expected", "currency", "provenance"]},
        "Source": {**_OBJ, "required": ["import", "file", "row", "values", "rules"]},
        "Report": {**_OBJ, "required": ["batches", "report"]},
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


def openapi_text() -> str:
    return json.dumps(OPENAPI, indent=2)
