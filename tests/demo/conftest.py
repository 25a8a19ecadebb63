"""Generated demo files, parsed back with the standard library only (csv, json, tomllib)."""

from __future__ import annotations

import csv
import json
import tomllib
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from trainledger.demo import DEFAULT_SEED, DemoFiles, generate

SHANGHAI = timezone(timedelta(hours=8))


def parse_local(text: str) -> datetime | None:
    return None if text in ("Unknown", "None", "") else \
        datetime.fromisoformat(text).replace(tzinfo=SHANGHAI)


@dataclass(frozen=True)
class Parsed:
    files: DemoFiles
    config: dict
    prices: dict
    sacct: list[dict[str, str]]
    focus: list[dict[str, str]]
    progress: list[dict]
    storage: list[dict[str, str]]
    timesheet: list[dict[str, str]]
    invoices: list[dict[str, str]]

    @property
    def jobs(self) -> list[dict[str, str]]:
        return [r for r in self.sacct if "." not in r["JobID"]]

    @property
    def batch_jobs(self) -> list[dict[str, str]]:
        return [r for r in self.jobs if r["WCKey"]]


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def parse(files: DemoFiles) -> Parsed:
    lines = files.slurm.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("|")
    sacct = [dict(zip(header, line.split("|"), strict=True)) for line in lines[1:]]
    return Parsed(
        files=files,
        config=tomllib.loads(files.config.read_text(encoding="utf-8")),
        prices=tomllib.loads(files.price_book.read_text(encoding="utf-8")),
        sacct=sacct,
        focus=_csv(files.focus),
        progress=[json.loads(x) for x in files.progress.read_text(encoding="utf-8").splitlines()],
        storage=_csv(files.storage),
        timesheet=_csv(files.timesheet),
        invoices=_csv(files.invoice),
    )


@pytest.fixture(scope="session")
def demo_files(tmp_path_factory) -> DemoFiles:
    return generate(tmp_path_factory.mktemp("demo"), seed=DEFAULT_SEED)


@pytest.fixture(scope="session")
def demo(demo_files) -> Parsed:
    return parse(demo_files)


@pytest.fixture(scope="session", params=[DEFAULT_SEED, 1, 7, 424242])
def any_seed(request, tmp_path_factory) -> Parsed:
    """The story's invariants must hold whatever the seed's jitter."""
    return parse(generate(tmp_path_factory.mktemp(f"seed{request.param}"), seed=request.param))
