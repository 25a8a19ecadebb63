"""Schemathesis in process against /api/openapi.json: generated ids, languages and write bodies (the
POSTs: without their session's CSRF token every one is refused, 403), no server error."""

from __future__ import annotations

import json

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from trainledger.web.app import OPENAPI  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def api_schema(web_demo):
    from trainledger.web.app import create_app

    return schemathesis.openapi.from_asgi("/api/openapi.json", create_app(web_demo))


@pytest.mark.parametrize("path, method", sorted((p, m.upper()) for p, item in OPENAPI["paths"].items() for m in item))
def test_no_server_error(api_schema, path, method):
    op = api_schema[path][method]
    seen = []

    @given(case=op.as_strategy())
    @settings(max_examples=5, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    def check(case):
        for accept in ("application/json", "text/html"):
            response = case.call(headers={"accept": accept})
            seen.append(response.status_code)
            assert response.status_code < 500, (case.path_parameters, case.query, response.text[:500])
            if response.status_code >= 400:  # either form names the remedy
                body = response.text
                assert (json.loads(body)["error"]["remedy"] if body.startswith("{")
                        else "remedy" in body or "处理办法" in body), (response.status_code, body[:300])

    check()
    assert seen
