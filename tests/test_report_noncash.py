"""Labor no rule attributes is on every page (review 7 L3): the demo's run-phase timesheet rows without a
batch (12.5 h, 3,605.00 CNY expected) in ``attribute`` (json and text), both batch sheets (json, md,
html, xlsx) and the cross-batch report (json, md, xlsx), with the labor-hours control
timesheet = batches + shared pools + unattributed. The expected figures are read from the demo's
timesheet CSV here, not from the engine."""

from __future__ import annotations

import csv
import json
from decimal import Decimal
from fractions import Fraction

import openpyxl
import pytest
from click.testing import CliRunner

from tests.xlsx_eval import Evaluator
from trainledger.cli import cli

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")


def run(root, *args) -> str:
    out = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "en", *args], catch_exceptions=False)
    assert out.exit_code == 0, out.output
    return out.output


@pytest.fixture(scope="module")
def timesheet(demo_pristine):
    """Hours of the demo's timesheet: all, per batch, and the rows naming no batch by phase."""
    with open(demo_pristine / "data" / "timesheet.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    hours = lambda keep: sum((Decimal(r["hours"]) for r in rows if keep(r)), Decimal(0))  # noqa: E731
    return {"all": hours(lambda r: True), "a": hours(lambda r: r["batch"] == BATCHES[0]),
            "b": hours(lambda r: r["batch"] == BATCHES[1]),
            "build": hours(lambda r: not r["batch"] and r["phase"] == "build"),
            "nowhere": hours(lambda r: not r["batch"] and r["phase"] != "build"),
            "nowhere_rows": sum(1 for r in rows if not r["batch"] and r["phase"] != "build")}


def test_the_demo_figures(timesheet):
    assert timesheet["all"] == Decimal("192.5") == timesheet["a"] + timesheet["b"] + timesheet["build"] + \
        timesheet["nowhere"]
    assert (timesheet["a"], timesheet["b"], timesheet["build"], timesheet["nowhere"]) == (50, Decimal("93.5"),
                                                                                          Decimal("36.5"),
                                                                                          Decimal("12.5"))


def _internal(records):
    (rec,) = [r for r in records if r["basis"] == "internal"]
    return rec


def test_attribute_json_and_text(demo_pristine, timesheet):
    records = json.loads(run(demo_pristine, "attribute", "--json"))
    cny = next(r for r in records if r.get("currency") == "CNY" and "capacity" not in r)
    assert list(cny)[:6] == ["currency", "billed_total", "attributed", "unattributed", "difference",
                             "unattributed_by_reason"]  # the existing keys kept, in order
    rec = _internal(cny["unattributed_noncash"])
    assert Decimal(rec["quantity"]) == timesheet["nowhere"] and rec["lines"] == timesheet["nowhere_rows"]
    assert rec["expected"] == "3605.00" and (rec["low"], rec["high"]) == ("2980.00", "4390.00")
    assert sum(Decimal(x["expected"]) for x in rec["unattributed_by_reason"]) == Decimal("3605.00")
    assert sum(x["lines"] for x in rec["unattributed_by_reason"]) == 6
    assert [(p["policy"], Decimal(p["quantity"])) for p in rec["pooled"]] == [("build-phase-labor", timesheet["build"])]
    ctl = cny["labor_hours"]
    assert [Decimal(ctl[k]) for k in ("timesheet_hours", "batches_hours", "pooled_hours", "unattributed_hours",
                                      "difference")] == [timesheet["all"], timesheet["a"] + timesheet["b"],
                                                         timesheet["build"], timesheet["nowhere"], 0]
    assert {b["batch"]: Decimal(b["hours"]) for b in ctl["by_batch"]} == {BATCHES[0]: timesheet["a"],
                                                                          BATCHES[1]: timesheet["b"]}
    text = run(demo_pristine, "attribute")
    assert "internal: 12.50 h, 3,605.00 (2,980.00–4,390.00) CNY (6 lines)" in text
    assert "(1 line)" in text and "(1 lines)" not in text and "gib month" not in text  # words, not codes
    assert "timesheet 192.50 h (64 rows) = batches 143.50 + shared pools 36.50 + unattributed 12.50" in text


@pytest.mark.parametrize("batch", BATCHES)
def test_both_batch_sheets_show_the_bucket_and_the_control(demo_pristine, timesheet, batch):
    sheet = json.loads(run(demo_pristine, "sheet", batch, "--format", "json"))
    c = sheet["conservation"]
    rec = _internal(c["noncash"])
    assert Decimal(rec["quantity"]) == timesheet["nowhere"] and rec["expected"] == "3605.00"
    (ctl,) = c["labor_hours"]
    assert Decimal(ctl["unattributed_hours"]) == timesheet["nowhere"] and Decimal(ctl["difference"]) == 0
    md = run(demo_pristine, "sheet", batch, "--format", "md")
    assert "| internal | unattributed \\(total\\) |  | 6 | 12.50 hour | 3,605.00 \\(2,980.00–4,390.00\\) | CNY |" in md
    assert "CNY: timesheet 192.50 h (64 rows) = batches 143.50 + shared pools 36.50 + unattributed 12.50" in md
    html = run(demo_pristine, "sheet", batch, "--format", "html", "--lang", "zh-CN")
    assert 'id="unattributed-noncash"' in html and "3,605.00" in html and 'id="labor-hours-control"' in html


def _rank(rows: list[list[Fraction]]) -> int:
    m, rank = [r[:] for r in rows], 0
    for c in range(len(m[0]) if m else 0):
        p = next((i for i in range(rank, len(m)) if m[i][c]), None)
        if p is None:
            continue
        m[rank], m[p] = m[p], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][c]:
                f = m[i][c] / m[rank][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[rank], strict=True)]
        rank += 1
    return rank


def test_an_engineer_sees_the_hours_and_no_unattributed_labor_money(demo_pristine):
    """The unattributed labor's total sums three roles, the build pool's four: beside the batches' phase
    costs (shown to an engineer) the two give every rate back — rank 6 over the demo's 6 roles, checked
    here from the timesheet — so an engineer reads their hours, never their money (report/noncash.py)."""
    with open(demo_pristine / "data" / "timesheet.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    roles = sorted({r["role"] for r in rows})

    def form(keep) -> list[Fraction]:
        return [sum((Fraction(r["hours"]) for r in rows if keep(r) and r["role"] == role), Fraction(0))
                for role in roles]
    phases = [form(lambda r, b=b, ph=ph: r["batch"] == b and r["phase"] == ph)
              for b in BATCHES for ph in ("run", "rework")]
    extra = [form(lambda r: not r["batch"] and r["phase"] != "build"), form(lambda r: r["phase"] == "build")]
    assert _rank(phases) == 4 and _rank(phases + extra) == len(roles) == 6  # with them, every rate solved

    sheet = json.loads(run(demo_pristine, "sheet", BATCHES[0], "--format", "json", "--role", "engineer"))
    rec = _internal(sheet["conservation"]["noncash"])
    assert {x["expected"] for x in rec["unattributed_by_reason"]} == {"restricted"}
    assert [x["quantity"] for x in rec["unattributed_by_reason"]] == ["5.0000", "4.5000", "3.0000"]
    assert rec["expected"] == "restricted" and {p["expected"] for p in rec["pooled"]} == {"restricted"}
    assert "3605.00" not in json.dumps(sheet) and "3,605.00" not in run(
        demo_pristine, "sheet", BATCHES[0], "--format", "md", "--role", "engineer")
    report = run(demo_pristine, "report", "--format", "json", "--role", "engineer")
    assert "3605.00" not in report and "12.5" in report
    admin = json.loads(run(demo_pristine, "sheet", BATCHES[0], "--format", "json"))
    assert _internal(admin["conservation"]["noncash"])["expected"] == "3605.00"
    assert "1550.00" in {x["expected"] for x in _internal(admin["conservation"]["noncash"])["unattributed_by_reason"]}
    fin = json.loads(run(demo_pristine, "report", "--format", "json", "--role", "finance"))["unattributed_noncash"]
    assert [Decimal(c["expected"]) for c in fin if c["basis"] == "internal" and not c["pool"]] == [Decimal("3605")]
    eng = json.loads(report)["unattributed_noncash"]
    assert {c["expected"] for c in eng if c["basis"] == "internal"} == {"restricted"}


def test_the_workbook_control_checks_the_labor_hours(demo_pristine, tmp_path):
    out = tmp_path / "a.xlsx"
    run(demo_pristine, "sheet", BATCHES[0], "--format", "xlsx", "--out", str(out))
    wb = openpyxl.load_workbook(out)
    ws = wb["Control"]
    head = next(c.row for c in ws["A"] if str(c.value or "").startswith("Labor hours control"))
    row = head + 3
    check = f"F{row}"
    assert ws[check].value.startswith("=ROUND(B") and Evaluator(wb).value("Control", check) == 0
    assert Evaluator(wb).value("Control", f"E{row}") == Decimal("12.5")  # the internal bucket's hours, by reference
    cached = openpyxl.load_workbook(out, data_only=True)["Control"]
    assert cached[check].value == 0 and Decimal(repr(cached[f"E{row}"].value)) == Decimal("12.5")
    # one reason row of the internal bucket dropped: its total moves, and so does the labor check
    total = ws[ws[f"E{row}"].value[1:]]
    a, z = total.value[5:-1].split(":")
    dropped = Evaluator(wb, {("Control", a): Decimal(0)})
    assert dropped.value("Control", check) == Decimal(repr(ws[a].value)) != 0
    # a batch's hours edited: the check says by how much
    first_batch = f"C{row + 2}"
    moved = Evaluator(wb, {("Control", first_batch): Decimal(repr(ws[first_batch].value)) + 1})
    assert moved.value("Control", check) == Decimal(-1)


def test_the_cross_report_json_md_and_workbook(demo_pristine, timesheet, tmp_path):
    r = json.loads(run(demo_pristine, "report", "--format", "json"))
    cells = [c for c in r["unattributed_noncash"] if c["basis"] == "internal"]
    nowhere = [c for c in cells if c["pool"] is None]
    assert sum(Decimal(c["quantity"]) for c in nowhere) == timesheet["nowhere"]
    assert sum(Decimal(c["expected"]) for c in nowhere) == Decimal("3605.00")
    assert [(c["pool"], Decimal(c["quantity"])) for c in cells if c["pool"]] == [("build-phase-labor",
                                                                                  timesheet["build"])]
    (ctl,) = r["labor_control"]
    assert Decimal(ctl["unattributed_hours"]) == Decimal(ctl["unattributed_lines"]) == timesheet["nowhere"]
    assert Decimal(ctl["timesheet_hours"]) == timesheet["all"] and Decimal(ctl["difference"]) == 0
    md = run(demo_pristine, "report", "--format", "md")
    assert "| 2026-11 | shared work | — | internal | CNY | 12.50 hour | 3,605.00 \\(2,980.00–4,390.00\\) | 6 |" in md
    out = tmp_path / "r.xlsx"
    run(demo_pristine, "report", "--format", "xlsx", "--out", str(out))
    wb = openpyxl.load_workbook(out)
    ws = wb["Control"]
    head = next(c.row for c in ws["A"] if str(c.value or "").startswith("Control: timesheet hours"))
    row = head + 2
    assert Evaluator(wb).value("Control", f"F{row}") == 0 and Evaluator(wb).value("Control", f"E{row}") == 12.5
    noncash = wb["Noncash"]
    at = next(c.row for c in noncash["D"] if c.value == "internal" and noncash[f"C{c.row}"].value == "—")
    dropped = Evaluator(wb, {("Noncash", f"G{at}"): Decimal(0)})  # the unattributed row gone
    assert dropped.value("Control", f"F{row}") == Decimal("12.5")
