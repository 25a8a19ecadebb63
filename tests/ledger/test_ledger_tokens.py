"""API tokens on both backends: created once, stored as a salted HMAC only, checked in constant time,
refused when expired, revoked, unknown or altered; every change in the audit chain."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from trainledger.errors import BadInput, NotFound
from trainledger.ledger import tokens
from trainledger.ledger.schema import api_tokens


def test_token_lifecycle(seeded):
    rec, text = tokens.create(seeded, "engineer", batch="b1", expires_days=30, actor="li.na")
    assert text.startswith(f"tl_{rec.id}_") and len(text) > 40
    assert tokens.check(seeded, text) == rec
    assert rec.role == "engineer" and rec.batch_id == "b1" and rec.created_by == "li.na"
    assert rec.expires_at - rec.created_at == timedelta(days=30)
    assert [t.as_dict()["state"] for t in tokens.tokens(seeded)] == ["active"]

    revoked = tokens.revoke(seeded, rec.id, actor="li.na")
    assert revoked.state() == "revoked"
    with pytest.raises(tokens.TokenRefused, match="revoked"):
        tokens.check(seeded, text)
    assert tokens.revoke(seeded, rec.id).revoked_at == revoked.revoked_at  # idempotent, first time kept

    log = seeded.audit_log()
    assert [(e["action"], e["object"], e["actor"]) for e in log if e["action"].startswith("token_")] == [
        ("token_create", f"token:{rec.id}", "li.na"), ("token_revoke", f"token:{rec.id}", "li.na")]
    assert not seeded.verify_audit_chain()


def test_only_a_salted_digest_is_stored(seeded):
    _, a = tokens.create(seeded, "finance")
    _, b = tokens.create(seeded, "finance")
    with seeded._read() as conn:
        rows = [dict(m) for m in conn.execute(select(api_tokens)).mappings()]
    stored = repr(rows) + repr(seeded.audit_log())
    for text in (a, b):
        assert text.split("_", 2)[2] not in stored
    assert len({r["salt"] for r in rows}) == 2 and len({r["digest"] for r in rows}) == 2


def test_refused_tokens(seeded):
    rec, text = tokens.create(seeded, "viewer")
    secret = text.split("_", 2)[2]
    wrong = secret[:-1] + ("A" if secret[-1] != "A" else "B")
    for bad in (None, "", "nonsense", f"tl_{rec.id}_{wrong}", f"tl_00000000_{secret}", text + "x"):
        with pytest.raises(tokens.TokenRefused):
            tokens.check(seeded, bad)
    old, old_text = tokens.create(seeded, "viewer", expires_days=1, now=datetime.now(UTC) - timedelta(days=2))
    with pytest.raises(tokens.TokenRefused, match="expired"):
        tokens.check(seeded, old_text)
    assert tokens.check(seeded, old_text.replace("x", "x"), now=old.created_at + timedelta(hours=1)) == old


def test_bad_arguments(seeded):
    with pytest.raises(BadInput, match="unknown role"):
        tokens.create(seeded, "root")
    with pytest.raises(BadInput, match="out of range"):
        tokens.create(seeded, "viewer", expires_days=0)
    with pytest.raises(NotFound, match="not in the ledger"):
        tokens.create(seeded, "viewer", batch="nope")
    with pytest.raises(NotFound, match="token list"):
        tokens.revoke(seeded, "deadbeef")
    assert tokens.tokens(seeded) == []  # nothing written by a refused create
