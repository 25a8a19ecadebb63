"""web/cache.py's builds are single-flight (issue 10: the first reader at the instant of a write paid
the page's build; a request asking for a page being built waits for that build instead).

* Readers asking for one key while it is built wait for that one build and get its value; a build
  that raises one of our errors (the 409 naming what was tampered with) gives that error to each of
  them — one full check of a tampered ledger, not one per reader — and is never kept.
* The wait is bounded: past ``wait`` seconds a reader gets 503 with Retry-After, in both languages,
  and the build goes on for the next request.
* A reader who comes while the watcher rebuilds its page after a write joins that build.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from trainledger.errors import LedgerTampered
from trainledger.web import cache

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
BATCH = "csa-sft-2026-11-a"


def _readers(n: int, fn) -> list:
    out: list = [None] * n

    def one(i: int) -> None:
        try:
            out[i] = fn()
        except Exception as e:  # noqa: BLE001 - the test looks at what each reader got
            out[i] = e
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_readers_of_one_key_share_one_build_and_its_error(tmp_path):
    pages = cache.Pages(tmp_path)
    made = []

    def slow():
        made.append(1)
        time.sleep(0.3)
        return "page"
    assert _readers(6, lambda: pages.model(("s", "/p"), slow)) == ["page"] * 6
    assert len(made) == 1 and pages.models.builds == 1 and pages.joined == 5

    def tampered():
        made.append(1)
        time.sleep(0.3)
        raise LedgerTampered("cost line 7 differs from its fingerprint", remedy="run `trainledger audit`")
    made.clear()
    got = _readers(6, lambda: pages.model(("s", "/q"), tampered))
    assert len(made) == 1 and all(isinstance(e, LedgerTampered) and "cost line 7" in e.message for e in got)
    with pytest.raises(LedgerTampered):  # never kept: the next request checks again
        pages.model(("s", "/q"), tampered)
    assert len(made) == 2 and pages.models.peek(("s", "/q")) is None


def test_a_build_that_fails_otherwise_is_taken_over_by_one_waiter(tmp_path):
    pages = cache.Pages(tmp_path)
    made = []

    def flaky():
        made.append(1)
        time.sleep(0.2)
        if len(made) == 1:
            raise sqlite3.OperationalError("database is locked")
        return "page"
    got = _readers(4, lambda: pages.model(("s", "/p"), flaky))
    assert sum(isinstance(g, sqlite3.OperationalError) for g in got) == 1  # the first builder's own error
    assert got.count("page") == 3 and len(made) == 2  # one waiter built it again, the others joined it


def test_the_wait_is_bounded(tmp_path):
    pages = cache.Pages(tmp_path, wait=0.2)
    release = threading.Event()
    started = threading.Event()

    def stuck():
        started.set()
        release.wait(10)
        return "page"
    builder = threading.Thread(target=lambda: pages.model(("s", "/p"), stuck))
    builder.start()
    started.wait(5)
    t0 = time.monotonic()
    with pytest.raises(cache.StillBuilding) as e:
        pages.model(("s", "/p"), stuck)
    assert 0.15 < time.monotonic() - t0 < 5 and e.value.http_status == 503
    release.set()
    builder.join()
    assert pages.model(("s", "/p"), stuck) == "page" and pages.models.builds == 1


def test_a_reader_past_the_wait_gets_503_with_retry_after_in_both_languages(demo_copy, monkeypatch):
    from starlette.testclient import TestClient

    from trainledger.web import app as app_module
    from trainledger.web import views

    real, gate = views.batch, threading.Event()

    def slow(wsp, batch_id):
        gate.wait(10)
        return real(wsp, batch_id)
    monkeypatch.setattr(views, "batch", slow)
    app = app_module.create_app(demo_copy)
    app.state.pages.wait, app.state.pages.watch_every = 0.3, 0
    with TestClient(app) as c:
        first = []
        builder = threading.Thread(target=lambda: first.append(c.get(f"/batches/{BATCH}")))
        builder.start()
        deadline = time.monotonic() + 10
        while not app.state.pages._building and time.monotonic() < deadline:
            time.sleep(0.01)
        en = c.get(f"/batches/{BATCH}", headers={"Accept": "application/json"})
        zh = c.get(f"/batches/{BATCH}", params={"lang": "zh-CN"})
        gate.set()
        builder.join()
        assert en.status_code == 503 and en.headers["retry-after"] == str(cache.RETRY_AFTER)
        assert "still being built" in en.json()["error"]["message"] and "重试" in en.json()["error"]["remedy_zh"]
        assert zh.status_code == 503 and "仍在生成" in zh.text and "已等待" in zh.text
        assert first[0].status_code == 200 and c.get(f"/batches/{BATCH}").status_code == 200


def test_a_reader_during_the_watchers_rebuild_joins_it(demo_copy, monkeypatch):
    from starlette.testclient import TestClient

    from trainledger.service import Workspace
    from trainledger.web import app as app_module
    from trainledger.web import views

    real, calls, go = views.batch, [], threading.Event()

    def slow(wsp, batch_id):
        calls.append(threading.current_thread().name)
        go.wait(10)  # a build as long as at 1M job attempts: until the reader waits for it
        return real(wsp, batch_id)
    monkeypatch.setattr(views, "batch", slow)
    app = app_module.create_app(demo_copy)
    pages = app.state.pages
    pages.watch_every = 0.05
    with TestClient(app) as c:
        go.set()
        assert c.get(f"/batches/{BATCH}").status_code == 200
        calls.clear()
        go.clear()
        with Workspace.open(demo_copy) as wsp:
            wsp.ledger.audit("test", "note", "workspace", {"why": "a write from another process"})
        deadline = time.monotonic() + 10
        while not calls and time.monotonic() < deadline:
            time.sleep(0.01)
        joined, misses, got = pages.joined, pages.pages.misses, []
        reader = threading.Thread(target=lambda: got.append(c.get(f"/batches/{BATCH}")))
        reader.start()
        while pages.pages.misses < misses + 2 and time.monotonic() < deadline:  # ready(), then _once
            time.sleep(0.01)
        time.sleep(0.2)
        go.set()
        reader.join()
        assert got[0].status_code == 200
        assert calls == ["trainledger-watcher"] and pages.joined == joined + 1


def test_concurrent_readers_of_a_tampered_ledger_check_it_once(demo_copy, monkeypatch):
    from starlette.testclient import TestClient

    from trainledger.ledger import seal
    from trainledger.web import app as app_module

    real, checks = seal.full, []

    def full(ledger):
        checks.append(1)
        time.sleep(0.3)
        return real(ledger)
    monkeypatch.setattr(seal, "full", full)
    app = app_module.create_app(demo_copy)
    app.state.pages.watch_every = 0
    with TestClient(app) as c:
        assert c.get(f"/batches/{BATCH}").status_code == 200
        db = sqlite3.connect(demo_copy / "ledger.db")  # behind the ledger's back
        db.execute("UPDATE cost_lines SET expected = '1.00' WHERE id = (SELECT min(id) FROM cost_lines"
                   " WHERE batch_id = ?)", (BATCH,))
        db.commit()
        db.close()
        got = _readers(5, lambda: c.get(f"/batches/{BATCH}"))
        assert [r.status_code for r in got] == [409] * 5 and len(checks) == 1
        assert all("audit" in r.text for r in got)
