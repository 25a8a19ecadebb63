"""The stale-attribution note (report/freshness.py) also on the dashboard's batches list and run page, and
in the cross-batch report's own md / html / json (``stale``) / xlsx README — not only on stderr."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from tests.web.test_stale_note import invoice_id, notes_in
from trainledger.cli import cli

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
BATCH = "csa-sft-2026-11-a"
J = {"Accept": "application/json"}


def run(root, *args):
    result = CliRunner().invoke(cli, ["--workspace", str(root), *map(str, args)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result


def test_batches_run_page_and_cross_report_say_the_figures_are_stale(web_demo, tmp_path):
    from openpyxl import load_workbook
    from starlette.testclient import TestClient

    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    ws = tmp_path / "ws"
    shutil.copytree(web_demo, ws)
    ident = invoice_id(ws)
    with Workspace.open(ws) as wsp:
        run_id = wsp.ledger.runs(BATCH)[0].id
    pages = ("/batches", f"/batches/{BATCH}/runs/{run_id}", "/report")
    with TestClient(create_app(ws)) as client:
        for p in pages:  # current figures: no note (and the pages are cached now)
            assert notes_in(client.get(p, params={"lang": "en"}).text) == [], p
            assert client.get(p, headers=J).json()["stale"] is None, p
        with Workspace.open(ws) as wsp:
            wsp.drop_import(ident, "wrong vendor file")
        for p in pages:
            for lang, word in (("en", "dropped"), ("zh-CN", "已撤销")):
                (note,) = notes_in(client.get(p, params={"lang": lang}).text)  # said once, also on /report
                assert ident in note and word in note and "trainledger attribute" in note, (p, note)
            assert client.get(p, headers=J).json()["stale"]["changes"][0]["import"] == ident, p
        assert client.get("/report", headers=J).json()["report"]["stale"]["changes"][0]["change"] \
            == "dropped"
        scoped = run(ws, "token", "create", "--role", "viewer", "--batch", BATCH).stdout.strip().splitlines()[-1]
        got = client.get("/batches", headers={"Authorization": f"Bearer {scoped}", **J})
        assert got.status_code == 200 and [b["id"] for b in got.json()["batches"]] == [BATCH]
        assert got.json()["stale"]["changes"][0]["import"] == ident

    rep = json.loads(run(ws, "report", "--format", "json").stdout)
    assert rep["stale"]["changes"][0] == {**rep["stale"]["changes"][0], "change": "dropped", "import": ident}
    md = run(ws, "--lang", "en", "report").stdout.split("## ")[0]  # at the top, before the first table
    assert "Figures are from the attribution of" in md and f"import {ident}" in md
    assert "以下数字来自" in run(ws, "--lang", "zh-CN", "report").stdout.split("## ")[0]
    (note,) = notes_in(run(ws, "report", "--format", "html").stdout)
    assert ident in note
    out = tmp_path / "r.xlsx"
    r = run(ws, "report", "--format", "xlsx", "--out", out)
    assert ident in r.stderr  # only "wrote FILE" on stdout: said on stderr too
    cells = [c for row in load_workbook(out)["README"].iter_rows(values_only=True) for c in row if c]
    assert any(ident in str(c) and "Figures are from" in str(c) for c in cells)
    assert any(ident in str(c) and "以下数字来自" in str(c) for c in cells)

    run(ws, "attribute")
    assert json.loads(run(ws, "report", "--format", "json").stdout)["stale"] is None
