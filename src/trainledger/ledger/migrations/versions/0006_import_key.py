"""One import per statement: ``imports.import_key``, which import of a file a record is (64 hex
digits; its first 12 are the id ``imports list`` shows). The same file imported with another
``--set`` (another virtual cluster, another job) makes another statement and is its own import
with its own counts and drop; its key is not the content hash (lake/keys.py ``import_key``).
Every record stored before this revision is its file's first import: its key is its content
hash, so every id already shown keeps naming the same import. The primary key becomes
(source_sha256, kind, import_key).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("imports") as batch:
        batch.add_column(sa.Column("import_key", sa.String(64), nullable=True))
    op.execute("UPDATE imports SET import_key = source_sha256")
    with op.batch_alter_table("imports") as batch:
        batch.alter_column("import_key", existing_type=sa.String(64), nullable=False)
        batch.drop_constraint("pk_imports", type_="primary")
        batch.create_primary_key("pk_imports", ["source_sha256", "kind", "import_key"])


def downgrade() -> None:
    op.execute("DELETE FROM imports WHERE import_key <> source_sha256")
    with op.batch_alter_table("imports") as batch:
        batch.drop_constraint("pk_imports", type_="primary")
        batch.create_primary_key("pk_imports", ["source_sha256", "kind"])
        batch.drop_column("import_key")
