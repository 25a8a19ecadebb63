"""web/cache.py: pages served from the view-model cache are per role (a finance render cached first
never reaches an engineer), fresh (a new attribution, a decision-like write or a token change is
seen by the next request) and byte-identical to a page built without the cache; the LRU is bounded.
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from tests.web.roles_ws import BATCH_A, leaks, run_cli, secrets

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def _bearer(tok: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {tok}"}


def _client(root, **kw):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    return TestClient(create_app(root, **kw))


def test_a_finance_page_cached_first_never_reaches_an_engineer(rates_ws, tokens):
    root, rates = rates_ws
    needles = secrets(root, rates)
    toks, _ = tokens
    with _client(root, require_token=True) as c:
        pages = c.app.state.pages
        for accept in ("text/html", "application/json"):
            fin = c.get(f"/batches/{BATCH_A}", headers={**_bearer(toks["finance"]), "Accept": accept})
            assert fin.status_code == 200 and leaks(fin.text, needles)  # finance: the rates, now cached
            built = pages.models.misses
            for who in ("engineer", "engineer_a", "viewer"):
                r = c.get(f"/batches/{BATCH_A}", headers={**_bearer(toks[who]), "Accept": accept})
                assert r.status_code == 200
                assert not leaks(r.text, needles), (who, accept)
                assert "restricted" in r.text
            assert pages.models.misses == built  # the engineer's page came from finance's cached model
        again = c.get(f"/batches/{BATCH_A}", headers={**_bearer(toks["finance"]), "Accept": "application/json"})
        assert leaks(again.text, needles) and pages.pages.hits >= 1  # finance's own page, from the cache
        assert pages.models.hits >= 3


def _no_csrf(body: bytes) -> bytes:
    return re.sub(rb'name="csrf" value="[^"]*"', b'name="csrf" value=""', body)


def test_a_cached_page_is_byte_identical_to_a_fresh_build(rates_ws):
    root, _ = rates_ws
    paths = ["/batches", f"/batches/{BATCH_A}", f"/batches/{BATCH_A}/runs/a-r01"]
    with _client(root) as warm, _client(root) as fresh:
        for p in paths:
            for accept in ("text/html", "application/json"):
                first = warm.get(p, headers={"Accept": accept}, params={"lang": "zh-CN"})
                cached = warm.get(p, headers={"Accept": accept}, params={"lang": "zh-CN"})
                new = fresh.get(p, headers={"Accept": accept}, params={"lang": "zh-CN"})
                assert first.status_code == cached.status_code == new.status_code == 200, p
                # the run page's cause form carries each session's own CSRF token: the rest is the same
                assert _no_csrf(first.content) == _no_csrf(cached.content) == _no_csrf(new.content), (p, accept)
        # the run page's HTML has a write form: kept with a placeholder, each session's CSRF token put in
        assert warm.app.state.pages.pages.hits == 2 * len(paths)
        # the run page read the batch's shared sheet without changing it: the batch page as before
        again = warm.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"}, params={"lang": "en"})
        assert again.content == fresh.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"},
                                          params={"lang": "en"}).content
        assert warm.app.state.pages.models.hits >= 2  # the run page's sheet was the batch page's
        assert fresh.app.state.pages.pages.hits == 0
        run_html = warm.get(paths[2], headers={"Accept": "text/html"}).text
        other = fresh.get(paths[2], headers={"Accept": "text/html"}).text
        token, theirs = (re.search(r'name="csrf" value="([^"]*)"', t).group(1) for t in (run_html, other))
        assert token == warm.get("/api/csrf").json()["csrf"] != theirs  # each session's own


def test_run_page_line_ids_are_those_of_the_whole_ledger(rates_ws):
    from trainledger.service import Workspace
    from trainledger.web import views

    root, _ = rates_ws
    with Workspace.open(root) as wsp:
        wsp.sheet = functools.lru_cache(wsp.sheet)  # one sheet per batch: views.run must not change it
        lines = wsp.ledger.cost_lines()
        everything = {(ln.batch_id, ln.run_id): [] for ln in lines if ln.batch_id and ln.run_id}
        for ident, ln in zip(views.line_ids(lines), lines, strict=True):
            if ln.batch_id and ln.run_id:
                everything[(ln.batch_id, ln.run_id)].append(ident)
        assert any(int(i.rsplit("-", 1)[1]) > 0 for ids in everything.values() for i in ids)  # rows of many lines
        for (batch, run), ids in everything.items():
            got = [ln["id"] for g in views.run(wsp, batch, run)["by_state"] for ln in g["lines"]]
            assert sorted(got) == sorted(ids), (batch, run)


def test_every_line_id_opens_its_line_and_its_source_row_lists_it(rates_ws):
    from trainledger.errors import NotFound
    from trainledger.service import Workspace
    from trainledger.web import views

    root, _ = rates_ws
    with Workspace.open(root) as wsp:
        lines = wsp.ledger.cost_lines()
        ids = views.line_ids(lines)
        assert len(set(ids)) == len(ids) and any(not i.endswith("-0") for i in ids)
        for ident, ln in zip(ids, lines, strict=True):  # read by index: the same line as the whole ledger's
            assert views.line(wsp, ident) == {**views.line(wsp, ident), **views.line_dict(ln, ident)}
        imported = next((i, ln) for i, ln in zip(ids, lines, strict=True) if views._is_import(ln))
        src = views.source(wsp, imported[0].split("-")[0], imported[1].provenance.row)
        assert imported[0] in [x["id"] for x in src["lines"]]
        assert sorted(x["id"] for x in src["lines"]) == sorted(
            i for i, ln in zip(ids, lines, strict=True) if (ln.provenance.source_sha256, ln.provenance.row)
            == (imported[1].provenance.source_sha256, imported[1].provenance.row))
        for bad in (ids[0].rsplit("-", 1)[0] + "-99", "nope", "abc-x-0"):
            with pytest.raises(NotFound):
                views.line(wsp, bad)


def test_reading_does_not_invalidate_but_every_write_does(rates_ws, tokens):
    from trainledger.service import Workspace

    root, _ = rates_ws
    toks, _ = tokens
    with _client(root, require_token=True) as c:
        pages = c.app.state.pages
        key0 = pages.state.key()
        c.get(f"/batches/{BATCH_A}", headers=_bearer(toks["finance"]))  # appends a reveal_restricted entry
        built = pages.models.misses  # the page's model and the batch's sheet
        c.get(f"/batches/{BATCH_A}", headers=_bearer(toks["finance"]))
        assert pages.state.key() == key0 and pages.models.misses == built
        with Workspace.open(root) as wsp:
            assert wsp.ledger.audit_log()[-1]["action"] == "reveal_restricted"
        run_cli("--workspace", root, "token", "create", "--role", "viewer")  # a token change
        key1 = pages.state.key()
        assert key1 != key0
        c.get(f"/batches/{BATCH_A}", headers=_bearer(toks["finance"]))
        assert pages.models.misses > built  # rebuilt for the new state


def test_a_run_pages_lines_outlive_a_write_but_not_new_figures(rates_ws):
    from trainledger.service import Workspace

    root, _ = rates_ws
    path, json_ = f"/batches/{BATCH_A}/runs/a-r01", {"Accept": "application/json"}
    with _client(root) as c:
        figures = c.app.state.pages.figures
        before = c.get(path, headers=json_).json()
        assert figures.misses == 1 and figures.hits == 0
        with Workspace.open(root) as wsp:  # a write that records no figures: a new state, the same figures
            wsp.ledger.audit("test", "note", "workspace", {"why": "a write"})
        after = c.get(path, headers=json_).json()
        assert after["by_state"] == before["by_state"] and figures.hits == 1 and figures.misses == 1
        with Workspace.open(root) as wsp:  # new figures: read again
            wsp.attribute()
        again = c.get(path, headers=json_).json()
        assert figures.misses == 2
        assert [g["state"] for g in again["by_state"]] == [g["state"] for g in before["by_state"]]


def test_a_new_attribution_is_seen_by_the_next_request(rates_ws):
    from trainledger.service import Workspace

    root, _ = rates_ws
    with _client(root) as c:
        before = c.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"}).json()
        assert c.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"}).json() == before  # cached
        with Workspace.open(root) as wsp:  # another process attributes again: a new attribution id
            wsp.attribute()
            latest = wsp.ledger.latest_attribution()["id"]
        assert latest != before["sheet"]["attribution_id"]
        after = c.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"}).json()
        assert after["sheet"]["attribution_id"] == latest
        assert after["sheet"]["ledger"]["audit_head_id"] > before["sheet"]["ledger"]["audit_head_id"]
        # the config too: a batch renamed in trainledger.toml (no ledger write yet) shows at once
        cfg = root / "trainledger.toml"
        old = cfg.read_text(encoding="utf-8")
        name = before["sheet"]["batch"]["name"]
        assert f'name = "{name}"' in old
        cfg.write_text(old.replace(f'name = "{name}"', 'name = "renamed for the cache test"', 1), encoding="utf-8")
        try:
            renamed = c.get(f"/batches/{BATCH_A}", headers={"Accept": "application/json"}).json()
            assert renamed["sheet"]["batch"]["name"] == "renamed for the cache test"
        finally:
            cfg.write_text(old, encoding="utf-8")


def test_the_state_starts_over_when_the_chain_it_saw_is_gone(tmp_path):
    from trainledger.service import Workspace
    from trainledger.web.cache import State

    root = tmp_path / "ws"
    Workspace.init(root).close()
    state = State(root)
    with Workspace.open(root) as wsp:
        wsp.ledger.audit("t", "reveal_restricted", "/x", {})
        k0 = state.key()
        wsp.ledger.audit("t", "reveal_restricted", "/y", {})
        assert state.key() == k0
        wsp.ledger.audit("t", "add_decision", "batch:b", {})
        k1 = state.key()
        assert k1 != k0 and k1[0][0] == wsp.ledger.audit_head()[0]
    state._seen = (state._seen[0], "0" * 64)  # as if the database were replaced by another
    assert state.key() == k1  # read again from the newest non-reveal entry
    state.close()


def test_the_lru_is_bounded_by_entries_and_by_weight():
    from trainledger.web.cache import LRU

    lru = LRU(3, max_weight=10)
    for i in range(5):
        lru.put(i, str(i), 1)
    assert len(lru) == 3 and lru.get(0) is None and lru.get(4) == "4"
    lru.get(2)  # used: kept over 3
    lru.put("big", "x", 8)
    assert lru.get(2) == "2" and lru.get(3) is None and lru.weight <= 10
    lru.put("huge", "y", 11)  # larger than the bound: not kept
    assert lru.get("huge") is None and lru.weight <= 10
    assert json.dumps(sorted(map(str, lru._data))) == json.dumps(["2", "4", "big"])
