"""Money tests that catch real mistakes (trust issue, item 11).

Each test below was checked against a hand-made mutation of the engine (applied, seen failing,
reverted): conservation reporting one direction of error only; a multi-node job weighting every
node with its full GPU count; the 3× hang rule removed; "last rule wins" instead of "first"; hang
counted as effective in calibration. Figures are worked by hand in the comments.
"""

from datetime import timedelta
from decimal import Decimal

import pytest

from trainledger.engine import Facts, attribute, conservation
from trainledger.engine.rules import matcher
from trainledger.engine.summary_runs import hours_of
from trainledger.engine.timeline import classify
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.model.vocab import ComputeState as S
from trainledger.workspace import Rule

from .factories import SHA_BILL, T0, at, bill, event, job, price_lookup


def _cash_line(amount: str, batch: str | None = "b1") -> CostLine:
    a = Decimal(amount)
    return CostLine(category="compute", basis=Basis.BILLED, evidence=Evidence.CONTRACT,
                    amount=AmountRange(a, a, a, "CNY"), provenance=Provenance(SHA_BILL, 1, "r", "focus"),
                    batch_id=batch, reason="" if batch else "no_rule_matched: x")


@pytest.mark.parametrize(("lines", "side", "diff"), [
    (("60.00", "30.00"), "too little", "10.00"),  # 90 of a 100 bill: under-attributed
    (("60.00", "50.00"), "too much", "-10.00"),  # 110 of a 100 bill: over-attributed
])
def test_conservation_reports_both_directions_of_error(lines, side, diff):
    facts = Facts(bill_lines=(bill(at(0), amount="100.00"),))
    records, problems = conservation.check(facts, [_cash_line(lines[0]), _cash_line(lines[1], None)])
    assert records[0]["difference"] == diff
    assert len(problems) == 1 and problems[0].kind == "conservation" and side in problems[0].message
    exact, none = conservation.check(facts, [_cash_line("60.00"), _cash_line("40.00", None)])
    assert exact[0]["difference"] == "0.00" and none == []


def _by_run(result, run):
    return sum((ln.amount.expected for ln in result.lines if ln.run_id == run and ln.basis is Basis.BILLED),
               Decimal(0))


def test_a_two_node_job_holds_half_its_gpus_on_each_node(config):
    # job 200: 8 GPUs on n1+n2 (4 each) for an hour; job 201: 4 GPUs on n1 for the hour.
    # n1 (80.00): 200 holds 4/8 → 40.00, 201 holds 4/8 → 40.00; n2 (80.00): 200 → 40.00, unheld 40.00.
    facts = Facts(jobs=(job("200", start=at(0), end=at(60), gpus=8, nodes="n1,n2", row=1),
                        job("201", start=at(0), end=at(60), gpus=4, nodes="n1", wckey="", row=2)),
                  bill_lines=(bill(at(0), resource="n1", row=1), bill(at(0), resource="n2", row=2)))
    result = attribute(facts, config, price_lookup, T0.date())
    assert _by_run(result, "200") == Decimal("80.00")
    assert _by_run(result, "201") == Decimal("40.00")
    unheld = [ln for ln in result.lines if ln.detail == S.CAPACITY_UNHELD]
    assert [(ln.reason, ln.amount.expected, ln.quantity) for ln in unheld] == [
        ("capacity_unheld: node n2", Decimal("40.00"), Decimal(4))]
    assert sum(ln.quantity for ln in result.lines if ln.run_id == "200") == Decimal(8)  # 8 GPUs × 1 h
    assert not [p for p in result.problems if p.kind == "oversubscribed_node"]


def test_a_four_node_job_for_half_an_hour(config):
    # 32 GPUs on n1..n4 (8 each) for 30 minutes; each node-hour 80.00 → 40.00 to the job, 40.00 unheld.
    nodes = ("n1", "n2", "n3", "n4")
    facts = Facts(jobs=(job("300", start=at(0), end=at(30), gpus=32, nodes=",".join(nodes)),),
                  bill_lines=tuple(bill(at(0), resource=n, row=i + 1) for i, n in enumerate(nodes)))
    result = attribute(facts, config, price_lookup, T0.date())
    assert _by_run(result, "300") == Decimal("160.00")
    per_node = {ln.provenance.row: ln.amount.expected for ln in result.lines if ln.run_id == "300"}
    assert per_node == {1: Decimal("40.00"), 2: Decimal("40.00"), 3: Decimal("40.00"), 4: Decimal("40.00")}
    assert sum(ln.quantity for ln in result.lines if ln.run_id == "300") == Decimal(16)  # 32 GPUs × 0.5 h
    assert result.conservation[0]["unattributed"] == "160.00"


def _steps(minutes):
    return [event("r", m, "step", step=i) for i, m in enumerate(minutes)]


def test_the_three_times_cadence_rule_decides_a_hang():
    # steps every 10 min, so the usual interval is 10 and the limit max(15, 3 × 10) = 30 minutes:
    # a 25-minute gap is slow progress, not a hang; a 35-minute gap is a hang from 10 min after
    # the step before it (the usual interval) until the next step.
    slow = _steps([0, 10, 20, 30, 55, 65, 75])
    segs = classify(at(0), at(75), "COMPLETED", slow, stale_gap=timedelta(minutes=15))
    assert {s.state for s in segs} == {S.EFFECTIVE}
    stuck = _steps([0, 10, 20, 30, 65, 75, 85])
    segs = classify(at(0), at(85), "COMPLETED", stuck, stale_gap=timedelta(minutes=15))
    hang = [(s.start, s.end) for s in segs if s.state is S.HANG]
    assert hang == [(at(40), at(65))]


def test_the_stale_gap_floor_decides_when_steps_are_fast():
    # steps every minute: 3 × 1 = 3 minutes, but the floor is the 15-minute stale gap, so an
    # 8-minute pause is not a hang and a 20-minute one is.
    fast = _steps([0, 1, 2, 3, 11, 12, 13, 33, 34])
    segs = classify(at(0), at(34), "COMPLETED", fast, stale_gap=timedelta(minutes=15))
    assert [(s.start, s.end) for s in segs if s.state is S.HANG] == [(at(14), at(33))]


def test_the_first_matching_rule_wins():
    rules = (Rule(id="exact", source="slurm", field="wckey", match="exact", pattern="x-1", batch="b1"),
             Rule(id="prefix", source="slurm", field="wckey", match="prefix", pattern="x", batch="b2"))
    m = matcher(rules, ("b1", "b2"))
    assert m.match("slurm", {"wckey": "x-1"}) == ("b1", "exact")
    assert m.match("slurm", {"wckey": "x-2"}) == ("b2", "prefix")
    flipped = matcher(rules[::-1], ("b1", "b2"))
    assert flipped.match("slurm", {"wckey": "x-1"}) == ("b2", "prefix")


def test_two_rules_matching_one_bill_row(tmp_path):
    """Through the whole engine: the row's money goes to the first rule's batch."""
    import textwrap

    from trainledger import workspace

    from .factories import CONFIG

    extra = """
    [[batches]]
    id = "b2"
    project = "p1"
    goal = "g"
    data_snapshot = "ds2"
    data_processing_version = "v1"
    model_version = "m1"
    code_version = "c1"
    config_version = "cfg2"
    team = "t"
    [[rules]]
    id = "by-resource"
    source = "focus"
    field = "resource_id"
    match = "exact"
    pattern = "etl-vm"
    batch = "b2"
    """
    (tmp_path / "trainledger.toml").write_text(textwrap.dedent(CONFIG) + textwrap.dedent(extra), encoding="utf-8")
    cfg = workspace.load(tmp_path)
    row = bill(at(0), amount="7.00", resource="etl-vm", tags='{"batch": "b1"}')  # both "tag" and "by-resource"
    result = attribute(Facts(bill_lines=(row,)), cfg, price_lookup, T0.date())
    (line,) = result.lines
    assert (line.batch_id, line.provenance.rule) == ("b1", "tag")


SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|train|a|b1|run=r1|u|2026-11-02T00:00:00|2026-11-02T00:00:00|2026-11-02T00:00:00|2026-11-02T02:00:00|COMPLETED|0:0|billing=8,cpu=8,gres/gpu:h800=8,mem=100G,node=1|n1|0
"""


def test_calibration_reads_held_over_effective_from_a_real_ledger(tmp_path):
    """One 8-GPU job, 120 minutes held: setup 0-10, steps every 5 min 10-50 and 80-100 (a hang from
    55 to 80: 25 min > max(15, 3 × 5)), then 20 min with no progress signal. Effective is
    45 + 20 = 65 minutes, so held / effective = 120 / 65 — hang is not effective."""
    import json
    import textwrap

    from trainledger.service import Workspace, finished_batch_ratios

    from ..configs import ONE_BATCH

    root = tmp_path / "ws"
    Workspace.init(root, currency="CNY").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(ONE_BATCH) + '\n[[rules]]\nid = "w"\nsource = "slurm"\nfield = "wckey"\n'
                'match = "template"\n')
    (root / "sacct.txt").write_text(SACCT, encoding="utf-8")
    steps = [*range(10, 51, 5), *range(80, 101, 5)]
    (root / "progress.jsonl").write_text("".join(
        json.dumps({"ts": (T0 + timedelta(minutes=m)).isoformat(), "run": "7001", "event": "step", "step": i}) + "\n"
        for i, m in enumerate(steps)), encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [root / "sacct.txt"], options={"tz": "UTC"})
        wsp.import_files("progress", [root / "progress.jsonl"])
        wsp.attribute()
        hours = hours_of(wsp.ledger.latest_attribution()["summary"])["r1"]
        assert Decimal(hours["hang"]) == Decimal(8) * 25 / 60
        assert finished_batch_ratios(wsp) == [pytest.approx(120 / 65, rel=1e-12)]
