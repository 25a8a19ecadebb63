"""``import slurm`` hashes rows with version 3 in a fresh lake, and a lake whose sacct rows were
hashed with version 2 (tests/data/lake-v2-slurm, written by main at 467a2f4) keeps hashing them
with version 2, so it still finds them again: the same counts main gave, both ways."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow.parquet as pq
from tests.ingest.fuzz_helpers import DATA

from trainledger.ingest import import_files
from trainledger.ingest.slurm import SlurmImporter
from trainledger.lake import Lake
from trainledger.lake.settle import partition_meta

FIX = DATA / "lake-v2-slurm"
A, B = FIX / "a.txt", FIX / "b.txt"
TZ = {"tz": "Asia/Shanghai"}
A_SHA = "09da103d6a76b99bdabf7ea60f9deda6156810f3b5005fb29dd6775e91698e75"  # the fixture's partition


def _counts(lake: Lake, path: Path) -> tuple[int, int, int, int]:
    (r,) = import_files("slurm", [str(path)], lake, options=TZ)
    return r.rows_read, r.accepted, r.duplicates, r.quarantined


def _versions(lake: Lake) -> list[tuple[int, str]]:
    return sorted((m["row_hash"], m["kind"]) for m in
                  (partition_meta(pq.read_schema(p)) for p in lake.partition_files("jobs")))


def test_the_old_lake_keeps_version_2_and_finds_its_rows(tmp_path):
    shutil.copytree(FIX / "lake", tmp_path / "old")
    lake = Lake(tmp_path / "old")
    assert _versions(lake) == [(2, "slurm")]
    assert _counts(lake, B) == (300, 200, 100, 0)  # main: 200 + 100
    assert _counts(lake, B) == (300, 0, 300, 0)
    assert _versions(lake) == [(2, "slurm"), (2, "slurm")]
    assert lake.read("jobs").num_rows == 500


def test_a_fresh_lake_hashes_with_version_3_and_counts_the_same(tmp_path):
    lake = Lake(tmp_path / "new")
    assert [_counts(lake, A), _counts(lake, B)] == [(300, 300, 0, 0), (300, 200, 100, 0)]
    assert _versions(lake) == [(3, "slurm"), (3, "slurm")]
    old = pq.read_table(next((FIX / "lake").glob("jobs/*/part-0.parquet")), columns=["row", "row_hash"])
    new = pq.read_table(lake.source_parts("jobs", A_SHA)[0], columns=["row", "row_hash"])
    assert old.column("row").to_pylist() == new.column("row").to_pylist()
    assert not set(old.column("row_hash").to_pylist()) & set(new.column("row_hash").to_pylist())


def test_the_per_row_path_hashes_as_the_column_path(tmp_path, monkeypatch):
    """A file the column path gives back is read row by row, with the same version-3 hashes."""
    fast = Lake(tmp_path / "fast")
    _counts(fast, A)
    monkeypatch.setattr(SlurmImporter, "fast_batches", lambda self, p, c: None)
    slow = Lake(tmp_path / "slow")
    _counts(slow, A)
    assert _versions(slow) == [(3, "slurm")]
    got = [pq.read_table(lk.partition_files("jobs")[0], columns=["row", "row_hash"]).to_pylist() for lk in (fast, slow)]
    assert got[0] == got[1]
