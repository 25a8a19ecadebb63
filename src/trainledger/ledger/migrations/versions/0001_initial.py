"""Initial ledger: projects, batches, runs, imports, attributions, cost lines, prices, plans,
decisions and the hash-chained audit log.

The types are the DDL the model's column types compile to: ``DecimalText`` is TEXT and
``UTCDateTime`` is a timestamp with time zone; the conversions live in the application.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

INSTANT = sa.DateTime(timezone=True)
EXACT = sa.Text()


def upgrade() -> None:
    op.create_table(
        "projects",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("goal", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_projects")),
    )
    op.create_table(
        "batches",
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("project", sa.String(128), nullable=False),
        sa.Column("goal", sa.Text(), nullable=False),
        sa.Column("data_snapshot", sa.Text(), nullable=False),
        sa.Column("data_processing_version", sa.Text(), nullable=False),
        sa.Column("model_version", sa.Text(), nullable=False),
        sa.Column("code_version", sa.Text(), nullable=False),
        sa.Column("config_version", sa.Text(), nullable=False),
        sa.Column("team", sa.Text(), nullable=False),
        sa.Column("owner", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("task_type", sa.String(32), nullable=False),
        sa.Column("max_rounds", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["project"], ["projects.id"], name=op.f("fk_batches_project_projects")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batches")),
    )
    op.create_index(op.f("ix_batches_project"), "batches", ["project"])

    op.create_table(
        "runs",
        sa.Column("id", sa.String(255), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=False),
        sa.Column("reason", sa.String(32), nullable=False),
        sa.Column("cause", sa.String(32), nullable=True),
        sa.Column("source_job", sa.Text(), nullable=False),
        sa.Column("state", sa.String(64), nullable=False),
        sa.Column("submitted_at", INSTANT, nullable=True),
        sa.Column("started_at", INSTANT, nullable=True),
        sa.Column("ended_at", INSTANT, nullable=True),
        sa.Column("gpus", sa.Integer(), nullable=False),
        sa.Column("review_class", sa.String(32), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_runs_batch_id_batches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_runs")),
    )
    op.create_index(op.f("ix_runs_batch_id"), "runs", ["batch_id"])

    op.create_table(
        "imports",
        sa.Column("source_sha256", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("path", sa.Text(), nullable=False),
        sa.Column("imported_at", INSTANT, nullable=False),
        sa.Column("rows_read", sa.Integer(), nullable=False),
        sa.Column("accepted", sa.Integer(), nullable=False),
        sa.Column("duplicates", sa.Integer(), nullable=False),
        sa.Column("quarantined", sa.Integer(), nullable=False),
        sa.Column("quarantine_file", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("source_sha256", "kind", name=op.f("pk_imports")),
    )
    op.create_table(
        "attributions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("created_at", INSTANT, nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_attributions")),
    )
    op.create_table(
        "cost_lines",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("attribution_id", sa.Integer(), nullable=False),
        sa.Column("category", sa.String(32), nullable=False),
        sa.Column("basis", sa.String(32), nullable=False),
        sa.Column("evidence", sa.String(32), nullable=False),
        sa.Column("low", EXACT, nullable=False),
        sa.Column("expected", EXACT, nullable=False),
        sa.Column("high", EXACT, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=True),
        sa.Column("run_id", sa.String(255), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("quantity", EXACT, nullable=True),
        sa.Column("unit", sa.String(64), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("source_sha256", sa.String(64), nullable=False),
        sa.Column("source_row", sa.Integer(), nullable=False),
        sa.Column("rule", sa.Text(), nullable=False),
        sa.Column("source_kind", sa.String(32), nullable=False),
        sa.CheckConstraint(
            "batch_id IS NOT NULL OR reason <> ''",
            name=op.f("ck_cost_lines_attributed_or_reason"),
        ),
        sa.ForeignKeyConstraint(
            ["attribution_id"], ["attributions.id"],
            name=op.f("fk_cost_lines_attribution_id_attributions"),
        ),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_cost_lines_batch_id_batches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_cost_lines")),
    )
    op.create_index(op.f("ix_cost_lines_attribution_id"), "cost_lines", ["attribution_id"])
    op.create_index(op.f("ix_cost_lines_batch_id"), "cost_lines", ["batch_id"])
    op.create_index("ix_cost_lines_source", "cost_lines", ["source_sha256", "source_row"])

    op.create_table(
        "prices",
        sa.Column("item", sa.String(255), nullable=False),
        sa.Column("effective", sa.Date(), nullable=False),
        sa.Column("unit", sa.String(64), nullable=False),
        sa.Column("price", EXACT, nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("source", sa.Text(), nullable=False),
        sa.Column("expires", sa.Date(), nullable=True),
        sa.Column("evidence", sa.String(32), nullable=False),
        sa.Column("low", EXACT, nullable=False),
        sa.Column("high", EXACT, nullable=False),
        sa.PrimaryKeyConstraint("item", "effective", name=op.f("pk_prices")),
    )
    op.create_table(
        "plans",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=False),
        sa.Column("stage", sa.String(16), nullable=False),
        sa.Column("created_at", INSTANT, nullable=False),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_plans_batch_id_batches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_plans")),
    )
    op.create_index(op.f("ix_plans_batch_id"), "plans", ["batch_id"])

    op.create_table(
        "decisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.String(128), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", INSTANT, nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("reusable_assets", sa.JSON(), nullable=False),
        sa.Column("unknowns_removed", sa.JSON(), nullable=False),
        sa.Column("next_to_verify", sa.JSON(), nullable=False),
        sa.Column("author", sa.Text(), nullable=False),
        sa.ForeignKeyConstraint(
            ["batch_id"], ["batches.id"], name=op.f("fk_decisions_batch_id_batches")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_decisions")),
    )
    op.create_index(op.f("ix_decisions_batch_id"), "decisions", ["batch_id"])

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("at", INSTANT, nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("object", sa.Text(), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
        sa.UniqueConstraint("hash", name=op.f("uq_audit_log_hash")),
    )


def downgrade() -> None:
    for table in ("audit_log", "decisions", "plans", "prices", "cost_lines", "attributions",
                  "imports", "runs", "batches", "projects"):
        op.drop_table(table)  # indexes go with their table
