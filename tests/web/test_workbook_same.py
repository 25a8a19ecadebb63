"""One batch workbook, whatever the path (review 7, L17): ``trainledger sheet B --format xlsx``, the
demo's ``reports/B.xlsx`` and the dashboard's ``/batches/B/sheet.xlsx`` are the same file cell by cell
— value, number format, type, formula text and its cached result — with the same sheets, defined
names and charts, for the same role and ledger state.

The language rule (docs/cli.md *Language*, docs/web.md *Languages*): labels in English and Chinese
side by side, unless the workbook is asked for in one language — ``sheet --lang L`` (after ``sheet``
or before it) or ``?lang=L`` — and then the same one-language workbook from both. The language the
command line otherwise speaks (the workspace's, TRAINLEDGER_LANG) and the browser's (cookie,
Accept-Language) do not change the workbook.

The one exception by design: a token limited to one batch sees no other batch, so its Control sheet
holds the other batches as one value per currency and one row of labor hours (report/noncash.py
``scope``); every other sheet is the CLI's.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.web.roles_ws import BATCH_A, BATCH_B, run_cli

BATCHES = (BATCH_A, BATCH_B)
pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def book(data: bytes) -> dict:
    """Everything a reader of the workbook sees: sheet names, defined names, chart count per sheet,
    and every cell's value (a formula's text), number format, type and cached result."""
    from openpyxl import load_workbook

    wb = load_workbook(io.BytesIO(data))
    cached = load_workbook(io.BytesIO(data), data_only=True)
    cells = {}
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value is None and c.number_format == "General":
                    continue
                cells[(ws.title, c.coordinate)] = (c.value, c.number_format, c.data_type,
                                                   cached[ws.title][c.coordinate].value)
    return {"sheets": wb.sheetnames,
            "names": {n: d.attr_text for n, d in wb.defined_names.items()},
            "charts": {ws.title: len(ws._charts) for ws in wb.worksheets},
            "cells": cells}


def differences(a: dict, b: dict, *, but: tuple[str, ...] = ()) -> list[str]:
    """Where ``a`` and ``b`` differ, one line each (sheets named in ``but`` left out)."""
    out = [f"{k}: {a[k]!r} != {b[k]!r}" for k in ("sheets", "names") if a[k] != b[k]]
    out += [f"charts on {s}: {a['charts'].get(s)} != {b['charts'].get(s)}"
            for s in sorted(set(a["charts"]) | set(b["charts"]))
            if s not in but and a["charts"].get(s) != b["charts"].get(s)]
    out += [f"{s}!{coord}: {a['cells'].get((s, coord))!r} != {b['cells'].get((s, coord))!r}"
            for s, coord in sorted(set(a["cells"]) | set(b["cells"]))
            if s not in but and a["cells"].get((s, coord)) != b["cells"].get((s, coord))]
    return out


def cli_book(root: Path, batch: str, *args: str, before: tuple[str, ...] = (), env: dict | None = None) -> dict:
    """The CLI's workbook: ``trainledger --workspace ROOT BEFORE sheet BATCH --format xlsx --out F ARGS``."""
    from trainledger.cli import cli

    out = root / "cli-workbooks" / f"{batch}-{'-'.join(before + args) or 'default'}.xlsx"
    out.parent.mkdir(exist_ok=True)
    argv = ["--workspace", str(root), *before, "sheet", batch, "--format", "xlsx", "--out", str(out), *args]
    r = CliRunner(env=env).invoke(cli, argv, catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return book(out.read_bytes())


def fetched(client, batch: str, token: str | None = None, **kw) -> bytes:
    headers = dict(kw.pop("headers", {}))
    if token:
        headers["Authorization"] = f"Bearer {token}"
    r = client.get(f"/batches/{batch}/sheet.xlsx", headers=headers, **kw)
    assert r.status_code == 200, r.text
    return r.content


def test_the_demo_writes_the_workbook_sheet_and_the_download_give(web_demo, client):
    """The demo's workspace says ``language = "zh-CN"``: the CLI's default workbook is still the
    side-by-side one the demo wrote, and the dashboard's (the local admin) too."""
    assert 'language = "zh-CN"' in (web_demo / "trainledger.toml").read_text(encoding="utf-8")
    for batch in BATCHES:
        demo = book((web_demo / "reports" / f"{batch}.xlsx").read_bytes())
        assert demo["cells"][("Assumptions", "E2")][0].count(" / ") == 1  # "CNY/gpu_hour / CNY/卡时"
        assert differences(cli_book(web_demo, batch), demo) == []
        assert differences(book(fetched(client, batch)), demo) == []


@pytest.fixture(scope="module")
def app(rates_ws):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    with TestClient(create_app(rates_ws[0])) as c:
        yield c


@pytest.fixture(scope="module")
def admin_token(rates_ws):
    return run_cli("--workspace", rates_ws[0], "token", "create", "--role", "admin").strip().splitlines()[-1]


@pytest.mark.parametrize("role", ["admin", "finance", "engineer"])
def test_each_role_gets_one_workbook_from_the_cli_and_the_dashboard(rates_ws, tokens, admin_token, app, role):
    root = rates_ws[0]
    token = admin_token if role == "admin" else tokens[0][role]
    for batch in BATCHES:
        web = book(fetched(app, batch, token))
        assert differences(cli_book(root, batch, "--role", role), web) == []
        if role == "admin":  # the local admin (no token) and an admin token: one workbook
            assert differences(book(fetched(app, batch)), web) == []


def test_neither_the_workspace_nor_the_browser_language_changes_the_workbook(rates_ws, tokens, app):
    root, finance = rates_ws[0], tokens[0]["finance"]
    default = cli_book(root, BATCH_A, "--role", "finance")
    for env in ({"TRAINLEDGER_LANG": "en"}, {"TRAINLEDGER_LANG": "zh-CN"}):
        assert differences(cli_book(root, BATCH_A, "--role", "finance", env=env), default) == []
    for headers in ({"Accept-Language": "zh-CN,zh;q=0.9"}, {"Accept-Language": "en-US"},
                    {"Cookie": "trainledger_lang=zh-CN"}):
        r = app.get(f"/batches/{BATCH_A}/sheet.xlsx", headers={"Authorization": f"Bearer {finance}", **headers})
        assert r.headers["Content-Language"] == "en, zh-CN"
        assert differences(book(r.content), default) == []


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_a_one_language_workbook_is_the_same_from_both(rates_ws, tokens, app, lang):
    root, finance = rates_ws[0], tokens[0]["finance"]
    r = app.get(f"/batches/{BATCH_A}/sheet.xlsx", params={"lang": lang},
                headers={"Authorization": f"Bearer {finance}", "Cookie": "trainledger_lang=en" if lang != "en"
                         else "trainledger_lang=zh-CN"})
    assert r.status_code == 200 and r.headers["Content-Language"] == lang
    web = book(r.content)
    assert differences(cli_book(root, BATCH_A, "--role", "finance", "--lang", lang), web) == []
    assert differences(cli_book(root, BATCH_A, "--role", "finance", before=("--lang", lang)), web) == []
    # one language indeed: a unit is "CNY/卡时" (zh-CN) or "CNY/gpu_hour" (en), not both side by side
    units = [v[0] for (s, coord), v in web["cells"].items() if s == "Assumptions" and coord.startswith("E")
             and coord != "E1" and isinstance(v[0], str)]
    assert units and not [u for u in units if " / " in u]
    assert any(("卡时" in u) == (lang == "zh-CN") for u in units if u.startswith("CNY/"))
    assert differences(web, book(fetched(app, BATCH_A, finance)))  # not the side-by-side workbook


def test_a_batch_scoped_token_differs_only_in_the_other_batches_of_control(rates_ws, tokens, app):
    """engineer_a (batch A only): every sheet but Control is the engineer's CLI workbook; Control
    differs (one value per currency, one row of the other batches' hours) and names no other batch
    (its Decisions may: a retarget names the batch it made, the CLI's workbook too)."""
    root, toks = rates_ws[0], tokens[0]
    scoped, engineer = book(fetched(app, BATCH_A, toks["engineer_a"])), cli_book(root, BATCH_A, "--role", "engineer")
    assert differences(engineer, scoped, but=("Control",)) == []
    assert differences(engineer, scoped)  # the exception is there, and only there
    named_b = lambda b: [k for k, v in b["cells"].items() if k[0] == "Control" and BATCH_B in str(v[0])]  # noqa: E731
    assert named_b(engineer) and not named_b(scoped)
