"""A progress bar for long imports, on stderr, only for a person at a terminal.

``import_bar(ctx, as_json)`` gives a ``Bar`` — or None under ``--json``, ``--quiet``, or when stderr
is not a terminal (a pipe, a log file, CI), so scripted output never carries it. The bar is told
``(path, bytes read, file size)`` by the importer (``ingest.import_files(progress=...)``), redraws
at most every ``INTERVAL`` seconds, and clears its line when the file is done, so the summary lines
that follow print as without it::

    bill.csv  [###########.............]  46%  1.6 / 3.4 GiB  41 s  导入中 importing
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import IO

import click

from trainledger.cli.output import quiet

INTERVAL = 0.2  # seconds between redraws
WIDTH = 24
LABEL = ("importing", "导入中")  # (English, zh-CN)


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover - the loop returns


class Bar:
    """Draws ``name [###...] pct done / total elapsed`` on one line of ``stream``."""

    def __init__(self, stream: IO[str], clock: object = time.monotonic) -> None:
        self.stream, self.clock = stream, clock
        self.path: Path | None = None
        self.started = self.drawn_at = 0.0
        self.width = 0  # characters drawn on the current line

    def __call__(self, path: Path, done: int, total: int) -> None:
        now = self.clock()  # type: ignore[operator]
        if path != self.path:
            self.clear()
            self.path, self.started, self.drawn_at = path, now, 0.0
        finished = total > 0 and done >= total
        if not finished and now - self.drawn_at < INTERVAL:
            return
        self.drawn_at = now
        if finished:
            self.clear()
            return
        share = min(done / total, 1.0) if total else 0.0
        filled = int(share * WIDTH)
        line = (
            f"{path.name}  [{'#' * filled}{'.' * (WIDTH - filled)}]  {share:4.0%}  "
            f"{_size(done)} / {_size(total)}  {now - self.started:.0f} s  {LABEL[1]} {LABEL[0]}"
        )
        pad = max(self.width - len(line), 0)
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()
        self.width = len(line)

    def clear(self) -> None:
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


def import_bar(ctx: click.Context | None, as_json: bool, stream: IO[str] | None = None) -> Bar | None:
    """A bar for this command, or None: under --json, --quiet, or off a terminal."""
    out = stream if stream is not None else sys.stderr
    if as_json or quiet(ctx) or not (hasattr(out, "isatty") and out.isatty()):
        return None
    return Bar(out)
