"""What keeps a job-heavy ``attribute`` (1M Slurm attempts, bench/bench_jobheavy.py) small changes no
figure: the queued stage's many lines made into columns a chunk at a time read back as the same lines,
runs share the values many of them repeat, and the summary's run columns go to the ledger as they are
(``audit.jsonable_each`` equals the whole round trip)."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from enum import StrEnum

import pytest
from hypothesis import given
from hypothesis import strategies as st

from trainledger.engine import Facts, attribute, compute, lines
from trainledger.engine.lines import LineColumns
from trainledger.ledger import audit
from trainledger.model import Basis

from .factories import at, bill, job, price_lookup


def _waiting_jobs(n: int) -> tuple[dict, ...]:
    """Job i waits i + 1 minutes (submitted at 00:00, started then) on 2 GPUs, for 30 minutes."""
    out = []
    for i in range(n):
        j = job(str(9000 + i), start=at(i + 1), end=at(i + 31), gpus=2, submit=at(0), row=i + 1)
        out.append(j)
    return tuple(out)


def _queued(result):
    return [ln for ln in result.lines if ln.basis is Basis.QUEUED]


def test_many_queued_lines_held_as_columns_read_back_as_the_lines_of_few(config, monkeypatch):
    facts = Facts(jobs=_waiting_jobs(7), bill_lines=(bill(at(0), hours=2),))
    few = attribute(facts, config, price_lookup, date(2026, 11, 2))
    monkeypatch.setattr(lines, "BATCH", 3)  # 7 lines: chunks of 3, 3 and 1
    out = compute.queued_stage(facts, few_ctx(facts, config))
    assert isinstance(out.lines, LineColumns) and len(out.lines) == 7
    many = attribute(facts, config, price_lookup, date(2026, 11, 2))
    assert _queued(many) == _queued(few)  # the same lines, in the same order
    # by hand: job i waited (i + 1) min on 2 GPUs = (i + 1) / 30 GPU-hours at 10 CNY (8..12)
    assert [ln.quantity for ln in _queued(many)] == [Decimal(i + 1) * 2 / 60 for i in range(7)]
    assert sum(ln.quantity for ln in _queued(many)) == Decimal(56) / 60  # 28 GPU-minutes × 2
    # at 10 CNY a GPU-hour, (i + 1) / 3 CNY each to 8 places: 0.33333333 + 0.66666667 + 1 + ... + 2.33333333
    assert sum(ln.amount.expected for ln in _queued(many)) == Decimal("9.33333333")


def few_ctx(facts, config):
    """The context ``attribute`` gives its stages (runs derived), as engine/__init__.py builds it."""
    from dataclasses import replace

    from trainledger.engine import context, rules, runs
    from trainledger.engine.asof import latest_fact_time

    cutoff = at(24 * 60)
    ctx = context.Context(config=config, matcher=rules.matcher(config.rules, (b.id for b in config.batches)),
                          price=price_lookup, as_of=date(2026, 11, 2), cutoff=cutoff, as_of_time=None,
                          facts_time=latest_fact_time(facts))
    return replace(ctx, runs=runs.derive_runs(facts, ctx)[0])


def test_runs_share_the_values_they_repeat_and_keep_their_own_eligible(config):
    jobs = list(_waiting_jobs(3))
    late = dict(jobs[2], eligible=at(0) + timedelta(seconds=90))  # held 90 s after its submit
    facts = Facts(jobs=(*jobs[:2], late), bill_lines=(bill(at(0), hours=2),))
    infos = list(few_ctx(facts, config).runs.values())
    a, b, c = infos
    assert a.batch_id == "b1" and a.batch_id is b.batch_id is c.batch_id
    assert a.run.state is b.run.state and a.source_sha256 is b.source_sha256 is c.source_sha256
    assert a.nodes is b.nodes and a.facts.versions is b.facts.versions
    assert a.eligible is a.run.submitted_at  # the same time: one object
    assert c.eligible == at(0) + timedelta(seconds=90) and c.eligible != c.run.submitted_at
    assert not hasattr(a, "__dict__") and not hasattr(a.facts, "__dict__")  # slots: no dict a run
    result = attribute(facts, config, price_lookup, date(2026, 11, 2))
    late_line = next(ln for ln in _queued(result) if ln.run_id == "9002")
    assert late_line.quantity == Decimal(90) * 2 / 3600  # from its Eligible 00:01:30 to its start 00:03


class Kind(StrEnum):
    A = "a"


json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5) | st.decimals(allow_nan=False, places=2)
    | st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([Kind.A]) | st.dates(),
    lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
    | st.dictionaries(st.text(max_size=3) | st.integers(0, 3) | st.none(), inner, max_size=4),
    max_leaves=20)


@given(st.dictionaries(st.text(max_size=4) | st.integers(0, 2), json_like, max_size=5))
def test_jsonable_each_is_the_whole_round_trip(value):
    assert audit.jsonable_each(value) == audit.jsonable(value)
    assert audit.canonical(audit.jsonable_each(value)) == audit.canonical(audit.jsonable(value))


def test_a_plain_column_is_kept_and_the_rest_converted():
    column = ["r1", None, "r2"]
    summary = {"run_columns": {"facts": {"run_id": column, "versions": [["", "v"], ["", ""]]}},
               "conservation": [{"billed": Decimal("1.50"), "kind": Kind.A, "dims": (1, 2)}]}
    out = audit.jsonable_each(summary)
    assert out["run_columns"]["facts"]["run_id"] is column  # no second copy of a million run ids
    assert out["conservation"] == [{"billed": "1.50", "kind": "a", "dims": [1, 2]}]
    assert list(out) == list(summary)  # the keys in their order: the stored JSON text is the same
    for not_plain in ({"x": (1,)}, {"x": Kind.A}, {"x": [Decimal(1)]}, {1: "a"}, [float("inf")]):
        assert not audit.is_plain(not_plain)
    with pytest.raises(ValueError):
        audit.jsonable_each({"x": float("nan")})  # as the round trip refuses it
