"""Tamper evidence for the figures and correctable imports: the ``figure_digests`` table (row
fingerprints of the stored cost lines and runs, whose digest the audit chain holds) and the
``imports.dropped_at`` / ``imports.drop_reason`` columns (``trainledger imports drop``).

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "figure_digests",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False),
        sa.Column("rows", sa.Integer(), nullable=False),
        sa.Column("fingerprints", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_figure_digests")),
    )
    with op.batch_alter_table("imports") as batch:
        batch.add_column(sa.Column("dropped_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("drop_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("imports") as batch:
        batch.drop_column("drop_reason")
        batch.drop_column("dropped_at")
    op.drop_table("figure_digests")
