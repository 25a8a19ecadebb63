"""K13: the batches' shares of a sub-cent pool sum to the pool exactly, in every currency.

A pool that is not cash (a rate card's capacity no job held, staff time at an internal rate) is
shown to the currency's minor unit, and so is each batch's share of it. Split at the pool's own
digits and rounded one by one, three equal shares of 10.005 CNY read 3.34 each — 10.02 — beside a
pool of 10.00. The shares are now the pool as shown, split by largest remainder in minor units.
"""

from decimal import Decimal

import pytest

from trainledger.engine.allocation import allocate_views
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.report.sheet import _allocation

SHA = "9" * 64
BATCHES = ("b1", "b2", "b3")


def _line(amount, currency, *, batch=None, basis, category="compute", reason="", qty=None, run=None, detail=""):
    a = Decimal(amount)
    return CostLine(category=category, basis=basis, evidence=Evidence.ASSUMED, amount=AmountRange(a, a, a, currency),
                    provenance=Provenance(SHA, 1, "r", "config"), batch_id=batch, reason=reason, run_id=run,
                    quantity=qty, detail=detail, unit="gpu_hour" if qty is not None else "")


def _workspace(currency, unheld, labor):
    held = [_line("10", currency, batch=b, basis=Basis.RATE_CARD, qty=Decimal(1), run=f"r{b}", detail="effective")
            for b in BATCHES]  # one GPU-hour each: the unheld pool splits 1 : 1 : 1
    return held + [
        _line(unheld, currency, basis=Basis.RATE_CARD, reason="capacity_unheld: node n1", detail="capacity_unheld"),
        _line(labor, currency, basis=Basis.INTERNAL, category="labor", reason="no_rule_matched: build phase",
              detail="build/platform")]


RAW = {"capacity_unheld": "spread_by_gpu_hours",
       "shared": [{"id": "build-labor", "category": "labor", "reason": "no_rule_matched", "driver": "equal"}]}


@pytest.mark.parametrize(("currency", "unheld", "labor", "shown"), [
    ("CNY", "10.005", "7.0051", {"capacity_unheld": "10.00", "build-labor": "7.01"}),
    ("JPY", "1000.5", "20.49", {"capacity_unheld": "1000", "build-labor": "20"}),
    ("KWD", "1.0005", "0.00151", {"capacity_unheld": "1.000", "build-labor": "0.002"}),
])
def test_the_shares_on_the_sheets_sum_to_the_pool_shown(currency, unheld, labor, shown):
    lines = _workspace(currency, unheld, labor)
    got, records = allocate_views(lines, RAW, "t", BATCHES)
    assert {r["policy"]: r["pool"] for r in records} == {"capacity_unheld": unheld, "build-labor": labor}
    sheets = {b: _allocation([ln for ln in got if ln.batch_id == b], records) for b in BATCHES}
    for policy, pool in shown.items():
        rows = [a for s in sheets.values() for a in s if a["policy"] == policy]
        assert len(rows) == 3 and {a["pool"] for a in rows} == {pool}  # every sheet shows the pool alike
        assert sum(Decimal(a["share"]) for a in rows) == Decimal(pool), (currency, policy)
        q = Decimal(pool).as_tuple().exponent  # each share to the minor unit, within one unit of a third
        assert all(Decimal(a["share"]).as_tuple().exponent == q for a in rows)
        assert max(Decimal(a["share"]) for a in rows) - min(Decimal(a["share"]) for a in rows) <= Decimal(1).scaleb(q)


def test_a_cash_pool_keeps_every_digit():
    # cash is shown exact (every digit of the bill), so its shares need no rounding: 10.005 → 3.335 each
    lines = _workspace("CNY", "10.005", "7.00")
    lines[3] = _line("10.005", "CNY", basis=Basis.CAPACITY_UNHELD, reason="capacity_unheld: node n1",
                     detail="capacity_unheld")
    got, records = allocate_views(lines, RAW, "t", BATCHES)
    shares = [_allocation([ln for ln in got if ln.batch_id == b], records) for b in BATCHES]
    cash = [a["share"] for s in shares for a in s if a["policy"] == "capacity_unheld"]
    assert cash == ["3.335", "3.335", "3.335"]
    assert [r["allocated"] for r in records if r["policy"] == "capacity_unheld"] == ["10.005"]
