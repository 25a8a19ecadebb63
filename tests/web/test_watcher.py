"""web/cache.py's watcher and the rebuild after a write (issue 10: the first request after a write at
1M job attempts paid the page's whole build).

* A write from another process (an audit entry, as `decide` appends) moves the ledger; the watcher
  sees it and builds the pages read recently for the new state, so the next request is a cache hit
  that shows the new state (its proof names the new audit head) — and is byte-identical to the page
  a fresh server builds.
* A write the seal does not vouch for (a cost line replaced behind the ledger's back) builds nothing:
  the request gets its 409.
* The sheet's HTML is rendered once per content: a write that changes nothing on the sheet puts the
  new head's proof into the page kept (``Pages.sheet_html``); the config is synced once per signature.
"""

from __future__ import annotations

import re
import sqlite3
import time

import pytest

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
BATCH = "csa-sft-2026-11-a"


def _client(ws, watch_every: float | None = None):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    app = create_app(ws)
    if watch_every is not None:
        app.state.pages.watch_every = watch_every
    return TestClient(app)


def _write(ws) -> int:
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        wsp.ledger.audit("test", "note", "workspace", {"why": "a write from another process"})
        return wsp.ledger.audit_head()[0]


def _proof_head(html: str) -> int:
    return int(re.search(r'id="ledger-proof">[^<]*?(\d+) [0-9a-f]{64}', html).group(1))


def _wait(pages, n: int) -> None:
    deadline = time.monotonic() + 20
    while pages.prebuilt < n and time.monotonic() < deadline:
        time.sleep(0.05)


def test_the_watcher_builds_the_page_before_its_first_reader_after_a_write(demo_copy):
    path = f"/batches/{BATCH}"
    with _client(demo_copy, watch_every=0.05) as c:
        pages = c.app.state.pages
        assert c.get(path).status_code == 200 and c.get(path, headers={"Accept": "application/json"}).status_code == 200
        head = _write(demo_copy)
        _wait(pages, 2)
        assert pages.prebuilt >= 2  # the HTML and the JSON, for the new state
        hits, misses = pages.pages.hits, pages.pages.misses
        page = c.get(path)
        assert page.status_code == 200 and pages.pages.hits == hits + 1 and pages.pages.misses == misses
        assert _proof_head(page.text) == head  # the new state's page, not the old one
        js = c.get(path, headers={"Accept": "application/json"}).json()
        assert js["sheet"]["ledger"]["audit_head_id"] == head
    with _client(demo_copy, watch_every=0) as fresh:  # no watcher: built by the request, the same bytes
        assert fresh.get(path).content == page.content


def test_a_write_the_seal_does_not_vouch_for_builds_nothing_and_the_reader_gets_409(demo_copy):
    path = f"/batches/{BATCH}"
    with _client(demo_copy, watch_every=0.05) as c:
        pages = c.app.state.pages
        assert c.get(path).status_code == 200
        db = sqlite3.connect(demo_copy / "ledger.db")  # behind the ledger's back: the tracking moves
        db.execute("UPDATE cost_lines SET expected = '1.00' WHERE id = (SELECT min(id) FROM cost_lines"
                   " WHERE batch_id = ?)", (BATCH,))
        db.commit()
        db.close()
        time.sleep(0.5)  # ten looks
        assert pages.prebuilt == 0
        assert c.get(path).status_code == 409


def test_the_sheet_is_rendered_once_per_content_and_the_proof_put_in(demo_copy):
    path = f"/batches/{BATCH}"
    with _client(demo_copy, watch_every=0) as c:
        pages = c.app.state.pages
        first = c.get(path).text
        rendered = pages.sheets_html.misses
        synced = set(pages._synced)
        head = _write(demo_copy)
        second = c.get(path).text
        assert pages.sheets_html.misses == rendered and pages.sheets_html.hits >= 1  # not rendered again
        assert _proof_head(second) == head != _proof_head(first)
        assert re.sub(r'id="ledger-proof">[^<]*', "", first) == re.sub(r'id="ledger-proof">[^<]*', "", second)
        assert "tl-proof-head" not in second and pages._synced == synced  # synced once for this config
        other = c.get(path, params={"lang": "zh-CN"})  # another language: its own render
        assert other.status_code == 200 and pages.sheets_html.misses == rendered + 1
