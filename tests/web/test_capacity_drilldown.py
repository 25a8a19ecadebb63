"""Owned and reserved capacity lines drill down to the job's source row (review 5 J5).

A capacity line's amount rests on two facts: the ``[[capacity]]`` entry and the sacct row of the job
that held the GPUs. Before, the line named only the first (``source_kind config``, the capacity's
own row index, no link), so batch → run → line → source row stopped at the line. Now a line a job
held records the job's row and the import it came through as its source, and names the capacity
by id with the workspace file in its rule; only time no job held keeps the workspace file.
Walked through the dashboard's JSON on the owned demo (h800-own amortized, h800-reserved rate card).
"""

from __future__ import annotations

import json

import pytest

from tests.web.roles_ws import run_cli

A = "csa-sft-2026-11-a"
J = {"accept": "application/json"}

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    root = tmp_path_factory.mktemp("owned-demo")
    run_cli("demo", "--scenario", "owned", "--dir", root)
    imports = json.loads(run_cli("--workspace", root, "imports", "list", "--json"))
    with TestClient(create_app(root)) as c:
        yield c, {r["id"]: r for r in imports}, root


def _walk(c):
    """Every (run, line) of batch A's run pages, as the dashboard links them."""
    batch = c.get(f"/batches/{A}", headers=J).json()
    for r in batch["runs"]:
        page = c.get(r["href"], headers=J).json()
        for group in page["by_state"]:
            for ln in group["lines"]:
                yield page["run"], ln


def test_a_held_capacity_line_links_the_jobs_sacct_row(client):
    c, imports, _root = client
    seen = {"amortized": 0, "rate_card": 0}
    for run, ln in _walk(c):
        if ln["basis"] not in seen:
            continue
        line = c.get(ln["href"], headers=J).json()
        prov = line["provenance"]
        assert prov["source_kind"] == "capacity", prov
        assert prov["rule"].startswith(("capacity h800-own (trainledger.toml row ",
                                        "capacity h800-reserved (trainledger.toml row ")), prov["rule"]
        assert imports[prov["import"]]["kind"] == "slurm"  # the import the job's row came through
        assert prov["href"] == f"/sources/{prov['import']}/{prov['row']}"
        src = c.get(prov["href"], headers=J)
        assert src.status_code == 200, src.text[:300]
        row = src.json()
        assert row["kind"] == "slurm" and row["import"] == prov["import"]
        assert row["values"]["job_id"] == run["job"], (row["values"], run)  # the job that held the GPUs
        assert ln["id"] in {x["id"] for x in row["lines"]}  # and the row's page lists the line back
        assert prov["rule"] in row["rules"]
        seen[ln["basis"]] += 1
    assert seen["amortized"] and seen["rate_card"], seen  # both kinds of capacity were walked


def test_time_no_job_held_keeps_the_workspace_file(client):
    from trainledger.service import Workspace

    _c, _imports, root = client
    with Workspace.open(root) as wsp:
        unheld = [ln for ln in wsp.ledger.cost_lines() if str(ln.reason).startswith("capacity_unheld")]
    assert unheld and all(ln.provenance.source_kind == "config" for ln in unheld)
