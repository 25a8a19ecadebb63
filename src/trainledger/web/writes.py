"""The dashboard's two writes, through the very service calls the command line makes.

    POST /batches/{batch}/decisions          = ``trainledger decide BATCH --action A --reason R --by N
                                               [--approver N] [--answers ID …] [--next-review DATE]
                                               [--child B]`` (review/service.py ``decide``; a retarget
                                               names its child batch B); roles admin, finance
    POST /batches/{batch}/runs/{run}/cause   = ``trainledger runs confirm RUN --cause C --by N [--note T]``
                                               (run_causes.py ``confirm``); roles admin, engineer; ``by``
                                               is the sender's identity (``confirmer``), not a field

A body is a form (``application/x-www-form-urlencoded``, what the pages post) or a JSON object.
Each POST must carry the CSRF token of its session (web/auth.py ``Csrf``: field ``csrf`` or header
``X-CSRF-Token``; ``GET /api/csrf`` gives it to an API client), the local admin's too; then the
role (``auth.check_write``) and the batch scope are checked, and only then the workspace is
written. The service call appends its own audit entry (``decide`` / ``confirm_cause``, actor the
``by`` named, as on the command line); the dashboard adds one ``web_write`` entry naming who sent
it (``token:ID`` or ``local``), the path and what was written, so the chain shows which token
made each write. A decision sent with a token is the token's: ``by`` is ``token:ID`` whatever the
form says, and a typed second approver is recorded as stated by that token (``who_decides``). A
page form gets ``303 See Other`` back to the page; JSON gets 201 and the record.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response

from trainledger.errors import BadInput
from trainledger.web import auth
from trainledger.web.pages import DECISION_ACTIONS

MAX_BODY = 64 * 1024


async def form_of(request: Request) -> dict[str, list[str]]:
    """The POST body as field → values: a form, or a JSON object (a list value stays a list)."""
    declared = request.headers.get("content-length", "")
    n_raw = int(declared) if declared.isdigit() else 0
    if n_raw <= MAX_BODY:  # a body declared too long is not read at all
        raw = await request.body()
        n_raw = len(raw)
    if n_raw > MAX_BODY:
        raise BadInput(f"the request body has {n_raw} bytes, more than {MAX_BODY}",
                       remedy="send the form's fields only")
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    text = raw.decode("utf-8", errors="replace")
    if kind == "application/json":
        try:
            obj = json.loads(text) if text.strip() else {}
        except ValueError:
            raise BadInput("the request body is not JSON", remedy="send a JSON object, or a form") from None
        if not isinstance(obj, dict):
            raise BadInput("the request body is not a JSON object", remedy='send {"field": value, …}')
        return {str(k): [str(x) for x in (v if isinstance(v, list) else [v]) if x is not None]
                for k, v in obj.items()}
    return parse_qs(text, keep_blank_values=True)


def one(form: dict[str, list[str]], label: str, *, required: bool = False) -> str:
    values = [v for v in form.get(label, []) if v.strip()]
    if not values:
        if required:
            raise BadInput(f"the form has no {label}", remedy=f"fill in {label}")
        return ""
    return values[-1].strip()


def answers_of(form: dict[str, list[str]]) -> list[int]:
    out = []
    for v in form.get("answers", []):
        for part in v.replace(",", " ").split():
            if not part.isdigit() or len(part) > 12:
                raise BadInput(f"alert id {part!r} is not a number",
                               remedy="tick the open alerts the decision answers (ids from /alerts)")
            out.append(int(part))
    return out


def wants_json(request: Request) -> bool:
    accept = request.headers.get("accept", "")
    return "application/json" in accept and "text/html" not in accept


def done(request: Request, back: str, record: dict[str, Any]) -> Response:
    if wants_json(request):
        return JSONResponse(record, status_code=201)
    return RedirectResponse(back, status_code=303)


def decide(wsp, acc: auth.Access, batch: str, form: dict[str, list[str]]) -> dict[str, Any]:
    """``trainledger decide`` from a form; the decision record as the CLI's ``--json`` prints it."""
    from datetime import date

    from trainledger.review import service

    auth.check_write(acc, "decide")
    action = one(form, "action", required=True)
    if action not in DECISION_ACTIONS:
        raise BadInput(f"action {action!r} is not one of {', '.join(DECISION_ACTIONS)}",
                       remedy="choose continue, shrink, stop or retarget (a retarget names its child batch:"
                              " child=B)")
    nr = one(form, "next_review")
    try:
        next_review = date.fromisoformat(nr) if nr else None
    except ValueError:
        raise BadInput(f"next review {nr!r} is not an ISO date (YYYY-MM-DD)",
                       remedy="give the date as YYYY-MM-DD, or leave it empty (in 7 days)") from None
    by, approver, stated = who_decides(acc, one(form, "by", required=acc.token_id is None), one(form, "approver"))
    with auth.GATE.writing():
        try:
            d = service.decide(wsp, batch, action=action, reason=one(form, "reason", required=True),
                               by=by, approver=approver, answers=answers_of(form), next_review=next_review,
                               child=one(form, "child") or None)
        except BadInput as e:
            raise _for_the_form(e) from None
        _audit(wsp, acc, f"/batches/{batch}/decisions", {"decision_id": d["id"], "batch": batch,
                                                         "action": d["action"], "answers": d["answers"], **stated,
                                                         **({"child": d["child_batch"]} if d["child_batch"] else {})})
    return json.loads(json.dumps(d, default=str))


def who_decides(acc: auth.Access, by: str, approver: str) -> tuple[str, str | None, dict[str, str]]:
    """(by, approver, what the form stated) of a decision sent from the dashboard. With a token the
    decider is the token (``token:ID``): a form cannot name someone else — a typed name is kept in
    the ``web_write`` audit entry as stated, not as the decider; the typed second approver is kept,
    marked as stated by that token (stored ``approver_stated``), for the token cannot prove who
    approved. The local user on loopback is the command line's user: names as typed (``--by``)."""
    from trainledger.i18n import Msg

    if acc.token_id is None:
        return by, approver or None, {}
    stated = {"stated_by": by} if by and by != acc.actor else {}
    if approver:
        stated["stated_approver"] = approver
        approver = str(Msg("stored.approver_stated", name=approver, actor=acc.actor))
    return acc.actor, approver or None, stated


def _for_the_form(e: BadInput) -> BadInput:
    """The service's override refusal said for the form: its fields and the actions' words, not the
    command line's action codes and ``--approver`` flag (review 3 G12); any other error as it is."""
    from trainledger.i18n import Msg, Term
    from trainledger.i18n.patterns import match

    hit = match(str(e.detail))
    if hit is None or hit[0] != "error.review.service.decide_rules_recommend_choosing":
        return e
    v = hit[1]
    return BadInput(Msg("web.override_refused", verdict=Term(v["action"]), action=Term(v["action2"])),
                    remedy=Msg("web.override_remedy"))


def confirmer(acc: auth.Access) -> str:
    """Who a cause confirmation sent by ``acc`` is recorded as — the authenticated identity, never a
    typed name: the token (``token:ID``; its role is recorded beside it) or, on loopback without
    tokens, the local user (``local:LOGIN``, the login the server runs as: the command line's
    ``--by`` default). The page shows it read-only."""
    if acc.token_id:
        return acc.actor
    from trainledger.service import _actor

    return f"{auth.LOCAL}:{_actor()}"


def confirm_cause(wsp, acc: auth.Access, batch: str, run: str, form: dict[str, list[str]]) -> dict[str, Any]:
    """``trainledger runs confirm RUN --cause C --by N --note T`` from a form; ``by`` is the sender's
    identity (``confirmer``). A ``by`` field an API client still sends is kept in the ``web_write``
    entry as stated, not as who confirmed."""
    from trainledger import run_causes

    auth.check_write(acc, "confirm_cause")
    cause, note, by = one(form, "cause", required=True), one(form, "note"), confirmer(acc)
    stated = {"stated_by": typed} if (typed := one(form, "by")) and typed != by else {}
    runs = run_causes.explained(wsp)
    if run not in runs or runs[run]["batch_id"] != batch:
        from trainledger.errors import NotFound

        run_id, batch_id = run, batch  # the run page's own sentence (web/views.py run)
        raise NotFound(f"no run {run_id!r} in batch {batch_id!r}", remedy=f"see /batches/{batch_id} for its runs")
    with auth.GATE.writing():
        r = run_causes.confirm(wsp, run, cause, by, note, via={"role": acc.role, "token": acc.token_id})
        _audit(wsp, acc, f"/batches/{batch}/runs/{run}/cause", {"run": run, "batch": batch, "cause": r["cause"],
                                                                "by": by, **stated})
    return r


def _audit(wsp, acc: auth.Access, path: str, detail: dict[str, Any]) -> None:
    wsp.ledger.audit(acc.actor, "web_write", path, {"role": acc.role, "token": acc.token_id, **detail})


def back_to(batch: str, run: str | None = None) -> str:
    b = quote(batch, safe="")
    return f"/batches/{b}/runs/{quote(run, safe='')}" if run else f"/batches/{b}/decisions"
