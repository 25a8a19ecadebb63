"""Renderers keep data inert: a vendor name or a path cannot break a table or add a heading."""

import json

from trainledger.report.render import to_html, to_json, to_markdown


def _sheet(evil: str) -> dict:
    money = [{"low": "1.00", "expected": "1.00", "high": "1.00", "currency": "CNY"}]
    return {
        "batch": {"id": "b1", "name": evil, "project": "p1", "team": "t"},
        "key": {"goal": evil, "batch_id": "b1"},
        "totals_by_basis": [{"basis": "billed", "evidence": "contract", "cash": True, "low": "1.00",
                             "expected": "1.00", "high": "1.00", "currency": "CNY", "lines": 1}],
        "compute_by_state": [], "runs": [],
        "storage_by_class": [{"storage_class": "cache", "basis": "estimate", "objects": 1, "bytes": 1024,
                              "gib_months": "0",
                              "cost": money, "findings": [{"path": evil, "flags": ["no_owner"]}]}],
        "labor_by_phase": [], "external": [{"vendor": evil, "stage": "delivery", "expected": "1.00",
                                            "currency": "CNY", "evidence": "contract"}],
        "assumptions": [{"name": evil, "evidence": "assumed", "source": evil, "value": "1", "owner": "x"}],
        "conservation": {"by_currency": [], "rounding": "r"},
        "problems": [{"kind": "k", "message": evil}],
    }


EVIL = "acme | inc\r\n# INJECTED\n<script>alert(1)</script> `code`"


def test_markdown_keeps_data_on_its_line():
    md = to_markdown(_sheet(EVIL), "en")
    assert "\n# INJECTED" not in md and "\r" not in md
    assert "<script>" not in md
    table_rows = [line for line in md.splitlines() if line.startswith("| acme")]
    assert table_rows and all(line.count(" | ") == line.replace("\\|", "").count(" | ") for line in table_rows)
    ext = md.split("## External services")[1].splitlines()[4]
    assert ext.count("|") - ext.count("\\|") == 5  # 4 columns: the '|' in the name is escaped


def test_html_escapes_data():
    html = to_html(_sheet(EVIL), "en")
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;" in html
    assert json.loads(to_json(_sheet(EVIL)))["external"][0]["vendor"] == EVIL  # JSON carries the text as it is


def test_an_unattributed_sheet_says_to_run_attribute_not_that_there_is_no_bill():
    """Before any `attribute` the conservation table is empty although bills may be imported (H12)."""
    before = {**_sheet("x"), "attribution_id": None}
    after = {**_sheet("x"), "attribution_id": 3}  # attributed, and still no bill and no capacity
    assert "run `trainledger attribute`" in to_markdown(before, "en")
    assert "nothing to conserve" not in to_markdown(before, "en")
    assert "运行 `trainledger attribute`" in to_markdown(before, "zh-CN")
    assert "nothing to conserve" in to_markdown(after, "en")
    assert "trainledger attribute" not in to_markdown(after, "en")
