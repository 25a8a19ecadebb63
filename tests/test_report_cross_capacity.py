"""The cross-batch report shows owned and reserved capacity nobody used (review 5 J6).

On the owned-cluster demo, ``attribute`` records per capacity: total = attributed + no job held +
held by jobs without a batch. The monthly report left all of it out (its unattributed trend was the
bills' cash only). Now each part is an unattributed row on its own basis — never summed with cash
or with the other capacity's basis — and each capacity has a control row, in md, json and xlsx.
The expected figures are read from the attribution's own record, and the rows must add up to it.
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli


def run_cli(*args) -> str:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    root = tmp_path_factory.mktemp("cross-owned") / "ws"
    run_cli("demo", "--scenario", "owned", "--dir", root)
    summary = json.loads(run_cli("--workspace", root, "attribute", "--json"))
    report = json.loads(run_cli("--workspace", root, "report", "--format", "json"))
    return root, summary, report


def _records(summary):
    """The capacity records of ``attribute --json`` (beside the per-currency bill records)."""
    recs = [r for r in summary if isinstance(r, dict) and "capacity" in r]
    assert len(recs) == 2, summary
    return recs


def test_each_capacitys_unheld_and_unbatched_money_is_an_unattributed_row_on_its_basis(owned):
    _root, summary, report = owned
    for rec in _records(summary):
        rows = [u for u in report["unattributed"] if u["basis"] == rec["basis"] and u["currency"] == rec["currency"]]
        by_reason: dict[str, Decimal] = {}
        for u in rows:
            by_reason[u["reason"]] = by_reason.get(u["reason"], Decimal(0)) + Decimal(u["amount"])
        assert by_reason["capacity_unheld"] == Decimal(rec["unheld"])
        assert by_reason.get("job_without_batch", Decimal(0)) == Decimal(rec["job_without_batch"])
    assert {u["basis"] for u in report["unattributed"]} >= {"billed", "amortized", "rate_card"}
    cash = sum(Decimal(u["amount"]) for u in report["unattributed"]
               if u["basis"] == "billed" and u["currency"] == "CNY")
    (ctl,) = [c for c in report["control"] if c["currency"] == "CNY"]
    assert cash == Decimal(ctl["unattributed"])  # the cash rows alone are the bill's control, as before


def test_each_capacity_has_a_control_row_that_conserves(owned):
    _root, summary, report = owned
    got = {c["capacity"]: c for c in report["capacity_control"]}
    for rec in _records(summary):
        c = got[rec["capacity"]]
        assert (c["basis"], c["currency"]) == (rec["basis"], rec["currency"])
        parts = [Decimal(c[k]) for k in ("attributed", "unheld", "job_without_batch", "held_not_imported")]
        assert Decimal(c["total"]) == Decimal(rec["total"]) == sum(parts)
        assert Decimal(c["difference"]) == 0


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_the_markdown_report_names_the_capacity_rows(owned, lang):
    root, summary, _ = owned
    md = run_cli("--workspace", root, "report", "--format", "md", "--lang", lang)
    for rec in _records(summary):
        assert f"| {rec['capacity']} |" in md
    assert ("no job held" if lang == "en" else "无作业占用") in md


def test_the_workbook_control_sheet_checks_each_capacity_with_a_formula(owned, tmp_path):
    from openpyxl import load_workbook

    root, summary, _ = owned
    out = tmp_path / "report.xlsx"
    run_cli("--workspace", root, "report", "--format", "xlsx", "--out", out)
    ws = load_workbook(out)["Control"]
    rows = {r[0].value: r for r in ws.iter_rows() if r[0].value in {x["capacity"] for x in _records(summary)}}
    assert set(rows) == {x["capacity"] for x in _records(summary)}
    for rec in _records(summary):
        cells = rows[rec["capacity"]]
        assert str(cells[8].value).startswith("=ROUND(")
        assert abs(float(cells[3].value) - float(rec["total"])) < 1e-6


def test_the_focus_allocation_export_says_what_capacity_it_leaves_out(owned):
    """Review 6 K15: an owned workspace's export wrote its bill rows and said nothing of the capacity's
    money, which no FOCUS allocation carries: it now names each basis's total, = the capacity records'."""
    root, summary, _report = owned
    r = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "en", "export", "focus-allocation"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    (said,) = [ln for ln in r.output.splitlines() if ln.startswith("not in the export:")]
    for rec in _records(summary):
        label = {"amortized": "amortized", "rate_card": "rate card"}[rec["basis"]]
        assert f"{Decimal(rec['total']):,f} {rec['currency']} {label}" in said, (rec, said)
