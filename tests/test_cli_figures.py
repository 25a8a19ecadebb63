"""Tamper evidence on a real workspace (the demo): an edited cost line, run or audit row makes
`audit` fail and `sheet` refuse; every sheet prints the audit head and figures digest it was built
from, equal to what `audit` reports."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from trainledger.cli import cli


def run(*args, code=0):
    """In English unless a command is given --lang (the demo workspace's language is zh-CN)."""
    args = ("--lang", "en", *args) if "--lang" not in args else args
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result


@pytest.fixture
def ws(demo_copy):  # tests/conftest.py: a private copy of the session's demo workspace
    return demo_copy


def sql(ws, statement, *args):
    db = sqlite3.connect(ws / "ledger.db")
    try:
        db.execute(statement, args)
        db.commit()
    finally:
        db.close()


BATCH = "csa-sft-2026-11-a"


def test_every_sheet_prints_the_verified_state(ws):
    report = json.loads(run("--workspace", ws, "audit", "--json").output)
    assert report["intact"] and report["figures_intact"] and len(report["figures_digest"]) == 64
    for fmt in ("md", "html", "json"):
        for lang in ("en", "zh-CN"):
            text = run("--workspace", ws, "sheet", BATCH, "--format", fmt, "--lang", lang).output
            assert report["head_hash"] in text and report["figures_digest"] in text
    md = run("--workspace", ws, "sheet", BATCH, "--lang", "en").output
    assert f"audit head {report['head_id']} {report['head_hash']}" in md
    assert f"attribution {report['attribution_id']}, figures digest {report['figures_digest']}" in md
    assert "审计链头" in run("--workspace", ws, "sheet", BATCH, "--lang", "zh-CN").output
    proof = json.loads(run("--workspace", ws, "sheet", BATCH, "--format", "json").output)["ledger"]
    assert proof == {"audit_head_id": report["head_id"], "audit_head_hash": report["head_hash"],
                     "attribution_id": report["attribution_id"], "figures_digest": report["figures_digest"],
                     "verified": True}


def test_an_edited_cost_line_fails_audit_and_stops_the_sheet(ws):
    db = sqlite3.connect(ws / "ledger.db")
    (line_id, n) = db.execute("SELECT id, (SELECT count(*) FROM cost_lines c2 WHERE c2.id <= c.id) FROM cost_lines c"
                              " WHERE batch_id = ? AND category = 'compute' ORDER BY id LIMIT 1", (BATCH,)).fetchone()
    db.close()
    sql(ws, "UPDATE cost_lines SET expected = '999999.99' WHERE id = ?", line_id)
    audit = run("--workspace", ws, "audit", code=1).output
    assert "FIGURES CHANGED" in audit and f"cost line {n} (id {line_id})" in audit and "999999.99" in audit
    report = json.loads(run("--workspace", ws, "audit", "--json", code=1).output)
    assert report["chain_intact"] and not report["figures_intact"]
    sheet = run("--workspace", ws, "sheet", BATCH, code=2).output
    assert "does not match its audit chain" in sheet and f"trainledger --workspace {ws} audit" in sheet
    # recomputing from the lake is the documented way back, and it is recorded
    run("--workspace", ws, "attribute")
    assert json.loads(run("--workspace", ws, "audit", "--json").output)["intact"]
    assert "999999.99" not in run("--workspace", ws, "sheet", BATCH).output


def test_an_edited_run_fails_audit(ws):
    sql(ws, "UPDATE runs SET state = 'COMPLETED' WHERE id = (SELECT min(id) FROM runs WHERE state <> 'COMPLETED')")
    assert "stored runs differ" in run("--workspace", ws, "audit", code=1).output
    run("--workspace", ws, "sheet", BATCH, code=2)


def test_an_edited_conservation_summary_fails_audit(ws):
    db = sqlite3.connect(ws / "ledger.db")
    (summary,) = db.execute("SELECT summary FROM attributions ORDER BY id DESC LIMIT 1").fetchone()
    db.close()
    data = json.loads(summary)
    data["conservation"][0]["unattributed"] = "0.00"
    sql(ws, "UPDATE attributions SET summary = ? WHERE id = (SELECT max(id) FROM attributions)", json.dumps(data))
    assert "summary" in run("--workspace", ws, "audit", code=1).output


def test_an_edited_audit_row_stops_the_sheet(ws):
    sql(ws, "UPDATE audit_log SET actor = 'mallory' WHERE id = 2")
    assert "CHAIN BROKEN" in run("--workspace", ws, "audit", code=1).output
    assert "audit entry 2" in run("--workspace", ws, "sheet", BATCH, code=2).output


def test_raw_sql_edits_fail_audit_on_every_backend(tmp_path, db_url):
    from sqlalchemy import create_engine, text

    root = tmp_path / "demo"
    run("demo", "--dir", root, "--db", db_url)
    assert json.loads(run("--workspace", root, "audit", "--json").output)["intact"]
    engine = create_engine(db_url)
    try:
        for edit, found in (
            ("UPDATE cost_lines SET expected = '1.00' WHERE id = (SELECT max(id) FROM cost_lines)", "cost line"),
            ("UPDATE runs SET gpus = gpus + 8 WHERE id = (SELECT min(id) FROM runs)", "run '"),
            ("UPDATE audit_log SET action = 'nothing' WHERE id = 3", "audit entry 3"),
        ):
            with engine.begin() as conn:
                conn.execute(text(edit))
            out = run("--workspace", root, "audit", code=1).output
            assert found in out, out
            run("--workspace", root, "sheet", BATCH, code=2)
    finally:
        engine.dispose()


def test_a_write_while_the_sheet_is_read_is_never_paired_with_the_older_proof(ws, monkeypatch):
    import trainledger.report.sheet as sheet_mod
    from trainledger.service import Workspace

    real, writes = sheet_mod.build_sheet, []

    def racing(wsp, batch_id, figures=None):
        if not writes:  # another process appends to the ledger after the sheet was verified
            writes.append(1)
            with Workspace.open(ws) as other:
                other.attribute()
        return real(wsp, batch_id, figures)

    monkeypatch.setattr(sheet_mod, "build_sheet", racing)
    with Workspace.open(ws) as wsp:
        data = wsp.sheet(BATCH)
        head = wsp.ledger.audit_head()
        latest = wsp.ledger.latest_attribution()["id"]
    assert writes and (data["ledger"]["audit_head_id"], data["ledger"]["audit_head_hash"]) == head
    assert data["ledger"]["attribution_id"] == data["attribution_id"] == latest
