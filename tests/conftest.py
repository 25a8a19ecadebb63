"""Fixtures shared by suites that run on every ledger backend (SQLite always, PostgreSQL in CI).

``db_url`` gives an empty database per test: a fresh SQLite file, or a fresh PostgreSQL schema
in the database named by ``TRAINLEDGER_TEST_PG_URL`` (selected through ``search_path`` and
dropped afterwards). Without the URL the PostgreSQL half is skipped — unless
``TRAINLEDGER_REQUIRE_PG=1`` (CI), where a missing or unreachable server fails.

``demo_copy`` gives a private copy of the demo workspace, built once per session (``demo_pristine``,
never written), for tests that write to it (tamper, seal, precompute).
"""

from __future__ import annotations

import itertools
import os
import shutil
import uuid

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError

# Shared machines are noisy: no per-example deadline. In CI the examples are derandomized, so a run
# is repeatable; locally Hypothesis keeps exploring new inputs.
settings.register_profile("dev", deadline=None)
settings.register_profile("ci", deadline=None, derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

@pytest.fixture(scope="session")
def demo_pristine(tmp_path_factory):
    """The demo workspace (``trainledger demo``), made once per session. Never write to it: take ``demo_copy``."""
    from click.testing import CliRunner

    from trainledger.cli import cli

    root = tmp_path_factory.mktemp("demo-pristine") / "ws"
    result = CliRunner().invoke(cli, ["--lang", "en", "demo", "--dir", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    (root.parent / "demo-output.txt").write_text(result.output, encoding="utf-8")  # what the newcomer read
    return root


@pytest.fixture
def demo_copy(demo_pristine, tmp_path):
    """A private copy of the demo workspace, for a test that writes to it."""
    copy = tmp_path / "ws"
    shutil.copytree(demo_pristine, copy)
    return copy


PG_URL_ENV = "TRAINLEDGER_TEST_PG_URL"
REQUIRE_PG_ENV = "TRAINLEDGER_REQUIRE_PG"
_schema_numbers = itertools.count(1)


def _pg_unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_PG_ENV) == "1":
        pytest.fail(f"{reason}, and {REQUIRE_PG_ENV}=1 requires the PostgreSQL tests to run",
                    pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_admin():
    """(autocommit engine, base URL, schema prefix) for this test session's PostgreSQL."""
    url = os.environ.get(PG_URL_ENV, "").strip()
    if not url:
        _pg_unavailable(f"{PG_URL_ENV} is not set")
    engine = create_engine(url, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 5})
    problem = None
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except OperationalError as exc:
        problem = str(exc.orig).strip()
    if problem is not None:
        engine.dispose()
        where = make_url(url).render_as_string(hide_password=True)
        _pg_unavailable(f"PostgreSQL at {where} is unreachable ({problem})")
    prefix = f"tl_test_{uuid.uuid4().hex[:10]}"
    yield engine, url, prefix
    with engine.connect() as conn:  # anything a crashed test left behind
        leftovers = conn.scalars(text("SELECT nspname FROM pg_namespace WHERE nspname LIKE :p"),
                                 {"p": prefix + "%"}).all()
        for schema in leftovers:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request, tmp_path):
    """A URL to an empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'ledger.db'}"
        return
    engine, url, prefix = request.getfixturevalue("pg_admin")
    schema = f"{prefix}_{next(_schema_numbers)}"
    with engine.connect() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    # A session time zone far from UTC proves instants come back as UTC whatever it is.
    options = f"-csearch_path={schema} -cTimeZone=Asia/Shanghai"
    scoped = make_url(url).update_query_dict({"options": options})
    yield scoped.render_as_string(hide_password=False)
    with engine.connect() as conn:
        conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))




@pytest.fixture(autouse=True)
def _no_language_from_the_environment(monkeypatch):
    """The CLI's language falls back to TRAINLEDGER_LANG and the locale (trainledger/i18n/choose.py):
    tests see neither, so they read the same on a machine set to Chinese."""
    for var in ("TRAINLEDGER_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
