"""After an import change the figures are the last attribution's: every output says so (review 4 H4,
H10, H12; report/freshness.py) — the sheet in md / html / json / xlsx, `status`, `review`, the
dashboard's batch, status and report pages (also a page cached before the change), in en and
zh-CN — and stops saying it once `attribute` ran again. Before any attribution the sheet says to
run it."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

BATCH = "csa-sft-2026-11-a"
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
PAGES = (f"/batches/{BATCH}", f"/batches/{BATCH}/status", "/report")


def run(root, *args, ok=True):
    result = CliRunner().invoke(cli, ["--workspace", str(root), *map(str, args)], catch_exceptions=False)
    assert result.exit_code == 0 or not ok, result.output
    return result.stdout  # a stale note also goes to stderr


def stale_of(root, *args):
    return json.loads(run(root, *args))["stale"]


@pytest.fixture()
def ws(web_demo, tmp_path):
    root = tmp_path / "ws"
    shutil.copytree(web_demo, root)
    return root


def invoice_id(root) -> str:
    rows = json.loads(run(root, "imports", "list", "--json"))
    rows = rows["imports"] if isinstance(rows, dict) else rows
    return next(r["id"] for r in rows if r["kind"] == "invoice" and r["status"] == "live")


def notes_in(html: str) -> list[str]:
    import re

    return re.findall(r'class="stale[^"]*"[^>]*>([^<]*)<', html)


def test_drop_import_and_attribute(ws):
    from starlette.testclient import TestClient

    from trainledger.report.render import render
    from trainledger.service import Workspace
    from trainledger.web.app import create_app

    ident = invoice_id(ws)
    with TestClient(create_app(ws)) as client:
        assert notes_in(client.get(PAGES[0], params={"lang": "en"}).text) == []  # current; the page is cached now
        with Workspace.open(ws) as wsp:
            wsp.drop_import(ident, "wrong vendor file")
        for p, lang, words in ((PAGES[0], "en", "dropped"), (PAGES[0], "zh-CN", "已撤销"), (PAGES[1], "en", "dropped"),
                               (PAGES[2], "zh-CN", "已撤销")):
            (note,) = notes_in(client.get(p, params={"lang": lang}).text)
            assert ident in note and words in note and "trainledger attribute" in note, (p, note)
        model = client.get(PAGES[0], headers={"Accept": "application/json"}).json()
        assert model["sheet"]["stale"]["changes"][0]["change"] == "dropped"

    with Workspace.open(ws) as wsp:
        sheet = wsp.sheet(BATCH)
    stale = sheet["stale"]
    assert stale["since"] is not None and stale["attribution_id"] is not None
    assert [(c["change"], c["import"], c["kind"], c["reason"]) for c in stale["changes"]] == [
        ("dropped", ident, "invoice", "wrong vendor file")]
    assert json.loads(render(sheet, "json"))["stale"] == stale
    head = render(sheet, "md", "en").split("## ")[0]  # before the first section: at the top
    assert "Figures are from the attribution of" in head and f"import {ident}" in head and "dropped" in head
    assert "以下数字来自" in render(sheet, "md", "zh-CN").split("## ")[0]
    (note,) = notes_in(render(sheet, "html", "en"))
    assert ident in note
    from trainledger.report.xlsx import build_workbook

    readme = build_workbook(sheet, [])
    assert ident in readme.wb["README"]["C3"].value and "以下数字来自" in readme.wb["README"]["C3"].value
    assert stale_of(ws, "review", BATCH, "--json")["changes"][0]["import"] == ident
    text = run(ws, "--lang", "en", "status", BATCH)
    assert text.splitlines()[1].startswith("  ! Figures are from the attribution of"), text[:300]

    run(ws, "attribute")
    assert stale_of(ws, "status", BATCH, "--json") is None
    assert stale_now(ws) is None


def stale_now(root):
    from trainledger.report import freshness
    from trainledger.service import Workspace

    with Workspace.open(root) as wsp:
        return freshness.check(wsp)


def test_new_import_and_replace(ws):
    from trainledger.service import Workspace

    src = ws / "data" / "vendor-invoices.csv"
    rows = src.read_text(encoding="utf-8").splitlines()
    first = ws / "invoices-dec.csv"
    first.write_text("\n".join([rows[0], rows[1].replace("YQ-2026-1106-01", "YQ-2026-1201-09")]) + "\n",
                     encoding="utf-8")
    with Workspace.open(ws) as wsp:
        new = wsp.import_files("invoice", [first])[0]
    sheet = stale_now(ws)
    assert [(c["change"], c["path"].endswith("invoices-dec.csv")) for c in sheet["changes"]] == [("imported", True)]
    new_id = sheet["changes"][0]["import"]
    assert "imported" in sheet["text"] and "新导入" in sheet["text_zh"]

    fixed = ws / "invoices-dec-fixed.csv"
    fixed.write_text(first.read_text(encoding="utf-8").replace("48000.00", "47000.00"), encoding="utf-8")
    run(ws, "import", "invoice", fixed, "--replace", new_id)
    sheet = stale_now(ws)
    # against the attribution, the first file was never in: the fixed one is simply new
    assert [c["change"] for c in sheet["changes"]] == ["imported"]
    assert sheet["changes"][0]["path"].endswith("invoices-dec-fixed.csv")
    assert new.accepted == 1

    run(ws, "attribute")
    assert stale_now(ws) is None
    again = ws / "invoices-dec-2.csv"
    again.write_text(fixed.read_text(encoding="utf-8").replace("47000.00", "46000.00"), encoding="utf-8")
    fixed_id = invoice_id_of(ws, "invoices-dec-fixed.csv")
    run(ws, "import", "invoice", again, "--replace", fixed_id)
    sheet = stale_now(ws)
    (c,) = sheet["changes"]
    assert (c["change"], c["import"], c["by"]["path"].endswith("invoices-dec-2.csv")) == ("replaced", fixed_id, True)
    assert f"import {fixed_id} (invoices-dec-fixed.csv) replaced by {c['by']['import']}" in sheet["text"]
    assert "替换" in sheet["text_zh"]


def invoice_id_of(root, name: str) -> str:
    rows = json.loads(run(root, "imports", "list", "--json"))
    rows = rows["imports"] if isinstance(rows, dict) else rows
    return next(r["id"] for r in rows if r["path"].endswith(name) and r["status"] == "live")


def test_identical_reimport_is_no_change(ws):
    run(ws, "import", "invoice", ws / "data" / "vendor-invoices.csv")  # the same rows again: nothing new
    assert stale_now(ws) is None


def test_progress_import_is_a_change(ws):
    more = ws / "progress-more.jsonl"  # a progress log that logged one more step (H10: work moved, AC did not)
    more.write_text('{"ts": "2026-11-21T21:46:40+08:00", "run": "48181", "event": "step", "step": 273,'
                    ' "samples": 2730}\n', encoding="utf-8")
    run(ws, "import", "progress", more)
    st = stale_now(ws)
    assert [(c["change"], c["kind"]) for c in st["changes"]] == [("imported", "progress")]


def test_before_any_attribution(tmp_path, web_demo):
    root = tmp_path / "fresh"
    run(tmp_path, "init", root, "--currency", "CNY")
    shutil.copy(web_demo / "trainledger.toml", root / "trainledger.toml")
    shutil.copy(web_demo / "prices.toml", root / "prices.toml")
    run(root, "import", "focus", web_demo / "data" / "bill-focus.csv")
    md = run(root, "--lang", "en", "sheet", "csa-sft-2026-11-b")
    head = md.split("## ")[0]
    assert "Not attributed yet: run `trainledger attribute`".replace("`", "\\`") in head, head
    assert "nothing to conserve" not in md
    assert "attribution none yet" in md and "attribution None" not in md
    assert "尚未进行归属计算" in run(root, "--lang", "zh-CN", "sheet", "csa-sft-2026-11-b").split("## ")[0]
    stale = stale_of(root, "sheet", "csa-sft-2026-11-b", "--format", "json")
    assert stale["since"] is None and [c["kind"] for c in stale["changes"]] == ["focus"]


def test_recorded_before_the_import_set(tmp_path):
    """An attribution whose audit entry has no import set (an older ledger): changes by time."""
    from datetime import UTC, datetime

    from trainledger.report import freshness

    events = [({"kind": "focus", "imported_at": "2026-11-30T10:00:00+00:00", "partition": "/l/a/part-0.parquet",
                "path": "/d/old.csv"}, "k1"),
              ({"kind": "focus", "imported_at": "2026-12-01T10:00:00+00:00", "partition": "/l/b/part-0.parquet",
                "path": "/d/new.csv"}, "k2"),
              ({"kind": "focus", "action": "drop", "at": "2026-12-01T11:00:00+00:00", "reason": "x",
                "partitions": ["l/a/part-0.parquet"]}, "k1")]
    since = datetime(2026, 12, 1, tzinfo=UTC)
    got = freshness._by_time(since, {"focus:k2": ["l/b/part-0.parquet"]}, events)
    assert sorted((c["change"], c["path"]) for c in got) == [("dropped", "/d/old.csv"), ("imported", "/d/new.csv")]
