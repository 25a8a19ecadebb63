"""Every HTML page in each language, in a real browser: a screenshot of each (kept under the pytest
tmp dir, printed by ``-rA``), and proof that Chinese is drawn with glyphs, not tofu boxes.

The glyph check: a CJK font and the fallback box can have the same advance width (both 1 em in
Chromium), so widths alone cannot tell them apart. Each Chinese character of the page's heading is
drawn in a probe beside an unassigned code point (U+10FFFD, always the fallback box), in the
heading's own font; with a CJK font no character's pixels equal the box's and distinct characters
differ. ``test_the_probe_sees_tofu_without_a_cjk_font`` shows the check fails when the font is gone.
"""

from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from tests.browser.conftest import ARGS
from trainledger.cli import cli

pytestmark = pytest.mark.browser

TOFU = "\U0010fffd"
ESTIMATE = ["estimate", "--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800", "--samples", "2000"]
COMPARE = ["compare", "--gpu", "h800", "--gpus", "8", "--years", "3", "--utilisation", "0.6", "--samples", "2000"]


def _pages(demo, out_dir):
    """(name, lang) -> an HTML file made by the CLI, one per page kind and language."""
    pages = {}
    for lang in ("en", "zh-CN"):
        for name, argv in (("sheet", ["--workspace", str(demo), "sheet", "csa-sft-2026-11-b", "--format", "html",
                                      "--out"]),
                           ("estimate", [*ESTIMATE, "--format", "html", "-o"]),
                           ("compare", [*COMPARE, "--format", "html", "-o"])):
            path = out_dir / f"{name}-{lang}.html"
            result = CliRunner().invoke(cli, [*argv, str(path), "--lang", lang], catch_exceptions=False)
            assert result.exit_code == 0, result.output
            pages[(name, lang)] = path
    return pages


@pytest.fixture(scope="module")
def pages(demo, tmp_path_factory):
    return _pages(demo, tmp_path_factory.mktemp("pages"))


@pytest.fixture(scope="module")
def shots(tmp_path_factory):
    return tmp_path_factory.mktemp("screenshots")


def glyph_report(page, selector: str = "h1") -> dict:
    """Pixels of each distinct Chinese character of ``selector``'s text and of the fallback box, drawn in
    that element's own font: {"chars": str, "tofu_like": [chars drawn as the box], "distinct": int}."""
    text = page.locator(selector).first.inner_text()
    chars = "".join(dict.fromkeys(c for c in text if "\u4e00" <= c <= "\u9fff"))[:12]
    page.evaluate("""([sel, chars, tofu]) => {
        const host = document.querySelector(sel);
        const box = document.createElement('span');
        box.id = 'glyph-probe';
        for (const c of [...chars, tofu]) {
            const s = document.createElement('span');
            s.className = 'glyph'; s.textContent = c; s.style.display = 'inline-block';
            box.appendChild(s);
        }
        host.appendChild(box);
    }""", [selector, chars, TOFU])
    probes = page.locator("#glyph-probe .glyph")
    images = [probes.nth(i).screenshot() for i in range(probes.count())]
    page.evaluate("document.getElementById('glyph-probe').remove()")
    box = images[-1]
    return {"chars": chars, "tofu_like": [c for c, img in zip(chars, images, strict=False) if img == box],
            "distinct": len(set(images[:-1]))}


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
@pytest.mark.parametrize("name", ["sheet", "estimate", "compare"])
def test_each_page_in_each_language_renders_and_is_screenshotted(page, pages, shots, name, lang):
    page.goto(pages[(name, lang)].as_uri())
    assert page.locator("html").get_attribute("lang") == lang
    shot = shots / f"{name}-{lang}.png"
    page.screenshot(path=str(shot), full_page=True)
    print(f"screenshot: {shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000
    if lang == "zh-CN":
        report = glyph_report(page)
        assert len(report["chars"]) >= 4, report  # the heading is in Chinese
        assert not report["tofu_like"], f"drawn as boxes (no CJK font?): {report}"
        assert report["distinct"] == len(report["chars"]), report


def test_the_probe_sees_tofu_without_a_cjk_font(browser, tmp_path, pages):
    """The same probe in a Chromium whose fontconfig knows no CJK font: every character is the box."""
    exe = os.environ.get("TRAINLEDGER_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    latin = [d for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
             if os.path.isdir(d)]
    if not exe or not latin:
        pytest.skip("needs Chromium and a Latin-only font directory")
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd"><fontconfig>'
                    + "".join(f"<dir>{d}</dir>" for d in latin)
                    + f"<cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>", encoding="utf-8")
    b = browser.browser_type.launch(executable_path=exe, headless=True, args=ARGS,
                                    env={**os.environ, "FONTCONFIG_FILE": str(conf)})
    try:
        pg = b.new_page()
        pg.goto(pages[("sheet", "zh-CN")].as_uri())
        report = glyph_report(pg)
    finally:
        b.close()
    assert report["chars"] and report["tofu_like"] == list(report["chars"])
