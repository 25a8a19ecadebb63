"""The audit log catches an edited entry and a cut-off tail, from the command line."""

import json
import sqlite3

from click.testing import CliRunner

from trainledger.cli import cli


def cli_run(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def test_audit_detects_edits_and_truncation(tmp_path):
    ws = tmp_path / "ws"
    cli_run("init", ws)
    cli_run("--workspace", ws, "attribute")
    cli_run("--workspace", ws, "attribute")
    ok = json.loads(cli_run("--workspace", ws, "audit", "--json").output)
    assert ok["intact"] and ok["entries"] >= 2 and len(ok["head_hash"]) == 64
    published = ok["head_hash"]

    db = sqlite3.connect(ws / "ledger.db")
    (actor,) = db.execute("SELECT actor FROM audit_log WHERE id = 1").fetchone()
    db.execute("UPDATE audit_log SET actor = 'mallory' WHERE id = 1")
    db.commit()
    edited = cli_run("--workspace", ws, "audit")
    assert edited.exit_code == 1 and "edited after writing" in edited.output

    db.execute("UPDATE audit_log SET actor = ? WHERE id = 1", (actor,))
    db.commit()
    assert cli_run("--workspace", ws, "audit").exit_code == 0  # restored: intact again
    db.execute("DELETE FROM audit_log WHERE id = (SELECT max(id) FROM audit_log)")
    db.commit()
    db.close()
    assert cli_run("--workspace", ws, "audit").exit_code == 0  # a cut tail leaves a valid shorter chain...
    cut = cli_run("--workspace", ws, "audit", "--expect", published)
    assert cut.exit_code == 1 and published in cut.output  # ...which the published head exposes
