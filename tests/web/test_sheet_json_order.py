"""``/batches/{batch}``'s JSON ``sheet`` is exactly ``trainledger sheet --format json`` (docs/web.md): the
same keys, the lists in the vocabulary's order (labor_by_phase, totals_by_basis — never alphabetical,
review 5 J11) and each run's GPU-hours rounded as the CLI writes them."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.model.vocab import rank

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.mark.parametrize("batch", ["csa-sft-2026-11-a", "csa-sft-2026-11-b"])
def test_the_pages_sheet_is_the_cli_json(client, web_demo, batch):
    r = CliRunner().invoke(cli, ["--workspace", str(web_demo), "sheet", batch, "--format", "json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    cli_sheet = json.loads(r.stdout)
    web = client.get(f"/batches/{batch}", headers={"Accept": "application/json"}).json()["sheet"]
    assert json.dumps(web, ensure_ascii=False) == json.dumps(cli_sheet, ensure_ascii=False)  # order included
    phases = [p["phase"] for p in web["labor_by_phase"]]
    assert phases == sorted(phases, key=rank("phase"))
    bases = [(t["basis"], t["evidence"]) for t in web["totals_by_basis"]]
    assert bases == sorted(bases, key=lambda k: (rank("basis")(k[0]), rank("evidence")(k[1])))
