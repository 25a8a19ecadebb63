"""Which import a cost line's source row came through: ``cost_lines.import_key`` (64 hex digits,
the key ``imports list`` shows the first 12 of). Two imports of one content (the same file with
another ``--set vc=…``) share its sha256 and row numbers, so the content hash alone could not say
which import ``/sources/{import}/{row}`` of a line is. "" for a line of no import (a capacity's idle
time, an allocation policy). Lines stored before this revision keep a null: an unknown import,
which leaves their figure fingerprint as it was (``ledger/figures.py`` LATER_COLUMNS), so a ledger
verified before the upgrade verifies after it.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


# a plain ALTER TABLE on both backends: a batch (copy-and-move) on SQLite would drop the table's
# change-tracking triggers (migration 0007) with the old table


def upgrade() -> None:
    op.add_column("cost_lines", sa.Column("import_key", sa.String(64), nullable=True))


def downgrade() -> None:
    op.execute("ALTER TABLE cost_lines DROP COLUMN import_key")  # SQLite >= 3.35, PostgreSQL
