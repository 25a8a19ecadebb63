"""A run whose id holds "/" (a Kubernetes pod without a ``run`` label is ``namespace/name``) has a run
page: the batch page links to it percent-encoded, and the link answers (review 5 J13: it was a 404)."""

from __future__ import annotations

import pytest

from tests.test_cli_mig import pod, pod_workspace, run

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


def test_a_pods_run_page_answers_from_the_batch_pages_link(tmp_path):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    ws = pod_workspace(tmp_path, pod("train", {"nvidia.com/gpu": "4"}, "2026-11-10T09:00:00Z",
                                     "2026-11-10T10:00:00Z"))
    run("--workspace", ws, "attribute")
    with TestClient(create_app(ws)) as c:
        batch = c.get("/batches/b1", headers={"accept": "application/json"}).json()
        href = next(r["href"] for r in batch["runs"] if r["id"] == "ml/train")
        assert href == "/batches/b1/runs/ml%2Ftrain"
        page = c.get(href, headers={"accept": "application/json"})
        assert page.status_code == 200, page.text[:300]
        assert page.json()["run"]["id"] == "ml/train"
        html = c.get(href)
        assert html.status_code == 200 and "ml/train" in html.text
        missing = c.get("/batches/b1/runs/ml%2Fnone", headers={"accept": "application/json"})
        assert missing.status_code == 404
        gone = c.get("/nowhere", headers={"accept": "application/json"}).json()["error"]
        assert gone["message_zh"] == "没有此页面：/nowhere"
        assert gone["remedy_zh"] == "请查看 /batches 或 /api/openapi.json"
