"""Sampler, percentiles and the tornado list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.errors import BadInput
from trainledger.estimate.montecarlo import Pct, Sampler, tornado, triangular
from trainledger.estimate.quantities import Uncertain


def test_triangular_inverse_cdf_matches_the_formula():
    # triangular(0, 1, 4): CDF at the mode is (1-0)/(4-0) = 0.25; the median lies right of it:
    # 1 - (4 - m)^2 / (4 * 3) = 0.5  ->  m = 4 - sqrt(6)
    assert triangular(np.array([0.25]), 0, 1, 4)[0] == pytest.approx(1.0)
    assert triangular(np.array([0.5]), 0, 1, 4)[0] == pytest.approx(4 - 6**0.5)
    assert triangular(np.array([0.0, 1.0]), 0, 1, 4).tolist() == [0.0, 4.0]


def test_same_name_same_stream_regardless_of_order():
    a, b = Sampler(1000, seed=1), Sampler(1000, seed=1)
    x, y = Uncertain("x", 1, 2, 3), Uncertain("y", 5, 6, 9)
    ax, ay = a.draw(x), a.draw(y)
    by, bx = b.draw(y), b.draw(x)
    assert np.array_equal(ax, bx) and np.array_equal(ay, by)


def test_tornado_ranks_the_input_that_moves_the_result_and_drops_noise():
    s = Sampler(20000, seed=3)
    big = s.draw(Uncertain("big", 0, 50, 100))
    mid = s.draw(Uncertain("mid", 0, 10, 20))
    tiny = s.draw(Uncertain("tiny", 0, 0.01, 0.02))
    ranked = tornado(s, big + mid + tiny)
    assert [r.name for r in ranked] == ["big", "mid"]  # "tiny" moves less than sampling noise
    assert ranked[0].swing > 3 * ranked[1].swing
    assert ranked[0].input_low == pytest.approx(float(triangular(np.array([0.1]), 0, 50, 100)[0]))


@settings(max_examples=50, deadline=None)
@given(lo=st.floats(0, 1e6), span=st.floats(0, 1e6), frac=st.floats(0, 1))
def test_p10_le_p50_le_p90(lo, span, frac):
    u = Uncertain("v", lo, lo + span * frac, lo + span)
    p = Pct.of(Sampler(500, seed=11).draw(u))
    assert lo <= p.p10 <= p.p50 <= p.p90 <= lo + span + 1e-6


def test_uncertain_refuses_bad_ranges():
    from trainledger.errors import BadInput

    with pytest.raises(BadInput):
        Uncertain("x", 3, 2, 4)


# ---------------------------------------------------------------- a right tail (troubled runs)

TAIL = dict(tail_p=0.1, tail_low=1.4, tail_mode=2.2, tail_high=4.0)


def test_tail_holds_its_probability_above_the_body():
    s = Sampler(200_000, seed=3)
    x = s.draw(Uncertain("overhead-like", 1.03, 1.11, 1.4, **TAIL))
    assert (x > 1.4).mean() == pytest.approx(0.1, abs=0.005)
    assert x.min() >= 1.03 and x.max() <= 4.0
    assert np.percentile(x, 99) > 2.5  # the troubled runs reach OPT-175B's 2-4x
    body = Sampler(200_000, seed=3).draw(Uncertain("overhead-like", 1.03, 1.11, 1.4))
    assert np.percentile(x, 50) < np.percentile(body, 60)  # the body is not fattened


@settings(max_examples=50, deadline=None)
@given(u=st.lists(st.floats(0, 1), min_size=2, max_size=30), p=st.floats(0.01, 0.5))
def test_tail_quantiles_are_monotone_in_the_uniform(u, p):
    from trainledger.estimate.montecarlo import quantiles

    x = Uncertain("x", 1.0, 1.2, 1.5, tail_p=p, tail_low=1.5, tail_mode=2.0, tail_high=4.0)
    arr = np.sort(np.array(u))
    q = quantiles(arr, x)
    assert np.all(np.diff(q) >= -1e-12)


def test_tail_in_the_drawer_and_refused_when_it_overlaps_the_body():
    row = Uncertain("o", 1.03, 1.11, 1.4, unit="x", evidence="assumed", owner="platform team", **TAIL).as_assumption()
    assert row.high == "4" and "probability 10%" in row.note and "1.4-4" in row.note
    with pytest.raises(BadInput):
        Uncertain("o", 1.0, 1.1, 1.5, tail_p=0.1, tail_low=1.2, tail_mode=2, tail_high=3)
    with pytest.raises(BadInput):
        Uncertain("o", 1.0, 1.1, 1.5, tail_p=1.0, tail_low=1.5, tail_mode=2, tail_high=3)
