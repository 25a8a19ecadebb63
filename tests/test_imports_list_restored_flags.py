"""`imports list` after a drop re-settles: the rows restored from the later import's held record
carry their flags (here ``repeated_row_in_file``) and are that import's accepted, flagged rows now —
the list (text and JSON), its totals and the dashboard's /imports count them, as `imports show`
lists them. FOCUS 1.0 sample rows through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"


def run(*args):
    result = CliRunner().invoke(cli, ["--lang", "en", *map(str, args)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def listing(root) -> dict[str, dict]:
    return {Path(r["path"]).name: r for r in json.loads(run("--workspace", root, "imports", "list", "--json"))}


@pytest.fixture
def overlapping(tmp_path):
    """mid.csv: sample rows a, b; full.csv: a, a, b, c, d (row a stated twice). Importing mid
    first leaves full's first a and its b in full's held record (a flagged as repeated there)."""
    root = tmp_path / "ws"
    Workspace.init(root).close()
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    head, (a, b, c, d) = lines[0], lines[1:5]
    (tmp_path / "mid.csv").write_text(head + a + b, encoding="utf-8")
    (tmp_path / "full.csv").write_text(head + a + a + b + c + d, encoding="utf-8")
    run("--workspace", root, "import", "focus", tmp_path / "mid.csv")
    run("--workspace", root, "import", "focus", tmp_path / "full.csv")
    return root


def test_flags_of_rows_restored_by_a_drop_are_counted(overlapping):
    root = overlapping
    before = listing(root)["full.csv"]
    assert (before["accepted"], before["duplicates"], before["flagged"]) == (3, 2, 1)  # a (2nd), c, d; a flagged

    run("--workspace", root, "imports", "drop", listing(root)["mid.csv"]["id"], "--reason", "superseded")
    full = listing(root)["full.csv"]
    shown = json.loads(run("--workspace", root, "imports", "show", full["id"], "--json"))
    flagged_rows = sorted(r["row"] for r in shown["flagged_rows"])
    assert flagged_rows == [1, 2]  # both copies of row a, one of them restored from the held record
    assert (full["accepted"], full["duplicates"], full["quarantined"]) == (5, 0, 0)
    assert full["flagged"] == len(flagged_rows) == 2
    assert shown["flagged"] == 2

    text = run("--workspace", root, "imports", "list")
    (line,) = [ln for ln in text.splitlines() if ln.endswith("full.csv")]
    assert line.split()[3:8] == ["5", "5", "0", "0", "2"]  # read, accepted, dup, quarantined, flagged
    (live,) = [ln for ln in text.splitlines() if ln.startswith("of which live")]
    assert live.split()[-5:] == ["5", "5", "0", "0", "2"]

    from trainledger.web.pages import imports as imports_model

    with Workspace.open(root) as wsp:
        rows = {Path(r["file"]).name: r for r in imports_model(wsp)["imports"]}
    assert rows["full.csv"]["flagged"] == 2


def test_a_dropped_import_keeps_the_flags_of_the_partitions_its_drop_took(overlapping):
    root = overlapping
    run("--workspace", root, "imports", "drop", listing(root)["mid.csv"]["id"], "--reason", "superseded")
    run("--workspace", root, "imports", "drop", listing(root)["full.csv"]["id"], "--reason", "withdrawn")
    full = listing(root)["full.csv"]
    assert (full["status"], full["accepted"], full["flagged"]) == ("dropped", 5, 2)
