"""One demo workspace for the dashboard tests, and an in-process client over it."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

pytest.importorskip("starlette")
pytest.importorskip("httpx")


@pytest.fixture(scope="session")
def web_demo(tmp_path_factory):
    from trainledger.cli import cli

    root = tmp_path_factory.mktemp("web-demo")
    result = CliRunner().invoke(cli, ["demo", "--dir", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root


@pytest.fixture(scope="module")
def client(web_demo):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(web_demo)) as c:
        yield c


# the roles workspace (distinctive labor rates) and its tokens: tests/web/roles_ws.py
from tests.web.roles_ws import rates_ws, tokens  # noqa: E402, F401
