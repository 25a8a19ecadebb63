"""Properties that sum the lines themselves — never trusting the engine's own verdict.

Random jobs (1-, 2- and 4-node placements), hourly usage rows covering every node-hour they run
in, and credits / adjustments on those nodes. For every example:

* money: per bill row, its lines sum to its BilledCost; per currency, all cash lines sum to the
  bill; the unattributed bucket by reason sums to the unattributed total;
* hours: per run, the GPU-hours on its lines equal GPUs × the time it held them, exactly; credit
  and adjustment lines carry no GPU-hours;
* price: every usage line's amount is its GPU-hours × the row's price per GPU-hour, to within
  one minor unit (the largest-remainder rounding of one share);
* order: shuffling the input rows changes no line.
"""

import random
from collections import defaultdict
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine import Facts, attribute
from trainledger.model import CASH_BASES

from .factories import T0, at, bill, job, price_lookup

NODES = ("n1", "n2", "n3", "n4")
SLOTS = 8

placements = st.sampled_from([(("n1",), 4), (("n2",), 8), (("n1", "n2"), 8), (("n3", "n4"), 16),
                              (("n1", "n2", "n3", "n4"), 32), (("n1", "n2", "n3", "n4"), 8)])
jobs_st = st.lists(st.tuples(st.integers(0, 180), st.integers(1, 150), placements, st.sampled_from(["b1", ""])),
                   min_size=1, max_size=5)
credits_st = st.lists(st.tuples(st.sampled_from(NODES), st.integers(0, 4),
                                st.decimals(min_value=Decimal("-50"), max_value=Decimal("5"), places=2),
                                st.sampled_from(["Credit", "Adjustment"])), max_size=3)


def _facts(jobs, credits, prices):
    """Jobs that never overlap on a node (each starts after the previous one on its nodes ended)."""
    js, free = [], dict.fromkeys(NODES, 0)
    for i, (start, dur, (nodes, gpus), wckey) in enumerate(jobs):
        s = max([start] + [free[n] for n in nodes])
        js.append(job(str(i), start=at(s), end=at(s + dur), gpus=gpus, nodes=",".join(nodes), wckey=wckey, row=i + 1))
        for n in nodes:
            free[n] = s + dur
    hours = max(free.values()) // 60 + 1
    rows, r = [], 0
    for h in range(hours):
        for k, n in enumerate(NODES):
            r += 1
            rows.append(bill(at(60 * h), amount=prices[k], resource=n, row=r))
    for n, h, amount, cat in credits:
        r += 1
        rows.append(bill(at(60 * h), hours=1, amount=str(amount), resource=n, row=r) | {"charge_category": cat})
    return Facts(jobs=tuple(js), bill_lines=tuple(rows))


@settings(max_examples=40, deadline=None)
@given(jobs_st, credits_st, st.lists(st.sampled_from(["80.00", "288.00", "99.99", "7.01"]), min_size=4, max_size=4),
       st.randoms(use_true_random=False))
def test_money_hours_and_price_conserve(config, jobs, credits, prices, rnd):
    facts = _facts(jobs, credits, prices)
    result = attribute(facts, config, price_lookup, T0.date())
    cash = [ln for ln in result.lines if ln.basis in CASH_BASES]
    by_row = defaultdict(Decimal)
    for ln in cash:
        by_row[ln.provenance.row] += ln.amount.expected
    for row in facts.bill_lines:  # money, per row
        assert by_row[row["row"]] == Decimal(row["billed_cost"])
    bill_total = sum(Decimal(r["billed_cost"]) for r in facts.bill_lines)
    assert sum(ln.amount.expected for ln in cash) == bill_total
    (rec,) = result.conservation
    assert sum(Decimal(x["amount"]) for x in rec["unattributed_by_reason"]) == Decimal(rec["unattributed"])
    assert sum(ln.amount.expected for ln in cash if ln.batch_id is None) == Decimal(rec["unattributed"])
    # hours, per run: GPUs × held time, exactly; money-only rows carry none
    for j in facts.jobs:
        held = Decimal(j["gpus"]) * Decimal(int((j["end"] - j["start"]).total_seconds())) / 3600
        on_lines = sum((ln.quantity for ln in cash if ln.run_id == j["job_id"] and ln.quantity is not None),
                       Decimal(0))
        assert abs(on_lines - held) < Decimal("1e-20")
    credit_rows = {r["row"] for r in facts.bill_lines if r["charge_category"] != "Usage"}
    assert all(ln.quantity is None for ln in cash if ln.provenance.row in credit_rows)
    # price: a usage line is its GPU-hours at the row's price per GPU-hour, within one cent
    price = {r["row"]: Decimal(r["billed_cost"]) / SLOTS for r in facts.bill_lines if r["row"] not in credit_rows}
    for ln in cash:
        if ln.quantity is not None:
            assert abs(ln.amount.expected - ln.quantity * price[ln.provenance.row]) < Decimal("0.01")
    # order: the same lines, whatever order the rows come in
    shuffled = Facts(jobs=tuple(rnd.sample(facts.jobs, len(facts.jobs))),
                     bill_lines=tuple(rnd.sample(facts.bill_lines, len(facts.bill_lines))))
    again = attribute(shuffled, config, price_lookup, T0.date())
    key = lambda ln: (ln.provenance.row, ln.run_id or "", ln.detail, ln.basis)  # noqa: E731
    assert sorted(result.lines, key=key) == sorted(again.lines, key=key)


def test_an_sla_credit_on_a_node_adds_money_but_no_gpu_hours(config):
    """The demo's bug: a credit row split by GPU-seconds added GPU-hours to the batch."""
    facts = Facts(jobs=(job("1", start=at(0), end=at(60), gpus=8),),
                  bill_lines=(bill(at(0), amount="80.00"),
                              bill(at(0), amount="-40.00", row=2) | {"charge_category": "Credit"}))
    result = attribute(facts, config, price_lookup, T0.date())
    lines = [ln for ln in result.lines if ln.run_id == "1"]
    assert sum(ln.amount.expected for ln in lines) == Decimal("40.00")
    assert sum(ln.quantity for ln in lines if ln.quantity is not None) == Decimal(8)
    (credit,) = [ln for ln in lines if ln.provenance.row == 2]
    assert (credit.detail, credit.quantity, credit.amount.expected) == ("credit", None, Decimal("-40.00"))


def test_shuffled_rows_give_the_same_conservation(config):
    rnd = random.Random(5)
    facts = _facts([(0, 90, (("n1", "n2"), 8), "b1"), (30, 60, (("n1",), 4), "")], [], ["80.00"] * 4)
    a = attribute(facts, config, price_lookup, T0.date()).conservation
    b = attribute(Facts(jobs=facts.jobs[::-1], bill_lines=tuple(rnd.sample(facts.bill_lines, len(facts.bill_lines)))),
                  config, price_lookup, T0.date()).conservation
    assert a == b
