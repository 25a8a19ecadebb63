"""Guided classification (seed 004's three questions) and overhead calibration."""

from __future__ import annotations

import pytest

from trainledger.errors import BadInput
from trainledger.estimate.calibrate import overhead_from_history
from trainledger.estimate.priors import overhead_prior
from trainledger.estimate.tasks import classify
from trainledger.model.vocab import Evidence, TaskType


@pytest.mark.parametrize(
    ("changes", "labelled", "existing", "expected"),
    [
        (False, 5000, True, TaskType.RAG),
        (True, 0, False, TaskType.PRETRAIN),
        (True, 0, True, TaskType.CONTINUED_PRETRAIN),
        (True, 20_000, True, TaskType.LORA),
        (True, 500_000, True, TaskType.FULL_FINETUNE),
    ],
)
def test_classify(changes, labelled, existing, expected):
    c = classify(changes, labelled, True, from_existing_model=existing)
    assert c.task is expected
    assert c.reasons_en and c.reasons_zh and len(c.reasons_en) == len(c.reasons_zh)


def test_memory_constrained_small_finetune_is_qlora():
    assert classify(True, 2000, False, memory_constrained=True).task is TaskType.QLORA


def test_rounds_question_sets_the_rounds_hint():
    assert classify(True, 0, True).rounds_hint[2] > classify(True, 0, False).rounds_hint[2]


def test_no_history_gives_the_sourced_prior():
    assert overhead_from_history([]) == overhead_prior("pretrain")


def test_five_batches_stand_alone():
    u = overhead_from_history(["1.2", "1.4", "1.3", "1.9", "1.25"])
    assert (u.low, u.mode, u.high) == (1.2, 1.3, 1.9)
    assert u.evidence is Evidence.MEASURED and "5 finished batches" in u.source


def test_few_batches_widen_the_prior():
    prior = overhead_prior("pretrain")
    u = overhead_from_history([2.0, 2.2])
    assert u.low == prior.low and u.high == 2.2 and u.mode == pytest.approx(2.1)


def test_ratio_below_one_is_refused():
    with pytest.raises(BadInput, match="below 1"):
        overhead_from_history([1.2, 0.8])


@pytest.mark.parametrize(
    ("changes", "labelled", "existing", "key"),
    [
        (False, 0, True, "rag"),
        (True, 0, False, "pretrain"),
        (True, 0, True, "continued_pretrain"),
        (True, 500, True, "finetune"),
    ],
)
def test_rounds_hint_is_the_tasks_sourced_prior_scaled_by_the_answer(changes, labelled, existing, key):
    from trainledger.estimate.priors import rounds_prior

    prior = rounds_prior({"finetune": "lora"}.get(key, key))
    yes = classify(changes, labelled, True, from_existing_model=existing)
    no = classify(changes, labelled, False, from_existing_model=existing)
    assert yes.rounds_hint == (prior.low, prior.mode, prior.high)  # several rounds: the prior itself
    assert no.rounds_hint == tuple(1 + (x - 1) * 0.5 for x in (prior.low, prior.mode, prior.high))
    assert f"{prior.high:.3g}" in yes.reasons_en[-1]


def test_few_batches_keep_the_priors_troubled_run_tail_above_them():
    u = overhead_from_history([1.2, 1.6])
    prior = overhead_prior("pretrain")
    assert u.high == 1.6 and u.tail_p == prior.tail_p and u.tail_low >= 1.6 and u.tail_high == prior.tail_high
    assert not overhead_from_history([1.2, 1.4, 1.3, 1.9, 1.25]).has_tail  # five batches stand alone
