"""A lake written before row hash version 3 (tests/data/lake-v2-focus, made by main at 48471f0)
still finds its rows again: a FOCUS import into it hashes with version 2 and gets the counts that
main itself gave; a fresh lake hashes with version 3 and gets the same counts; a partition of the
same rows hashed with the other version is refused, never silently not compared."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from tests.ingest.fuzz_helpers import DATA

from trainledger.errors import BadInput
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.lake import settle as S
from trainledger.lake.settle import partition_meta

OLD = DATA / "lake-v2-focus" / "lake"
SAMPLE = DATA / "focus-sample-data" / "focus_sample.csv"
A_SHA = "940dd8807f222c6c1de54257a75850243a3f1e78aa64a7a5fa2fbf0fb91ea4ff"


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    out = {"a": tmp_path / "a.csv", "b": tmp_path / "b.csv", "c": tmp_path / "c.csv"}
    out["a"].write_text("".join(lines[:301]), encoding="utf-8")
    out["b"].write_text("".join([lines[0], *lines[201:501]]), encoding="utf-8")
    with out["a"].open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    with out["c"].open("w", newline="", encoding="utf-8") as f:  # rows 1-100, columns reversed
        w = csv.writer(f, lineterminator="\n")
        for r in rows[:101]:
            w.writerow(r[::-1])
    assert hashlib.sha256(out["a"].read_bytes()).hexdigest() == A_SHA  # the fixture's file
    return out


def _old_lake(tmp_path: Path) -> Lake:
    shutil.copytree(OLD, tmp_path / "old")
    return Lake(tmp_path / "old")


def _metas(lake: Lake) -> dict[str, dict]:
    return {p.parent.name[7:19]: partition_meta(pq.read_schema(p)) for p in lake.partition_files("bill_lines")}


def _counts(lake: Lake, path: Path) -> tuple[int, int, int, int]:
    (r,) = import_files("focus", [str(path)], lake)
    return r.rows_read, r.accepted, r.duplicates, r.quarantined


def test_the_old_lake_dedupes_new_imports_as_main_did(tmp_path, files):
    lake = _old_lake(tmp_path)
    assert _metas(lake) == {A_SHA[:12]: {"identity": _metas(lake)[A_SHA[:12]]["identity"], "row_hash": 2,
                                         "statement": ""}}  # as main wrote it: version 2, no kind
    assert _counts(lake, files["b"]) == (300, 200, 100, 0)  # main: 200 + 100
    assert _counts(lake, files["c"]) == (100, 0, 100, 0)  # main: 0 + 100
    assert lake.read("bill_lines").num_rows == 500
    metas = _metas(lake)
    assert {m["row_hash"] for m in metas.values()} == {2}  # the new partition kept version 2
    assert [m.get("kind") for m in metas.values()].count("focus") == 1


def test_a_fresh_lake_hashes_with_version_3_and_counts_the_same(tmp_path, files):
    lake = Lake(tmp_path / "new")
    assert [_counts(lake, files[k]) for k in "abc"] == [(300, 300, 0, 0), (300, 200, 100, 0), (100, 0, 100, 0)]
    assert {(m["row_hash"], m["kind"]) for m in _metas(lake).values()} == {(3, "focus")}
    old = pq.read_table(next(OLD.glob("bill_lines/*/part-0.parquet")), columns=["row", "row_hash"])
    new = pq.read_table(lake.partition_files("bill_lines")[0].parent / "part-0.parquet", columns=["row_hash"])
    assert not set(old.column("row_hash").to_pylist()) & set(new.column("row_hash").to_pylist())


def test_hashing_a_new_import_with_version_3_into_the_old_lake_is_refused(tmp_path, files, monkeypatch):
    """Were the version not chosen from the lake, the new rows could not be compared: refused."""
    lake = _old_lake(tmp_path)
    monkeypatch.setattr(S, "import_version", lambda parts, kind, versions: versions[-1])
    with pytest.raises(BadInput, match="row-hash version 2"):
        import_files("focus", [str(files["b"])], lake)
    assert len(lake.partition_files("bill_lines")) == 1


def test_a_partition_of_another_kind_and_version_is_not_compared(tmp_path, files):
    """A FOCUS partition (version 3, kind focus) beside one recorded as another kind's
    (version 2): neither import refuses the other, and each counts its own rows."""
    lake = Lake(tmp_path / "mixed")
    assert _counts(lake, files["a"]) == (300, 300, 0, 0)
    src = lake.partition_files("bill_lines")[0]
    table = pq.read_table(src)
    meta = partition_meta(table.schema) | {"row_hash": 2, "kind": "aliyun"}
    other = src.parent.parent / ("source=" + "e" * 64) / "part-0.parquet"
    other.parent.mkdir()
    pq.write_table(table.replace_schema_metadata({S.META_KEY: json.dumps(meta).encode()}), other)
    assert S.import_version(lake.partition_files("bill_lines"), "focus", (2, 3)) == 3
    assert S.import_version(lake.partition_files("bill_lines"), "aliyun", (2, 3)) == 2
    assert _counts(lake, files["b"]) == (300, 200, 100, 0)  # the aliyun copy is not a FOCUS row


@pytest.mark.parametrize("old", [True, False], ids=["old-lake", "fresh-lake"])
def test_the_same_rows_as_typed_parquet_are_duplicates_in_either_version(old, tmp_path, files):
    """DuckDB's typed Parquet of a.csv (another file, the same rows) adds nothing, whether the
    lake hashes with version 2 (the old lake) or 3 (a fresh lake where a.csv was imported)."""
    import duckdb

    pq_path = tmp_path / "a.parquet"
    duckdb.sql(f"COPY (SELECT * FROM read_csv('{files['a']}')) TO '{pq_path}'")
    lake = _old_lake(tmp_path) if old else Lake(tmp_path / "new")
    if not old:
        assert _counts(lake, files["a"]) == (300, 300, 0, 0)
    assert _counts(lake, pq_path) == (300, 0, 300, 0)
    assert {m["row_hash"] for m in _metas(lake).values()} == {2 if old else 3}
