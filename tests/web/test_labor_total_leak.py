"""A batch whose labor is one role never gives an engineer or a viewer its internal total (review 5 J3).

One role's labor total is its hours × its rate, and the sheet shows the hours: so the total is the
rate. The demo's timesheet is replaced by one where batch A's labor is one role (training_engineering,
6 + 3.5 h at a distinctive 417.31 CNY/h: 3,964.445) and batch B's is two (4 h of it and 5 h of
data_prep at 260: 2,969.24, a phase total an engineer may see and a viewer may not). The batches
list, batch A's page and the cross report, as HTML and JSON, are searched for every rendering of
those totals; finance's copies must hold them, so the search can fail.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest

from tests.web.roles_ws import BATCH_A, BATCH_B, run_cli

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]

PAGES = ("/batches", f"/batches/{BATCH_A}", f"/batches/{BATCH_B}", "/report")
ONE_ROLE = {"3964.445", "3964.44", "3,964.44", "3964.45", "3,964.45"}  # 9.5 h x 417.31
TWO_ROLES = {"2969.24", "2,969.24"}  # 4 h x 417.31 + 5 h x 260.00


@pytest.fixture(scope="module")
def one_role_ws(web_demo, tmp_path_factory):
    root = tmp_path_factory.mktemp("labor-total") / "ws"
    shutil.copytree(web_demo, root)
    cfg = root / "trainledger.toml"
    text = cfg.read_text(encoding="utf-8")
    text, n = re.subn(r'(role = "training_engineering"\ncurrency = "CNY"\n)low = "300"\nexpected = "380"\n'
                      r'high = "450"', r'\1low = "401.17"\nexpected = "417.31"\nhigh = "433.29"', text)
    assert n == 1
    cfg.write_text(text, encoding="utf-8")
    sheet = root / "timesheet-one-role.csv"
    sheet.write_text("date,person,role,activity,phase,hours,recurrence,batch\n"
                     f"2026-11-03,chen.hao,training_engineering,training runs,run,6,,{BATCH_A}\n"
                     f"2026-11-04,chen.hao,training_engineering,training runs,run,3.5,,{BATCH_A}\n"
                     f"2026-11-05,chen.hao,training_engineering,training runs,run,4,,{BATCH_B}\n"
                     f"2026-11-05,zhou.qi,data_prep,data pipeline,run,5,,{BATCH_B}\n", encoding="utf-8")
    old = next(i["id"] for i in json.loads(run_cli("--workspace", root, "imports", "list", "--json"))
               if i["kind"] == "timesheet")
    run_cli("--workspace", root, "imports", "drop", old, "--reason", "one-role timesheet (J3)")
    run_cli("--workspace", root, "import", "timesheet", sheet)
    run_cli("--workspace", root, "attribute")
    return root


@pytest.fixture(scope="module")
def copies(one_role_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    out: dict[str, dict[str, str]] = {}
    with TestClient(create_app(one_role_ws, require_token=True)) as c:
        for role in ("finance", "engineer", "viewer"):
            tok = run_cli("--workspace", one_role_ws, "token", "create", "--role", role).strip().splitlines()[-1]
            h = {"Authorization": f"Bearer {tok}"}
            got = out[role] = {}
            for path in PAGES:
                for accept in ("text/html", "application/json"):
                    for lang in ("en", "zh-CN"):
                        r = c.get(f"{path}?lang={lang}", headers={**h, "accept": accept})
                        assert r.status_code == 200, (path, r.text[:300])
                        got[f"{path} {accept} {lang}"] = r.text
    return out


def _hits(copies: dict[str, str], figures: set[str]) -> list[str]:
    return sorted(f"{k}: {x}" for k, body in copies.items() for x in figures if x in body)


def test_the_workspace_has_one_role_on_batch_a_and_two_on_b(one_role_ws):
    sheet = json.loads(run_cli("--workspace", one_role_ws, "sheet", BATCH_A, "--format", "json"))
    roles = {r["role"] for p in sheet["labor_by_phase"] for r in p["roles"]}
    assert roles == {"training_engineering"}
    internal = [r for r in sheet["totals_by_basis"] if r["basis"] == "internal"]
    assert sum(float(r["expected"]) for r in internal) == pytest.approx(3964.445, abs=0.006)


def test_finance_sees_both_totals(copies):
    fin = copies["finance"]
    for path in ("/batches", "/report"):
        assert any(x in fin[f"{path} application/json en"] for x in ONE_ROLE), path
        assert any(x in fin[f"{path} application/json en"] for x in TWO_ROLES), path
    assert any(x in fin[f"/batches/{BATCH_A} application/json en"] for x in ONE_ROLE)


@pytest.mark.parametrize("role", ["engineer", "viewer"])
def test_one_roles_total_is_withheld(copies, role):
    assert _hits(copies[role], ONE_ROLE) == []
    listed = json.loads(copies[role]["/batches application/json en"])["batches"]
    a = next(b for b in listed if b["id"] == BATCH_A)
    assert [r["expected"] for r in a["totals_by_basis"] if r["basis"] == "internal"] == ["restricted"]


def test_a_phase_total_of_two_roles_is_the_engineers_not_the_viewers(copies):
    assert _hits(copies["viewer"], TWO_ROLES) == []
    eng = json.loads(copies["engineer"]["/batches application/json en"])["batches"]
    b = next(x for x in eng if x["id"] == BATCH_B)
    assert [r["expected"] for r in b["totals_by_basis"] if r["basis"] == "internal"] == ["2969.24"]
