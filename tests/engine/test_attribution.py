from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine import Facts, attribute
from trainledger.model import Basis
from trainledger.model.vocab import ComputeState as S

from .factories import T0, at, bill, event, job, price_lookup


def _facts():
    return Facts(
        jobs=(job("100", start=at(0), end=at(90), row=1),
              job("101", start=at(30), end=at(60), wckey="", row=2)),
        bill_lines=(bill(at(0), row=1), bill(at(60), row=2),
                    bill(at(0), amount="5.55", resource="nat-gw", row=3),
                    bill(at(0), amount="7.00", resource="etl-vm", tags='{"batch": "b1"}', row=4)),
        progress_events=(event("100", 10, "step", step=1), event("100", 15, "step", step=2),
                         event("100", 90, "step", step=3)),
    )


def test_hand_worked_node_split(config):
    result = attribute(_facts(), config, price_lookup, T0.date())
    cash = [ln for ln in result.lines if ln.basis in (Basis.BILLED, Basis.CAPACITY_UNHELD)]
    b1 = sum(ln.amount.expected for ln in cash if ln.batch_id == "b1")
    # hour 1: job 100 holds 4 of 8 GPUs all hour (40.00), job 101 4 GPUs half an hour (20.00), idle 20.00
    # hour 2: job 100 4 GPUs for 30 min (20.00), idle 60.00; plus the 7.00 tagged ETL VM
    assert b1 == Decimal("67.00")
    idle = sum(ln.amount.expected for ln in cash if ln.basis is Basis.CAPACITY_UNHELD)
    assert idle == Decimal("80.00")
    orphan = [ln for ln in cash if ln.run_id == "101"]
    assert sum(ln.amount.expected for ln in orphan) == Decimal("20.00") and orphan[0].batch_id is None
    nat = [ln for ln in cash if ln.provenance.row == 3 and ln.provenance.source_kind == "focus"]
    assert nat[0].reason == "no_rule_matched: nat-gw" and nat[0].amount.expected == Decimal("5.55")
    assert result.conservation == [{"currency": "CNY", "billed_total": "172.55", "attributed": "67.00",
                                    "unattributed": "105.55", "difference": "0.00",
                                    "unattributed_by_reason": [
                                        {"reason": "capacity_unheld", "detail": "node n1", "amount": "80.00"},
                                        {"reason": "job_without_batch", "detail": "job 101", "amount": "20.00"},
                                        {"reason": "no_rule_matched", "detail": "nat-gw", "amount": "5.55"}]}]
    setup = [ln for ln in cash if ln.run_id == "100" and ln.detail == S.SETUP]
    assert sum(ln.quantity for ln in setup) == Decimal("4") * 10 / 60  # 4 GPUs × 10 minutes
    kinds = {p.kind for p in result.problems}
    assert "job_without_batch" in kinds and "conservation" not in kinds


def test_queued_time_is_valued_but_never_cash(config):
    facts = Facts(jobs=(job("100", submit=at(-120), start=at(0), end=at(60), gpus=8),))
    result = attribute(facts, config, price_lookup, T0.date())
    queued = [ln for ln in result.lines if ln.basis is Basis.QUEUED]
    assert len(queued) == 1 and queued[0].quantity == Decimal(16)  # 8 GPUs × 2 h
    assert (queued[0].amount.low, queued[0].amount.expected, queued[0].amount.high) == (128, 160, 192)
    assert result.conservation == []  # no bill, no cash: queued value is not in any cash total


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 300), st.integers(1, 240), st.sampled_from([1, 2, 4, 8]),
                          st.sampled_from(["b1", ""])), min_size=1, max_size=8),
       st.lists(st.decimals(min_value=Decimal("-50"), max_value=Decimal("500"), places=4), min_size=1,
                max_size=8))
def test_conservation_under_random_jobs_and_bills(config, jobs, amounts):
    js = tuple(job(str(i), start=at(s), end=at(s + d), gpus=g, wckey=w, row=i + 1)
               for i, (s, d, g, w) in enumerate(jobs))
    bills = tuple(bill(at(60 * i), amount=str(a), row=i + 1) for i, a in enumerate(amounts))
    result = attribute(Facts(jobs=js, bill_lines=bills), config, price_lookup, T0.date())
    for rec in result.conservation:
        assert Decimal(rec["difference"]) == 0
        assert Decimal(rec["billed_total"]) == sum(amounts)


def test_overlapping_sacct_dumps_keep_the_latest_row_per_job(config):
    running = job("100", start=at(0), end=None, state="RUNNING", row=1)
    finished = job("100", start=at(0), end=at(60), state="COMPLETED", row=7)
    for rows in ((running, finished), (finished, running)):
        result = attribute(Facts(jobs=rows), config, price_lookup, T0.date())
        assert list(result.runs) == ["100"]
        assert result.runs["100"].run.state == "COMPLETED" and result.runs["100"].row == 7


def test_a_stale_price_is_used_but_flagged(config):
    from datetime import timedelta

    facts = Facts(jobs=(job("100", submit=at(-60), start=at(0), end=at(60), gpus=8),))
    late = T0.date() + timedelta(days=400)

    def stale_lookup(item, on, unit):
        p = price_lookup(item, on, unit)
        from dataclasses import replace

        return p and replace(p, expires=T0.date() + timedelta(days=30))

    result = attribute(facts, config, stale_lookup, late)
    queued = [ln for ln in result.lines if ln.basis is Basis.QUEUED]
    assert queued[0].amount.expected == 80  # 8 GPU-hours at 10: still valued...
    stale = [p for p in result.problems if p.kind == "stale_price"]
    assert stale and "gpu_hour:h800" in stale[0].message and "expires" in stale[0].message  # ...never silently
    fresh = attribute(facts, config, price_lookup, T0.date())
    assert not [p for p in fresh.problems if p.kind == "stale_price"]


def test_latest_job_rows_keeps_jobs_of_two_clusters_with_one_id():
    from trainledger.engine.runs import latest_job_rows

    a = job("1000", start=at(0), end=at(600), nodes="a1", row=1) | {"cluster": "a"}
    b = job("1000", start=at(0), end=at(120), nodes="b1", row=2) | {"cluster": "b"}
    assert [j["nodes"] for j in latest_job_rows([a, b])] == ["a1", "b1"]


def test_latest_job_rows_keeps_each_allocation_of_a_requeued_job():
    """`sacct -D`: one row per allocation, each with its own Start; a later dump repeats the
    second allocation while it was still running."""
    from trainledger.engine.runs import latest_job_rows

    first = job("2000", start=at(0), end=at(360), state="REQUEUED", row=1)
    running = job("2000", start=at(420), end=None, state="RUNNING", row=2)
    done = job("2000", start=at(420), end=at(540), state="COMPLETED", row=3)
    pending = job("2000", start=None, end=None, state="PENDING", row=4)
    kept = latest_job_rows([pending, first, running, done])
    assert [(j["state"], j["row"]) for j in kept] == [("REQUEUED", 1), ("COMPLETED", 3)]
    alone = latest_job_rows([pending])
    assert [j["state"] for j in alone] == ["PENDING"]


def test_latest_job_rows_breaks_ties_by_import_order():
    from trainledger.engine.runs import latest_job_rows

    older = job("3000", start=at(0), end=at(60), state="COMPLETED", row=9) | {"source_sha256": "f" * 64}
    newer = job("3000", start=at(0), end=at(60), state="COMPLETED", row=1) | {"source_sha256": "0" * 64}
    assert latest_job_rows([older, newer])[0]["source_sha256"] == "0" * 64
    assert latest_job_rows([newer, older])[0]["source_sha256"] == "f" * 64


def test_unpriced_queue_time_is_not_valued_never_zero_measured(config):
    facts = Facts(jobs=(job("100", submit=at(-60), start=at(0), end=at(60), gpus=8),))
    result = attribute(facts, config, lambda item, on, unit: None, T0.date())
    (q,) = [ln for ln in result.lines if ln.basis is Basis.QUEUED]
    assert q.quantity == 8 and q.reason.startswith("not_valued") and str(q.evidence) == "assumed"
    from trainledger.report.sheet_compute import compute_view

    rows, _ = compute_view([q], [], {}, lambda r, exact: {"expected": str(r.expected)})
    assert rows[0]["valued"] is False and rows[0]["amounts"] == []
