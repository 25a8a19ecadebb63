"""The dashboard in Debian's Chromium: served by uvicorn on a free loopback port, clicked through
from the batch list to an imported source row, in both languages."""

from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager

import pytest

from tests.browser.conftest import ARGS, _missing

pytestmark = [pytest.mark.browser,
              pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@contextmanager
def serve(root, **kw):
    """``create_app(root, **kw)`` served by uvicorn on a free loopback port: yields its base URL."""
    uvicorn = pytest.importorskip("uvicorn")
    from trainledger.web.app import check_host, create_app

    host = "127.0.0.1"
    check_host(host, allow_remote=False)
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(root, **kw), host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://{host}:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@pytest.fixture(scope="module")
def served(web_demo):
    with serve(web_demo) as base:
        yield base


def _in_chromium(steps):
    """Run ``steps(page)`` in Debian's Chromium on a thread of its own: Playwright's sync API cannot
    nest, and tests/browser keeps a session browser open on the main thread."""
    import os
    import shutil
    from concurrent.futures import ThreadPoolExecutor

    exe = os.environ.get("TRAINLEDGER_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        _missing("no Chromium on this machine (apt-get install chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("playwright is not installed (pip install -e '.[test]')")

    def run():
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=exe, headless=True, args=ARGS)
            try:
                steps(b.new_context(viewport={"width": 1280, "height": 900}).new_page())
            finally:
                b.close()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(run).result()


@pytest.mark.parametrize("lang, heading, source_heading", [
    ("en", "Training batches", "Imported source row"),
    ("zh-CN", "训练批次", "导入的源数据行"),
])
def test_click_from_batches_to_a_source_row(served, web_demo, lang, heading, source_heading):
    _in_chromium(lambda page: _click_through(page, served, web_demo, lang, heading, source_heading))


def _click_through(page, served, web_demo, lang, heading, source_heading):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(f"{served}/batches?lang={lang}")
    assert page.locator("html").get_attribute("lang") == lang
    assert page.locator("h1").inner_text() == heading
    page.locator("a.batch-link", has_text="csa-sft-2026-11-a").click()
    page.wait_for_url("**/batches/csa-sft-2026-11-a")
    assert page.locator("html").get_attribute("lang") == lang  # the cookie carries the language on
    page.locator("a.run-link", has_text="a-r01").click()
    page.wait_for_url("**/runs/a-r01")
    page.locator("a.line-link").first.click()
    page.wait_for_url("**/lines/**")
    page.locator("a.source-link").click()
    page.wait_for_url("**/sources/**")
    assert page.locator("h1").inner_text() == source_heading
    assert page.locator("html").get_attribute("lang") == lang
    assert "bill-focus.csv" in page.locator("td.file").inner_text()
    assert page.locator("code.rule").count() >= 1
    row = int(page.locator("td.row-no").inner_text())
    import csv

    with open(web_demo / "data" / "bill-focus.csv", newline="", encoding="utf-8-sig") as f:
        raw = list(csv.DictReader(f))[row - 1]
    for field in ("BilledCost", "ResourceId", "ChargePeriodStart", "ChargeDescription"):
        assert page.locator(f'td[data-field="{field}"]').inner_text() == raw[field]
    assert all(u.startswith(served) for u in requests), requests  # nothing fetched from elsewhere
    page.screenshot(path=str(web_demo / f"source-row-{lang}.png"), full_page=True)
