"""Fractional GPUs priced: a run weighs its GPU-equivalents (``jobs.gpu_share``), exactly.

Hand-worked: two pods share one GPU 0.25 / 0.75 for one node-hour → the bill splits 1:3. Then
properties over random fractional shares, placements (1, 2 and 3 nodes) and straggler step times:
money conserves per row and per currency, every run's GPU-hours on its lines (and in the
summary's compute states) are its GPU-equivalents × held time, straggler_wait is the share the
step times imply of the effective GPU-hours, and each usage line is its GPU-hours at the row's
price. The frame path (DuckDB) splits the same shares to the cent.
"""

import textwrap
from collections import defaultdict
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.summary_runs import hours_of
from trainledger.model import CASH_BASES, Basis, Run
from trainledger.model.vocab import ComputeState as S

from .factories import CONFIG, T0, at, bill, event, job, price_lookup


def _config(tmp_path, slots: int):
    text = textwrap.dedent(CONFIG).replace("gpus_per_node = 8", f"gpus_per_node = {slots}")
    (tmp_path / "trainledger.toml").write_text(text, encoding="utf-8")
    return workspace.load(tmp_path)


def pod(job_id, share, *, start=0, end=60, nodes="n1", row=1, **kw):
    return job(job_id, start=at(start), end=at(end), gpus=1, nodes=nodes, row=row, **kw) | {"gpu_share": share}


def test_run_gpu_equivalents():
    assert Run(id="r", batch_id="b", reason="unrecorded", gpus=2).gpu_equivalents == Decimal(2)
    assert Run(id="r", batch_id="b", reason="unrecorded", gpus=1, gpu_share="0.25").gpu_equivalents == Decimal("0.25")
    try:
        Run(id="r", batch_id="b", reason="unrecorded", gpus=1, gpu_share="-0.5")
    except ValueError as exc:
        assert "gpu_share" in str(exc)
    else:
        raise AssertionError("a negative share must be refused")


def test_two_pods_sharing_one_gpu_split_a_node_hour_one_to_three(tmp_path):
    config = _config(tmp_path, 1)
    facts = Facts(jobs=(pod("a", "0.25", row=1), pod("b", "0.75", row=2)),
                  bill_lines=(bill(at(0), amount="80.00"),))
    result = attribute(facts, config, price_lookup, T0.date())
    cash = {ln.run_id: ln for ln in result.lines if ln.basis in CASH_BASES}
    # 80.00 for one GPU-hour; pod a holds 0.25 of it, pod b 0.75: 20.00 and 60.00, nothing unheld
    assert (cash["a"].amount.expected, cash["b"].amount.expected) == (Decimal("20.00"), Decimal("60.00"))
    assert (cash["a"].quantity, cash["b"].quantity) == (Decimal("0.25"), Decimal("0.75"))
    assert None not in cash or cash[None].amount.expected == 0
    hours = hours_of(result.summary())
    assert hours == {"a": {"unclassified": "0.25"}, "b": {"unclassified": "0.75"}}


def test_on_an_eight_gpu_node_the_pods_pay_their_eighth_and_the_rest_is_unheld(config):
    facts = Facts(jobs=(pod("a", "0.25", row=1), pod("b", "0.75", row=2)),
                  bill_lines=(bill(at(0), amount="80.00"),))
    result = attribute(facts, config, price_lookup, T0.date())
    cash = [ln for ln in result.lines if ln.basis in CASH_BASES]
    by_run = {ln.run_id: ln.amount.expected for ln in cash if ln.run_id}
    assert by_run == {"a": Decimal("2.50"), "b": Decimal("7.50")}  # 10.00 per GPU-hour
    (idle,) = [ln for ln in cash if ln.basis is Basis.CAPACITY_UNHELD]
    assert (idle.amount.expected, idle.quantity) == (Decimal("70.00"), Decimal(7))


def test_whole_gpus_are_unchanged_and_a_share_overrides_them(config):
    # a row with gpus = 4 and no share holds 4; the same row with gpu_share 0.5 holds half a GPU
    whole = attribute(Facts(jobs=(job("w", start=at(0), end=at(60), gpus=4),),
                            bill_lines=(bill(at(0), amount="80.00"),)), config, price_lookup, T0.date())
    half = attribute(Facts(jobs=(job("w", start=at(0), end=at(60), gpus=4) | {"gpu_share": "0.5"},),
                           bill_lines=(bill(at(0), amount="80.00"),)), config, price_lookup, T0.date())
    assert [ln.amount.expected for ln in whole.lines if ln.run_id] == [Decimal("40.00")]
    assert [ln.amount.expected for ln in half.lines if ln.run_id] == [Decimal("5.00")]


def test_queued_gpu_hours_weigh_the_share(config):
    facts = Facts(jobs=(pod("q", "0.25", start=0, end=60) | {"eligible": at(-120), "submit": at(-120)},))
    (queued,) = [ln for ln in attribute(facts, config, price_lookup, T0.date()).lines if ln.basis is Basis.QUEUED]
    assert queued.quantity == Decimal("0.5")  # 0.25 GPU × 2 h waiting
    assert queued.amount.expected == Decimal("5.0")  # × 10 per GPU-hour


def test_states_of_a_fractional_run_split_its_gpu_hours(config):
    facts = Facts(jobs=(pod("s", "0.5", end=90),),
                  progress_events=(event("s", 30, "step", step=1), event("s", 90, "step", step=2)),
                  bill_lines=(bill(at(0), amount="80.00", row=1), bill(at(60), amount="80.00", row=2)))
    result = attribute(facts, config, price_lookup, T0.date())
    hours = defaultdict(Decimal)
    for ln in result.lines:
        if ln.run_id == "s" and ln.basis in CASH_BASES:
            hours[ln.detail] += ln.quantity
    assert dict(hours) == {S.SETUP: Decimal("0.25"), S.EFFECTIVE: Decimal("0.5")}  # 0.5 GPU × 30 / 60 min
    assert {k: Decimal(v) for k, v in hours_of(result.summary())["s"].items()} == dict(hours)


SHARES = ("0.25", "0.75", "0.5", "0.285714", "0.125", "1", "2.5", "3", None)
placements = st.sampled_from([("n1",), ("n2",), ("n1", "n2"), ("n1", "n2", "n3")])
STEP_TIMES = (None, ("300", "500"), ("1", "3"), ("7", "7"))  # two workers' times: waiting (b - a) / 2b
jobs_st = st.lists(st.tuples(st.integers(0, 150), st.integers(1, 130), placements, st.sampled_from(SHARES),
                             st.sampled_from(["b1", ""]), st.sampled_from(STEP_TIMES)), min_size=1, max_size=6)


def _facts(jobs, prices):
    """Pods packed on nodes: on each node the shares held at any time stay within its 8 GPUs."""
    js, load = [], defaultdict(list)  # node -> [(start, end, share per node)]
    events, steps = [], []
    for i, (start, dur, nodes, share, wckey, *times) in enumerate(jobs):
        gpus = 2 if share is None else 1
        held = Decimal(gpus if share is None else share) / len(nodes)
        s = start
        while any(sum(h for a, b, h in load[n] if a < s + dur and s < b) + held > 8 for n in nodes):
            s += 10
        js.append(job(str(i), start=at(s), end=at(s + dur), gpus=gpus, nodes=",".join(nodes), wckey=wckey,
                      row=i + 1) | {"gpu_share": share})
        for n in nodes:
            load[n].append((s, s + dur, held))
        if times and times[0]:  # effective from a step at start + 1/3 to one at the end, two workers timed
            events += [event(str(i), s + dur / 3, "step", step=1), event(str(i), s + dur, "step", step=2)]
            steps += [{"job": str(i), "worker": w, "iteration": 1, "step_time": t, "unit": "s"}
                      for w, t in enumerate(times[0])]
    end = max(b for xs in load.values() for _, b, _ in xs)
    rows = [bill(at(60 * h), amount=prices[k], resource=n, row=1 + h * 3 + k)
            for h in range(end // 60 + 1) for k, n in enumerate(("n1", "n2", "n3"))]
    return Facts(jobs=tuple(js), bill_lines=tuple(rows), progress_events=tuple(events), worker_steps=tuple(steps))


@settings(max_examples=40, deadline=None)
@given(jobs_st, st.lists(st.sampled_from(["80.00", "99.99", "7.01", "1000.03"]), min_size=3, max_size=3))
def test_fractional_shares_conserve_money_hours_and_price(config, jobs, prices):
    facts = _facts(jobs, prices)
    result = attribute(facts, config, price_lookup, T0.date())
    assert "oversubscribed_node" not in {p.kind for p in result.problems}
    cash = [ln for ln in result.lines if ln.basis in CASH_BASES]
    by_row = defaultdict(Decimal)
    for ln in cash:
        by_row[ln.provenance.row] += ln.amount.expected
    for row in facts.bill_lines:
        assert by_row[row["row"]] == Decimal(row["billed_cost"])
    (rec,) = result.conservation
    assert Decimal(rec["difference"]) == 0
    assert Decimal(rec["billed_total"]) == sum(Decimal(r["billed_cost"]) for r in facts.bill_lines)
    summary = hours_of(result.summary())
    for j in facts.jobs:
        equivalents = Decimal(j["gpus"]) if j["gpu_share"] is None else Decimal(j["gpu_share"])
        held = equivalents * Decimal(int((j["end"] - j["start"]).total_seconds())) / 3600
        on_lines = sum((ln.quantity for ln in cash if ln.run_id == j["job_id"]), Decimal(0))
        assert abs(on_lines - held) < Decimal("1e-20")
        assert abs(sum(Decimal(v) for v in summary[j["job_id"]].values()) - held) < Decimal("1e-20")
        times = jobs[int(j["job_id"])][5]
        waited = sum((ln.quantity for ln in cash if ln.run_id == j["job_id"] and ln.detail == S.STRAGGLER_WAIT),
                     Decimal(0))
        if times and times[0] != times[1]:  # the waiting share of the effective GPU-hours, as the times say
            effective = sum((ln.quantity for ln in cash if ln.run_id == j["job_id"] and ln.detail == S.EFFECTIVE),
                            Decimal(0))
            a, b = Decimal(times[0]), Decimal(times[1])
            assert abs(waited / (waited + effective) - ((b - a) / (2 * b)).quantize(Decimal("0.000001"))) < Decimal(
                "1e-20")
        else:
            assert waited == 0
    # every node-hour's GPU-hours (runs + unheld) are its 8 GPUs, and each line is priced at 1/8 of the row
    hours_by_row = defaultdict(Decimal)
    for ln in cash:
        if ln.quantity is None:  # a node no run held is not split (no_rule_matched)
            assert ln.reason.startswith("no_rule_matched")
            continue
        hours_by_row[ln.provenance.row] += ln.quantity
        price = Decimal(next(r["billed_cost"] for r in facts.bill_lines if r["row"] == ln.provenance.row)) / 8
        # two levels of largest remainder (runs, then a run's states: compute.two_level), each under one
        # minor unit off the exact share: a line is under two units off
        assert abs(ln.amount.expected - ln.quantity * price) < Decimal("0.02")
    assert all(abs(h - 8) < Decimal("1e-20") for h in hours_by_row.values())


def test_the_frame_path_weighs_the_same_shares(config):
    """engine/frame/holdings.py carries GPU-equivalents as integer numerators: equal to the cent."""
    import pytest

    pytest.importorskip("ibis")
    from trainledger.engine.compute import bill_stage
    from trainledger.engine.frame import connect, stage
    from trainledger.engine.frame.oracle import bucket_lines, context, python_bill_buckets

    facts = _facts([(0, 60, ("n1",), "0.25", "b1", None), (0, 60, ("n1",), "0.75", "", ("1", "3")),
                    (10, 100, ("n1", "n2", "n3"), "0.285714", "b1", ("300", "500")),
                    (20, 50, ("n2",), None, "b1", None)], ["80.00", "99.99", "7.01"])
    ctx = context(facts, config, price_lookup, T0.date())
    lines = stage.bill_stage(facts, ctx, connect("duckdb")).lines
    assert [repr(x) for x in lines] == [repr(x) for x in bill_stage(facts, ctx).lines]  # line by line
    frame = bucket_lines(lines)
    python = python_bill_buckets(facts, ctx)
    assert frame == python
    assert python[("batch", "b1", "unclassified", "CNY")] > 0
    assert python[("batch", "b1", "straggler_wait", "CNY")] > 0
