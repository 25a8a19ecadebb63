"""generate(): the files it promises, byte-identical for a seed, and nothing else."""

from __future__ import annotations

import dataclasses

from trainledger.demo import DemoFiles, generate


def _bytes(files: DemoFiles) -> dict[str, bytes]:
    return {f.name: getattr(files, f.name).read_bytes() for f in dataclasses.fields(files)}


def test_paths_are_the_documented_ones(tmp_path):
    files = generate(tmp_path, seed=5)
    assert files == DemoFiles(
        config=tmp_path / "trainledger.toml",
        price_book=tmp_path / "prices.toml",
        slurm=tmp_path / "data" / "sacct.txt",
        focus=tmp_path / "data" / "bill-focus.csv",
        progress=tmp_path / "data" / "progress.jsonl",
        storage=tmp_path / "data" / "storage-inventory.csv",
        timesheet=tmp_path / "data" / "timesheet.csv",
        invoice=tmp_path / "data" / "vendor-invoices.csv",
    )
    # it writes the sources and the config, never a ledger or a lake
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "prices.toml", "trainledger.toml"]
    assert all(getattr(files, f.name).stat().st_size > 0 for f in dataclasses.fields(files))


def test_same_seed_gives_byte_identical_files(tmp_path):
    first = _bytes(generate(tmp_path / "one", seed=20261129))
    second = _bytes(generate(tmp_path / "two", seed=20261129))
    assert first == second


def test_regenerating_in_place_is_stable(tmp_path):
    first = _bytes(generate(tmp_path, seed=3))
    assert _bytes(generate(tmp_path, seed=3)) == first


def test_a_different_seed_gives_different_data(tmp_path):
    a = _bytes(generate(tmp_path / "a", seed=1))
    b = _bytes(generate(tmp_path / "b", seed=2))
    assert a["slurm"] != b["slurm"]
    assert a["progress"] != b["progress"]
    assert a["focus"] != b["focus"]
    assert a["config"] == b["config"]  # the story's structure does not depend on the seed


def test_files_are_utf8_with_unix_newlines(demo_files):
    for f in dataclasses.fields(demo_files):
        raw = getattr(demo_files, f.name).read_bytes()
        text = raw.decode("utf-8")
        assert "\r" not in text and text.endswith("\n"), f.name
        assert not raw.startswith(b"\xef\xbb\xbf"), f.name
