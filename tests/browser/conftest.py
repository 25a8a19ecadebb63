"""A real browser for the report pages: Debian's Chromium driven by Playwright.

No browser is downloaded: Playwright launches ``/usr/bin/chromium`` (or ``TRAINLEDGER_CHROMIUM``).
Without it the browser tests are skipped locally — unless ``TRAINLEDGER_REQUIRE_BROWSER=1`` (CI),
where a missing browser fails them.
"""

from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def _missing(reason: str):
    if os.environ.get("TRAINLEDGER_REQUIRE_BROWSER") == "1":
        pytest.fail(f"{reason}, and TRAINLEDGER_REQUIRE_BROWSER=1 requires the browser tests", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def browser():
    exe = os.environ.get("TRAINLEDGER_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        _missing("no Chromium on this machine (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, headless=True, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    yield pg
    context.close()


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    """The demo workspace, built once for every browser test."""
    from trainledger.cli import cli

    root = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(cli, ["demo", "--dir", str(root)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return root
