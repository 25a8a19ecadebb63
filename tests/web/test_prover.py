"""web/cache.py's background prover on the demo: a write the tracking carries over wakes it; it seals
the tables again and catches what the tracking cannot see (ledger/tracking.py: SQLite's INSERT OR
REPLACE); from then on every page — one already cached too — answers 409, until a later check
proves the ledger again (the row put back)."""

from __future__ import annotations

import sqlite3
import time

import pytest

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
BATCH = "csa-sft-2026-11-a"
JSON = {"Accept": "application/json"}


@pytest.fixture
def ws(demo_copy):  # tests/conftest.py: a private copy of the session's demo workspace
    return demo_copy


def _write(ws, why: str) -> None:
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        wsp.ledger.audit("test", "note", "workspace", {"why": why})


def _replace_line(ws, expected: str | tuple | None = None) -> tuple:
    """INSERT OR REPLACE of the batch's first line with another amount (low = expected = high; None: as
    it was); the amount it held before."""
    db = sqlite3.connect(ws / "ledger.db")
    db.row_factory = sqlite3.Row
    row = dict(db.execute("SELECT * FROM cost_lines WHERE batch_id = ? ORDER BY id LIMIT 1", (BATCH,)).fetchone())
    before = (row["low"], row["expected"], row["high"])
    row["low"], row["expected"], row["high"] = (expected,) * 3 if isinstance(expected, str) else expected or before
    db.execute(f"INSERT OR REPLACE INTO cost_lines ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
               tuple(row.values()))
    db.commit()
    db.close()
    return before


def _client(ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    return TestClient(create_app(ws))


def test_the_prover_catches_what_the_tracking_missed_and_every_page_turns_409(ws):
    with _client(ws) as c:
        pages = c.app.state.pages
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200
        assert c.get("/batches", headers=JSON).status_code == 200  # cached now
        before = _replace_line(ws, "999999.99")
        _write(ws, "a write after the edit")
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200  # carried on the tracking's word
        assert pages.recheck()  # the content seal does not hold: the full check names the line
        for path in (f"/batches/{BATCH}", "/batches"):  # the list was cached before: not served either
            resp = c.get(path, headers=JSON)
            assert resp.status_code == 409, path
            assert "background check" in resp.json()["error"]["message"]
            assert "cost line" in resp.json()["error"]["message"]
        _replace_line(ws, before)  # put back as it was
        assert pages.recheck() == []
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200


def test_a_write_carried_over_wakes_the_prover(ws):
    with _client(ws) as c:
        pages = c.app.state.pages
        pages.prove_gap = 0.0
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200
        assert pages.rechecks == 0  # a fresh start checks the recorded seal itself: nothing to wake for
        _replace_line(ws, "999999.99")
        _write(ws, "a write after the edit")
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200
        deadline = time.monotonic() + 60
        while pages.rechecks == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert pages.rechecks >= 1  # ran on its own, without waiting for its period
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 409


def test_an_update_behind_the_ledgers_back_is_seen_at_the_next_request_without_a_write(ws):
    with _client(ws) as c:
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200
        assert c.get(f"/batches/{BATCH}", headers=JSON).status_code == 200  # from the cache
        db = sqlite3.connect(ws / "ledger.db")
        db.execute("UPDATE cost_lines SET low = '999999.99', expected = '999999.99', high = '999999.99'"
                   " WHERE id = (SELECT min(id) FROM cost_lines WHERE batch_id = ?)", (BATCH,))
        db.commit()
        db.close()
        resp = c.get(f"/batches/{BATCH}", headers=JSON)  # no write: the counters moved, the page is built again
        assert resp.status_code == 409 and "cost line" in resp.json()["error"]["message"]
