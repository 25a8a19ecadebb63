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

``GATE`` keeps the server's own audit writes out of a sheet being read: ``Workspace.sheet`` retries
when the audit head moves while it builds, so reads hold ``GATE.reading()`` and the audit append
``GATE.writing()`` (writers first, so a steady stream of readers cannot starve it).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from trainledger.errors import TrainledgerError
from trainledger.ledger import tokens
from trainledger.model.restricted import ADMIN, Disclosure

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
    where = f"batch {batch!r}" if batch else "a page across batches (or of unattributed cost)"
    raise OutOfScope(f"token {access.token_id} is limited to batch {access.batch!r}; {what} is {where}",
                     remedy=f"open /batches/{access.batch}, or ask for a token with that scope")


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
