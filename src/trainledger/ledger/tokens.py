"""API tokens for ``trainledger serve``: create (the secret shown once), list, revoke, check.

A token reads ``tl_<id>_<secret>``: ``id`` (8 hex digits) names its row, ``secret`` (32 random bytes,
URL-safe) is never stored — the row keeps ``digest`` = HMAC-SHA256(salt, secret) with a random
per-token salt, and ``check`` compares digests with ``hmac.compare_digest`` (constant time). A
token has a role (model/restricted.py ``ROLES``), an optional batch scope, an optional expiry;
revoking stamps ``revoked_at`` (rows are never deleted). Creating and revoking append to the audit
chain in the same transaction (``token_create`` / ``token_revoke``; the detail never holds the
secret or its digest). Functions over a ``Ledger``, like review_repo.py.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import insert, select, update

from trainledger.errors import BadInput, NotFound, TrainledgerError
from trainledger.ledger.repo import Ledger
from trainledger.ledger.schema import api_tokens
from trainledger.model.restricted import ROLES

PREFIX = "tl_"
TOKEN = re.compile(r"tl_([0-9a-f]{8})_([A-Za-z0-9_-]{20,128})")
MAX_DAYS = 3650


class TokenRefused(TrainledgerError):
    """No token, a malformed, unknown, expired or revoked one: HTTP 401."""

    http_status = 401


@dataclass(frozen=True)
class TokenRecord:
    id: str
    role: str
    batch_id: str | None
    created_at: datetime
    created_by: str
    expires_at: datetime | None
    revoked_at: datetime | None

    def state(self, now: datetime | None = None) -> str:
        """``active``, ``expired`` or ``revoked``."""
        now = now or datetime.now(UTC)
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and self.expires_at <= now:
            return "expired"
        return "active"

    def as_dict(self, now: datetime | None = None) -> dict:
        return {"id": self.id, "role": self.role, "batch": self.batch_id, "state": self.state(now),
                "created_at": self.created_at.isoformat(), "created_by": self.created_by,
                "expires_at": self.expires_at.isoformat() if self.expires_at else None,
                "revoked_at": self.revoked_at.isoformat() if self.revoked_at else None}


def _digest(salt: str, secret: str) -> str:
    return hmac.new(bytes.fromhex(salt), secret.encode("ascii"), hashlib.sha256).hexdigest()


def _record(m) -> TokenRecord:
    return TokenRecord(id=m["id"], role=m["role"], batch_id=m["batch_id"], created_at=m["created_at"],
                       created_by=m["created_by"], expires_at=m["expires_at"], revoked_at=m["revoked_at"])


def create(ledger: Ledger, role: str, *, batch: str | None = None, expires_days: int | None = None,
           actor: str = "", now: datetime | None = None) -> tuple[TokenRecord, str]:
    """A new token; returns its record and the token text (the only time the secret exists)."""
    if role not in ROLES:
        raise BadInput(f"unknown role {role!r}", remedy=f"choose one of {', '.join(ROLES)}")
    if expires_days is not None and not 1 <= expires_days <= MAX_DAYS:
        raise BadInput(f"--expires {expires_days} is out of range",
                       remedy=f"give a number of days from 1 to {MAX_DAYS}, or leave it out for no expiry")
    now = now or datetime.now(UTC)
    secret = secrets.token_urlsafe(32)
    salt = secrets.token_hex(16)
    expires = now + timedelta(days=expires_days) if expires_days else None
    with ledger._write() as conn:
        if batch is not None:
            ledger._require_batches(conn, [batch], "token")
        while True:  # 8 hex digits: a clash is rare, and retried under the write lock
            token_id = secrets.token_hex(4)
            if conn.scalar(select(api_tokens.c.id).where(api_tokens.c.id == token_id)) is None:
                break
        row = {"id": token_id, "role": role, "batch_id": batch, "salt": salt, "digest": _digest(salt, secret),
               "created_at": now, "created_by": actor or ledger.actor, "expires_at": expires, "revoked_at": None}
        conn.execute(insert(api_tokens).values(**row))
        ledger._append(conn, actor, "token_create", f"token:{token_id}",
                       {"role": role, "batch": batch, "expires_at": expires})
    return _record(row), f"{PREFIX}{token_id}_{secret}"


def tokens(ledger: Ledger) -> list[TokenRecord]:
    with ledger._read() as conn:
        rows = conn.execute(select(api_tokens).order_by(api_tokens.c.created_at, api_tokens.c.id)).mappings()
        return [_record(m) for m in rows]


def revoke(ledger: Ledger, token_id: str, *, actor: str = "", now: datetime | None = None) -> TokenRecord:
    """Revoke a token (idempotent: an already revoked one keeps its first revocation time)."""
    now = now or datetime.now(UTC)
    with ledger._write() as conn:
        m = conn.execute(select(api_tokens).where(api_tokens.c.id == token_id)).mappings().first()
        if m is None:
            raise NotFound(f"no token {token_id!r}", remedy="see `trainledger token list` for the ids")
        if m["revoked_at"] is None:
            conn.execute(update(api_tokens).where(api_tokens.c.id == token_id).values(revoked_at=now))
            ledger._append(conn, actor, "token_revoke", f"token:{token_id}", {"role": m["role"]})
        m = conn.execute(select(api_tokens).where(api_tokens.c.id == token_id)).mappings().first()
    return _record(m)


def any_active(ledger: Ledger, now: datetime | None = None) -> bool:
    return any(t.state(now) == "active" for t in tokens(ledger))


def check(ledger: Ledger, presented: str | None, now: datetime | None = None) -> TokenRecord:
    """The active token ``presented`` is, or ``TokenRefused`` saying why (never which part of the
    secret was wrong)."""
    if not presented:
        raise TokenRefused("this dashboard needs a token: send `Authorization: Bearer TOKEN`",
                           remedy="ask the workspace owner for one (`trainledger token create --role R`)")
    m = TOKEN.fullmatch(presented.strip())
    if m is None:
        raise TokenRefused("the bearer token is not a trainledger token (tl_ID_SECRET)",
                           remedy="send the whole token `trainledger token create` printed")
    token_id, secret = m.groups()
    with ledger._read() as conn:
        row = conn.execute(select(api_tokens).where(api_tokens.c.id == token_id)).mappings().first()
    # compare against a digest even when the id is unknown, so both paths take the same time
    salt, stored = (row["salt"], row["digest"]) if row else ("00" * 16, "0" * 64)
    if not hmac.compare_digest(_digest(salt, secret), stored) or row is None:
        raise TokenRefused("the bearer token is not valid", remedy="check it, or ask for a new one")
    rec = _record(row)
    state = rec.state(now)
    if state != "active":
        raise TokenRefused(f"token {rec.id} is revoked" if state == "revoked" else f"token {rec.id} is expired",
                           remedy="ask the workspace owner for a new one (`trainledger token create`)")
    return rec
