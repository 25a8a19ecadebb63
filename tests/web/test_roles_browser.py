"""Roles in Debian's Chromium: the dashboard served by uvicorn on a free loopback port with tokens
required; an engineer's batch page (en and zh-CN) shows no rate and no rate-derived cost, finance's
shows them; without a token the browser gets the 401 page."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from tests.web.roles_ws import BATCH_A, leaks, secrets
from tests.web.test_browser import _in_chromium

pytestmark = [pytest.mark.browser, pytest.mark.filterwarnings("ignore::DeprecationWarning")]


@pytest.fixture(scope="module")
def served_roles(rates_ws):
    uvicorn = pytest.importorskip("uvicorn")
    from trainledger.web.app import create_app

    host = "127.0.0.1"
    with socket.socket() as s:
        s.bind((host, 0))
        port = s.getsockname()[1]
    app = create_app(rates_ws[0], require_token=True)
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(100):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    yield f"http://{host}:{port}"
    server.should_exit = True
    thread.join(timeout=5)


def _pages(base, who: dict[str, str | None], shots) -> dict[str, list]:
    """Per name: (lang, status, visible text, html) of the batch page in both languages, seen with
    that token (None: no header); one browser for all."""
    out: dict[str, list] = {}

    def steps(page):
        for name, token in who.items():
            page.set_extra_http_headers({"Authorization": f"Bearer {token}"} if token else {})
            for lang in ("en", "zh-CN"):
                resp = page.goto(f"{base}/batches/{BATCH_A}?lang={lang}")
                out.setdefault(name, []).append((lang, resp.status, page.locator("body").inner_text(),
                                                 page.content()))
                page.screenshot(path=str(shots / f"roles-{name}-{lang}.png"), full_page=True)

    _in_chromium(steps)
    return out


def test_engineer_and_finance_in_chromium(served_roles, rates_ws, tokens):
    root, rates = rates_ws
    needles = secrets(root, rates)
    seen = _pages(served_roles, {"engineer": tokens[0]["engineer"], "finance": tokens[0]["finance"],
                                 "nobody": None}, root)
    eng, fin, nobody = seen["engineer"], seen["finance"], seen["nobody"]
    for (lang, status, shown, html) in eng:
        assert status == 200
        assert not leaks(shown, needles) and not leaks(html, needles), lang
        assert ("受限" if lang == "zh-CN" else "restricted") in shown
        assert "engineer" in shown  # the page says whose view it is
    for (lang, status, shown, _html) in fin:
        assert status == 200
        for low, _exp, high in rates.values():
            assert leaks(shown, {low, high}), (lang, low, high)
        assert "受限" not in shown and "restricted" not in shown
    assert [s for _, s, _, _ in nobody] == [401, 401]
    assert "需要令牌" in nobody[1][2] and "Token needed" in nobody[0][2]
