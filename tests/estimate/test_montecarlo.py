"""Sampler, percentiles and the tornado list."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
