"""The ``gpu_hours`` driver counts the GPU-hours a commitment covers (review 7, issue 7 item 5).

A usage row a reservation or savings plan covers has no cash (BilledCost 0) and its EffectiveCost
spread from the commitment: its lines, and so its GPU-hours, are only in the bill's effective-cost
view. A shared pool spread by GPU-hours must weigh them as it weighs a cash row's — each row's hours
once, whichever view carries them — on the Python oracle and on the frame engine (DuckDB) alike."""

import textwrap
from decimal import Decimal

import pytest

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.lines import LineColumns
from trainledger.service import engine_settings

from .factories import BATCH_B2, CONFIG, T0, at, bill, job, price_lookup

POLICY = """
[allocation]
capacity_unheld = "spread_by_gpu_hours"
[[allocation.shared]]
id = "nat"
category = "network"
reason = "no_rule_matched"
driver = "gpu_hours"
"""


@pytest.fixture(scope="module")
def two_batches(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws-commitment")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(BATCH_B2)
                                           + textwrap.dedent(POLICY), encoding="utf-8")
    return engine_settings(workspace.load(root))


def _facts():
    # b1: 4 GPUs for an hour on n1, paid in cash (both views carry the row: its hours count once);
    # b2: 4 GPUs for an hour on n2, covered by a commitment (no cash; only the effective-cost view)
    covered = bill(at(0), resource="n2", row=2, status="Used") | {"billed_cost": "0"}
    nat = bill(at(0), amount="10.00", resource="nat-gw", row=3) | {"service_category": "Network"}
    return Facts(jobs=(job("100", start=at(0), end=at(60), nodes="n1", row=1),
                       job("200", start=at(0), end=at(60), nodes="n2", wckey="b2", row=2)),
                 bill_lines=(bill(at(0), row=1), covered, nat))


@pytest.mark.parametrize("engine", ["python", "duckdb"])
def test_a_commitment_covered_batch_weighs_its_gpu_hours(two_batches, engine):
    if engine == "duckdb":
        pytest.importorskip("ibis")
    result = attribute(_facts(), two_batches, price_lookup, T0.date(), engine=engine)
    # the frame engine hands its bill lines on as columns: the drivers read them from the columns
    assert any(isinstance(p, LineColumns) for p in result.lines.parts) == (engine == "duckdb")
    shares = {(ln.detail, ln.batch_id): (ln.amount.expected, ln.quantity)
              for ln in result.lines if ln.basis == "allocated"}
    four = Decimal(4)
    # 4 : 4 GPU-hours → the NAT's 10.00 half each, in both views; b1's row counted once (not 8 : 4)
    assert shares[("nat/billed", "b1")] == (Decimal("5.00"), four)
    assert shares[("nat/billed", "b2")] == (Decimal("5.00"), four)
    assert shares[("nat/effective_cost", "b2")] == (Decimal("5.00"), four)
    # capacity no job held: n1's 40.00 cash, n2's 40.00 of effective cost (n1's too: 80.00 in that view)
    assert shares[("capacity_unheld/capacity_unheld", "b1")][0] == shares[
        ("capacity_unheld/capacity_unheld", "b2")][0] == Decimal("20.00")
    assert shares[("capacity_unheld/effective_cost", "b2")][0] == Decimal("40.00")
    pools = {(r["policy"], r["source_basis"]): r for r in result.allocation}
    assert pools[("nat", "billed")]["allocated"] == "10.00" and pools[("nat", "billed")]["left"] == "0"
