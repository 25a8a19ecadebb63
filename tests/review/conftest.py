"""The demo workspace the loop tests share (built once per session; tests that write copy it)."""

from __future__ import annotations

import shutil

import pytest

from trainledger.cli.demo_cmd import run_demo


@pytest.fixture(scope="session")
def demo_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("loop") / "demo"
    run_demo(d, 20261129, echo=lambda *a, **k: None)
    return d


@pytest.fixture
def ws(demo_dir, tmp_path):
    """A private copy: these tests write decisions and plan versions."""
    dst = tmp_path / "ws"
    shutil.copytree(demo_dir, dst)
    return dst
