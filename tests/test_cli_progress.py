"""The import progress bar: drawn on a terminal, throttled, cleared when a file is done; absent
under --json, --quiet and off a terminal; told the bytes read by both import paths."""

from __future__ import annotations

import io
from pathlib import Path

import click
import pytest

from tests.ingest.fuzz_helpers import demo_dir
from trainledger.cli.progress import INTERVAL, Bar, import_bar
from trainledger.ingest import import_files
from trainledger.ingest.focus import FocusImporter
from trainledger.lake import Lake


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_draws_throttles_and_clears():
    out, clock = Tty(), Clock()
    bar = Bar(out, clock)
    p = Path("/x/bill.csv")
    bar(p, 0, 1000)
    first = out.getvalue()
    assert first.startswith("\rbill.csv  [") and "0%" in first and "导入中 importing" in first
    clock.now += INTERVAL / 4
    bar(p, 500, 1000)
    assert out.getvalue() == first  # too soon: not redrawn
    clock.now += INTERVAL
    bar(p, 500, 1000)
    assert "50%" in out.getvalue() and "#" * 12 + "." * 12 in out.getvalue()
    width = bar.width
    bar(p, 1000, 1000)  # done: the line is wiped, whatever the clock says
    assert out.getvalue().endswith("\r" + " " * width + "\r") and bar.width == 0


def test_no_bar_under_json_quiet_or_off_a_terminal():
    ctx = click.Context(click.Command("import"), obj={"quiet": False})
    assert isinstance(import_bar(ctx, False, Tty()), Bar)
    assert import_bar(ctx, True, Tty()) is None
    assert import_bar(ctx, False, io.StringIO()) is None  # a pipe or a log file
    quiet = click.Context(click.Command("import"), obj={"quiet": True})
    assert import_bar(quiet, False, Tty()) is None


@pytest.mark.parametrize("fast", [True, False], ids=["column-at-a-time", "per-row"])
def test_both_import_paths_tell_the_bytes_read(fast, tmp_path, monkeypatch):
    from trainledger.ingest import fastcsv

    monkeypatch.setattr(fastcsv, "CHUNK_BYTES", 4096)
    if not fast:
        monkeypatch.setattr(FocusImporter, "fast_batches", lambda self, p, c: None)
        monkeypatch.setattr("trainledger.ingest.run.BATCH_ROWS", 20)
    bill = demo_dir() / "bill-focus.csv"
    told: list[tuple[Path, int, int]] = []
    import_files("focus", [bill], Lake(tmp_path / "lake"), progress=lambda *a: told.append(a))
    size = bill.stat().st_size
    assert len(told) > 3 and {t[0] for t in told} == {bill} and {t[2] for t in told} == {size}
    done = [t[1] for t in told]
    assert done == sorted(done) and 0 < done[0] < size and done[-1] == size


def test_the_cli_prints_no_bar_when_stderr_is_not_a_terminal(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli as main

    ws = tmp_path / "ws"
    runner = CliRunner()
    assert runner.invoke(main, ["--workspace", str(ws), "init"]).exit_code == 0
    res = runner.invoke(main, ["--workspace", str(ws), "import", "focus", str(demo_dir() / "bill-focus.csv")])
    assert res.exit_code == 0, res.output
    assert "accepted" in res.output and "\r" not in res.output and "导入中" not in res.output
