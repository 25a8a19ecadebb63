"""Rounds used against a plan without a maximum (review 6 K9): "6 (no maximum set)", never "6 of None",
on status (CLI, page) and on the sheet's plan section (md, html), in both languages."""

from __future__ import annotations

import json

import pytest

from trainledger.demo.scenario import BATCH_A
from trainledger.report.render import render
from trainledger.review.texts import rounds_text


def test_rounds_text_with_and_without_a_maximum():
    assert rounds_text({"used": 6, "max": 10}) == "6 of 10"
    assert rounds_text({"used": 6, "max": 10}, "zh-CN") == "6 / 10"
    assert rounds_text({"used": 6, "max": None}) == "6 (no maximum set)"
    assert rounds_text({"used": 6, "max": None}, "zh-CN") == "6（未设上限）"


@pytest.mark.parametrize("fmt", ["md", "html"])
@pytest.mark.parametrize(("lang", "said"), [("en", "13 (no maximum set)"), ("zh-CN", "13（未设上限）")])
def test_the_sheets_plan_section_says_no_maximum(demo_pristine, fmt, lang, said):
    sheet = json.loads((demo_pristine / "reports" / f"{BATCH_A}.json").read_text(encoding="utf-8"))
    assert sheet["plan_vs_actual"]["rounds"] == {"used": 13, "max": 16}
    sheet["plan_vs_actual"]["rounds"]["max"] = None
    out = render(sheet, fmt, lang)
    assert said in out and "None" not in out
