"""K7: on the compute state table every held GPU-hour is in one row, so the table adds up to the runs.

The rv2 workspace (tests/data/rv2: 49.3333 GPU-hours of batch llm-a on two H800 nodes) with a FOCUS bill
whose first two hours of h800-a1 a reservation covers (BilledCost 0.00, EffectiveCost 256.00 per hour):
job 9001's 8 GPUs × 2 h = 16 GPU-hours have no cash line, only the bill's EffectiveCost view. Before,
they were counted twice — in the EffectiveCost row and again as "not valued" — and the EffectiveCost row
repeated the cash rows' 33.3333 GPU-hours: 98.6667 GPU-hours on a table of 49.3333.
"""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import balance
from trainledger.service import Workspace

DATA = Path(__file__).resolve().parent / "data" / "rv2"
HEAD = ("BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeClass,"
        "ResourceId,ResourceName,ServiceCategory,ServiceName,ConsumedQuantity,ConsumedUnit,CommitmentDiscountId,"
        "CommitmentDiscountStatus,CommitmentDiscountType,Tags")
pytestmark = [pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")]


def _bill(path: Path) -> Path:
    rows = [HEAD]
    for node in ("h800-a1", "h800-a2"):
        for h in range(1, 5):
            period = f"2026-11-10T{h:02d}:00:00Z,2026-11-10T{h + 1:02d}:00:00Z"
            if node == "h800-a1" and h < 3:  # covered by a reservation paid up front
                rows.append(f"0.00,256.00,CNY,{period},Usage,,{node},{node},Compute,ECS,1,Hours,ri-1,Used,Reservation,{{}}")
            else:
                rows.append(f"320.00,320.00,CNY,{period},Usage,,{node},{node},Compute,ECS,1,Hours,,,,{{}}")
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def covered(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("k7")
    root = tmp / "ws"
    root.mkdir()
    shutil.copy(DATA / "trainledger.toml", root / "trainledger.toml")
    with Workspace.init(root, currency="CNY") as w:
        w.import_files("slurm", [DATA / "sacct.txt"], options={})
        w.import_files("focus", [_bill(tmp / "focus-covered.csv")], options={})
    with Workspace.open(root) as w:
        w.attribute()
        return root, w.sheet("llm-a")


def test_the_state_tables_hours_add_up_to_the_runs_gpu_hours(covered):
    _, s = covered
    rows = s["compute_by_state"]
    held = [r for r in rows if r["basis"] != "queued"]  # queued time holds no GPU
    assert sum(Decimal(r["gpu_hours"]) for r in held if r["gpu_hours"]) == Decimal("49.3333")
    assert s["compute_hours"] == {"runs_gpu_hours": "49.3333", "valued_gpu_hours": "49.3333",
                                  "not_valued_gpu_hours": "0.0000", "difference": "0.0000",
                                  # waiting, apart from the held hours: no gpu_item here, so none valued (R8-3)
                                  "queued_gpu_hours": "4.6667", "queued_valued_gpu_hours": "0.0000",
                                  "queued_not_valued_gpu_hours": "4.6667"}
    assert not [r for r in rows if r["basis"] == "not_valued"]  # a covered hour is valued by its commitment
    by = {(r["basis"], bool(r.get("covered"))): r for r in held}
    # by hand: cash 9001's a1 hours 03-05 are nobody's (it ended at 03:00Z); 9002 16 GPUs × 1 h 50 min
    # = 29.3333, 9003 4 GPUs × 1 h = 4: 33.3333 GPU-h for 1,333.34 CNY at 40.00 (320.00 / 8 GPUs)
    cash = by[("billed", False)]
    assert (cash["gpu_hours"], cash["amounts"][0]["expected"], cash["price_per_gpu_hour"]["amount"].value) == (
        "33.3333", "1333.34", "40.0000")
    # the commitment's 16 GPU-hours: 2 × 256.00 = 512.00 of EffectiveCost, 32.00 per GPU-hour
    cov = by[("effective_cost", True)]
    assert (cov["gpu_hours"], cov["amounts"][0]["expected"], cov["price_per_gpu_hour"]["amount"].value) == (
        "16.0000", "512.00", "32.0000")
    view = by[("effective_cost", False)]  # the second view of the cash rows: their price, not their hours again
    assert view["gpu_hours"] is None and view["view_gpu_hours"] == "33.3333"
    assert view["amounts"][0]["expected"] == "1333.34"


def test_the_balance_of_a_basis_keeps_the_views_hours(covered):
    _, s = covered
    left = balance.consumption(s)["compute"]
    hours = {r["basis"]: r["gpu_hours"] for r in left}
    assert Decimal(hours["billed"]) == Decimal("33.3333")
    assert Decimal(hours["effective_cost"]) == Decimal("49.3333")  # the whole EffectiveCost view: 1,845.34


@pytest.mark.parametrize(("lang", "label"), [("en", "effective cost \\(covered by a commitment\\) | 16.00 |"),
                                              ("zh-CN", "账单有效成本 \\(承诺折扣覆盖\\) | 16.00 |")])
def test_the_covered_row_says_so_in_both_languages(covered, lang, label):
    root, _ = covered
    out = CliRunner().invoke(cli, ["--workspace", str(root), "sheet", "llm-a", "--lang", lang]).output
    assert label in out
    table = out[out.index("| unclassified |" if lang == "en" else "| 无进度信号 |"):]
    table = table[:table.index("\n\n")]
    assert len(table.splitlines()) == 3  # billed, the view, the covered hours: no "not valued" row
