"""Fractional GPUs: ``runs.gpu_share``, the GPU-equivalents a run holds as exact decimal text
(a pod with 250 milli-GPU holds 0.25; MIG and time-sliced shares alike). Null: the run holds its
``gpus`` whole, which is what every run stored before this revision did. A null share leaves a
run's figure fingerprint as it was (``ledger/figures.py``), so a ledger verified before the
upgrade verifies after it.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("gpu_share", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("gpu_share")
