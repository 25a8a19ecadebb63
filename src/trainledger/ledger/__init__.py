"""The ledger: the small, transactional system of record (SQLite by default, PostgreSQL shared).

    repo.py        Ledger — the repository API every other package uses; one transaction per call,
                   one audit entry per change
    rows.py        domain records ⇄ table rows, and ImportRecord (one import of one file)
    schema.py      the tables (SQLAlchemy Core), the single source the migrations must match
    types.py       DecimalText (exact money as text) and UTCDateTime (tz-aware instants only)
    backends.py    what differs between SQLite and PostgreSQL, as data: pragmas, write locks, upsert
    bulk.py        cost lines to driver values and fingerprints in columns (one check per column),
                   the general path of ``backends.bind_rows`` for whatever it does not vouch for
    audit.py       the sha256 hash chain over the audit log, and its verifier
    figures.py     digests of the stored cost lines, runs and summary, recorded in the chain and
                   recomputed by ``Ledger.verify_figures`` (tamper evidence for the figures)
    seal.py        the same state proved again cheaply: the new audit entries hashed from the last
                   verified head, the figure tables sealed by the database (the dashboard's check)
    tracking.py    the figure tables' change counters, moved by the database's own triggers
                   (migration 0007): when they have not moved, ``seal`` does not read the tables
    migrate.py     Alembic driven from code; migrations/ ships inside the package
    review_repo.py plan versions, alerts and decision records (written once; verified against the audit log)
    tokens.py      API tokens of `serve`: create (secret shown once, stored as a salted HMAC), list,
                   revoke, check (constant time); changes audited

Data flow: callers hand ``Ledger`` domain records (``trainledger.model``); ``rows`` turns them
into rows of ``schema`` tables whose ``types`` keep them exact; reads turn rows back into equal
records. ``Ledger.open(url)`` brings the schema to the newest migration first.
"""

from trainledger.ledger.repo import Ledger
from trainledger.ledger.rows import ImportRecord

__all__ = ["ImportRecord", "Ledger"]
