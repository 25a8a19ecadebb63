"""Plan / execution / review: alerts (a crossed bound awaiting a decision) and decision records
(the ADR-like body of a decision: gate, options, verdict, override, evidence hash, answers).

Plans themselves live in the existing ``plans`` table (one immutable row per version).

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

INSTANT = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "alerts",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=False),
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("created_at", INSTANT, nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"], name=op.f("fk_alerts_batch_id_batches")),
        sa.ForeignKeyConstraint(["plan_id"], ["plans.id"], name=op.f("fk_alerts_plan_id_plans")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_alerts")),
        sa.UniqueConstraint("plan_id", "key", name="uq_alerts_plan_key"),
    )
    op.create_index(op.f("ix_alerts_batch_id"), "alerts", ["batch_id"])
    op.create_table(
        "decision_records",
        sa.Column("decision_id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["decision_id"], ["decisions.id"],
                                name=op.f("fk_decision_records_decision_id_decisions")),
        sa.ForeignKeyConstraint(["batch_id"], ["batches.id"],
                                name=op.f("fk_decision_records_batch_id_batches")),
        sa.PrimaryKeyConstraint("decision_id", name=op.f("pk_decision_records")),
    )
    op.create_index(op.f("ix_decision_records_batch_id"), "decision_records", ["batch_id"])


def downgrade() -> None:
    op.drop_table("decision_records")
    op.drop_table("alerts")
