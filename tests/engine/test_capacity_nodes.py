"""A billed GPU node no imported job ran on, and a credit on time no job held (review 4 H11, H10).

The reviewer's repro, by hand: 3 jobs on gpu-node-01 02-11 08:00–09:00 Asia/Shanghai (00:00–01:00
UTC; 8 + 8 + 4 GPUs on an 8-GPU node: oversubscribed, 288.00 split 115.20 / 115.20 / 57.60, nothing
idle), and the first-hour bill: 3 hours of gpu-node-01 and of gpu-node-02 at 288.00 each ("8 x H800
node-hour", the same SKU description). gpu-node-01's hours 01–03 no job held: 2 × 288.00 = 576.00,
2 × 8 = 16 GPU-h. gpu-node-02 no job names: it is billed with the SKU of gpu-node-01, so it is a node
without jobs — 3 × 288.00 = 864.00, 3 × 8 = 24 GPU-h of capacity no job held (it was "no rule
matched"). Credits: −50.00 on gpu-node-01 02:00–03:00 (no job) and a refund of −20.00 on gpu-node-02
are their own "credit" lines: the idle figures stay 576.00 and 864.00 gross, the credits carry no hours.
"""

from __future__ import annotations

import os
import shutil
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger.engine import Facts
from trainledger.engine.allocation import allocate_views
from trainledger.engine.compute import bill_stage
from trainledger.engine.conservation import reason_of
from trainledger.engine.frame.oracle import context
from trainledger.service import Workspace

ROOT = Path(__file__).resolve().parents[2]
SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
8001|a|x|sft-a|run=r1;reason=planned_experiment|u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:h800=8,mem=500G,node=1|gpu-node-01|0
8002|b|x|sft-a|run=r2;reason=planned_experiment|u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:h800=8,mem=500G,node=1|gpu-node-01|0
8003|c|x||run=r3;reason=planned_experiment|u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:00:00|COMPLETED|0:0|billing=64,cpu=64,gres/gpu:h800=4,mem=500G,node=1|gpu-node-01|0
"""  # noqa: E501
CREDITS = [
    "-50.00,CNY,2026-11-02T02:00:00Z,2026-11-02T03:00:00Z,Credit,SLA credit,gpu-node-01,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
    "-20.00,CNY,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,Refund,refund,gpu-node-02,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
]
# Huawei 调账-补偿 (a compensation, below zero) on time no job held: a credit line, never netted into idle;
# 调账-扣费 (more cost) corrects the idle capacity it is on, and stays with it
ADJUSTMENTS = [
    "-3.00,CNY,2026-11-02T02:00:00Z,2026-11-02T03:00:00Z,Adjustment,调账-补偿,gpu-node-01,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
    "-4.00,CNY,2026-11-02T01:00:00Z,2026-11-02T02:00:00Z,Adjustment,调账-补偿,gpu-node-02,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
    "5.00,CNY,2026-11-02T01:00:00Z,2026-11-02T02:00:00Z,Adjustment,调账-扣费,gpu-node-01,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
]
OTHERS = [  # not nodes: nothing specific (a service name only), or another SKU (a CPU machine)
    "10.00,CNY,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,Usage,,cpu-box-01,Compute,Elastic Compute Service,"
    "Example Cloud,{}",
    "12.00,CNY,2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,Usage,16 vCPU node-hour,cpu-box-02,Compute,"
    "Elastic Compute Service,Example Cloud,{}",
]


def _workspace(tmp_path: Path, extra: list[str]) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "trainledger.toml").write_text(
        (ROOT / "docs/first-hour/slurm-cloud/trainledger.toml").read_text(encoding="utf-8"), encoding="utf-8")
    bill = (ROOT / "docs/first-hour/slurm-cloud/bill.csv").read_text(encoding="utf-8").rstrip("\n")
    (tmp_path / "bill.csv").write_text("\n".join([bill, *extra]) + "\n", encoding="utf-8")
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [tmp_path / "sacct.txt"])
        wsp.import_files("focus", [tmp_path / "bill.csv"])
    return root


def _stage(root: Path, engine: str = "python"):
    with Workspace.open(root) as w:
        facts = Facts.from_lake(w.lake)
        ctx = context(facts, w.config, w.price_lookup(), date(2026, 11, 3))
        if engine == "python":
            return facts, ctx, bill_stage(facts, ctx)
        from trainledger.engine.frame import connect
        from trainledger.engine.frame import stage as frame_stage

        return facts, ctx, frame_stage.bill_stage(facts, ctx, connect(engine))


def _by_reason(lines) -> dict[str, tuple[Decimal, Decimal]]:
    """(money, GPU-hours) per unattributed reason text."""
    out: dict[str, tuple[Decimal, Decimal]] = {}
    for ln in lines:
        if ln.batch_id is None:
            m, h = out.get(ln.reason, (Decimal(0), Decimal(0)))
            out[ln.reason] = (m + ln.amount.expected, h + (ln.quantity or 0))
    return out


@pytest.fixture
def repro(tmp_path):
    return _workspace(tmp_path, [])


def test_a_node_no_job_ran_on_is_capacity_no_job_held(repro):
    facts, _ctx, out = _stage(repro)
    got = _by_reason(out.lines)
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("576.00"), Decimal(16))
    assert got["job_without_batch: job 8003"] == (Decimal("57.60"), Decimal(4))
    assert not any(r.startswith("no_rule_matched") and "gpu-node" in r for r in got)
    node2 = [ln for ln in out.lines if "gpu-node-02" in ln.reason]
    assert {str(ln.basis) for ln in node2} == {"capacity_unheld"} and {ln.detail for ln in node2} == {"capacity_unheld"}
    assert {str(ln.evidence) for ln in node2} == {"assumed"}  # a node by its SKU, idle by absence of jobs
    # money conserves exactly: the bill is 6 × 288.00 + 42.50 + 17.30
    assert sum(ln.amount.expected for ln in out.lines) == Decimal("1787.80")
    # hours: each node's capacity (3 h × 8 GPUs) = held + no job held, beyond the oversubscribed hour
    held = sum(ln.quantity for ln in out.lines if ln.run_id and ln.quantity)
    assert held == 20  # 8 + 8 + 4 GPU-h in hour 00 (oversubscribed: the node's 8 GPUs, nothing idle)
    kinds = [p.kind for p in out.problems]
    assert "node_without_jobs" in kinds
    problem = next(p for p in out.problems if p.kind == "node_without_jobs")
    assert problem.detail["nodes"] == ["gpu-node-02"] and "sacct" in problem.message


def test_the_idle_capacity_policy_spreads_the_node_without_jobs(repro):
    _facts, _ctx, out = _stage(repro)
    allocated, records = allocate_views(list(out.lines), {"capacity_unheld": "spread_by_gpu_hours"}, "t", ("sft-a",))
    assert [(r["pool"], r["allocated"]) for r in records] == [("1440.00", "1440.00")]  # 576.00 + 864.00
    assert sum(ln.amount.expected for ln in allocated) == Decimal("1440.00")


def test_a_credit_on_time_no_job_held_is_its_own_line_and_the_idle_figure_stays_gross(tmp_path):
    root = _workspace(tmp_path, CREDITS)
    _facts, _ctx, out = _stage(root)
    got = _by_reason(out.lines)
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("576.00"), Decimal(16))  # gross, not 526.00
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))  # gross, not 844.00
    assert got["credit: node gpu-node-01"] == (Decimal("-50.00"), Decimal(0))  # money, no GPU-hours
    assert got["credit: node gpu-node-02"] == (Decimal("-20.00"), Decimal(0))
    credits = [ln for ln in out.lines if reason_of(ln)[0] == "credit"]
    assert {(str(ln.basis), ln.detail, ln.quantity) for ln in credits} == {("billed", "credit", None)}
    assert {ln.provenance.row for ln in credits} == {9, 10}  # each its own bill row
    assert sum(ln.amount.expected for ln in out.lines) == Decimal("1717.80")  # 1,787.80 − 70.00
    _, records = allocate_views(list(out.lines), {"capacity_unheld": "spread_by_gpu_hours"}, "t", ("sft-a",))
    assert [r["pool"] for r in records] == ["1440.00"]  # the gross idle cost; the credits stay in the bucket


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_a_negative_adjustment_on_idle_time_is_a_credit_line_and_idle_stays_gross(tmp_path, engine):
    """调账-补偿 −3.00 on gpu-node-01 02:00–03:00 (no job) and −4.00 on gpu-node-02 (no job ever): two
    credit lines of their own (money, no GPU-hours, detail adjustment); the idle figures stay gross,
    576.00 and 864.00. 调账-扣费 +5.00 on gpu-node-01 01:00–02:00 (no job) stays with that idle capacity:
    581.00 = 576.00 + 5.00, hours unchanged (an adjustment carries none)."""
    if engine != "python":
        pytest.importorskip("ibis")
    root = _workspace(tmp_path, ADJUSTMENTS)
    _facts, _ctx, out = _stage(root, engine)
    got = _by_reason(out.lines)
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("581.00"), Decimal(16))
    assert got["node_without_jobs: node gpu-node-02"] == (Decimal("864.00"), Decimal(24))
    assert got["credit: node gpu-node-01"] == (Decimal("-3.00"), Decimal(0))
    assert got["credit: node gpu-node-02"] == (Decimal("-4.00"), Decimal(0))
    credits = [ln for ln in out.lines if reason_of(ln)[0] == "credit"]
    assert {(str(ln.basis), ln.detail, ln.quantity) for ln in credits} == {("billed", "adjustment", None)}
    assert not [ln for ln in out.lines if str(ln.basis) == "capacity_unheld" and ln.amount.expected < 0]
    assert sum(ln.amount.expected for ln in out.lines) == Decimal("1785.80")  # 1,787.80 − 3 − 4 + 5, exact
    _, records = allocate_views(list(out.lines), {"capacity_unheld": "spread_by_gpu_hours"}, "t", ("sft-a",))
    assert [r["pool"] for r in records] == ["1445.00"]  # 581.00 + 864.00: the compensations stay in the bucket


def test_rows_that_say_nothing_specific_or_another_sku_stay_no_rule_matched(tmp_path):
    root = _workspace(tmp_path, OTHERS)
    _facts, _ctx, out = _stage(root)
    got = _by_reason(out.lines)
    assert got["no_rule_matched: Elastic Compute Service cpu-box-01"][0] == Decimal("10.00")
    assert got["no_rule_matched: Elastic Compute Service cpu-box-02"][0] == Decimal("12.00")
    assert got["node_without_jobs: node gpu-node-02"][0] == Decimal("864.00")


SPARK = [pytest.mark.skipif(os.environ.get("TRAINLEDGER_TEST_SPARK") != "1" or shutil.which("java") is None,
                            reason="slow (a Spark session): set TRAINLEDGER_TEST_SPARK=1 (and Java)"),
         pytest.mark.filterwarnings("ignore::DeprecationWarning"),  # as tests/engine/test_frame_spark.py:
         pytest.mark.filterwarnings("ignore::FutureWarning"),  # pyspark on pandas 3
         pytest.mark.filterwarnings("ignore::ResourceWarning")]  # py4j's gateway sockets (pyspark 4.0)


@pytest.mark.parametrize("engine", ["duckdb", pytest.param("spark", marks=SPARK)])
@pytest.mark.parametrize("extra", [[], CREDITS, CREDITS + OTHERS, ADJUSTMENTS])
def test_the_frame_engines_give_the_same_lines_and_problems(tmp_path, extra, engine):
    pytest.importorskip("ibis")
    root = _workspace(tmp_path, extra)
    _f, _c, py = _stage(root)
    _f, _c, frame = _stage(root, engine)
    assert [repr(x) for x in frame.lines] == [repr(x) for x in py.lines]
    assert [repr(p) for p in frame.problems] == [repr(p) for p in py.problems]


def test_the_column_kinds_are_compute_charge_kind_row_by_row():
    """``capacity_nodes`` judges rows on columns (both engines); ``compute.charge_kind`` on a row."""
    import itertools

    import pyarrow as pa

    from trainledger.engine import capacity_nodes
    from trainledger.engine.compute import carried_as_credit, charge_kind

    rows = [{"charge_category": c, "billed_cost": b, "effective_cost": e}
            for c, b, e in itertools.product(
                (None, "", " ", "Usage", " usage ", "Credit", "REFUND", "Purchase", "Tax", "Adjustment",
                 "usage-adjust"),
                ("1.00", "-1.00", "0.00", "-0.00", None, " -5"), (None, "-2", "3", "0"))]
    t = pa.table({k: pa.array([r[k] for r in rows], pa.string()) for k in rows[0]})
    usage, credit = capacity_nodes._kinds(t)
    assert usage.to_pylist() == [charge_kind(r) is None for r in rows]
    assert credit.to_pylist() == [charge_kind(r) == "credit" for r in rows]
    mask = capacity_nodes.credit_mask(t).to_pylist()
    assert mask == [carried_as_credit(r, charge_kind(r)) for r in rows]
    assert mask != credit.to_pylist()  # the negative adjustments: a credit line too, not a credit row
