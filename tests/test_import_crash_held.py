"""A crash between publishing a held record (``held-N.parquet``: the rows an import states that
another live import's rows hold) and the import's log line: the lake then holds files of an
import that lake/imports.jsonl never recorded — in no `imports list`, beyond any drop, and (its
partition's rows) in the figures. `audit` finds it (exit 1, the problem ``lake_import_unlogged``
with its remedy, en and zh-CN), `attribute` carries it, and importing the file again records it:
the ledger's record counts the rows once, and a later drop of the other import gives them back.
The crash is simulated by raising right after the held record is published. Both ledgers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.lake.store import PartitionWriter
from trainledger.service import Workspace

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"


class Killed(RuntimeError):
    pass


def run(*args, code=0, lang="en"):
    result = CliRunner().invoke(cli, ["--lang", lang, *map(str, args)], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def listing(root) -> dict[str, dict]:
    return {Path(r["path"]).name: r for r in json.loads(run("--workspace", root, "imports", "list", "--json"))}


def write(path: Path, rows: list[int]) -> Path:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text(lines[0] + "".join(lines[i] for i in rows), encoding="utf-8")
    return path


def crashed_import(root: Path, path: Path, monkeypatch) -> None:
    """`import focus PATH`, killed right after it published its held record (before its log line)."""
    publish = PartitionWriter._publish_held

    def publish_then_die(self, held):
        published = held.exists()
        publish(self, held)
        if published:
            raise Killed("killed after publishing the held record")

    with monkeypatch.context() as m:
        m.setattr(PartitionWriter, "_publish_held", publish_then_die)
        with Workspace.open(root) as wsp, pytest.raises(Killed):
            wsp.import_files("focus", [path])


@pytest.fixture
def ws(tmp_path, db_url):
    root = tmp_path / "ws"
    Workspace.init(root, db_url=db_url).close()
    return root


def lake_files(root) -> list[str]:
    return sorted(p.name for p in (root / "lake" / "bill_lines").glob(f"source={sha_of(root, 'later.csv')}/*"))


def sha_of(root, name) -> str:
    import hashlib

    return hashlib.sha256((root.parent / name).read_bytes()).hexdigest()


def bill(root):
    with Workspace.open(root) as wsp:
        return wsp.lake.read("bill_lines")


def test_a_held_record_alone_is_found_and_recorded_by_the_next_import(ws, monkeypatch):
    """later.csv repeats 2 rows of earlier.csv: it has no partition, only a held record."""
    root = ws
    earlier, later = write(root.parent / "earlier.csv", [1, 2, 3, 4]), write(root.parent / "later.csv", [1, 2])
    run("--workspace", root, "import", "focus", earlier)
    crashed_import(root, later, monkeypatch)
    assert lake_files(root) == ["held-0.parquet"]
    assert set(listing(root)) == {"earlier.csv"}  # the log never heard of it

    sha = sha_of(root, "later.csv")
    out = " ".join(run("--workspace", root, "audit", code=1).split())
    assert (f"the lake holds 1 file(s) of an import of the file {sha[:12]} (focus, bill_lines: 0 row(s) in the"
            f" figures, 2 held for it) that lake/imports.jsonl does not record — an import cut off between"
            f" publishing them and logging itself: it is in no `imports list` and cannot be dropped; import"
            f" that file again to record it: `trainledger --workspace {root} import focus FILE`"
            f" (the file whose sha256 begins {sha[:12]})") in out
    zh = run("--workspace", root, "audit", code=1, lang="zh-CN")
    assert "lake/imports.jsonl 未记录" in zh and f"sha256 以 {sha[:12]} 开头" in zh
    (p,) = json.loads(run("--workspace", root, "audit", "--json", code=1))["lake_problems"]
    assert (p["kind"], p["detail"]["rows"], p["detail"]["held"], p["detail"]["files"]) == \
        ("lake_import_unlogged", 0, 2, 1)
    assert (p["detail"]["sha"], p["detail"]["command"]) == (sha[:12], "trainledger import focus FILE")
    with Workspace.open(root) as wsp:
        assert "lake_import_unlogged" in {q.kind for q in wsp.attribute().problems}

    run("--workspace", root, "import", "focus", later)  # the remedy
    rec = listing(root)["later.csv"]
    assert (rec["rows_read"], rec["accepted"], rec["duplicates"]) == (2, 0, 2)
    assert json.loads(run("--workspace", root, "audit", "--json"))["lake_intact"]
    run("--workspace", root, "imports", "drop", listing(root)["earlier.csv"]["id"], "--reason", "superseded")
    rows = bill(root)
    assert sorted(rows.column("row").to_pylist()) == [1, 2]  # later's own two rows, once each
    assert set(rows.column("source_sha256").to_pylist()) == {sha}
    assert json.loads(run("--workspace", root, "audit", "--json"))["lake_intact"]


def test_a_partition_and_its_held_record_are_found_and_counted_once(ws, monkeypatch):
    """later.csv = earlier.csv's 2 rows and 2 more: a partition (2 rows, in the figures) and a
    held record (2 rows) before the crash."""
    root = ws
    earlier, later = write(root.parent / "earlier.csv", [1, 2]), write(root.parent / "later.csv", [1, 2, 3, 4])
    run("--workspace", root, "import", "focus", earlier)
    crashed_import(root, later, monkeypatch)
    assert lake_files(root) == ["held-0.parquet", "part-0.parquet"]
    assert len(bill(root)) == 4  # the partition's rows are read, of an import no one can see or drop
    (p,) = json.loads(run("--workspace", root, "audit", "--json", code=1))["lake_problems"]
    assert (p["kind"], p["detail"]["rows"], p["detail"]["held"], p["detail"]["files"]) == \
        ("lake_import_unlogged", 2, 2, 2)

    out = run("--workspace", root, "import", "focus", later)
    assert "0 accepted, 4 duplicate" in out  # this run added nothing
    rec = listing(root)["later.csv"]
    assert (rec["rows_read"], rec["accepted"], rec["duplicates"], rec["quarantined"]) == (4, 2, 2, 0)
    assert json.loads(run("--workspace", root, "audit", "--json"))["lake_intact"]
    assert len(bill(root)) == 4
    run("--workspace", root, "imports", "drop", listing(root)["earlier.csv"]["id"], "--reason", "superseded")
    assert sorted(bill(root).column("row").to_pylist()) == [1, 2, 3, 4]  # every row of later.csv, once
    assert json.loads(run("--workspace", root, "audit", "--json"))["lake_intact"]
