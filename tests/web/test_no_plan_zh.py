"""A batch without a plan on the status and decisions pages, in the page's language (review 7 L16: the
zh-CN pages printed "batch … has no plan" and its remedy in English)."""

from __future__ import annotations

import re

import pytest

from tests.configs import ONE_BATCH

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from starlette.testclient import TestClient

    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    root = tmp_path_factory.mktemp("no-plan") / "ws"
    Workspace.init(root).close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(ONE_BATCH)
    with Workspace.open(root) as wsp:
        wsp.attribute()  # the ledger learns its batches (none has a plan)
    with TestClient(create_app(root)) as c:
        yield c


@pytest.mark.parametrize("path", ["/batches/b1/status", "/batches/b1/decisions"])
def test_no_plan_is_said_in_the_pages_language(client, path):
    zh = client.get(path + "?lang=zh-CN")
    assert zh.status_code == 200
    text = re.sub(r"<[^>]+>", " ", zh.text)
    assert "批次 b1 没有计划" in text and "先制定一个：trainledger plan b1 --from-estimate SPEC.toml" in text
    assert "has no plan" not in text and "make one" not in text
    en = re.sub(r"<[^>]+>", " ", client.get(path + "?lang=en").text)
    assert "batch b1 has no plan" in en and "没有计划" not in en
    m = client.get(path, headers={"accept": "application/json"}).json()
    assert m["no_plan"]["message_zh"] == "批次 b1 没有计划" and m["no_plan"]["message"] == "batch b1 has no plan"
