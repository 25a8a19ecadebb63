"""`status` in zh-CN says 百万 token as the pages do, and `review` / the status page print no empty
bridge rows: the demo's storage line has a retention rework of 0.00 and nothing else (review 4 H10)."""

from __future__ import annotations

import re

import pytest

from tests.web.roles_ws import run_cli
from trainledger.demo.scenario import BATCH_A

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def test_status_units_in_chinese(web_demo):
    zh = run_cli("--workspace", web_demo, "--lang", "zh-CN", "status", BATCH_A)
    work = next(x for x in zh.splitlines() if "已完成有效工作量" in x)
    assert work.endswith("百万 token") and "Mtoken" not in zh
    assert run_cli("--workspace", web_demo, "--lang", "en", "status", BATCH_A).splitlines()[1].endswith("Mtoken")


def test_no_empty_rework_rows(web_demo, client):
    import json

    rv = json.loads(run_cli("--workspace", web_demo, "review", BATCH_A, "--json"))
    storage = next(x for x in rv["lines"] if x["line"] == "storage")
    assert storage["rework_by"] and all(not float(v) for v in storage["rework_by"].values())  # the case
    for lang in ("en", "zh-CN"):
        text = run_cli("--workspace", web_demo, "--lang", lang, "review", BATCH_A)
        empty = [x for x in text.splitlines() if re.search(r"[:：]\s*$", x) and "—" in x]
        assert not empty, empty
    assert "rework by reason and cause: rework 1,520.00" in run_cli("--workspace", web_demo, "--lang", "en",
                                                                     "review", BATCH_A)
    html = client.get(f"/batches/{BATCH_A}/status", params={"lang": "en"}).text
    rows = [re.sub(r"<[^>]+>", " ", r) for r in re.findall(r'<tr class="sub rework-by">(.*?)</tr>', html)]
    assert rows and all(re.search(r"\d", r) for r in rows)
    assert not any("retention" in r for r in rows)
