"""API tokens for ``trainledger serve``: one row per token, the secret stored only as a salted
HMAC-SHA256 digest (ledger/tokens.py); a role, an optional batch scope, an expiry and a revocation.

Revision ID: 0005
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

INSTANT = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.String(16), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=True),
        sa.Column("salt", sa.String(64), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("created_at", INSTANT, nullable=False),
        sa.Column("created_by", sa.Text(), nullable=False),
        sa.Column("expires_at", INSTANT, nullable=True),
        sa.Column("revoked_at", INSTANT, nullable=True),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"], name=op.f("fk_api_tokens_batch_id_batches")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_tokens")),
    )


def downgrade() -> None:
    op.drop_table("api_tokens")
