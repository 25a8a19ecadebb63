"""``ingest.keyset``: row hashes as sorted 128-bit integers give the groups, ranks and copies in
other partitions that the Arrow reference (value counts, membership) gives."""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger.ingest.keyset import KeySet, _order, codes


def hexes(ints: list[int]) -> list[str]:
    return [hashlib.blake2b(str(i).encode(), digest_size=16).hexdigest() for i in ints]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, 12), max_size=40), st.lists(st.integers(0, 12), max_size=40))
def test_held_and_repeated_equal_counting_copies(mine, theirs):
    own, other = hexes(mine), hexes(theirs)
    ks = KeySet(codes(pa.array(own, pa.string())))
    half = len(other) // 2  # seen in two pieces, as two row groups
    ks.see(pa.array(other[:half], pa.string()))
    ks.see(pa.chunked_array([pa.array(other[half:], pa.string())], pa.string()))
    seen: dict[str, int] = {}
    want_held = []
    for k in own:
        want_held.append(seen.get(k, 0) < other.count(k))
        seen[k] = seen.get(k, 0) + 1
    assert ks.held().tolist() == want_held
    assert ks.repeated().tolist() == [own.count(k) > 1 for k in own]


def test_keys_sharing_their_first_64_bits_stay_apart():
    a = "00" * 8 + "11" * 8
    b = "00" * 8 + "22" * 8
    ks = KeySet(codes(pa.array([a, b, a])))
    ks.see(pa.array([b, b, "00" * 8 + "33" * 8]))
    assert ks.held().tolist() == [False, True, False]
    assert ks.repeated().tolist() == [True, False, True]


def test_text_that_is_not_a_hex_hash_still_meets_its_equal():
    got = codes(pa.array(["not-a-hash", "not-a-hash", "other"]))
    assert (got[0] == got[1]).all() and not (got[0] == got[2]).all()
    assert codes(pa.array([], pa.string())).shape == (0, 2)
    assert np.array_equal(codes(pa.array(["ab" * 16])), codes(pa.array(["x", "ab" * 16]).slice(1)))


def test_the_sort_order_is_lexsorts_stable_order():
    """``_order`` (an unstable SIMD sort plus a fix-up of the rows sharing a first word) gives
    exactly ``np.lexsort``'s stable order: equal hashes in file order, ties on the first word
    broken by the second."""
    rng = np.random.default_rng(8)
    for n, spread in [(0, 2), (1, 2), (2, 1), (500, 3), (500, 1 << 60), (3000, 50), (3000, 1)]:
        for _ in range(5):
            a = rng.integers(0, spread, size=n).astype(np.uint64)
            b = rng.integers(0, 3, size=n).astype(np.uint64)
            keys = np.stack([a, b], axis=1) if n else np.zeros((0, 2), dtype=np.uint64)
            assert np.array_equal(_order(keys), np.lexsort((keys[:, 1], keys[:, 0])))
