"""Findings of the second fresh reviewer (review2-findings.md) on the engine, on the reviewer's own
hand-made inputs (tests/data/rv2, SOURCE.txt): each test failed before its fix.

The workspace: sacct.txt read in Asia/Shanghai (8 GPUs per node, h800-a1 / h800-a2, batch llm-a),
an hourly node bill at 320.00 CNY per node-hour = 40.00 CNY per GPU-hour. Batch llm-a's runs hold
by hand 9001 2 h × 8 + 9002 (11:10–13:00) 16 GPUs × 110 min + 9003 1 h × 4 = 16 + 29.3333 + 4
= 49.3333 GPU-h.
"""

from __future__ import annotations

import shutil
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger.service import Workspace

DATA = Path(__file__).resolve().parents[1] / "data" / "rv2"
pytestmark = [pytest.mark.filterwarnings("ignore:fetch_arrow_table:DeprecationWarning")]


def workspace(tmp_path: Path, *imports: tuple[str, str, dict]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(DATA / "trainledger.toml", root / "trainledger.toml")
    with Workspace.init(root, currency="CNY") as w:
        for kind, name, options in imports:
            w.import_files(kind, [DATA / name], options=options)
    return root


def _gpu_hours(result, batch="llm-a"):
    return sum((ln.quantity for ln in result.lines
                if ln.batch_id == batch and ln.unit == "gpu_hour" and ln.basis.value == "billed"), Decimal(0))


@pytest.mark.parametrize("engine", ["python", "duckdb"])
@pytest.mark.parametrize("kind,name", [("aliyun", "aliyun-credit.csv"), ("focus", "focus-neg-usage.csv")])
def test_f15_a_negative_usage_row_on_a_node_carries_money_not_gpu_hours(tmp_path, kind, name, engine):
    root = workspace(tmp_path, ("slurm", "sacct.txt", {}), (kind, name, {}))
    with Workspace.open(root) as w:
        result = w.attribute(engine=engine)
    assert all(ln.quantity is None or ln.quantity >= 0 for ln in result.lines)  # no negative held hours
    assert _gpu_hours(result).quantize(Decimal("0.0001")) == Decimal("49.3333")  # the runs', by hand
    refund = [ln for ln in result.lines if ln.provenance.row == _refund_row(result)]
    assert refund and all(ln.detail == "credit" and ln.quantity is None for ln in refund)
    assert sum(ln.amount.expected for ln in refund) == Decimal("-32.00")
    (neg,) = [p for p in result.problems if p.kind == "negative_usage"]
    assert neg.detail["node"] == "h800-a1" and neg.detail["amount"] == "-32.00"


def _refund_row(result) -> int:
    rows = {ln.provenance.row for ln in result.lines if ln.amount.expected < 0 and ln.category == "compute"}
    assert len(rows) == 1
    return rows.pop()


@pytest.mark.parametrize("tz,problem", [("UTC", True), ("Asia/Shanghai", False)])
def test_f6_sacct_read_in_the_wrong_zone_against_an_hourly_node_bill_is_named(tmp_path, tz, problem):
    # read as UTC, every job lands 8 h after the bill's node-hours (09:00–13:00 Asia/Shanghai)
    root = workspace(tmp_path, ("slurm", "sacct.txt", {"tz": tz}), ("aliyun", "aliyun-bill.csv", {}))
    with Workspace.open(root) as w:
        result = w.attribute()
    found = [p for p in result.problems if p.kind == "timezone_mismatch_bill"]
    if not problem:
        assert not found and _gpu_hours(result).quantize(Decimal("0.0001")) == Decimal("49.3333")
        return
    (p,) = found
    assert (p.detail["read_tz"], p.detail["shift_hours"], p.detail["likely_tz"]) == ("UTC", 8, "Asia/Shanghai")
    assert "sacct.txt" in p.detail["path"] and "--tz Asia/Shanghai" in p.message
    with Workspace.open(root) as w:  # review 4 H10: the remedy names the import to replace, not "<import id>"
        (slurm,) = [r for r in w.ledger.imports() if r.kind == "slurm"]
    assert p.message.endswith(f"--replace {slurm.import_key[:12]}") and p.detail["import_id"] == slurm.import_key[:12]
    from trainledger.report.problems_i18n import message

    assert message({"kind": p.kind, "detail": p.detail}, "zh-CN").endswith(f"--replace {slurm.import_key[:12]}")
    assert _gpu_hours(result) == 0  # the figures it explains: every node-hour unheld


def test_f6_the_bill_check_finds_half_and_quarter_hour_zones_and_stays_quiet_on_full_bills():
    from datetime import UTC, datetime, timedelta

    from trainledger.engine.tzcheck import bill_shift_minutes

    t = datetime(2026, 11, 10, 3, tzinfo=UTC)
    billed = {"n1": [(t, t + timedelta(hours=4))]}
    for minutes in (480, 330, 345, -300):  # +8, +5:30 (India), +5:45 (Nepal), -5
        d = timedelta(minutes=minutes)
        jobs = [("n1", t + d, t + d + timedelta(hours=2)), ("n1", t + d + timedelta(hours=2, minutes=10),
                                                              t + d + timedelta(hours=4))]
        assert bill_shift_minutes(jobs, billed) == minutes
    month = {"n1": [(t - timedelta(days=5), t + timedelta(days=5))]}  # every hour billed: no clock in it
    assert bill_shift_minutes([("n1", t, t + timedelta(hours=2))], month) is None
    assert bill_shift_minutes([("n1", t, t + timedelta(hours=2))], billed) is None  # inside: right zone


def test_f13_a_slurm_requeue_is_a_retry_of_the_preempted_attempt(tmp_path):
    root = workspace(tmp_path, ("slurm", "sacct-requeue.txt", {}), ("aliyun", "aliyun-bill.csv", {}))
    with Workspace.open(root) as w:
        result = w.attribute()
        sheet = w.sheet("llm-a")
    first, second = result.runs["9100"], result.runs["9100@20261110T023000Z"]
    assert first.run.state == "PREEMPTED" and second.facts.retry_of == "9100"
    assert second.run.reason == "fault_retry"
    assert {s.state for s in second.segments} <= {"preemption_recovery", "unclassified"}
    runs = {r["id"]: r for r in sheet["runs"]}
    assert runs["9100@20261110T023000Z"]["retry_of"] == "9100"
    assert runs["9100@20261110T023000Z"]["cause"] == "infra_fault"
    assert runs["9100@20261110T023000Z"]["cause_evidence"] == "assumed"
    assert runs["9100@20261110T023000Z"]["suggested_review_class"] == "unforeseeable_fault"  # not "needs review"
    (chain,) = sheet["retry_chains"]
    # by hand: the preempted hour 8 GPU-h × 40.00 = 320.00, whole; the requeued run has no progress log,
    # so no measured recovery (its 16 GPU-h are unclassified: the batch's training)
    assert chain["attempts"] == ["9100", "9100@20261110T023000Z"] and chain["cause"] == "infra_fault"
    assert [(m["amount"], m["currency"]) for m in chain["failure_cost"] if m.get("basis") == "billed"] == [
        ("320.00", "CNY")]


def test_f10_capacity_no_job_held_is_never_called_allocated_idle(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli
    from trainledger.model import Basis
    from trainledger.model.vocab import label

    root = workspace(tmp_path, ("slurm", "sacct.txt", {}), ("aliyun", "aliyun-bill.csv", {}))
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write('\n[allocation]\ncapacity_unheld = "spread_by_gpu_hours"\n')
    with Workspace.open(root) as w:
        result = w.attribute()
        sheet = w.sheet("llm-a")
    unheld = [ln for ln in result.lines if ln.detail == "capacity_unheld"]
    assert unheld and {ln.basis for ln in unheld} == {Basis.CAPACITY_UNHELD}
    assert label(Basis.CAPACITY_UNHELD, "zh-CN") == "无作业占用的容量" != label("allocated_idle", "zh-CN")
    assert Basis("allocated_idle") is Basis.CAPACITY_UNHELD  # a ledger written before reads as what it meant
    assert {a["source_basis"] for a in sheet["allocation"]} == {"capacity_unheld"}
    zh = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "zh-CN", "attribute"]).output
    md = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "zh-CN", "sheet", "llm-a"]).output
    assert "已分配未使用" not in zh and "已分配未使用" not in md  # no job here holds GPUs it does not use
    # F12: the detail's words in zh-CN too
    # (the reason's own words: the basis is 无作业占用的容量, why it has no batch 容量空闲，无作业可归属)
    assert "容量空闲，无作业可归属：节点 h800-a2" in zh and "作业未匹配批次：作业 9004" in zh
    assert "| 容量空闲，无作业可归属 | 节点 h800-a2 | 453.33 | CNY |" in md
    en = CliRunner().invoke(cli, ["--workspace", str(root), "attribute"]).output
    assert "capacity_unheld: node h800-a2" in en and "allocated_idle" not in en


@pytest.mark.parametrize("gpus,problem", [(4, True), (20, False)])
def test_f14_a_pool_smaller_than_what_its_jobs_hold_at_once_is_named(tmp_path, gpus, problem):
    # the last 400 pods of the openb trace on a 48 h pool at 10.00 CNY/GPU-h; by hand (the reviewer's
    # sweep over creation/scheduled → deletion) the pods hold up to 17.35 GPU-equivalents at once
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text((DATA / "openb-pool.toml").read_text(encoding="utf-8").replace(
        "gpus = 20", f"gpus = {gpus}"), encoding="utf-8")
    with Workspace.init(root, currency="CNY") as w:
        w.import_files("jobs", [DATA / "openb-tail400.csv"], options={"preset": "alibaba-openb-2023", "tz": "UTC"})
        result = w.attribute()
    found = [p for p in result.problems if p.kind == "pool_oversubscribed"]
    (rec,) = result.conservation_capacity
    if not problem:
        assert not found and Decimal(rec["total"]) == Decimal("9600.00") and Decimal(rec["difference"]) == 0
        return
    (p,) = found
    assert (p.detail["pool"], p.detail["gpus"], p.detail["peak"]) == ("openb", 4, "17.35")
    assert "17.35 GPU-equivalents at once" in p.message


def test_f12_an_unpriced_inventory_is_not_priced_not_other_charges(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli
    from trainledger.engine import storage_reconcile

    root = workspace(tmp_path, ("slurm", "sacct.txt", {}), ("aliyun", "aliyun-bill.csv", {}),
                     ("storage", "inventory.csv", {}))  # no price book: storage:standard has no price
    with Workspace.open(root) as w:
        result = w.attribute()
    (g,) = storage_reconcile.view(result.storage_reconciliation)["groups"]
    assert g["match"] == "matched" and g["estimate_priced"] is False
    assert g["parts"] == [{"kind": "not_priced", "amount": "1.55"}]  # not "other charges (requests…)"
    en = CliRunner().invoke(cli, ["--workspace", str(root), "attribute"]).output
    zh = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "zh-CN", "attribute"]).output
    assert "billed 1.55 vs inventory estimate not priced (difference 1.55;" in en
    assert "账单 1.55，清单估算 未计价（差额 1.55；" in zh


def test_f12_the_price_per_gpu_hour_is_the_bills_not_the_splits_rounding(tmp_path):
    from click.testing import CliRunner

    from trainledger.cli import cli
    from trainledger.report.sheet_compute import bill_price

    root = workspace(tmp_path, ("slurm", "sacct.txt", {}), ("aliyun", "aliyun-bill.csv", {}))
    with Workspace.open(root) as w:
        w.attribute()
        sheet = w.sheet("llm-a")
    (row,) = [r for r in sheet["compute_by_state"] if r["basis"] == "billed" and r["gpu_hours"]]
    # 1,973.34 CNY for 49.3333 GPU-h: the quotient 40.0001, the bill's 320.00 / 8 GPUs = 40.00
    price = row["price_per_gpu_hour"]  # marked restricted (a unit price) until a role's copy is made
    assert (price["amount"].value, price["currency"], price["split_rounding"]) == ("40.0000", "CNY", True)
    md = CliRunner().invoke(cli, ["--workspace", str(root), "sheet", "llm-a"]).output
    assert "| 40.00 CNY |" in md and "40.0001" not in md and "the split's rounding" in md
    # a price the lines themselves contradict stays what the money says: 12.49875 (99.99 / 8) on lines
    # of 100 GPU-h each is 1,249.88, not 1,250.00; an owned capacity's 11.8758 on 192 GPU-h node-days
    lines = [(Decimal("1249.88"), Decimal(100))] * 3
    assert bill_price(Decimal("3749.64"), Decimal(300), lines, "CNY") == (Decimal("12.4988"), False)
    days = [(Decimal("2280.15"), Decimal(192))] * 4
    assert bill_price(Decimal("9120.60"), Decimal(768), days, "CNY") == (Decimal("11.8758"), False)
    split = [(Decimal("320.01"), Decimal(8)), (Decimal("319.99"), Decimal(8)), (Decimal("1333.34"),
                                                                                    Decimal("33.33333333"))]
    assert bill_price(Decimal("1973.34"), Decimal("49.33333333"), split, "CNY") == (Decimal("40.0000"), True)
