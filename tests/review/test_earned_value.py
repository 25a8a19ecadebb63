"""Earned value is the plan × the share of the planned work done, rounded the way the plan is printed, so
that work done at or past the plan earns exactly the plan (review 7 L4)."""

from decimal import ROUND_HALF_EVEN, Decimal

from trainledger.review.plan import Rng
from trainledger.review.status import earned

D = Decimal


def test_work_past_the_plan_earns_the_plan_to_the_cent():
    # the demo's batch A: billed high 137,469.80884725 and internal low 6,122.669425, work done beyond plan
    plan = Rng(D("18676.0812"), D("44555.00"), D("137469.80884725"))
    work = Rng(D("16423"), D("16423"), D("16423"))
    ev = earned(plan, work, D("26382"), "CNY")
    assert ev == Rng(D("18676.08"), D("44555.00"), D("137469.81"))
    # the plan as a sheet prints it (half-even to the cent) is the EV
    assert all(ev.get(s) == plan.get(s).quantize(D("0.01"), ROUND_HALF_EVEN) for s in ("low", "expected", "high"))
    internal = Rng.point(D("6122.669425"))
    assert earned(internal, work, D("16423"), "CNY").low == D("6122.67")


def test_part_of_the_work_earns_its_share_and_nothing_is_earned_without_a_planned_work():
    plan = Rng(D("100.00"), D("200.00"), D("300.00"))
    work = Rng(D("3"), D("3"), D("3"))
    assert earned(plan, work, D("1"), "CNY") == Rng(D("33.33"), D("66.67"), D("100.00"))
    assert earned(plan, work, D("0"), "CNY") == Rng(D("0.00"), D("0.00"), D("0.00"))
    assert earned(plan, Rng(D("0"), D("0"), D("0")), D("5"), "CNY") == Rng(D("0.00"), D("0.00"), D("0.00"))
    # a currency without a minor unit rounds to the yen
    assert earned(Rng(D("1000"), D("1000"), D("1000")), work, D("2"), "JPY").expected == D("667")
