"""report/provisional.py on the reviewer's workspace 2 (tests/data/rv3): a Huawei bill imported on
2026-12-01, before its month is final (12-04 10:00 +08:00), is flagged provisional row by row; the
batch sheet says so under its totals and in its assumptions drawer, in every format and language,
counted over the bill rows the batch's own cost lines come from (review 3, G7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli

DATA = Path(__file__).resolve().parent / "data" / "rv3"


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def make(root: Path, day: str) -> Path:
    from trainledger.service import Workspace

    run("init", root, "--currency", "CNY")
    toml = root / "trainledger.toml"
    text = toml.read_text() + (DATA / "ws2.toml.part").read_text()
    toml.write_text(text.replace('timezone = "UTC"', 'timezone = "Asia/Shanghai"')
                    .replace('price_book = ""', 'price_book = "prices.toml"')
                    .replace('gpu_item = ""', 'gpu_item = "gpu_hour:a100-80gb"'))
    shutil.copy(DATA / "ws2-prices.toml", root / "prices.toml")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [DATA / "sacct-hw.txt"])
        wsp.import_files("huawei", [DATA / "huawei-bill.csv"], options={"import_date": day})
    run("--workspace", root, "attribute")
    return root


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    return make(tmp_path_factory.mktemp("prov") / "ws2", "2026-12-01")


def bill_rows_of(ws, batch):
    from trainledger.service import Workspace

    with Workspace.open(ws) as wsp:
        return {ln.provenance.row for ln in wsp.ledger.cost_lines(batch) if ln.provenance.source_kind == "focus"}


def test_the_sheet_counts_the_provisional_rows_its_lines_come_from(ws):
    sheet = json.loads(run("--workspace", ws, "sheet", "llm-x", "--format", "json"))
    notes = {n["caveat"]: n for n in sheet["bill_notes"]}
    rows = bill_rows_of(ws, "llm-x")
    assert notes["provisional"]["rows"] == len(rows) == 11  # of the bill's 15 rows, all of November
    assert notes["provisional"]["month"] == "2026-11" and notes["provisional"]["final"] == "2026-12-04T10:00:00+08:00"
    assert notes["provisional"]["text"].startswith("bill 2026-11: 11 row(s) provisional until 2026-12-04 10:00 +08:00"
                                                   " (Huawei Cloud, import ")
    assert "抹零" in notes["note"]["text_zh"] and "抹零金额" in notes["note"]["text"]  # the 8-decimal note
    assert 0 < notes["note"]["rows"] < 11  # only rows with more than 2 decimals carry it
    drawer = [a for a in sheet["assumptions"] if a["name"] in ("provisional bill", "bill evidence note")]
    assert [a["value"] for a in drawer] == [notes["provisional"]["text"], notes["note"]["text"]]
    y = json.loads(run("--workspace", ws, "sheet", "llm-y", "--format", "json"))
    assert {n["caveat"]: n["rows"] for n in y["bill_notes"]}["provisional"] == len(bill_rows_of(ws, "llm-y")) > 0


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_markdown_and_html_say_it_under_the_totals_in_both_languages(ws, fmt):
    en = run("--workspace", ws, "--lang", "en", "sheet", "llm-x", "--format", fmt)
    zh = run("--workspace", ws, "--lang", "zh-CN", "sheet", "llm-x", "--format", fmt)
    assert en.count("provisional until 2026-12-04 10:00 +08:00") == 2  # under the totals, in the drawer
    assert zh.count("行为暂估数据，2026-12-04 10:00 +08:00 后才出账（华为云") == 2 and "暂估账单" in zh
    assert en.index("provisional until") > en.index("1,564.30864195")  # after the billed total


def test_the_workbook_writes_the_note_beside_the_totals(ws, tmp_path):
    import openpyxl

    out = tmp_path / "x.xlsx"
    run("--workspace", ws, "sheet", "llm-x", "--format", "xlsx", "--out", out)
    cells = [str(c.value) for c in openpyxl.load_workbook(out)["Summary"]["A"] if c.value]
    assert any("11 row(s) provisional" in c and "暂估" in c for c in cells)


def test_a_bill_imported_once_its_month_is_final_is_not_provisional(tmp_path):
    ws = make(tmp_path / "ws2", "2026-12-05")
    sheet = json.loads(run("--workspace", ws, "sheet", "llm-x", "--format", "json"))
    assert [n["caveat"] for n in sheet["bill_notes"]] == ["note"]  # the 8-decimal note stays
    assert "provisional" not in run("--workspace", ws, "sheet", "llm-x", "--format", "md")


def test_the_flags_are_read_once_per_import_set_and_read_again_after_a_drop(ws, tmp_path, monkeypatch):
    from trainledger import imports
    from trainledger.report import provisional
    from trainledger.service import Workspace

    copy = tmp_path / "ws"
    shutil.copytree(ws, copy)
    reads = []
    real = imports.flagged_rows
    monkeypatch.setattr(imports, "flagged_rows", lambda *a, **k: reads.append(1) or real(*a, **k))
    with Workspace.open(copy) as wsp:
        lines = wsp.ledger.cost_lines("llm-x")
        rows = provisional.source_rows(lines)
        first = provisional.bill_notes(wsp, rows)
        assert first and reads == [1]
        assert provisional.bill_notes(wsp, rows) == first and reads == [1]  # kept: the lake did not change
        before = provisional.imports_digest(wsp.lake, imports.states(wsp.lake))
        (bill,) = [r for r in wsp.ledger.imports() if r.kind == "huawei"]
        wsp.drop_import(imports.short_id(bill.import_key), "superseded")
        assert provisional.imports_digest(wsp.lake, imports.states(wsp.lake)) != before
        assert provisional.bill_notes(wsp, rows) == []  # the dropped import's rows carry no caveat now
