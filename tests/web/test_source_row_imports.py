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
