"""The sheet's inline SVG charts and balance view in a real browser: every chart draws with a size,
its bars are painted, its numbers are on the page as text, and a full-page screenshot is taken
(written to TRAINLEDGER_SCREENSHOTS, or the test's tmp dir)."""

import json
import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
BATCH = "csa-sft-2026-11-a"


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_charts_render_with_size_and_their_numbers(page, demo, tmp_path, lang):
    from trainledger.report.render import to_html

    sheet = json.loads((demo / "reports" / f"{BATCH}.json").read_text(encoding="utf-8"))
    out = tmp_path / f"{BATCH}-{lang}.html"
    out.write_text(to_html(sheet, lang), encoding="utf-8")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    assert all(u.startswith("file://") for u in requests), requests  # no script, no font, nothing fetched
    svgs = page.locator("figure.chart svg")
    n = svgs.count()
    assert n >= 5
    for i in range(n):
        box = svgs.nth(i).bounding_box()
        assert box and box["width"] > 100 and box["height"] > 30, (i, box)
    # the painted bars: the longest compute bar is wider than the shortest, as the hours say
    widths = page.eval_on_selector_all("#chart-compute-hours rect.bar",
                                       "els => els.map(e => e.getBoundingClientRect().width)")
    assert max(widths) > 0 and max(widths) > min(widths)
    bridge = page.locator("#fig-chart-bridge-billed-CNY figcaption").inner_text()
    assert "80,523.30" in bridge and "44,555.00" in bridge
    assert page.locator("#balance-view").is_visible() and page.locator("table#sensitivity").is_visible()
    shots = Path(os.environ.get("TRAINLEDGER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page.locator("#charts").screenshot(path=str(shots / f"charts-{lang}.png"))
    page.locator("#balance-view").screenshot(path=str(shots / f"balance-{lang}.png"))
    page.screenshot(path=str(shots / f"sheet-{lang}.png"), full_page=True)
    assert (shots / f"charts-{lang}.png").stat().st_size > 5000
