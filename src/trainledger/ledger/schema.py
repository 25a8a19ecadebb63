"""The ledger's tables (SQLAlchemy Core). The migrations in ``migrations/versions`` create exactly
this; a test compares the two with Alembic's autogenerate so they cannot drift apart.

Vocabulary columns (basis, evidence, reason, stage, kind…) are plain strings validated by the
domain types on the way in and out, so a new vocabulary value needs no table rebuild. Money and
quantities are ``DecimalText``; instants are ``UTCDateTime``; text is ``CleanString`` /
``CleanText`` (no NUL characters, which only one of the two backends can store).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    Column,
    Date,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    UniqueConstraint,
)

from trainledger.ledger.types import CleanString, CleanText, DecimalText, UTCDateTime

# Named constraints make migrations deterministic on every backend.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_name)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

metadata = MetaData(naming_convention=NAMING_CONVENTION)

# 64-bit ids where a table is rewritten on every attribution; SQLite needs INTEGER for rowid.
BigId = BigInteger().with_variant(Integer(), "sqlite")

projects = Table(
    "projects",
    metadata,
    Column("id", CleanString(128), primary_key=True),
    Column("name", CleanText, nullable=False),
    Column("goal", CleanText, nullable=False),
    Column("owner", CleanText, nullable=False),
)

batches = Table(
    "batches",
    metadata,
    Column("id", CleanString(128), primary_key=True),
    Column("project", CleanString(128), ForeignKey("projects.id"), nullable=False,
           index=True),
    Column("goal", CleanText, nullable=False),
    Column("data_snapshot", CleanText, nullable=False),
    Column("data_processing_version", CleanText, nullable=False),
    Column("model_version", CleanText, nullable=False),
    Column("code_version", CleanText, nullable=False),
    Column("config_version", CleanText, nullable=False),
    Column("team", CleanText, nullable=False),
    Column("owner", CleanText, nullable=False),
    Column("name", CleanText, nullable=False),
    Column("task_type", CleanString(32), nullable=False),
    Column("max_rounds", Integer, nullable=True),
)

runs = Table(
    "runs",
    metadata,
    Column("id", CleanString(255), primary_key=True),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=False,
           index=True),
    Column("reason", CleanString(32), nullable=False),
    Column("cause", CleanString(32), nullable=True),
    Column("source_job", CleanText, nullable=False),
    Column("state", CleanString(64), nullable=False),
    Column("submitted_at", UTCDateTime, nullable=True),
    Column("started_at", UTCDateTime, nullable=True),
    Column("ended_at", UTCDateTime, nullable=True),
    Column("gpus", Integer, nullable=False),
    Column("review_class", CleanString(32), nullable=True),
    # GPU-equivalents held (exact decimal text, e.g. 0.25); null: ``gpus`` whole (migration 0004)
    Column("gpu_share", DecimalText, nullable=True),
)

imports = Table(
    "imports",
    metadata,
    Column("source_sha256", CleanString(64), primary_key=True),
    Column("kind", CleanString(32), primary_key=True),
    Column("path", CleanText, nullable=False),
    Column("imported_at", UTCDateTime, nullable=False),
    Column("rows_read", Integer, nullable=False),
    Column("accepted", Integer, nullable=False),
    Column("duplicates", Integer, nullable=False),
    Column("quarantined", Integer, nullable=False),
    Column("quarantine_file", CleanText, nullable=True),
    # set when the import was dropped (``imports drop``, ``import --replace``): its lake
    # partitions are tombstoned and feed no figure; cleared when the file is imported again
    Column("dropped_at", UTCDateTime, nullable=True),
    Column("drop_reason", CleanText, nullable=True),
    # which import of the file: the content hash for its first import, another 64-hex key for
    # the same file making another statement (``--set vc=…``; lake.keys.import_key)
    Column("import_key", CleanString(64), primary_key=True),
)

attributions = Table(
    "attributions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("actor", CleanText, nullable=False),
    Column("summary", JSON, nullable=False),
)

cost_lines = Table(
    "cost_lines",
    metadata,
    Column("id", BigId, primary_key=True),
    Column("attribution_id", Integer, ForeignKey("attributions.id"), nullable=False, index=True),
    Column("category", CleanString(32), nullable=False),
    Column("basis", CleanString(32), nullable=False),
    Column("evidence", CleanString(32), nullable=False),
    Column("low", DecimalText, nullable=False),
    Column("expected", DecimalText, nullable=False),
    Column("high", DecimalText, nullable=False),
    Column("currency", CleanString(3), nullable=False),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=True,
           index=True),
    Column("run_id", CleanString(255), nullable=True),
    Column("detail", CleanText, nullable=False),
    Column("quantity", DecimalText, nullable=True),
    Column("unit", CleanString(64), nullable=False),
    Column("reason", CleanText, nullable=False),
    Column("source_sha256", CleanString(64), nullable=False),
    Column("source_row", Integer, nullable=False),
    Column("rule", CleanText, nullable=False),
    Column("source_kind", CleanString(32), nullable=False),
    # the key of the import the source row came through (two imports of one content share its
    # sha256 and row numbers); null: unknown — a line stored before migration 0008, or of no import
    Column("import_key", CleanString(64), nullable=True),
    # Promise 1: money with no batch sits in the unattributed bucket *with a reason*.
    CheckConstraint("batch_id IS NOT NULL OR reason <> ''", name="attributed_or_reason"),
)
Index("ix_cost_lines_source", cost_lines.c.source_sha256, cost_lines.c.source_row)

prices = Table(
    "prices",
    metadata,
    Column("item", CleanString(255), primary_key=True),
    Column("effective", Date, primary_key=True),
    Column("unit", CleanString(64), nullable=False),
    Column("price", DecimalText, nullable=False),
    Column("currency", CleanString(3), nullable=False),
    Column("source", CleanText, nullable=False),
    Column("expires", Date, nullable=True),
    Column("evidence", CleanString(32), nullable=False),
    Column("low", DecimalText, nullable=False),
    Column("high", DecimalText, nullable=False),
)

plans = Table(
    "plans",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=False,
           index=True),
    Column("stage", CleanString(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("body", JSON, nullable=False),
)

decisions = Table(
    "decisions",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=False,
           index=True),
    Column("kind", CleanString(16), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("rationale", CleanText, nullable=False),
    Column("reusable_assets", JSON, nullable=False),
    Column("unknowns_removed", JSON, nullable=False),
    Column("next_to_verify", JSON, nullable=False),
    Column("author", CleanText, nullable=False),
)

# The fingerprints of the rows the last write left in ``cost_lines`` and ``runs`` (one row per
# table): their digest is in the audit chain, so ``Ledger.verify_figures`` can name the first row
# that differs (see ledger/figures.py).
figure_digests = Table(
    "figure_digests",
    metadata,
    Column("name", CleanString(32), primary_key=True),
    Column("digest", CleanString(64), nullable=False),
    Column("rows", Integer, nullable=False),
    Column("fingerprints", CleanText, nullable=False),
)

# Ids are assigned by the writer (last id + 1, under the write lock) because each id is part
# of the hashed content: renumbering rows breaks the chain.
audit_log = Table(
    "audit_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=False),
    Column("at", UTCDateTime, nullable=False),
    Column("actor", CleanText, nullable=False),
    Column("action", CleanString(64), nullable=False),
    Column("object", CleanText, nullable=False),
    Column("detail", JSON, nullable=False),
    Column("prev_hash", CleanString(64), nullable=False),
    Column("hash", CleanString(64), nullable=False, unique=True),
)

# Change counters of the figure tables, moved by the database's own triggers (migration 0007,
# ledger/seal.py ``tracking_ddl``): one row per table, never deleted, a count that only goes up.
seal_counters = Table(
    "seal_counters",
    metadata,
    Column("name", CleanString(32), primary_key=True),
    Column("n", BigInteger, nullable=False),
)

# Plan / execution / review (migration 0004). An alert is written once and never changed; it is
# open until a decision record lists its id in ``answers``.
alerts = Table(
    "alerts",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=False, index=True),
    Column("plan_id", Integer, ForeignKey("plans.id"), nullable=False),
    Column("key", CleanString(255), nullable=False),
    Column("kind", CleanString(32), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("body", JSON, nullable=False),
    UniqueConstraint("plan_id", "key", name="uq_alerts_plan_key"),
)

decision_records = Table(
    "decision_records",
    metadata,
    Column("decision_id", Integer, ForeignKey("decisions.id"), primary_key=True),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=False, index=True),
    Column("body", JSON, nullable=False),
)

# API tokens of ``trainledger serve`` (migration 0005, ledger/tokens.py). The secret is never
# stored: ``digest`` is HMAC-SHA256 of it keyed by the row's own random ``salt``. A token is never
# deleted: revoking sets ``revoked_at``, so ``token list`` and the audit log keep its history.
api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", CleanString(16), primary_key=True),
    Column("role", CleanString(16), nullable=False),
    Column("batch_id", CleanString(128), ForeignKey("batches.id"), nullable=True),
    Column("salt", CleanString(64), nullable=False),
    Column("digest", CleanString(64), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("created_by", CleanText, nullable=False),
    Column("expires_at", UTCDateTime, nullable=True),
    Column("revoked_at", UTCDateTime, nullable=True),
)
