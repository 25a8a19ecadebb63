"""The cross-batch report page (reports/report.html of the demo) in a real browser: the spend curves
draw with a size, the actual's points rise as the cumulative amounts do, every charted number is on
the page as text, nothing is fetched; screenshots to TRAINLEDGER_SCREENSHOTS (or the tmp dir)."""

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_spend_curves_render_with_their_numbers(page, demo, tmp_path, lang):
    from trainledger.report import cross, cross_render
    from trainledger.service import Workspace

    with Workspace.open(demo) as wsp:
        rep = cross.build(wsp, cross.Scope())
    out = tmp_path / f"report-{lang}.html"
    out.write_text(cross_render.to_html(rep, lang), encoding="utf-8")
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(out.as_uri())
    assert all(u.startswith("file://") for u in requests), requests
    assert page.locator("html").get_attribute("lang") == lang
    figs = page.locator("#curves figure.chart")
    assert figs.count() == len(rep.curves) >= 4
    for i in range(figs.count()):
        box = figs.nth(i).locator("svg").bounding_box()
        assert box and box["width"] > 300 and box["height"] > 150, (i, box)
    fig = page.locator("#fig-chart-spend-csa-sft-2026-11-a-billed-CNY")
    ys = fig.locator("circle.point").evaluate_all("els => els.map(e => e.getBoundingClientRect().y)")
    assert len(ys) == 6 and ys == sorted(ys, reverse=True)  # cumulative: each point higher on screen
    caption = fig.locator("figcaption").inner_text()
    for text in ("74.96", "12,187.28", "80,523.30", "44,555.00"):  # 1st, 2nd (a Beijing day), last; plan
        assert text in caption
    assert page.locator("section#control").inner_text().count("0.00") >= 2
    shots = Path(os.environ.get("TRAINLEDGER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    page.locator("#curves").screenshot(path=str(shots / f"report-curves-{lang}.png"))
    page.screenshot(path=str(shots / f"report-{lang}.png"), full_page=True)
    assert (shots / f"report-curves-{lang}.png").stat().st_size > 5000
