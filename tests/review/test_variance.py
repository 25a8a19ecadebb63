"""The four-part split: a hand-worked example, and the identity for any inputs (Hypothesis)."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.review.helpers import R, compute_line, cost, plan_of, run, steps
from trainledger.review import actuals, status, variance
from trainledger.review.plan import Rng

D = Decimal


def golden():
    """Plan: 36 CNY/GPU-h x (100 Mtoken x (2.0 effective + 0.5 overhead) + 10 GPU-h fault-retry
    allowance) = 36 x 260 = 9,360.00 CNY.
    Actual: run r1 (planned) made 80 Mtoken (steps 0 -> 100 at 0.8 Mtoken/step) using 180 effective,
    30 data-stall and 10 setup GPU-hours; rerun r2 (fault_retry, infra_fault) used 25 GPU-hours; the
    bill says 8,700.00 CNY for the 245 GPU-hours."""
    plan = plan_of(compute_line())
    lines = [cost("6600.00", 180, row=1), cost("1050.00", 30, state="data_stall", row=2),
             cost("350.00", 10, state="setup", row=3), cost("700.00", 25, run="r2", row=4)]
    runs = [run("r1"), run("r2", "fault_retry", "infra_fault")]
    progress = steps("r1", (50, 40_000_000), (100, 80_000_000)) + steps("r2", (10, 5_000_000))
    return plan, actuals.collect(plan, lines, runs, progress)


def test_hand_worked_example():
    plan, act = golden()
    assert act.work == D(80)  # r2 is a rerun: its tokens are rework, not useful work
    (lv,) = variance.split(plan, act)
    assert lv.plan == D("9360.00")
    assert lv.actual == D("8700.00")
    # price = A - Pp x Qa = 8,700 - 36 x 245 = -120 (paid 35.51 per GPU-hour, not 36)
    assert lv.price == D("-120")
    # volume = Pp x E x (Wa - Wp) = 36 x 2.5 x (80 - 100) = -1,800
    assert lv.volume == D("-1800")
    # efficiency = Pp x (H - Wa x E) = 36 x (220 - 200) = 720, by state:
    assert lv.efficiency == D("720")
    assert lv.efficiency_by_state == {
        "effective": D("720"),  # 36 x (180 - 80 x 2.0)
        # the plan's overhead stands for the states it does not name: 36 x (30 data-stall + 10 setup - 80 x 0.5)
        "overhead": D("0"),
    }
    # rework = Pp x (Ra - Rp) = 36 x (25 - 10) = 540
    assert lv.rework == D("540")
    assert lv.rework_by["fault_retry"] == D("540") and lv.rework_by["fault_retry/infra_fault"] == D("900")
    assert lv.price + lv.volume + lv.efficiency + lv.rework == lv.actual - lv.plan == D("-660")
    (row,) = variance.by_basis([lv])
    assert row == {"basis": "billed", "currency": "CNY", "plan": "9360.00", "actual": "8700.00",
                   "price": "-120.00", "volume": "-1800.00", "efficiency": "720.00", "rework": "540.00",
                   "other": "0.00", "not_split": "0.00"}


def test_status_figures_of_the_example():
    plan, act = golden()
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    (ev,) = st_["ev"]
    assert ev["expected"] == "7488.00"  # 9,360 x 80 / 100
    (eac,) = st_["eac"]
    # expected: 8,700 + 20 Mtoken left x 108.75 CNY per Mtoken measured = 10,875.00
    assert eac["expected"] == "10875.00"
    assert st_["rounds"] == {"used": 1, "max": 16}  # the fault retry r2 continues a round, it starts none
    kinds = {a["key"] for a in st_["_alerts"]}
    assert {"spend:billed:CNY:50", "spend:billed:CNY:80"} <= kinds and "spend:billed:CNY:100" not in kinds


def test_useful_tokens_of_a_failed_and_a_resumed_run():
    failed = run("f", state="NODE_FAIL")
    ev = steps("f", (100, 100_000), ("ckpt", 80), (120, 120_000))
    assert actuals.useful_tokens(failed, ev) == D(80_000)  # the steps after the last checkpoint are redone
    resumed = run("g")
    ev = steps("g", ("resume", 80), (90, 90_000), (150, 150_000))
    assert actuals.useful_tokens(resumed, ev) == D(70_000)


money = st.decimals(min_value=D(0), max_value=D("1e7"), places=2, allow_nan=False, allow_infinity=False)
qty = st.decimals(min_value=D(0), max_value=D("1e5"), places=4, allow_nan=False, allow_infinity=False)
rate = st.decimals(min_value=D(0), max_value=D(50), places=6, allow_nan=False, allow_infinity=False)


@settings(max_examples=80)
@given(price=st.decimals(min_value=D("0.01"), max_value=D(100), places=4), eff=rate, ovh=rate, allowance=qty,
       work_plan=qty, tokens=st.integers(min_value=0, max_value=10**12),
       lines=st.lists(st.tuples(money, qty, st.sampled_from(["effective", "setup", "hang", "x"]),
                                st.sampled_from(["r1", "r2", None])), max_size=12))
def test_parts_sum_exactly_to_actual_minus_plan(price, eff, ovh, allowance, work_plan, tokens, lines):
    plan = plan_of(compute_line(price=Rng(price, price, price), eff={"effective": Rng(eff, eff, eff),
                                                                    "overhead": Rng(ovh, ovh, ovh)},
                                rework={"fault_retry": Rng(allowance, allowance, allowance)}),
                   work=Rng(work_plan, work_plan, work_plan))
    cl = [cost(a, q, state=s, run=r, row=i + 1) for i, (a, q, s, r) in enumerate(lines)]
    runs = [run("r1"), run("r2", "fault_retry", "infra_fault")]
    act = actuals.collect(plan, cl, runs, steps("r1", (1000, tokens)))
    (lv,) = variance.split(plan, act)
    assert lv.actual == sum((D(str(a)) for a, *_ in lines), D(0))  # summed here, not by the code
    assert lv.price + lv.volume + lv.efficiency + lv.rework + lv.other + lv.not_split == lv.actual - lv.plan
    assert sum(lv.efficiency_by_state.values(), D(0)) == lv.efficiency
    assert sum((v for k, v in lv.rework_by.items() if "/" not in k), D(0)) == lv.rework
    (row,) = variance.by_basis([lv])
    assert sum(D(row[k]) for k in variance.PARTS) == D(row["actual"]) - D(row["plan"])
    # EV never exceeds the planned value of the whole work, whatever was done
    plan_total = plan.totals()[("billed", "CNY")]
    ev = status.earned(plan_total, plan.work, act.work, "CNY")
    cent = D("0.01")  # EV is rounded as the plan is printed (review 7 L4): never above the printed plan
    assert ev.expected <= plan_total.expected.quantize(cent, ROUND_HALF_EVEN)
    assert ev.high <= plan_total.high.quantize(cent, ROUND_HALF_EVEN)


@settings(max_examples=40)
@given(a=money, b=money, q=qty)
def test_unplanned_costs_keep_the_identity(a, b, q):
    plan = plan_of(compute_line())
    cl = [cost(a, q, category="storage", basis="estimate", state="checkpoint"),
          cost(b, q, run="r2", row=2)]
    act = actuals.collect(plan, cl, [run("r2", "fault_retry", "config_error")], [])
    out = variance.split(plan, act)
    for lv in out:
        assert lv.price + lv.volume + lv.efficiency + lv.rework + lv.other + lv.not_split == lv.actual - lv.plan
    assert [lv.line for lv in out] == ["compute", "unplanned:storage"]
    assert R(1).expected == 1


def test_alerts_say_in_words_what_drove_them():
    plan, act = golden()
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    alert = next(a for a in st_["_alerts"] if a["key"] == "spend:billed:CNY:80")
    assert alert["driver"]["en"] == "volume -1,800.00 CNY (-19% of plan): work done 80.00 of planned 100.00 Mtoken"
    assert alert["driver"]["zh-CN"].startswith("工作量 -1,800.00 CNY")
    assert alert["value"] == "8700.00" and alert["bound"] == "80 %" and len(alert["evidence_sha256"]) == 64
    # a data stall of 300 GPU-hours moves efficiency most: it is part of the plan's overhead (a state the
    # plan does not name), so the words give the overhead rate against the plan's: 300 / 80 = 3.75 per Mtoken
    lines = [cost("6600.00", 180, row=1), cost("10800.00", 300, state="data_stall", row=2)]
    act = actuals.collect(plan, lines, [run("r1")], steps("r1", (50, 40_000_000), (100, 80_000_000)))
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    alert = next(a for a in st_["_alerts"] if a["key"] == "spend:billed:CNY:100")
    assert alert["driver"]["en"] == ("efficiency +10,080.00 CNY (+108% of plan): overhead (planned) 3.7500 GPU-hour"
                                     " per Mtoken against plan 0.5000")
    assert "计划额外占用" in alert["driver"]["zh-CN"]


def test_a_gate_gives_the_rules_verdict_only_once_reached():
    rules = ({"id": "slow", "when": ["efficiency_variance_share > 0.5"], "action": "stop"},)
    gates = ({"id": "g1", "at_work": "0.5", "min_spend": "0"}, {"id": "g2", "at_work": "0.9", "min_spend": "0"})
    plan = plan_of(compute_line(), rules=rules, gates=gates)
    lines = [cost("6600.00", 180, row=1), cost("10800.00", 300, state="data_stall", row=2)]
    act = actuals.collect(plan, lines, [run("r1")], steps("r1", (50, 40_000_000), (100, 80_000_000)))
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    g1, g2 = st_["gates"]
    assert g1["reached"] and g1["verdict"]["action"] == "stop" and g1["verdict"]["rule"] == "slow"
    assert not g2["reached"] and g2["verdict"] is None  # 80 of 100 Mtoken: the 0.9 gate is ahead
    assert [a["key"] for a in st_["_alerts"] if a["kind"] == "gate"] == ["gate:g1"]


def test_storage_kept_past_retention_is_rework():
    from trainledger.model import Basis
    from trainledger.review.plan import PlanLine

    storage = PlanLine(id="storage", category="storage", basis=Basis.ESTIMATE, currency="CNY", unit="gib_month",
                       price=R("0.12"), price_meta={}, efficiency={}, fixed={"kept": R(1000)},
                       rework={"retention": R(10)})
    plan = plan_of(storage)
    lines = [cost("96.00", 800, category="storage", basis="estimate", state="checkpoint", run=None, row=1),
             cost("6.00", 50, category="storage", basis="estimate", state="log", run=None, row=2)]
    act = actuals.collect(plan, lines, [], [], beyond_retention=frozenset({("a" * 64, 2)}))
    (lv,) = variance.split(plan, act)
    assert lv.plan == D("121.20")  # 0.12 x (1000 + 10)
    assert lv.price == D("0")  # 102.00 = 0.12 x 850
    assert lv.volume == D("0")  # a one-time quantity does not scale with work
    assert lv.efficiency == D("-24.00")  # 0.12 x (800 - 1000)
    assert lv.rework == D("4.80")  # 0.12 x (50 - 10): the log kept past its retention date
    assert lv.rework_by["retention/log"] == D("6.00")
    assert lv.price + lv.volume + lv.efficiency + lv.rework == lv.actual - lv.plan


def test_a_metric_behind_its_planned_curve_feeds_the_rules():
    curve = {"metric": "loss", "better": "lower", "points": [["0", "2.0"], ["1", "1.0"]]}
    rules = ({"id": "not-learning", "when": ["curve_gap > 0.2"], "action": "stop"},)
    gates = ({"id": "g1", "at_work": "0.5", "min_spend": "0"},)
    plan = plan_of(compute_line(), rules=rules, gates=gates)
    from dataclasses import replace

    plan = replace(plan, curves=(curve,))
    ev = steps("r1", (50, 40_000_000), (100, 80_000_000))
    ev[0]["extra"], ev[1]["extra"] = '{"loss": 1.9}', '{"loss": 1.68}'
    act = actuals.collect(plan, [cost("6600.00", 180)], [run("r1")], ev)
    st_ = status.build(plan, 1, act, variance.split(plan, act))
    (c,) = st_["curves"]
    # 80 of 100 Mtoken: the plan expects 2.0 - 0.8 x 1.0 = 1.2; the newest loss is 1.68: 40 % behind
    assert c["planned"] == "1.20" and c["actual"] == "1.68" and c["gap"] == "0.4000"
    assert st_["gates"][0]["verdict"]["action"] == "stop"
    ev[1]["extra"] = '{"loss": 1.3}'
    act = actuals.collect(plan, [cost("6600.00", 180)], [run("r1")], ev)
    assert status.build(plan, 1, act, variance.split(plan, act))["gates"][0]["verdict"]["action"] == "continue"



def chain_example(explained=None):
    """Plan as ``golden`` (36 CNY/GPU-h; 100 Mtoken x 2.5; 10 GPU-h fault-retry allowance = 9,360.00).
    Actual, all at 36.00 per GPU-hour:
    * f (planned, NODE_FAIL): setup 2, effective 100 (steps 0 → 50, checkpoint at 50: kept),
      lost_progress 10, hang 5 GPU-h; retried by g (fault_retry, infra_fault), which resumes at 50:
      setup 3, effective 55 GPU-h, steps 50 → 100;
    * c1 (planned, FAILED before any progress): unclassified 1 GPU-h; retried by c2 (fault_retry,
      config_error): setup 1, effective 4 GPU-h;
    * d (data_fix, data_quality, on a counter of its own): effective 6 GPU-h — rework whole."""
    plan = plan_of(compute_line())
    spec = [("f", "setup", 2), ("f", "effective", 100), ("f", "lost_progress", 10), ("f", "hang", 5),
            ("g", "setup", 3), ("g", "effective", 55), ("c1", "unclassified", 1), ("c2", "setup", 1),
            ("c2", "effective", 4), ("d", "effective", 6)]
    lines = [cost(str(36 * q), q, state=s, run=r, row=i + 1) for i, (r, s, q) in enumerate(spec)]
    runs = [run("f", state="NODE_FAIL"), run("g", "fault_retry", "infra_fault"), run("c1", state="FAILED"),
            run("c2", "fault_retry", "config_error"), run("d", "data_fix", "data_quality")]
    progress = (steps("f", (25, 20_000_000), (50, 40_000_000), ("ckpt", 50), (60, 48_000_000))
                + steps("g", ("resume", 50), (100, 80_000_000)))
    return plan, actuals.collect(plan, lines, runs, progress, retry_of={"g": "f", "c2": "c1"},
                                 explained=explained)


def test_a_fault_retry_chain_counts_only_its_failure_as_rework():
    plan, act = chain_example()
    assert act.work == D(80)  # f's 40 Mtoken up to its checkpoint and g's 40 after resuming there
    a = act.planned["compute"]
    # failure: f's lost_progress 10 + hang 5 + g's setup 3; c1 whole 1 + c2's setup 1; d whole 6
    assert dict(a.rework) == {("fault_retry", "infra_fault"): D(18), ("fault_retry", "config_error"): D(2),
                              ("data_fix", "data_quality"): D(6)}
    # the retries' new training and f's kept training are effective work, f's first setup too
    assert dict(a.by_state) == {"setup": D(2), "effective": D(159)}
    (lv,) = variance.split(plan, act)
    assert lv.rework_by_kind == {"unforeseeable_fault": D(648), "avoidable_rework": D(288)}  # 36 x 18; 36 x (2 + 6)
    assert lv.rework_by == {"fault_retry": D(360), "fault_retry/infra_fault": D(648),
                            "fault_retry/config_error": D(72), "data_fix": D(216), "data_fix/data_quality": D(216)}
    assert (lv.plan, lv.actual) == (D(9360), D(6732))
    assert lv.price == 0  # 6,732 − 36 x 187
    assert lv.volume == D(-1800)  # 36 x 2.5 x (80 − 100)
    assert lv.efficiency == D(-1404)  # 36 x (161 − 80 x 2.5)
    assert lv.rework == D(576)  # 36 x (26 − 10)
    assert lv.price + lv.volume + lv.efficiency + lv.rework == lv.actual - lv.plan == D(-2628)


def test_the_kind_of_a_failure_is_the_review_class_the_causes_give():
    """A second infra fault with no version change is avoidable rework (engine/causes.explain)."""
    _, act = chain_example({"f": {"cause": "infra_fault", "review_class": "avoidable_rework"}})
    assert dict(act.planned["compute"].rework_kind) == {"avoidable_rework": D(26)}
    _, act = chain_example({"f": {"cause": "goal_change", "review_class": None}})
    a = act.planned["compute"]
    assert a.rework[("fault_retry", "goal_change")] == D(18)  # the failed attempt's cause names the chain
    assert a.rework_kind["needs_review"] == D(18)


chain_lines = st.lists(st.tuples(money, qty, st.sampled_from(
    ["effective", "setup", "hang", "lost_progress", "checkpoint", "credit", "preemption_recovery"]),
    st.sampled_from(["f", "g", "c1", "c2", "d"])), max_size=14)


@settings(max_examples=60)
@given(lines=chain_lines, price=st.decimals(min_value=D("0.01"), max_value=D(100), places=4))
def test_chains_keep_the_identity(lines, price):
    plan = plan_of(compute_line(price=Rng(price, price, price)))
    cl = [cost(a, q, state=s, run=r, row=i + 1) for i, (a, q, s, r) in enumerate(lines)]
    runs = [run("f", state="NODE_FAIL"), run("g", "fault_retry", "infra_fault"), run("c1", state="FAILED"),
            run("c2", "fault_retry", "config_error"), run("d", "data_fix", "data_quality")]
    act = actuals.collect(plan, cl, runs, [], retry_of={"g": "f", "c2": "c1"})
    a = act.planned.get("compute")
    (lv,) = variance.split(plan, act)
    assert lv.actual == sum((D(str(x)) for x, *_ in lines), D(0))
    assert lv.price + lv.volume + lv.efficiency + lv.rework + lv.other + lv.not_split == lv.actual - lv.plan
    if a is not None:  # every line is counted once: by state, as rework or as other charges, never twice
        assert sum(a.by_state_amount.values(), D(0)) + a.rework_amount + a.other_amount == lv.actual
        assert sum(lv.rework_by_kind.values(), D(0)) == price * a.rework_quantity
        assert sum(a.rework_kind_amount.values(), D(0)) == a.rework_amount
        g_new = sum((q.quantize(actuals.QTY) for _, q, s, r in lines if r == "g" and s == "effective"), D(0))
        assert a.by_state.get("effective", D(0)) >= g_new  # the retry's training is never rework
