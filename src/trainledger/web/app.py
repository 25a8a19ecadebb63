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
from trainledger.report.access import guard_note, rate_guarded
from trainledger.report.i18n import t as sheet_t
from trainledger.report.primitives import unit as unit_text
from trainledger.review.texts import label as review_label
from trainledger.review.texts import t as review_t
from trainledger.web import auth, cache, exports, line_text, pages, text, views, writes
from trainledger.web.openapi import DOWNLOADS, OPENAPI, openapi_text  # noqa: F401 (re-exported)
from trainledger.web.rule_text import rule_sentence

LOOPBACK_NAMES = ("localhost",)


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
        def keyed(request: Request, state: tuple | None = None):
            lang = lang_of(request)
            as_json = wants_json(request)
            ledger = cached.state.ledger()
            cached.guard(ledger.url)  # 409 once the background prover found the ledger changed (web/cache.py)
            acc = auth.access_of(request.headers, ledger, require_token=require_token)
            if scope is not views.scoped:
                auth.check_scope(acc, scope(request) if scope else None, request.url.path)
            args = tuple(sorted((k, v) for k, v in request.query_params.multi_items() if k not in ("lang", "format")))
            key = (state or cached.state.key(), request.url.path, args) + (() if shared else (lang, as_json))
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

        def work(request: Request, state: tuple | None = None) -> Response | None:
            """The page for the request's state; ``state``: built and kept for that state only, as
            the watcher does for a page read recently when a write moved the ledger (web/cache.py
            ``Pages.watch``), so its first reader finds it ready."""
            lang, as_json, ledger, acc, key = keyed(request, state)

            def built():
                with Workspace.open(root) as wsp, auth.GATE.reading():
                    wsp.verify = cached.proof(wsp, key[0])  # one verification per audit head (web/cache.py)
                    wsp.sync_config = cached.synced(wsp, key[0][1])  # once per config signature
                    wsp.sheet = cached.sheets(key[0], wsp.sheet)  # one build per batch, shared by its pages
                    wsp.memo = cached.memo(wsp.ledger.url)  # figures-digest pieces (views.run), kept across writes
                    return build(wsp, request)

            def rendered(token: str = "") -> tuple[bytes, Any]:
                model = cached.model(key, built)  # role-independent: Restricted fields still wrapped
                if scope is views.scoped:
                    model = views.scope_model(model, acc.batch, lambda b: auth.check_scope(acc, b, request.url.path))
                if acc.batch is not None and isinstance(model.get("sheet"), dict):  # the other batches' hours folded
                    from trainledger.report.noncash import scope as fold_others

                    model = dict(model, sheet=fold_others(model["sheet"], acc.batch))
                shown, seen = resolve(model, acc.role, "en" if as_json else lang)
                # the rate guard's record (report/rate_guard.py) leaves the sheet as the CLI's JSON leaves it:
                # named in ``access`` to a role it withheld figures from, with its note (report/access.py for_role)
                guard = shown["sheet"].pop("rate_guard", None) if isinstance(shown.get("sheet"), dict) else None
                guard = guard if guard and rate_guarded(acc.role) else None
                if seen.withheld:
                    shown["access"] = seen.as_dict()
                    if guard:
                        shown["access"]["rate_guard"] = {**guard, "note": guard_note("en" if as_json else lang)}
                note = access_note(seen, lang)
                extra: dict[str, Any] = {"access": acc, "access_note": (f"{note} {guard_note(lang)}" if guard and note
                                                                        else note)}
                if template == "batch.html.j2" and not as_json:
                    from trainledger.report.render import to_html

                    extra["sheet_style"], extra["sheet_body"] = embed_sheet(cached.sheet_html(
                        model["sheet"], lang, acc.role, lambda sheet: to_html(sheet, lang, acc.role)))
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
                if state is not None:
                    return None
                cached.hot((request.url.path, str(request.query_params), acc, lang, as_json),
                           lambda st: work(request, st))
                auth.audit_reveal(ledger, acc, request.url.path, seen)
                body = body.replace(placeholder.encode("ascii"), csrf.token(bound).encode("ascii"))
                return session_cookie(respond(request, template, None, body=body), fresh)
            body, seen, zipped = cached.page(key + (acc, lang, as_json), rendered)
            if state is not None:
                return None
            cached.hot((request.url.path, str(request.query_params), acc, lang, as_json), lambda st: work(request, st))
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
        """The batch sheet as a file, as ``trainledger sheet BATCH --format F --role R`` writes it; the
        workbook cell by cell the CLI's (tests/web/test_workbook_same.py), but for a batch-scoped token's
        other batches (report/noncash.py ``scope``, Control's one value per currency)."""
        from trainledger.report import access, field_kinds

        batch, fmt, lang = request.path_params["batch"], request.path_params["fmt"], lang_of(request)
        # the workbook's labels: ``?lang=`` alone makes them one language, as ``sheet --lang`` does; without it
        # English and Chinese side by side, whatever the cookie or Accept-Language (the CLI's and demo's default)
        book_lang = text.normal(request.query_params.get("lang"))
        if fmt not in DOWNLOADS:
            raise NotFound(f"no sheet format {fmt!r}", remedy=f"choose one of {', '.join(DOWNLOADS)}")
        with Workspace.open(root) as wsp:
            acc = auth.access_of(request.headers, wsp.ledger, require_token=require_token)
            auth.check_scope(acc, batch, request.url.path)
            views.batch_exists(wsp, batch)
            others = None
            with auth.GATE.reading():
                sheet, lines = wsp.sheet(batch), wsp.ledger.cost_lines(batch)
                if acc.batch is not None:  # the labor control's other batches as one row (report/noncash.py scope)
                    from trainledger.report.noncash import scope as fold_others

                    sheet = fold_others(sheet, batch)
                if fmt == "xlsx" and acc.batch is None:  # a token limited to this batch sees no other batch
                    from trainledger.report.sheet import attributed_by_batch

                    others = attributed_by_batch(wsp, sheet.get("attribution_id"))
            if fmt in ("csv", "xlsx"):
                seen = field_kinds.lines_disclosure(lines, acc.role)
                if fmt == "xlsx":
                    from trainledger.report.xlsx_control import disclosure

                    seen.merge(access.for_role(sheet, acc.role, lang)[1]).merge(disclosure(others, batch, acc.role))
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
            build_workbook(sheet, lines, acc.role, book_lang, others).wb.save(buf)
            body = buf.getvalue()
        else:
            from trainledger.report.render import render

            body = render(sheet, fmt, lang, acc.role)
        resp = Response(body, media_type=DOWNLOADS[fmt])
        resp.headers["Content-Disposition"] = f'attachment; filename="{quote(batch)}.{fmt}"'
        resp.headers["Content-Language"] = (book_lang or "en, zh-CN") if fmt == "xlsx" else lang
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
        if isinstance(exc, cache.StillBuilding):  # waited for its page's build under way (web/cache.py)
            resp.headers["Retry-After"] = str(cache.RETRY_AFTER)
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
    app.state.root = root  # the workspace served (web/openapi_models.py samples its lines)
    return app
