"""The run page says where the failure cause came from in the page's language (engine/causes.py's
messages, i18n/texts_causes.py): the JSON keeps the English and has the Chinese beside it."""

from __future__ import annotations

import re

import pytest

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]
HINT = "confirm with `trainledger runs confirm`"


@pytest.fixture(scope="module")
def client(web_demo):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(web_demo)) as c:
        yield c


def test_the_run_page_says_the_source_in_its_language(client):
    run = client.get("/batches/csa-sft-2026-11-a/runs/a-r01", headers={"accept": "application/json"}).json()["run"]
    assert run["cause_source"] == f"suggested: its retry a-r02 names it; {HINT}"
    assert run["cause_source_zh"] == "推断：其重试 a-r02 注明了此原因；请用 `trainledger runs confirm` 确认"
    zh = client.get("/batches/csa-sft-2026-11-a/runs/a-r01", params={"lang": "zh-CN"}).text
    en = client.get("/batches/csa-sft-2026-11-a/runs/a-r01", params={"lang": "en"}).text
    cell = re.compile(r'<td class="cause-source">(.*?)</td>')
    assert cell.search(zh).group(1) == "推断：其重试 a-r02 注明了此原因；请用 `trainledger runs confirm` 确认"
    assert cell.search(en).group(1) == f"suggested: its retry a-r02 names it; {HINT}"
