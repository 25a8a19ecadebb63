"""The source-row page ``/sources/{import}/{row}`` shows the row of *that* import: the same file
imported twice as two statements (``--set vc=…``) shares one content hash and one lake folder,
and before, the second import's page showed the first import's row (its vc). After a drop of the
first, its row is gone from its own page and the second's still shows."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import NotFound
from trainledger.service import Workspace
from trainledger.web import views

HEADER = ("time,total_job_num,running_job_num,pending_job_num,total_gpujob_num,running_gpujob_num,"
          "pending_gpujob_num,total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num,gpu_utilization")
HELIOS = HEADER + "\n" + "".join(f"2020-05-01 00:0{m}:00,7,7,0,6,6,0,208,162,0,46,0.779\n" for m in range(3))


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_each_import_of_the_same_content_shows_its_own_row(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "helios.csv"
    src.write_text(HELIOS, encoding="utf-8")
    for vc in ("vcFIRST", "vcSECOND"):
        run("--workspace", root, "import", "occupancy", src, "--preset", "helios", "--set", f"vc={vc}",
            "--tz", "Asia/Shanghai")
    rows = json.loads(run("--workspace", root, "imports", "list", "--json"))
    first = next(r["id"] for r in rows if r["id"] == r["sha256"][:12])
    second = next(r["id"] for r in rows if r["id"] != r["sha256"][:12])
    with Workspace.open(root) as wsp:
        for ident, vc in ((first, "vcFIRST"), (second, "vcSECOND")):
            for row in (1, 2, 3):
                page = views.source(wsp, ident, row)
                assert page["values"]["vc"] == vc and page["import"] == ident, (ident, row, page["values"])
    run("--workspace", root, "imports", "drop", first, "--reason", "typo")
    with Workspace.open(root) as wsp:
        assert views.source(wsp, second, 2)["values"]["vc"] == "vcSECOND"
        with pytest.raises(NotFound):
            views.source(wsp, first, 2)


@pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")
def test_the_page_over_http_names_the_second_import(tmp_path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "helios.csv"
    src.write_text(HELIOS, encoding="utf-8")
    for vc in ("vcFIRST", "vcSECOND"):
        run("--workspace", root, "import", "occupancy", src, "--preset", "helios", "--set", f"vc={vc}",
            "--tz", "Asia/Shanghai")
    second = next(r["id"] for r in json.loads(run("--workspace", root, "imports", "list", "--json"))
                  if r["id"] != r["sha256"][:12])
    with TestClient(create_app(root)) as c:
        got = c.get(f"/sources/{second}/1", headers={"accept": "application/json"})
    assert got.status_code == 200, got.text[:300]
    assert got.json()["values"]["vc"] == "vcSECOND"


def test_lines_of_content_two_imports_share_name_their_own_import(tmp_path):
    """An undated listing imported on two days is two imports (two snapshots) of one content, with
    one sha256 and the same row numbers: each cost line records the import its row came through
    (Provenance.import_key → cost_lines.import_key), so each import's page lists its own lines only,
    and a line's JSON names exactly its import, whose page lists it back (#8)."""
    root = tmp_path / "ws"
    Workspace.init(root).close()
    listing = tmp_path / "listing.csv"
    listing.write_text("path,size_bytes,storage_class,owner,purpose,review_at,batch\n"
                       "b/ckpt/a.pt,1073741824,checkpoint,al,resume,2027-01-01,b1\n", encoding="utf-8")
    toml = root / "trainledger.toml"
    toml.write_text(toml.read_text() + '\n[[projects]]\nid = "p"\nname = "P"\ngoal = "g"\nowner = "al"\n\n'
                    '[[batches]]\nid = "b1"\nproject = "p"\nname = "B"\ngoal = "g"\ndata_snapshot = "d"\n'
                    'data_processing_version = "p"\nmodel_version = "m"\ncode_version = "c"\n'
                    'config_version = "f"\nteam = "t"\nowner = "al"\n')
    with Workspace.open(root) as wsp:
        for day in ("2026-11-01", "2026-11-15"):
            wsp.import_files("storage", [listing], options={"import_date": day})
    run("--workspace", root, "attribute")
    rows = json.loads(run("--workspace", root, "imports", "list", "--json"))
    ids = [r["id"] for r in rows]
    assert len(ids) == 2 and len({r["sha256"] for r in rows}) == 1
    with Workspace.open(root) as wsp:
        pages = {ident: views.source(wsp, ident, 1) for ident in ids}
        lines = {ln["id"]: views.line(wsp, ln["id"]) for page in pages.values() for ln in page["lines"]}
    for ident, page in pages.items():
        assert page["lines"] and all(ln["batch"] == "b1" for ln in page["lines"])
        assert page["lines_shared_with"] == []  # told apart: nothing left to say
        for ln in page["lines"]:
            prov = lines[ln["id"]]["provenance"]
            assert prov["import"] == ident and prov["href"] == f"/sources/{ident}/1", prov
    assert not {ln["id"] for ln in pages[ids[0]]["lines"]} & {ln["id"] for ln in pages[ids[1]]["lines"]}
    assert pages[ids[0]]["values"]["snapshot_date"] != pages[ids[1]]["values"]["snapshot_date"]


def test_lines_stored_without_their_import_are_said_to_be_shared(tmp_path, monkeypatch):
    """A ledger attributed before lines recorded their import (migration 0008: no import_key in the
    write, so the column is null and the figures verify): the lines name the content and row only, so
    each import's page lists them, names the other import, and a line's JSON says its import is
    unknown (None) — no crash, and the line page links the row by its content."""
    from trainledger.ledger import repo

    root = tmp_path / "ws"
    Workspace.init(root).close()
    listing = tmp_path / "listing.csv"
    listing.write_text("path,size_bytes,storage_class,owner,purpose,review_at,batch\n"
                       "b/ckpt/a.pt,1073741824,checkpoint,al,resume,2027-01-01,\n", encoding="utf-8")
    with Workspace.open(root) as wsp:
        for day in ("2026-11-01", "2026-11-15"):
            wsp.import_files("storage", [listing], options={"import_date": day})
        with monkeypatch.context() as m:
            m.setattr(repo, "COST_LINE_COLUMNS", tuple(c for c in repo.COST_LINE_COLUMNS if c != "import_key"))
            wsp.attribute()
    ids = [r["id"] for r in json.loads(run("--workspace", root, "imports", "list", "--json"))]
    with Workspace.open(root) as wsp:
        assert wsp.ledger.verify_figures()[0] == []
        pages = [views.source(wsp, ident, 1) for ident in ids]
        for page, other in zip(pages, reversed(ids), strict=True):
            assert page["lines"] and page["lines_shared_with"] == [other]
            prov = views.line(wsp, page["lines"][0]["id"])["provenance"]
            assert prov["import"] is None and prov["href"] == f"/sources/{prov['source_sha256'][:12]}/1"
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(root)) as c:
        got = c.get(f"/lines/{pages[0]['lines'][0]['id']}")
    assert got.status_code == 200 and "None /" not in got.text
    assert f'href="/sources/{prov["source_sha256"][:12]}/1"' in got.text


def test_a_row_no_other_import_holds_names_none(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    src = tmp_path / "helios.csv"
    src.write_text(HELIOS, encoding="utf-8")
    run("--workspace", root, "import", "occupancy", src, "--preset", "helios", "--set", "vc=vcONE",
        "--tz", "Asia/Shanghai")
    (rec,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    with Workspace.open(root) as wsp:
        assert views.source(wsp, rec["id"], 1)["lines_shared_with"] == []


def test_a_file_imported_by_a_relative_path_is_read_from_anywhere(tmp_path, monkeypatch):
    """``import`` run in the file's folder with a relative path: the source-row page, opened from another
    working directory (a server started elsewhere), still reads the raw row (review 8, R8-11: the lake
    kept ``helios.csv`` as given and the page said "the file is no longer at helios.csv")."""
    root = tmp_path / "ws"
    Workspace.init(root).close()
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "helios.csv").write_text(HELIOS, encoding="utf-8")
    monkeypatch.chdir(tmp_path / "data")
    run("--workspace", root, "import", "occupancy", "helios.csv", "--preset", "helios", "--tz", "Asia/Shanghai")
    (row,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    assert row["path"] == str(tmp_path / "data" / "helios.csv")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    with Workspace.open(root) as wsp:
        page = views.source(wsp, row["id"], 2)
    assert page["raw"] is not None and page["raw"]["time"] == "2020-05-01 00:01:00", page.get("raw_note")
