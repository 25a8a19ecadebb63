"""The HTML cost sheet, opened in a real browser as a finance reader would open the file."""

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

pytestmark = pytest.mark.browser


def _open(page, path):
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    return requests


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_sheet_page_shows_every_section_with_no_network(page, demo, tmp_path, lang):
    batch = "csa-sft-2026-11-b"
    out = tmp_path / f"sheet-{lang}.html"
    CliRunner().invoke(cli, ["--workspace", str(demo), "sheet", batch, "--format", "html", "--lang", lang,
                             "--out", str(out)], catch_exceptions=False)
    requests = _open(page, out)
    assert all(u.startswith("file://") for u in requests), requests  # self-contained: nothing fetched
    sheet = json.loads((demo / "reports" / f"{batch}.json").read_text(encoding="utf-8"))
    assert page.locator("html").get_attribute("lang") == lang
    for table in ("totals", "compute", "review", "runs", "storage", "labor", "external", "conservation",
                  "assumptions"):
        assert page.locator(f"table#{table}").is_visible(), table
    # one row per run, per basis total, per assumption: the page shows what the JSON holds
    assert page.locator("table#runs tr[data-run]").count() == len(sheet["runs"])
    assert page.locator("table#totals tr[data-basis]").count() == len(sheet["totals_by_basis"])
    assert page.locator("table#assumptions tr").count() == len(sheet["assumptions"]) + 1
    heading = page.locator("h1").inner_text()
    assert heading.startswith("训练批次成本底稿" if lang == "zh-CN" else "Batch cost sheet")
    effective = page.locator('table#compute tr[data-state="effective"] td').nth(0).inner_text()
    assert effective == ("有效训练" if lang == "zh-CN" else "effective")


def test_assumptions_drawer_opens_and_closes(page, demo):
    _open(page, demo / "reports" / "csa-sft-2026-11-a.html")
    drawer = page.locator("details.drawer")
    table = page.locator("table#assumptions")
    assert table.is_visible()  # open by default: assumptions are on the same screen as the numbers
    drawer.locator("summary").click()
    assert not table.is_visible()
    drawer.locator("summary").click()
    assert table.is_visible()
    assert page.locator("table#assumptions .tag.assumed").count() >= 1


def test_conservation_difference_is_zero_on_the_page(page, demo):
    _open(page, demo / "reports" / "csa-sft-2026-11-a.html")
    cells = page.locator("table#conservation tr td:nth-child(5)")
    assert cells.count() >= 2
    assert {cells.nth(i).inner_text() for i in range(cells.count())} <= {"0.00", "0"}
    assert page.locator("table#conservation td.bad").count() == 0


def test_review_classes_add_up_to_the_runs_on_the_page(page, demo):
    _open(page, demo / "reports" / "csa-sft-2026-11-b.html")
    counts = page.locator("table#review tr[data-class] td:nth-child(2)")
    total = sum(int(counts.nth(i).inner_text()) for i in range(counts.count()))
    assert total == page.locator("table#runs tr[data-run]").count()
    share = page.locator("p.efficiency b").first.inner_text()
    assert share.endswith("%") and 0 < float(share[:-1]) < 100
