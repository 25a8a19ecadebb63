"""K4: a FOCUS row of ChargeClass "Correction" restates an earlier billing period; it is no credit.

The rv2 workspace (tests/data/rv2: batch llm-a holds 49.3333 GPU-hours on h800-a1/a2, 2026-11-10) with
its November bill and, in December's bill, two corrections of November's charge periods (FOCUS: a
correction to a previously invoiced billing period keeps the period it corrects as its ChargePeriod):
-32.00 on h800-a1 01-02Z (job 9001 held all 8 GPUs) and a late +40.00 on h800-a2 01-02Z (job 9003 held
4 GPUs for the last half hour: 2 of the 8 GPU-hours). Before, the -32.00 was a credit (and a
"negative usage" problem) and the +40.00 was usage — 2 more GPU-hours on the batch. Now both are
money only, booked as ``prior_period_correction`` with their period; conservation is unchanged.
"""

from __future__ import annotations

import os
import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger.service import Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "rv2"
HEAD = ("BilledCost,EffectiveCost,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,"
        "ChargePeriodEnd,ChargeCategory,ChargeClass,ResourceId,ResourceName,ServiceCategory,ServiceName,"
        "ConsumedQuantity,ConsumedUnit,Tags")
NOV, DEC = "2026-11-01T00:00:00Z,2026-12-01T00:00:00Z", "2026-12-01T00:00:00Z,2027-01-01T00:00:00Z"
pytestmark = [pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")]
SPARK = pytest.mark.skipif(os.environ.get("TRAINLEDGER_TEST_SPARK") != "1" or shutil.which("java") is None,
                           reason="slow (a Spark session): set TRAINLEDGER_TEST_SPARK=1 (and Java)")


def _period(h: int) -> str:
    return f"2026-11-10T{h:02d}:00:00Z,2026-11-10T{h + 1:02d}:00:00Z"


def _bill(path: Path) -> Path:
    rows = [HEAD] + [f"320.00,320.00,CNY,{NOV},{_period(h)},Usage,,{n},{n},Compute,ECS,1,Hours,{{}}"
                     for n in ("h800-a1", "h800-a2") for h in range(1, 5)]
    rows += [f"-32.00,-32.00,CNY,{DEC},{_period(1)},Usage,Correction,h800-a1,h800-a1,Compute,ECS,1,Hours,{{}}",
             f"40.00,40.00,CNY,{DEC},{_period(1)},Usage,Correction,h800-a2,h800-a2,Compute,ECS,1,Hours,{{}}"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("k4")
    root = tmp / "ws"
    root.mkdir()
    shutil.copy(DATA / "trainledger.toml", root / "trainledger.toml")
    with Workspace.init(root, currency="CNY") as w:
        w.import_files("slurm", [DATA / "sacct.txt"], options={})
        w.import_files("focus", [_bill(tmp / "focus-corrections.csv")], options={})
    return root


def _rows(result) -> tuple[int, int]:
    rows = sorted({ln.provenance.row for ln in result.lines if ln.provenance.source_kind == "focus"})
    return rows[-2], rows[-1]  # the two corrections: the bill's last rows


ON_SPARK = (SPARK, pytest.mark.spark, pytest.mark.filterwarnings("ignore::DeprecationWarning"),
            pytest.mark.filterwarnings("ignore::FutureWarning"), pytest.mark.filterwarnings("ignore::ResourceWarning"))


@pytest.mark.parametrize("engine", ["python", "duckdb", pytest.param("spark", marks=ON_SPARK)])
def test_a_correction_restates_its_period_and_is_no_credit(root, engine):
    with Workspace.open(root) as w:
        result = w.attribute(engine=engine)
    a1, a2 = _rows(result)
    minus = [ln for ln in result.lines if ln.provenance.row == a1]
    late = [ln for ln in result.lines if ln.provenance.row == a2]
    every = minus + late
    assert every and all(ln.quantity is None for ln in every)  # money only: November's hours are counted
    assert {ln.detail for ln in every} == {"prior_period_correction"}
    assert not [ln for ln in result.lines if ln.detail == "credit" or str(ln.reason).startswith("credit")]
    assert not [p for p in result.problems if p.kind == "negative_usage"]
    # by hand: -32.00 all to 9001 (llm-a); +40.00 × 2/8 = 10.00 to 9003 (llm-a), 30.00 no job held —
    # its own line, the corrected period named, never netted into capacity unheld
    assert [(ln.run_id, ln.batch_id, ln.amount.expected) for ln in minus] == [("9001", "llm-a", Decimal("-32.00"))]
    held = [ln for ln in late if ln.batch_id]
    assert [(ln.run_id, ln.amount.expected) for ln in held] == [("9003", Decimal("10.00"))]
    (rest,) = [ln for ln in late if not ln.batch_id]
    assert (rest.reason, rest.amount.expected) == ("prior_period_correction: node h800-a2 2026-11-10", Decimal("30.00"))
    hours = sum((ln.quantity for ln in result.lines if ln.batch_id == "llm-a" and ln.unit == "gpu_hour"
                 and ln.basis.value == "billed"), Decimal(0))
    assert hours.quantize(Decimal("0.0001")) == Decimal("49.3333")  # the runs', by hand
    (cny,) = [c for c in result.conservation if c["currency"] == "CNY"]
    assert Decimal(cny["billed_total"]) == Decimal("2568.00") and cny["difference"] == "0.00"  # 8 × 320 − 32 + 40
    assert Decimal(cny["attributed"]) + Decimal(cny["unattributed"]) == Decimal("2568.00")
    assert sum(ln.amount.expected for ln in result.lines if ln.basis.value in ("billed", "capacity_unheld")) \
        == Decimal("2568.00")
    by_reason = {(r["reason"], r["detail"]): r["amount"] for r in cny["unattributed_by_reason"]}
    assert by_reason[("prior_period_correction", "node h800-a2 2026-11-10")] == "30.00"
    assert not [k for k in by_reason if k[0] == "credit"]


def test_the_sheet_shows_the_correction_as_such(root):
    from click.testing import CliRunner

    from trainledger.cli import cli

    with Workspace.open(root) as w:
        w.attribute()
        s = w.sheet("llm-a")
    (row,) = [r for r in s["compute_by_state"] if r["state"] == "prior_period_correction"]
    assert row["gpu_hours"] is None and row["price_per_gpu_hour"] is None
    assert [a["expected"] for a in row["amounts"]] == ["-22.00"]  # -32.00 + 10.00
    assert Decimal(s["compute_hours"]["runs_gpu_hours"]) == Decimal("49.3333")
    en = CliRunner().invoke(cli, ["--workspace", str(root), "sheet", "llm-a"]).output
    zh = CliRunner().invoke(cli, ["--workspace", str(root), "sheet", "llm-a", "--lang", "zh-CN"]).output
    assert "| prior period correction |" in en and "credit" not in en.split("## ")[3]
    assert "| 前期账单更正 |" in zh and "节点 h800-a2 2026-11-10" in zh
