"""``import slurm`` and ``import progress`` hash rows with version 3 in a fresh lake (as ``import focus`` does: see
test_rowhash_old_lake.py), and a lake whose rows of that kind were hashed with version 2
(tests/data/lake-v2-slurm, written by main at 467a2f4; tests/data/lake-v2-progress, by main at
f562201) keeps hashing them with version 2, so it
still finds them again: the same counts main gave, both ways; the per-row path hashes as the
column path. (Another kind moved to version 3 gets its fixture lake and an entry in ``KINDS``.)"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from tests.ingest.fuzz_helpers import DATA

from trainledger.ingest import import_files
from trainledger.ingest.progress import ProgressImporter
from trainledger.ingest.slurm import SlurmImporter
from trainledger.lake import Lake
from trainledger.lake.settle import partition_meta

# kind: (fixture, file a, file b, options, table, the partition's content hash, importer)
KINDS = {
    "slurm": ("lake-v2-slurm", "a.txt", "b.txt", {"tz": "Asia/Shanghai"}, "jobs",
              "09da103d6a76b99bdabf7ea60f9deda6156810f3b5005fb29dd6775e91698e75", SlurmImporter),
    "progress": ("lake-v2-progress", "a.jsonl", "b.jsonl", {}, "progress_events",
                 "0a23f8196b4f5f5514b30768fe6b27ef1157060d36578359d80f59ee59957c6c", ProgressImporter),
}


def _counts(kind: str, lake: Lake, path: Path) -> tuple[int, int, int, int]:
    (r,) = import_files(kind, [str(path)], lake, options=KINDS[kind][3])
    return r.rows_read, r.accepted, r.duplicates, r.quarantined


def _versions(kind: str, lake: Lake) -> list[tuple[int, str]]:
    return sorted((m["row_hash"], m["kind"]) for m in
                  (partition_meta(pq.read_schema(p)) for p in lake.partition_files(KINDS[kind][4])))


@pytest.mark.parametrize("kind", KINDS)
def test_the_old_lake_keeps_version_2_and_finds_its_rows(tmp_path, kind):
    fixture, _, b, _, table, _, _ = KINDS[kind]
    shutil.copytree(DATA / fixture / "lake", tmp_path / "old")
    lake = Lake(tmp_path / "old")
    assert _versions(kind, lake) == [(2, kind)]
    assert _counts(kind, lake, DATA / fixture / b) == (300, 200, 100, 0)  # main: 200 + 100
    assert _counts(kind, lake, DATA / fixture / b) == (300, 0, 300, 0)
    assert _versions(kind, lake) == [(2, kind), (2, kind)]
    assert lake.read(table).num_rows == 500


@pytest.mark.parametrize("kind", KINDS)
def test_a_fresh_lake_hashes_with_version_3_and_counts_the_same(tmp_path, kind):
    fixture, a, b, _, table, sha, _ = KINDS[kind]
    lake = Lake(tmp_path / "new")
    assert [_counts(kind, lake, DATA / fixture / a), _counts(kind, lake, DATA / fixture / b)] == [
        (300, 300, 0, 0), (300, 200, 100, 0)]
    assert _versions(kind, lake) == [(3, kind), (3, kind)]
    old = pq.read_table(next((DATA / fixture / "lake").glob(f"{table}/*/part-0.parquet")), columns=["row", "row_hash"])
    new = pq.read_table(lake.source_parts(table, sha)[0], columns=["row", "row_hash"])
    assert old.column("row").to_pylist() == new.column("row").to_pylist()
    assert not set(old.column("row_hash").to_pylist()) & set(new.column("row_hash").to_pylist())


@pytest.mark.parametrize("kind", KINDS)
def test_the_per_row_path_hashes_as_the_column_path(tmp_path, monkeypatch, kind):
    """A file the column path gives back is read row by row, with the same version-3 hashes."""
    fixture, a, _, _, table, _, importer = KINDS[kind]
    fast = Lake(tmp_path / "fast")
    _counts(kind, fast, DATA / fixture / a)
    monkeypatch.setattr(importer, "fast_batches", lambda self, p, c: None)
    slow = Lake(tmp_path / "slow")
    _counts(kind, slow, DATA / fixture / a)
    assert _versions(kind, slow) == [(3, kind)]
    got = [pq.read_table(lk.partition_files(table)[0], columns=["row", "row_hash"]).to_pylist() for lk in (fast, slow)]
    assert got[0] == got[1]
