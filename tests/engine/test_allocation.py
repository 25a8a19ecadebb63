"""Allocation policies spread idle and shared cost by a declared driver; the direct cost stays."""

import pytest

from trainledger.engine.allocation import allocate_views, parse
from trainledger.errors import ConfigError
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance

SHA = "9" * 64


def line(amount, batch=None, *, basis=Basis.BILLED, category="compute", reason="", qty=None, run=None, detail=""):
    from decimal import Decimal

    a = Decimal(amount)
    return CostLine(category=category, basis=basis, evidence=Evidence.MEASURED, amount=AmountRange(a, a, a, "CNY"),
                    provenance=Provenance(SHA, 1, "r", "focus"), batch_id=batch, reason=reason, run_id=run,
                    quantity=qty, detail=detail, unit="gpu_hour" if qty is not None else "")


def lines():
    from decimal import Decimal

    return [line("30.00", "b1", qty=Decimal(3), run="r1"), line("10.00", "b2", qty=Decimal(1), run="r2"),
            line("8.00", reason="capacity_unheld: node n1", basis=Basis.CAPACITY_UNHELD, detail="capacity_unheld"),
            line("5.01", reason="no_rule_matched: NAT", category="network")]


def test_spread_by_gpu_hours_and_equal():
    raw = {"capacity_unheld": "spread_by_gpu_hours",
           "shared": [{"id": "nat", "category": "network", "reason": "no_rule_matched", "driver": "equal"}]}
    got, records = allocate_views(lines(), raw, "t", ("b1", "b2"))
    share = {(ln.detail, ln.batch_id): str(ln.amount.expected) for ln in got}
    # 8.00 by GPU-hours 3 : 1 → 6.00 / 2.00; 5.01 equally → 2.51 / 2.50 (largest remainder, by position)
    assert share == {("capacity_unheld/capacity_unheld", "b1"): "6.00",
                     ("capacity_unheld/capacity_unheld", "b2"): "2.00",
                     ("nat/billed", "b1"): "2.51", ("nat/billed", "b2"): "2.50"}
    assert {ln.basis for ln in got} == {Basis.ALLOCATED}
    assert [r["pool"] for r in records] == ["8.00", "5.01"]


def test_separate_is_the_default_and_cost_centre_charges_nobody():
    assert allocate_views(lines(), {}, "t", ("b1", "b2")) == ([], [])
    got, (rec,) = allocate_views(lines(), {"capacity_unheld": "cost_centre", "cost_centre": "platform"}, "t",
                                 ("b1", "b2"))
    assert got == [] and rec["charged_to"] == "platform" and rec["left"] == "8.00"


@pytest.mark.parametrize("raw", [{"capacity_unheld": "spread"}, {"bogus": 1}, {"capacity_unheld": "cost_centre"},
                                 {"shared": [{"id": "x", "category": "network", "reason": "r", "driver": "size"}]}])
def test_bad_policies_are_config_errors(raw):
    with pytest.raises(ConfigError):
        parse(raw, "trainledger.toml")
