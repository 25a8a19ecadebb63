"""`trainledger audit` checks the lake's rows against the imports that state them: a partition
file deleted (a crash, a hand edit, a partial restore) or copied beside itself fails the audit
with exit code 1, naming the problem and its remedy; the remedy makes it pass again; a healthy
lake passes with exit code 0. A FOCUS bill of the FOCUS 1.0 sample data, through the CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"
N = 20


def run(*args, code=0, lang="en"):
    result = CliRunner().invoke(cli, ["--lang", lang, *map(str, args)], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    bill = tmp_path / "sept.csv"
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    bill.write_text("".join(lines[:N + 1]), encoding="utf-8")
    run("--workspace", root, "import", "focus", bill)
    (imp,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    parts = sorted((root / "lake" / "bill_lines").glob("source=*/part-*.parquet"))
    assert [p.name for p in parts] == ["part-0.parquet"]
    return root, bill, imp, parts[0]


def audit(root, code, lang="en"):
    return run("--workspace", root, "audit", code=code, lang=lang)


def audit_json(root, code):
    return json.loads(run("--workspace", root, "audit", "--json", code=code))


def bill_rows(root) -> int:
    with Workspace.open(root) as wsp:
        return len(wsp.lake.read("bill_lines"))


def test_a_healthy_lake_passes(ws):
    root, _bill, _imp, _part = ws
    out = audit(root, 0)
    assert "lake rows match the live imports" in out
    report = audit_json(root, 0)
    assert report["lake_intact"] and report["lake_problems"] == [] and report["intact"]


def test_a_deleted_partition_fails_the_audit_and_the_replace_it_names_heals_it(ws):
    root, bill, imp, part = ws
    part.unlink()  # what a crash of the disk, a hand edit or a partial restore leaves
    out = audit(root, 1)
    assert "LAKE ROWS DIFFER FROM THE LIVE IMPORTS:" in out
    command = f"trainledger --workspace {root} import focus {bill} --replace {imp['id']}"  # runnable as shown
    key = f"bill_lines/source={imp['sha256']}/part-0.parquet"
    assert (f"import {imp['id']} (focus, {bill}): its partition {key} ({N} row(s)), named in lake/imports.jsonl,"
            f" is not in the lake: those rows are in no figure; restore the file from a backup, or read the file"
            f" again: `{command}`") in " ".join(out.split())
    zh = audit(root, 1, lang="zh-CN")
    assert f"记录的分区 {key}（{N} 行）不在数据湖中" in zh and command in zh
    report = audit_json(root, 1)
    (p,) = report["lake_problems"]
    assert (p["kind"], p["detail"]["rows"], p["detail"]["partition"]) == ("lake_partition_missing", N, key)
    assert p["detail"]["command"] == f"trainledger import focus {bill} --replace {imp['id']}"
    assert not report["lake_intact"] and not report["intact"]

    run("--workspace", root, "import", "focus", bill, "--replace", imp["id"], "--reason", "partition lost")
    assert bill_rows(root) == N
    assert "lake rows match the live imports" in audit(root, 0)


def test_a_copied_partition_fails_the_audit_and_a_drop_and_reimport_heal_it(ws):
    root, bill, imp, part = ws
    shutil.copy(part, part.with_name("part-1.parquet"))  # every row now read twice
    assert bill_rows(root) == 2 * N
    out = " ".join(audit(root, 1).split())
    assert (f"the lake holds {N} more copy(ies) of {N} distinct bill_lines row(s) than any live import states"
            f" (held by import(s) {imp['id']}): counted more than once; drop those imports and import their"
            " files again") in out
    (p,) = audit_json(root, 1)["lake_problems"]
    assert (p["kind"], p["detail"]["copies"], p["detail"]["rows"]) == ("lake_rows_extra", N, N)
    with Workspace.open(root) as wsp:  # attribute carries it as a problem too
        assert "lake_rows_extra" in {q.kind for q in wsp.attribute().problems}

    run("--workspace", root, "imports", "drop", imp["id"], "--reason", "a copied partition")
    run("--workspace", root, "import", "focus", bill)
    assert bill_rows(root) == N
    assert audit_json(root, 0)["lake_intact"]


def test_a_partition_copied_into_another_files_directory_fails_the_audit(ws):
    root, _bill, _imp, part = ws
    other = part.parent.with_name("source=" + "0" * 64)
    other.mkdir()
    shutil.copy(part, other / "part-0.parquet")
    found = {p["kind"]: p["detail"] for p in audit_json(root, 1)["lake_problems"]}
    assert set(found) == {"lake_rows_extra", "lake_import_unlogged"}  # no import of that file was logged
    assert found["lake_rows_extra"]["copies"] == N
    assert (found["lake_import_unlogged"]["sha"], found["lake_import_unlogged"]["rows"]) == ("0" * 12, N)
