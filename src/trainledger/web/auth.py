"""Who is asking: the role and batch scope of a dashboard request, and the audit of what it saw.

``access_of(request, ledger, require_token)``: a request with ``Authorization: Bearer TOKEN`` gets
the token's role and scope (ledger/tokens.py; a bad, expired or revoked token is refused with 401
even on loopback). Without a header: the local user, ``admin``, when the server was started on a
loopback address without ``--require-token``; otherwise 401. ``check_scope`` answers 403 for a
batch outside a batch-scoped token. ``audit_reveal`` appends one ``reveal_restricted`` entry to the
hash-chained audit log for each response to a token that showed a restricted field
(model/restricted.py). The local user on loopback (no token) is not recorded: like the command
line, it is the owner of the ledger file, and an entry per page view would make every sheet's
chain verification grow with each view.

**Writes** (web/writes.py): ``check_write`` answers 403 unless the role may make that write
(``WRITERS``: a decision admin or finance, a run's failure cause admin or engineer; viewer none).
``Csrf`` makes and checks the CSRF token every POST carries: an HMAC-SHA256, under a secret of the
server process, of what the request is bound to — the bearer token it sends, else the
``trainledger_session`` cookie (random, HttpOnly, SameSite=Strict, set by the first page that
needs it); compared with ``hmac.compare_digest``. It is required of every POST, the local admin's
on loopback too; a missing or wrong one is 403 (``CsrfRefused``).

``GATE`` keeps the server's own audit writes out of a sheet being read: ``Workspace.sheet`` retries
when the audit head moves while it builds, so reads hold ``GATE.reading()`` and the audit append
``GATE.writing()`` (writers first, so a steady stream of readers cannot starve it).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from trainledger.errors import TrainledgerError
from trainledger.ledger import tokens
from trainledger.model.restricted import ADMIN, ENGINEER, FINANCE, Disclosure

LOCAL = "local"


class OutOfScope(TrainledgerError):
    """A batch-scoped token asked for another batch, or for a cross-batch page: HTTP 403."""

    http_status = 403


@dataclass(frozen=True)
class Access:
    role: str
    batch: str | None = None  # the token's scope; None: every batch
    token_id: str | None = None  # None: the local user on loopback

    @property
    def actor(self) -> str:
        return f"token:{self.token_id}" if self.token_id else LOCAL

    def as_dict(self) -> dict:
        return {"role": self.role, "batch": self.batch, "token": self.token_id}


def bearer(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        raise tokens.TokenRefused("the Authorization header is not `Bearer TOKEN`",
                                  remedy="send `Authorization: Bearer tl_…` as `trainledger token create` printed it")
    return value.strip()


def access_of(headers, ledger, *, require_token: bool) -> Access:
    presented = bearer(headers.get("authorization"))
    if presented is None and not require_token:
        return Access(ADMIN)
    rec = tokens.check(ledger, presented)
    return Access(rec.role, rec.batch_id, rec.id)


def check_scope(access: Access, batch: str | None, what: str) -> None:
    """403 unless ``access`` may see ``batch`` (None: a page across batches or with no batch)."""
    if access.batch is None or batch == access.batch:
        return
    remedy = f"open /batches/{access.batch}, or ask for a token with that scope"
    if batch:
        raise OutOfScope(f"token {access.token_id} is limited to batch {access.batch!r}; {what} is batch {batch!r}",
                         remedy=remedy)
    raise OutOfScope(f"token {access.token_id} is limited to batch {access.batch!r}; {what} is a page across"
                     " batches (or of unattributed cost)", remedy=remedy)


WRITERS: dict[str, tuple[str, ...]] = {"decide": (ADMIN, FINANCE), "confirm_cause": (ADMIN, ENGINEER)}


class NotAllowed(TrainledgerError):
    """The requester's role may not make this write: HTTP 403."""

    http_status = 403


def may_write(access: Access, what: str) -> bool:
    return access.role in WRITERS[what]


def check_write(access: Access, what: str) -> None:
    if may_write(access, what):
        return
    remedy = f"ask for a token of role {', '.join(WRITERS[what])} (`trainledger token create --role R`)"
    if what == "decide":
        raise NotAllowed(f"role {access.role} may not record a decision", remedy=remedy)
    raise NotAllowed(f"role {access.role} may not confirm a run's failure cause", remedy=remedy)


class CsrfRefused(TrainledgerError):
    """A POST without the CSRF token of its session, or with another one: HTTP 403."""

    http_status = 403


SESSION_COOKIE = "trainledger_session"
CSRF_FIELD = "csrf"
CSRF_HEADER = "x-csrf-token"


class Csrf:
    """CSRF tokens bound to a bearer token or a session cookie, under one secret per server."""

    def __init__(self, secret: bytes | None = None) -> None:
        self._secret = secret or secrets.token_bytes(32)

    @staticmethod
    def binding(headers, cookies) -> str | None:
        """What a request's CSRF token is bound to: its bearer token, else its session cookie."""
        presented = bearer(headers.get("authorization"))
        if presented:
            return "bearer:" + presented
        sess = cookies.get(SESSION_COOKIE)
        return "session:" + sess if sess else None

    def session(self, headers, cookies) -> tuple[str, str | None]:
        """The request's binding, and a new session cookie value to set when it has none."""
        bound = self.binding(headers, cookies)
        if bound is not None:
            return bound, None
        fresh = secrets.token_urlsafe(24)
        return "session:" + fresh, fresh

    def token(self, bound: str) -> str:
        return hmac.new(self._secret, b"trainledger-csrf\0" + bound.encode("utf-8"), hashlib.sha256).hexdigest()

    def check(self, presented: str | None, headers, cookies) -> None:
        bound = self.binding(headers, cookies)
        if not presented:
            raise CsrfRefused("this write carries no CSRF token",
                              remedy="post from the dashboard's form, or send the token of GET /api/csrf as"
                                     " the csrf field or the X-CSRF-Token header")
        if bound is None or not hmac.compare_digest(presented.encode("utf-8", "replace"),
                                                    self.token(bound).encode()):
            raise CsrfRefused("this write's CSRF token does not belong to its session",
                              remedy="reload the page and post its form again, or fetch a new token from"
                                     " GET /api/csrf with the same bearer token or session cookie")


class Gate:
    """A readers-writer lock that lets a waiting writer in before new readers."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writers_waiting = 0
        self._writing = False

    @contextmanager
    def reading(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writing and not self._writers_waiting)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def writing(self) -> Iterator[None]:
        with self._cond:
            self._writers_waiting += 1
            self._cond.wait_for(lambda: not self._writing and not self._readers)
            self._writers_waiting -= 1
            self._writing = True
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


GATE = Gate()


def audit_reveal(ledger, access: Access, path: str, d: Disclosure) -> None:
    """One audit entry when a token's response showed restricted fields: who, which page, how many
    of each kind. Call it outside ``GATE.reading()``."""
    if not d.revealed or access.token_id is None:
        return
    with GATE.writing():
            ledger.audit(access.actor, "reveal_restricted", path,
                     {"role": access.role, "token": access.token_id, "batch_scope": access.batch,
                      "revealed": dict(sorted(d.revealed.items()))})
