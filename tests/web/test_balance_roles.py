"""The sheet's balance view (JSON ``balance``, the Markdown section) masked by role as the rest of the
sheet is (report/access.py ``mark_balance``): on the distinctive-rate demo (tests/web/roles_ws.py) an
engineer's or viewer's JSON and Markdown, CLI and dashboard, hold no labor rate or rate-derived cost,
the drawer's labor rows say "restricted"; finance's balance holds every rate."""

from __future__ import annotations

import json

import pytest

from tests.web.roles_ws import BATCH_A, BATCH_B, leaks, run_cli, secrets

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


@pytest.fixture(scope="module")
def needles(rates_ws):
    return secrets(*rates_ws)


def _labor_rows(bl: dict) -> list[dict]:
    return [r for r in bl["sensitivity"] if r["name"].startswith("labor rate: ")]


@pytest.mark.parametrize("role", ["engineer", "viewer"])
def test_the_balance_hides_rates_from_engineers_and_viewers(rates_ws, needles, role):
    root, _ = rates_ws
    for batch in (BATCH_A, BATCH_B):
        text = run_cli("--workspace", root, "sheet", batch, "--format", "json", "--role", role)
        bl = json.loads(text)["balance"]
        rows = _labor_rows(bl)
        assert len(rows) == 6 and all(r["low"] == r["high"] == "restricted" for r in rows)
        assert all(r["moves"] in ("restricted", None) for r in rows)  # None: a role with no hours here
        assert any(r["moves"] == "restricted" for r in rows)
        assert not leaks(json.dumps(bl), needles)
        for lang in ("en", "zh-CN"):
            md = run_cli("--workspace", root, "sheet", batch, "--format", "md", "--lang", lang, "--role", role)
            assert not leaks(md, needles), (batch, lang)
            assert ("受限" if lang == "zh-CN" else "restricted") in md


def test_the_dashboard_json_has_the_balance_masked_and_finance_sees_it(rates_ws, tokens, needles):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    root, rates = rates_ws
    with TestClient(create_app(root, require_token=True)) as c:
        got = {}
        for who in ("engineer", "finance"):
            r = c.get(f"/batches/{BATCH_A}", headers={"Authorization": f"Bearer {tokens[0][who]}",
                                                     "Accept": "application/json"})
            assert r.status_code == 200
            got[who] = r.json()["sheet"]["balance"]
    assert all(r["low"] == "restricted" for r in _labor_rows(got["engineer"]))
    assert not leaks(json.dumps(got["engineer"]), needles)
    fin = {r["name"].removeprefix("labor rate: "): r for r in _labor_rows(got["finance"])}
    for role, (low, _exp, high) in rates.items():  # the finance copy holds them: the search can fail
        assert (fin[role]["low"], fin[role]["high"]) == (str(low), str(high)), role
    assert sum(isinstance(r["moves"], list) for r in fin.values()) >= 4
    assert leaks(json.dumps(got["finance"]), needles)
