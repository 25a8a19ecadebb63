"""A partition's row hashes as sorted 128-bit integers: duplicates and repeats in bounded memory.

A row hash is 32 hex digits (128 bits, either version of ``keys.py``); ``KeySet`` holds each
as two uint64 (16 bytes, not the ~80 an Arrow hash table of strings takes per row: a 10M-row
partition needs ~0.5 GB here,
~2 GB there), sorted once (``_order``). Identical hashes form a *group*; ``see`` takes the
hashes of another partition, a row group at a time, and counts how many copies of each group it
holds. A hash that is not 32 hex digits (none is, by construction) is spelled by its own
blake2b-128 digest, so equal texts still meet.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

_HEX = np.full(256, 255, dtype=np.uint8)
for _i, _c in enumerate(b"0123456789abcdef"):
    _HEX[_c] = _i


def codes(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """(n, 2) uint64: each 32-hex-digit text as its 128 bits (other texts: their digest)."""
    chunks = arr.chunks if isinstance(arr, pa.ChunkedArray) else [arr]
    out = [_chunk_codes(c) for c in chunks if len(c)]
    return np.concatenate(out) if out else np.zeros((0, 2), dtype=np.uint64)


def _chunk_codes(chunk: pa.Array) -> np.ndarray:
    if pa.types.is_large_string(chunk.type):
        chunk = pc.cast(chunk, pa.string())
    n = len(chunk)
    off = np.frombuffer(chunk.buffers()[1], dtype=np.int32)[chunk.offset : chunk.offset + n + 1]
    if chunk.null_count == 0 and np.all(np.diff(off) == 32):
        data = np.frombuffer(chunk.buffers()[2], dtype=np.uint8)[off[0] : off[-1]].reshape(n, 32)
        nib = _HEX[data]
        if not (nib == 255).any():
            raw = (nib[:, 0::2] << 4) | nib[:, 1::2]
            return np.ascontiguousarray(raw).view(np.uint64).reshape(n, 2)
    digests = b"".join(
        hashlib.blake2b(("" if v is None else v).encode("utf-8", "surrogatepass"), digest_size=16).digest()
        for v in chunk.to_pylist()
    )
    return np.frombuffer(digests, dtype=np.uint64).reshape(n, 2).copy()


def _order(keys: np.ndarray) -> np.ndarray:
    """The stable order of ``keys`` by (first, second) word, as ``np.lexsort`` gives it, at the
    cost of one unstable sort of the first words (numpy's SIMD sort): only rows whose first
    word another row shares (repeats, and the odd 64-bit meeting) are then ordered by
    (second word, file order)."""
    a = keys[:, 0]
    order = np.argsort(a)
    if len(order) < 2:
        return order
    sa = a[order]
    tie = np.zeros(len(order), dtype=bool)
    same = sa[1:] == sa[:-1]
    tie[1:] |= same
    tie[:-1] |= same
    if tie.any():
        pos = np.flatnonzero(tie)  # whole runs of equal first words, in sorted position
        sub = order[pos]
        order[pos] = sub[np.lexsort((sub, keys[sub, 1], a[sub]))]
    return order


class KeySet:
    """The hashes of one partition: ``group`` of each row (equal hashes, equal group), each
    group's ``size``, each row's ``rank`` among its group's rows (0 for the first in file order),
    and ``theirs``: copies of each group seen in other partitions."""

    def __init__(self, keys: np.ndarray) -> None:
        n = len(keys)
        self.n = n
        order = _order(keys)  # equal hashes keep file order
        self._a, self._b = keys[order, 0], keys[order, 1]
        new = np.ones(n, dtype=bool)
        if n > 1:
            new[1:] = (self._a[1:] != self._a[:-1]) | (self._b[1:] != self._b[:-1])
        gid_sorted = np.cumsum(new) - 1
        starts = np.flatnonzero(new)
        self._gid_sorted = gid_sorted
        self.group = np.empty(n, dtype=np.int64)
        self.group[order] = gid_sorted
        self.size = np.diff(np.r_[starts, n]) if n else np.zeros(0, dtype=np.int64)
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[order] = np.arange(n) - starts[gid_sorted] if n else np.zeros(0, dtype=np.int64)
        self.theirs = np.zeros(len(starts), dtype=np.int64)

    @classmethod
    def of_file(cls, pf: pq.ParquetFile, column: str) -> KeySet:
        parts = [codes(pf.read_row_group(g, columns=[column]).column(0)) for g in range(pf.num_row_groups)]
        return cls(np.concatenate(parts) if parts else np.zeros((0, 2), dtype=np.uint64))

    def see(self, arr: pa.Array | pa.ChunkedArray) -> None:
        """Count, per group, the copies of its hash among ``arr`` (another partition's)."""
        if not self.n or not len(arr):
            return
        theirs = codes(arr)
        a, b = theirs[:, 0], theirs[:, 1]
        lo = np.searchsorted(self._a, a, "left")
        hi = np.searchsorted(self._a, a, "right")
        hit = np.flatnonzero(hi > lo)
        if not len(hit):
            return
        first = lo[hit]
        one = self._gid_sorted[first] == self._gid_sorted[hi[hit] - 1]  # one group for this a
        simple = hit[one]
        at = lo[simple]
        match = self._b[at] == b[simple]
        np.add.at(self.theirs, self._gid_sorted[at[match]], 1)
        for j in hit[~one]:  # two hashes share their first 64 bits: find the exact one
            span = slice(int(lo[j]), int(hi[j]))
            where = np.flatnonzero(self._b[span] == b[j])
            if len(where):
                self.theirs[self._gid_sorted[span.start + int(where[0])]] += 1

    def held(self) -> np.ndarray:
        """Per row: whether other partitions hold a copy of it beyond its earlier equals (the
        k-th copy in this partition is held when they hold at least k)."""
        return self.rank < self.theirs[self.group]

    def repeated(self) -> np.ndarray:
        """Per row: whether its hash repeats within this partition."""
        return self.size[self.group] > 1
