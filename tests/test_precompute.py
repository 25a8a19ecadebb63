"""report/precompute.py on the demo: every batch's sheet figures are written at attribution under the
figures digest and recorded in the audit chain; a sheet from them equals the sheet built from the
cost lines; a file of other figures, an edited file or an unverified proof is never served, and a
tampered cost line still stops the sheet. The dashboard verifies once per audit head."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["--lang", "en", *[str(a) for a in args]], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def ws(demo_copy):  # tests/conftest.py: a private copy of the session's demo workspace
    return demo_copy


def test_attribution_writes_each_batch_under_its_verified_figures_digest(ws):
    from trainledger.report import precompute
    from trainledger.report.sheet import build_sheet
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        proof = wsp.verify()
        entry = precompute.recorded(wsp.ledger)
        assert entry["figures_digest"] == proof["figures_digest"] and set(entry["sheets"]) == set(BATCHES)
        assert [p.name for p in (ws / "cache" / "sheets").iterdir()] == [proof["figures_digest"]]
        for b in BATCHES:
            figures = precompute.load(wsp, b, proof)
            assert figures is not None and figures["attribution_id"] == proof["attribution_id"]
            from_lines = build_sheet(wsp, b)
            assert build_sheet(wsp, b, figures) == from_lines
            assert from_lines["totals_by_basis"] and from_lines["runs"] and from_lines["retry_chains"]


def test_the_sheet_is_the_same_with_and_without_the_precompute(ws):
    with_it = {b: run("--workspace", ws, "sheet", b, "--format", "json").output for b in BATCHES}
    shutil.rmtree(ws / "cache")
    assert {b: run("--workspace", ws, "sheet", b, "--format", "json").output for b in BATCHES} == with_it


def test_other_figures_an_edited_file_or_an_unverified_proof_are_never_served(ws):
    from trainledger.report import precompute
    from trainledger.service import Workspace

    b = BATCHES[0]
    with Workspace.open(ws) as wsp:
        proof = wsp.verify()
        assert precompute.load(wsp, b, proof) is not None
        assert precompute.load(wsp, b, dict(proof, figures_digest="0" * 64)) is None
        assert precompute.load(wsp, b, dict(proof, verified=False)) is None
        path = ws / "cache" / "sheets" / proof["figures_digest"] / f"{b}.json.gz"
        body = json.loads(gzip.decompress(path.read_bytes()))
        real = body["totals_by_basis"][0]["expected"]
        body["totals_by_basis"][0]["expected"] = "123456789.00"
        path.write_bytes(gzip.compress(json.dumps(body).encode()))
        assert precompute.load(wsp, b, proof) is None  # its sha256 is not the one the chain recorded
        sheet = wsp.sheet(b)
        assert sheet["totals_by_basis"][0]["expected"] == real  # built from the lines instead


def test_a_new_attribution_replaces_the_files_and_the_old_ones_are_gone(ws):
    from trainledger.report import precompute
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        old = precompute.recorded(wsp.ledger)
        db = sqlite3.connect(ws / "ledger.db")
        db.execute("UPDATE cost_lines SET expected = '999999.99' WHERE id = (SELECT min(id) FROM cost_lines"
                   " WHERE batch_id = ?)", (BATCHES[0],))
        db.commit()
        db.close()
        assert precompute.write(wsp) is None  # a ledger that does not verify: nothing precomputed
        assert precompute.recorded(wsp.ledger) == old
        wsp.attribute()  # recomputed from the lake: the figures, and their digest, are the old ones again
        new = precompute.recorded(wsp.ledger)
        assert new["figures_digest"] == wsp.verify()["figures_digest"]
        assert [p.name for p in (ws / "cache" / "sheets").iterdir()] == [new["figures_digest"]]


def test_a_tampered_cost_line_stops_a_precomputed_sheet(ws):
    db = sqlite3.connect(ws / "ledger.db")
    db.execute("UPDATE cost_lines SET expected = '999999.99' WHERE id = (SELECT min(id) FROM cost_lines"
               " WHERE batch_id = ?)", (BATCHES[0],))
    db.commit()
    db.close()
    assert (ws / "cache" / "sheets").exists()
    out = run("--workspace", ws, "sheet", BATCHES[0], code=2).output
    assert "does not match its audit chain" in out


def _counted(monkeypatch) -> list[str]:
    """The checks of ledger/seal.py the dashboard makes, in order."""
    from trainledger.ledger import seal

    calls: list[str] = []
    def wrap(name):
        real = getattr(seal, name)

        def counted(*args):
            calls.append(name)
            return real(*args)
        return counted

    for name in ("since", "recorded", "full"):
        monkeypatch.setattr(seal, name, wrap(name))
    return calls


@pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
def test_the_dashboard_verifies_once_per_audit_head_and_still_catches_a_tampered_line(ws, monkeypatch):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    calls = _counted(monkeypatch)
    json_ = {"Accept": "application/json"}
    app = create_app(ws)
    app.state.pages.watch_every = 0  # the requests' own checks, counted; the watcher's: tests/web/test_watcher.py
    with TestClient(app) as c:
        for b in BATCHES:
            assert c.get(f"/batches/{b}", headers=json_).status_code == 200
        assert calls == ["recorded"]  # two sheets, one check: the seal the attribution recorded
        with Workspace.open(ws) as wsp:  # a write: only the new entry hashed, the tables sealed again
            wsp.ledger.audit("test", "note", "workspace", {"why": "a write"})
            head = wsp.ledger.audit_head()
        sheet = c.get(f"/batches/{BATCHES[0]}", headers=json_).json()["sheet"]
        assert calls == ["recorded", "since"]
        assert (sheet["ledger"]["audit_head_id"], sheet["ledger"]["audit_head_hash"]) == head
        db = sqlite3.connect(ws / "ledger.db")
        db.execute("UPDATE cost_lines SET expected = '999999.99' WHERE id = (SELECT min(id) FROM cost_lines"
                   " WHERE batch_id = ?)", (BATCHES[0],))
        db.commit()
        db.close()
        with Workspace.open(ws) as wsp:  # any write: a new audit head, so a new verification
            wsp.ledger.audit("test", "note", "workspace", {"why": "a write after the edit"})
        resp = c.get(f"/batches/{BATCHES[0]}", headers=json_)
        assert resp.status_code == 409 and "does not match its audit chain" in resp.json()["error"]["message"]
        assert calls == ["recorded", "since", "since", "recorded", "full"]  # both seals refused: the full check
        assert "cost line" in resp.json()["error"]["message"]


def test_pages_of_one_audit_head_wait_for_one_verification(tmp_path, monkeypatch):
    import threading
    import time

    from trainledger.ledger import seal
    from trainledger.web.cache import Pages

    calls = []
    heads = {"now": (7, "h7")}

    class Ledger:
        url = "sqlite:///x"

        def audit_head(self):
            return heads["now"]

    class Wsp:
        ledger = Ledger()

        def verify(self):
            raise AssertionError("the full check is not needed")

    def recorded(ledger):
        calls.append("recorded")
        time.sleep(0.2)  # the others arrive while it runs
        return seal.Verified(heads["now"], {"audit_head_id": heads["now"][0], "verified": True}, {}, "a")

    def since(ledger, base):
        calls.append("since")
        return seal.Verified(heads["now"], dict(base.proof, audit_head_id=heads["now"][0]), {}, "b")

    monkeypatch.setattr(seal, "recorded", recorded)
    monkeypatch.setattr(seal, "since", since)
    pages = Pages(tmp_path)
    got = []
    threads = [threading.Thread(target=lambda: got.append(pages.proof(Wsp())())) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 5 and all(g["audit_head_id"] == 7 for g in got) and calls == ["recorded"]
    heads["now"] = (8, "h8")  # a write: a new head, checked from the last one
    assert pages.proof(Wsp())()["audit_head_id"] == 8
    assert calls == ["recorded", "since"]
