"""Backends for the ledger conformance suite.

Every test that takes ``db_url`` (fixture in tests/conftest.py) or ``ledger`` runs once per backend:

* ``sqlite``: a fresh WAL database file in the test's tmp directory;
* ``postgresql`` (marked ``postgres``): a fresh schema in the database named by
  ``TRAINLEDGER_TEST_PG_URL``, selected through ``search_path`` and dropped after the test, so
  runs never see each other's tables (the session time zone is set to Asia/Shanghai).
  Without the URL the PostgreSQL half is skipped — unless
  ``TRAINLEDGER_REQUIRE_PG=1`` (CI), where a missing or unreachable server fails every test.
"""

from __future__ import annotations

import pytest
from sqlalchemy.engine import make_url

from trainledger.ledger import Ledger
from trainledger.model import AttributionKey, Batch, Project


@pytest.fixture
def backend(db_url) -> str:
    return make_url(db_url).get_backend_name()


@pytest.fixture
def ledger(db_url):
    with Ledger.open(db_url, actor="tester") as led:
        yield led


def make_batch(batch_id: str, project: str = "p1") -> Batch:
    key = AttributionKey(project=project, goal="lower support-ticket cost",
                         data_snapshot="tickets-2024-05", data_processing_version="clean-v3",
                         model_version="qwen2-7b", code_version="git:abc123",
                         config_version="lora-r16", batch_id=batch_id)
    return Batch(key=key, team="nlp", owner="li.wei", name=f"batch {batch_id}",
                 task_type="lora", max_rounds=3)


@pytest.fixture
def seeded(ledger):
    """A ledger with project p1 and batches b1, b2."""
    ledger.upsert_project(Project(id="p1", name="support bot", goal="deflect tickets",
                                  owner="zhang.min"))
    for b in ("b1", "b2"):
        ledger.upsert_batch(make_batch(b))
    return ledger
