"""Fixtures for the ingest tests: a fresh lake and inline fixture files (helpers in
ingest_helpers.py)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from trainledger.lake import Lake


@pytest.fixture
def lake(tmp_path: Path) -> Lake:
    return Lake(tmp_path / "lake")


@pytest.fixture
def write(tmp_path: Path) -> Callable[[str, str | bytes], Path]:
    """Write an inline fixture to a file and return its path."""

    def _write(name: str, content: str | bytes) -> Path:
        p = tmp_path / "in" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content, encoding="utf-8", newline="")
        return p

    return _write
