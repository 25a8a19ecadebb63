"""A progress log divides a run's GPU-seconds into states; it must not move money between runs,
batches and the unattributed bucket (review finding 12: 317.7192 → 317.7191 after a progress import)."""

from collections import defaultdict
from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.engine import Facts, attribute
from trainledger.model import Basis

from .factories import T0, at, bill, event, job, price_lookup


def _totals(result):
    out: dict[object, Decimal] = defaultdict(Decimal)
    for ln in result.lines:
        if ln.basis in (Basis.BILLED, Basis.ALLOCATED_IDLE):
            out[(ln.run_id, ln.batch_id, ln.reason)] += ln.amount.expected
    return dict(out)


def test_hand_case_progress_moves_nothing(config):
    # one bill hour of 32.7726 on n1 (8 GPUs): job 100 (batch b1) 1 GPU, job 101 (no batch) 5 GPUs,
    # 2 idle: 4.0966 / 20.4829 / 8.1931 by largest remainder over 1:5:2. Run 100's progress log
    # divides its hour into states; before the fix the remainders were taken over those states
    # and the batch lost 0.0001 to the idle bucket (4.0965 / 8.1932), the reviewer's symptom.
    jobs = (job("100", start=at(0), end=at(60), gpus=1, row=1),
            job("101", start=at(0), end=at(60), gpus=5, wckey="", row=2))
    bills = (bill(at(0), amount="32.7726", row=1),)
    prog = (event("100", 7, "step", step=1), event("100", 19, "step", step=2), event("100", 53, "step", step=3))
    for facts in (Facts(jobs=jobs, bill_lines=bills), Facts(jobs=jobs, bill_lines=bills, progress_events=prog)):
        result = attribute(facts, config, price_lookup, T0.date())
        assert _per_run(result) == {"100": Decimal("4.0966"), "101": Decimal("20.4829"), None: Decimal("8.1931")}
    assert len([ln for ln in result.lines if ln.run_id == "100"]) > 1  # the log did split run 100


def _per_run(result):
    out: dict[object, Decimal] = defaultdict(Decimal)
    for (run, _b, _r), v in _totals(result).items():
        out[run] += v
    return dict(out)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 59), min_size=1, max_size=6, unique=True),
       st.sampled_from([1, 2, 3, 5, 7]), st.sampled_from([1, 3, 5]),
       st.decimals(min_value=Decimal("0.0001"), max_value=Decimal("99"), places=4))
def test_progress_never_changes_a_run_total(config, minutes, g1, g2, amount):
    jobs = (job("100", start=at(0), end=at(60), gpus=g1, row=1),
            job("101", start=at(0), end=at(60), gpus=g2, wckey="", row=2))
    bills = (bill(at(0), amount=str(amount), row=1),)
    prog = tuple(event("100", m, "step", step=i + 1) for i, m in enumerate(sorted(minutes)))
    plain = attribute(Facts(jobs=jobs, bill_lines=bills), config, price_lookup, T0.date())
    with_prog = attribute(Facts(jobs=jobs, bill_lines=bills, progress_events=prog), config, price_lookup, T0.date())

    assert _per_run(with_prog) == _per_run(plain)
