"""The dashboard as a Starlette app: one route per view model, HTML or JSON by ``Accept``.

``create_app(root)`` serves the workspace at ``root`` read-only: a request reads the ledger's state
(web/cache.py: the newest audit entry that changed a figure, the config's stat, the date); a page
not yet built for that state opens the workspace, builds its view model (web/views.py) and closes
it, so a finished ``import``, ``attribute``, decision or token change is seen on the next request.
The role-independent view model and each rendered body (per role, scope, language and form) are
kept in bounded LRU caches for that state. ``Accept: application/json`` (or ``?format=json``)
returns the view model; any other request gets the server-rendered page. Errors from errors.py
keep their HTTP status and their remedy, in both forms. Two writes are routed (web/writes.py): a
decision and a run's failure-cause confirmation, POSTed with a CSRF token and a role that may make
them; a page with a write form is rendered per request (its CSRF token is the session's), from the
cached view model; every other path is GET (and HEAD) only (docs/web.md).

Access (web/auth.py): every page knows who asks — a bearer token's role and batch scope, or the
local ``admin`` on loopback — and prints its view model resolved for that role (model/restricted.py:
a restricted field becomes "restricted" / "受限" in HTML and JSON alike); a response that showed a
restricted field is recorded in the audit log. A batch-scoped token gets 403 outside its batch.
"""

from __future__ import annotations

import ipaddress
import json
import re
import secrets
from pathlib import Path
from typing import Any
from urllib.parse import quote

from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from trainledger import fmt
from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.i18n import localize
from trainledger.ledger.tokens import TokenRefused
from trainledger.model import FailureCause
from trainledger.model.restricted import note as access_note
from trainledger.model.restricted import resolve
from trainledger.model.vocab import label
from trainledger.report.i18n import t as sheet_t
from trainledger.report.primitives import unit as unit_text
from trainledger.review.texts import label as review_label
from trainledger.review.texts import t as review_t
from trainledger.web import auth, cache, exports, line_text, pages, text, views, writes
from trainledger.web.rule_text import rule_sentence

LOOPBACK_NAMES = ("localhost",)
DOWNLOADS = {"md": "text/markdown; charset=utf-8", "json": "application/json", "html": "text/html; charset=utf-8",
             "csv": "text/csv; charset=utf-8",
             "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"}


def is_loopback(host: str) -> bool:
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str, *, allow_remote: bool) -> bool:
    """Whether requests must carry a token: False on loopback (the local user is admin), True on any
    other address, which must be asked for with ``--allow-remote``."""
    if is_loopback(host):
        return False
    if not allow_remote:
        raise BadInput(f"--host {host} is not a loopback address; other machines would reach the dashboard",
                       remedy="serve on 127.0.0.1 (the default) and reach it through an SSH tunnel, or pass"
                              " --allow-remote: then every request needs a token (`trainledger token create`)"
                              " / 默认只绑定回环地址；--allow-remote 时每个请求都须携带令牌")
    return True


def _env() -> Environment:
    env = Environment(loader=PackageLoader("trainledger.web", "templates"),
                      autoescape=select_autoescape(["html", "j2"]))
    env.globals["failure_causes"] = [c.value for c in FailureCause]
    env.filters["when"] = when
    return env


def when(text: Any) -> str:
    """An ISO timestamp as people read it, to the minute in UTC (``2026-12-01 15:17 UTC``); the JSON
    keeps the full value. Anything else as it is."""
    from datetime import UTC, datetime

    try:
        at = datetime.fromisoformat(str(text))
    except ValueError:
        return "" if text is None else str(text)
    return f"{(at if at.tzinfo else at.replace(tzinfo=UTC)).astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def wants_json(request: Request) -> bool:
    if request.query_params.get("format") == "json":
        return True
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def accepts_gzip(request: Request) -> bool:
    """Whether the client takes ``Content-Encoding: gzip`` (every browser says so)."""
    return any(part.split(";")[0].strip() == "gzip" and not part.replace(" ", "").endswith(";q=0")
               for part in request.headers.get("accept-encoding", "").split(","))


_DECIMAL = re.compile(r"-?\d+\.\d+")
_STYLE = re.compile(r"<style>(.*?)</style>", re.S)
_BODY = re.compile(r"<body[^>]*>(.*)</body>", re.S)


def embed_sheet(html: str) -> tuple[str, str]:
    """The style and the body of report/render.py's page, to place inside the dashboard's layout."""
    style = _STYLE.search(html)
    body = _BODY.search(html)
    return (style.group(1) if style else ""), (body.group(1) if body else html)


def create_app(root: str | Path, *, default_lang: str | None = None, require_token: bool = False) -> Starlette:
    from trainledger.service import Workspace

    root = Path(root)
    env = _env()
    csrf = auth.Csrf()
    cached = cache.Pages(root)
    placeholder = secrets.token_hex(32)  # where a kept form page's CSRF token goes (``page``), unguessable

    def lang_of(request: Request) -> str:
        return text.choose(request.query_params.get("lang"), request.cookies.get(text.COOKIE),
                           request.headers.get("accept-language"), default_lang or "en")

    def body_of(request: Request, template: str, model: dict[str, Any], **extra) -> bytes:
        """The response body: the view model as JSON, or the page rendered from ``template``."""
        if wants_json(request):
            return JSONResponse(model).body
        lang = lang_of(request)
        extra.setdefault("access", None)
        extra.setdefault("access_note", "")
        return env.get_template(template).render(
            m=model, lang=lang, t=lambda k: text.t(k, lang), v=lambda x: label(x, lang) if x else "",
            c=lambda prefix, x: text.coded(prefix, x, lang), loc=lambda x: localize(x, lang) if x else "",
            amount=lambda x, cur: fmt.amount(x, cur), qty=lambda x: "" if x is None else fmt.quantity(x),
            isdec=lambda x: isinstance(x, str) and _DECIMAL.fullmatch(x) is not None,
            rt=lambda k, **kw: review_t(k, lang, **kw), rl=lambda x: review_label(x, lang) if x else "",
            L=lambda k: sheet_t(k, lang), u=lambda x: unit_text(x, lang), rule=lambda x: rule_sentence(x, lang),
            line_qty=line_text.quantity, line_amount=line_text.amount,
            line_detail=lambda x: line_text.detail(x, lang), line_reason=lambda x: line_text.reason(x, lang),
            path=request.url.path,
            **extra).encode("utf-8")

    def respond(request: Request, template: str, model: dict[str, Any] | None, status: int = 200,
                body: bytes | None = None, zipped: bytes | None = None, **extra) -> Response:
        """``zipped``: ``body`` gzipped once (web/cache.py ``gzipped``), sent to a client that accepts it."""
        lang = lang_of(request)
        if body is None:
            body = body_of(request, template, model or {}, **extra)
        resp = Response(body if zipped is None else zipped, status_code=status,
                        media_type="application/json" if wants_json(request) else "text/html; charset=utf-8")
        if zipped is not None:
            resp.headers["Content-Encoding"] = "gzip"
        if request.query_params.get("lang") and text.normal(request.query_params["lang"]):
            resp.set_cookie(text.COOKIE, lang, samesite="lax", httponly=True)
        resp.headers["Content-Language"] = lang
        resp.headers["Vary"] = "Accept, Accept-Language, Accept-Encoding, Cookie"
        return resp

    def page(build, template: str, scope=None, *, shared: bool = True, form: bool = False):
        """``scope(request)``: the batch the page belongs to, checked before it is built; None
        (the default): a page across batches, which a batch-scoped token may not open;
        ``views.scoped``: the page filters itself to the token's batch (views.scope_model).
        The view model is cached per ledger state (web/cache.py), the rendered body per role,
        scope, language and form; ``shared=False``: the builder reads the language and form too.
        ``form``: the page carries a write form (its CSRF token, and which writes the role may make)."""
        def keyed(request: Request):
            lang = lang_of(request)
            as_json = wants_json(request)
            ledger = cached.state.ledger()
            cached.guard(ledger.url)  # 409 once the background prover found the ledger changed (web/cache.py)
            acc = auth.access_of(request.headers, ledger, require_token=require_token)
            if scope is not views.scoped:
                auth.check_scope(acc, scope(request) if scope else None, request.url.path)
            args = tuple(sorted((k, v) for k, v in request.query_params.multi_items() if k not in ("lang", "format")))
            key = (cached.state.key(), request.url.path, args) + (() if shared else (lang, as_json))
            return lang, as_json, ledger, acc, key

        def ready(request: Request) -> Response | None:
            """The page already rendered for this state, access, language and form, answered on the
            event loop: a worker thread per hit costs more than the answer under load (GIL hand-offs);
            None when it must be built, carries a write form, or its reveal is audited (a write)."""
            if form and not wants_json(request):
                return None
            lang, as_json, _, acc, key = keyed(request)
            hit = cached.pages.get(key + (acc, lang, as_json))
            if hit is None or (hit[1].revealed and acc.token_id is not None):
                return None
            return respond(request, template, None, body=hit[0], zipped=hit[2] if accepts_gzip(request) else None)

        async def endpoint(request: Request) -> Response:
            from starlette.concurrency import run_in_threadpool

            return ready(request) or await run_in_threadpool(work, request)

        def work(request: Request) -> Response:
            lang, as_json, ledger, acc, key = keyed(request)

            def built():
                with Workspace.open(root) as wsp, auth.GATE.reading():
                    wsp.verify = cached.proof(wsp, key[0])  # one verification per audit head (web/cache.py)
                    wsp.sheet = cached.sheets(key[0], wsp.sheet)  # one build per batch, shared by its pages
                    wsp.memo = cached.memo(wsp.ledger.url)  # figures-digest pieces (views.run), kept across writes
                    return build(wsp, request)

            def rendered(token: str = "") -> tuple[bytes, Any]:
                model = cached.model(key, built)  # role-independent: Restricted fields still wrapped
                if scope is views.scoped:
                    model = views.scope_model(model, acc.batch, lambda b: auth.check_scope(acc, b, request.url.path))
                shown, seen = resolve(model, acc.role, "en" if as_json else lang)
                if seen.withheld:
                    shown["access"] = seen.as_dict()
                extra: dict[str, Any] = {"access": acc, "access_note": access_note(seen, lang)}
                if template == "batch.html.j2" and not as_json:
                    from trainledger.report.render import to_html

                    extra["sheet_style"], extra["sheet_body"] = embed_sheet(to_html(model["sheet"], lang, acc.role))
                if template == "report.html.j2" and "html" in shown:
                    extra["report_style"], extra["report_body"] = embed_sheet(shown.pop("html"))
                if form and not as_json:  # the write form: the session's CSRF token, and which writes the role may make
                    extra.update(csrf=token, may={w: auth.may_write(acc, w) for w in auth.WRITERS},
                                 writers=auth.WRITERS, acting=acc.actor if acc.token_id else None,
                                 confirmer=writes.confirmer(acc))
                return body_of(request, template, shown, **extra), seen

            if form and not as_json:  # kept with a placeholder for the CSRF token, the session's put in per request
                bound, fresh = csrf.session(request.headers, request.cookies)
                body, seen, _ = cached.page(key + (acc, lang, as_json, "form"), lambda: rendered(placeholder))
                auth.audit_reveal(ledger, acc, request.url.path, seen)
                body = body.replace(placeholder.encode("ascii"), csrf.token(bound).encode("ascii"))
                return session_cookie(respond(request, template, None, body=body), fresh)
            body, seen, zipped = cached.page(key + (acc, lang, as_json), rendered)
            auth.audit_reveal(ledger, acc, request.url.path, seen)
            return respond(request, template, None, body=body, zipped=zipped if accepts_gzip(request) else None)
        return endpoint

    def session_cookie(resp: Response, fresh: str | None) -> Response:
        if fresh:
            resp.set_cookie(auth.SESSION_COOKIE, fresh, httponly=True, samesite="strict")
        return resp

    def csrf_token(request: Request) -> Response:
        """The CSRF token of the caller's bearer token or session cookie (set here when it has none)."""
        bound, fresh = csrf.session(request.headers, request.cookies)
        return session_cookie(JSONResponse({"csrf": csrf.token(bound), "field": auth.CSRF_FIELD,
                                            "header": "X-CSRF-Token"}), fresh)

    def write(what: str):
        """A POST endpoint: the body read, then (in a worker thread, as the pages are) the token,
        the CSRF token, the batch scope, the role, and the service call of web/writes.py."""
        from starlette.concurrency import run_in_threadpool

        def work(request: Request, form: dict[str, list[str]]) -> Response:
            batch = request.path_params["batch"]
            with Workspace.open(root) as wsp:
                acc = auth.access_of(request.headers, wsp.ledger, require_token=require_token)
                csrf.check(writes.one(form, auth.CSRF_FIELD) or request.headers.get(auth.CSRF_HEADER),
                           request.headers, request.cookies)
                auth.check_scope(acc, batch, request.url.path)
                views.batch_exists(wsp, batch)
                if what == "decide":
                    rec, back = writes.decide(wsp, acc, batch, form), writes.back_to(batch)
                else:
                    run = request.path_params["run"]
                    rec, back = writes.confirm_cause(wsp, acc, batch, run, form), writes.back_to(batch, run)
            return writes.done(request, back, rec)

        async def endpoint(request: Request) -> Response:
            return await run_in_threadpool(work, request, await writes.form_of(request))
        return endpoint

    def batch_of(request: Request) -> str:
        return request.path_params["batch"]

    def download(request: Request) -> Response:
        """The batch sheet as a file, as ``trainledger sheet BATCH --format F --role R`` writes it."""
        from trainledger.report import access

        batch, fmt, lang = request.path_params["batch"], request.path_params["fmt"], lang_of(request)
        if fmt not in DOWNLOADS:
            raise NotFound(f"no sheet format {fmt!r}", remedy=f"choose one of {', '.join(DOWNLOADS)}")
        with Workspace.open(root) as wsp:
            acc = auth.access_of(request.headers, wsp.ledger, require_token=require_token)
            auth.check_scope(acc, batch, request.url.path)
            views.batch_exists(wsp, batch)
            with auth.GATE.reading():
                sheet, lines = wsp.sheet(batch), wsp.ledger.cost_lines(batch)
            if fmt in ("csv", "xlsx"):
                seen = access.lines_disclosure(lines, acc.role)
                if fmt == "xlsx":
                    seen.merge(access.for_role(sheet, acc.role, lang)[1])
            else:
                seen = access.for_role(sheet, acc.role, lang)[1]
            auth.audit_reveal(wsp.ledger, acc, request.url.path, seen)
        if fmt == "csv":
            from trainledger.report.csv_lines import to_csv

            body: bytes | str = to_csv(lines, acc.role)
        elif fmt == "xlsx":
            import io

            from trainledger.report.xlsx import build_workbook

            buf = io.BytesIO()
            build_workbook(sheet, lines, acc.role).wb.save(buf)
            body = buf.getvalue()
        else:
            from trainledger.report.render import render

            body = render(sheet, fmt, lang, acc.role)
        resp = Response(body, media_type=DOWNLOADS[fmt])
        resp.headers["Content-Disposition"] = f'attachment; filename="{quote(batch)}.{fmt}"'
        resp.headers["Content-Language"] = lang
        return resp

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
        code = "csrf" if isinstance(exc, auth.CsrfRefused) else "role" if isinstance(exc, auth.NotAllowed) else None
        model = {"error": {"status": status, "message": message, "remedy": remedy, "message_zh": zh,
                           "remedy_zh": localize(remedy, ZH) if remedy else None, "code": code}}
        resp = respond(request, "error.html.j2", model, status=status)
        if status == 401:
            resp.headers["WWW-Authenticate"] = 'Bearer realm="trainledger"'
        return resp

    def openapi(request: Request) -> Response:
        return JSONResponse(OPENAPI)

    routes = [
        Route("/", lambda r: Response(status_code=307, headers={"location": "/batches"}), methods=["GET"]),
        Route("/batches", page(lambda w, r: views.batches(w), "batches.html.j2", views.scoped), methods=["GET"]),
        Route("/batches/{batch}", page(lambda w, r: views.batch(w, r.path_params["batch"]), "batch.html.j2",
                                       batch_of), methods=["GET"]),
        Route("/batches/{batch}/runs/{run:path}",  # a run id may hold "/" (a pod's namespace/name)
              page(lambda w, r: views.run(w, r.path_params["batch"], r.path_params["run"]), "run.html.j2",
                   batch_of, form=True), methods=["GET"]),
        Route("/batches/{batch}/sheet.{fmt}", download, methods=["GET"]),
        Route("/batches/{batch}/status",
              page(lambda w, r: views.plan_status(w, r.path_params["batch"]), "status.html.j2", batch_of),
              methods=["GET"]),
        Route("/lines/{line}", page(lambda w, r: views.line(w, r.path_params["line"]), "line.html.j2",
                                    views.scoped), methods=["GET"]),
        Route("/sources/{import}/{row}",
              page(lambda w, r: views.source(w, r.path_params["import"], row_of(r)), "source.html.j2",
                   views.scoped), methods=["GET"]),
        Route("/report", page(lambda w, r: views.report(w, r.query_params, lang_of(r), html=not wants_json(r)),
                              "report.html.j2", shared=False), methods=["GET"]),
        Route("/api/openapi.json", openapi, methods=["GET"]),
        # --- the ledger's pages and the two writes (web/pages.py, web/writes.py) ---
        Route("/imports", page(lambda w, r: pages.imports(w), "imports.html.j2"), methods=["GET"]),
        Route("/imports/{import}/quarantine.csv", exports.quarantine_download(root, require_token=require_token),
              methods=["GET"]),
        Route("/imports/{import}/quarantine", page(lambda w, r: pages.quarantine(w, r.path_params["import"]),
                                                   "quarantine.html.j2"), methods=["GET"]),
        Route("/alerts", page(lambda w, r: pages.alerts(w, r.query_params.get("batch") or None), "alerts.html.j2",
                              views.scoped), methods=["GET"]),
        Route("/batches/{batch}/decisions", page(lambda w, r: pages.decisions(w, r.path_params["batch"]),
                                                 "decisions.html.j2", batch_of, form=True), methods=["GET"]),
        Route("/batches/{batch}/decisions", write("decide"), methods=["POST"]),
        Route("/batches/{batch}/runs/{run:path}/cause", write("confirm_cause"), methods=["POST"]),
        Route("/api/csrf", csrf_token, methods=["GET"]),
    ]
    app = Starlette(routes=routes, exception_handlers={TrainledgerError: error, HTTPException: error,
                                                        NotFound: error, BadInput: error, TokenRefused: error,
                                                        auth.OutOfScope: error},
                    lifespan=cached.lifespan)  # the background prover (web/cache.py)
    app.state.pages = cached  # web/cache.py: its hit counts, for tests and the benchmark
    return app


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
            "401": {"description": "no token, or a bad, expired or revoked one (`Authorization: Bearer TOKEN`)",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
            "403": {"description": "a batch-scoped token asked for another batch",
                    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
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
        "/batches/{batch}/sheet.{fmt}": {"get": {
            "summary": "the batch sheet as a file (md, json, html, xlsx; csv: its cost lines), for the token's role",
            "parameters": [{"name": "batch", "in": "path", "required": True, "schema": {"type": "string"}},
                           {"name": "fmt", "in": "path", "required": True,
                            "schema": {"type": "string", "enum": list(DOWNLOADS)}},
                           {"name": "lang", "in": "query", "required": False,
                            "schema": {"type": "string", "enum": list(text.LANGS)}}],
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
