"""Review 5 J12: one basis name had two meanings. A cloud bill's EffectiveCost view and owned
hardware's depreciation were both ``amortized``, and the cross report summed them.

The workspace: the owned Ascend cluster of test_ascend_capacity_ws (asc-own, amortised 7.3172 CNY per
card-hour, 268 card-hours held by batch b1 → 1,961.0096) plus one FOCUS CNY row tagged b1 with
BilledCost 100.00 and EffectiveCost 90.00. By hand: billed 100.00 (cash), effective_cost 90.00 (the
bill's second view of those 100.00), amortized 1,961.0096 (the hardware). Before the fix the report's
spend and totals said "amortized 2,051.0096" (= 90.00 + 1,961.0096).
"""

from __future__ import annotations

import json
import textwrap
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .engine.factories import CONFIG
from .test_ascend_capacity_ws import CAPACITY, SACCT

FOCUS = ("BilledCost,EffectiveCost,ListCost,ContractedCost,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,"
         "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ResourceId,ResourceName,"
         "ServiceCategory,ServiceName,ServiceProviderName,HostProviderName,Tags\n"
         "100.00,90.00,120.00,100.00,CNY,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-10T00:00:00Z,"
         '2026-11-11T00:00:00Z,Usage,,GPU VM,vm-1,vm-1,Compute,VMs,NeoCloud,NeoCloud,"{""batch"":""b1""}"\n')


def _cli(*args) -> str:
    r = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    return r.output


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("j12")
    root = tmp / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(CAPACITY), encoding="utf-8")
    (tmp / "sacct.txt").write_text(SACCT, encoding="utf-8")
    (tmp / "focus.csv").write_text(FOCUS, encoding="utf-8")
    with Workspace.init(root) as wsp:
        wsp.import_files("slurm", [tmp / "sacct.txt"], options={"tz": "Asia/Shanghai"})
        wsp.import_files("focus", [tmp / "focus.csv"], options={})
    summary = json.loads(_cli("--workspace", root, "attribute", "--json"))
    return root, summary


def _by_basis(rows) -> dict[str, str]:
    out = {}
    for r in rows:
        assert r["basis"] not in out, rows  # one row per basis and currency (one currency here)
        out[r["basis"]] = r["expected"]
    return out


def test_the_bill_view_and_the_hardware_are_two_bases_that_each_conserve(ws):
    root, summary = ws
    with Workspace.open(root) as wsp:
        lines = wsp.ledger.cost_lines()
    eff = [ln for ln in lines if ln.basis == "effective_cost"]
    amort = [ln for ln in lines if ln.basis == "amortized"]
    assert [(ln.provenance.source_kind, ln.batch_id, ln.amount.expected) for ln in eff] == [
        ("focus", "b1", Decimal("90.00"))]
    # only owned hardware is amortized: a capacity's rows no job held (config) and the job rows it priced (capacity)
    assert {ln.provenance.source_kind for ln in amort} <= {"config", "capacity"} and amort
    assert sum(ln.amount.expected for ln in amort if ln.batch_id == "b1") == Decimal("1961.0096")
    # money conserves exactly in each view, never across them
    (billed,) = [r for r in summary if r.get("currency") == "CNY" and "capacity" not in r]
    assert (billed["billed_total"], billed["attributed"], billed["difference"]) == ("100.00", "100.00", "0.00")
    (cap,) = [r for r in summary if r.get("capacity")]
    assert (cap["basis"], cap["total"], cap["attributed"], cap["unheld"]) == (
        "amortized", "5619.6096", "1961.0096", "3658.6000")


def test_the_sheet_keeps_three_totals(ws):
    root, _ = ws
    sheet = json.loads(_cli("--workspace", root, "sheet", "b1", "--format", "json"))
    assert _by_basis(sheet["totals_by_basis"]) == {"billed": "100.00", "effective_cost": "90.00",
                                                   "amortized": "1961.01"}


def test_the_cross_report_never_sums_the_bill_view_with_the_hardware(ws):
    root, _ = ws
    report = json.loads(_cli("--workspace", root, "report", "--format", "json"))
    assert _by_basis(report["spend"]) == {"billed": "100.00", "effective_cost": "90.00", "amortized": "1961.0096"}
    assert _by_basis(report["totals"]) == {"billed": "100.00", "effective_cost": "90.00", "amortized": "1961.01"}
    (batch,) = report["batches"]
    assert _by_basis(batch["totals"]) == {"billed": "100.00", "effective_cost": "90.00", "amortized": "1961.01"}
    assert "2051" not in json.dumps(report)  # 90.00 + 1,961.0096: the old false sum, nowhere
    # the unattributed trend: owned capacity no job held, on its basis; the bill view has none here
    assert {u["basis"] for u in report["unattributed"]} == {"amortized"}


@pytest.mark.parametrize(("lang", "bill_view", "hardware"), [("en", "effective cost", "amortized"),
                                                              ("zh-CN", "账单有效成本", "摊销")])
def test_each_basis_has_its_own_label(ws, lang, bill_view, hardware):
    root, _ = ws
    md = _cli("--workspace", root, "report", "--format", "md", "--lang", lang)
    assert f"| {bill_view} | CNY | 90.00 |" in md
    assert f"| {hardware} | CNY | 1,961.01 |" in md
    sheet = _cli("--workspace", root, "sheet", "b1", "--format", "md", "--lang", lang)
    assert f"| {bill_view} |" in sheet and f"| {hardware} |" in sheet


def test_the_workbook_keeps_them_apart(ws, tmp_path):
    from openpyxl import load_workbook

    root, _ = ws
    out = tmp_path / "report.xlsx"
    _cli("--workspace", root, "report", "--format", "xlsx", "--out", out)
    cells = [str(c.value) for sheet in load_workbook(out) for row in sheet.iter_rows() for c in row
             if c.value is not None]
    assert "effective_cost" in cells and "amortized" in cells  # the workbook's SUMIFS key on the code
    assert not any("2051.01" in c or "2,051.01" in c for c in cells)
    summary = {r[0].value: r[2].value for r in load_workbook(out)["Summary"].iter_rows(min_row=2) if r[0].value}
    assert (summary["effective_cost"], summary["amortized"]) == (90, 1961.01)
