"""Change tracking for the dashboard's seal (ledger/seal.py): ``seal_counters`` holds one counter per
figure table (cost_lines, runs, figure_digests, attributions) that the database's own triggers move
on every change, so a check after a write that recorded no figures reads four counters instead of
re-hashing the tables. SQLite: row triggers on UPDATE and DELETE (an INSERT shows in the row count;
no INSERT trigger, so the bulk insert of an attribution is not slowed); PostgreSQL: statement
triggers on INSERT, UPDATE, DELETE and TRUNCATE. Guard triggers let a counter only go up. The DDL is
ledger/tracking.py's ``tracking_ddl``; its text is what the check compares with the installed
triggers, so a change of it needs a new migration.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    from trainledger.ledger import tracking

    op.create_table(
        "seal_counters",
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_seal_counters"),
    )
    for sql in tracking.tracking_ddl(op.get_bind().dialect.name):
        op.execute(sql)


def downgrade() -> None:
    from trainledger.ledger import tracking

    for sql in tracking.tracking_drop(op.get_bind().dialect.name):
        op.execute(sql)
    op.drop_table("seal_counters")
