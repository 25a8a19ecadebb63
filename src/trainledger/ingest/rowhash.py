"""Row hash version 3: the same canonical items as version 2, digested a column at a time.

Version 2 (``keys.content_key_v2``) joins a row's items with NUL and runs blake2b once per row
in Python: at 1M rows that loop, and the DuckDB concatenation before it, were ~40 % of ``import
focus``. Version 3 digests each *item* on its own (once per distinct value of a column, with
numpy over the Arrow buffers) and folds the rows' item digests together with a few numpy
operations per column — nothing runs per row in Python. ``item_digest`` / ``content_key_v3``
are the reference (one list at a time, plain Python integers); ``hash_columns`` is the same
function over columns, and the tests hold them equal (``tests/ingest/test_rowhash.py``).

The definition (every number below is unsigned 64-bit arithmetic, modulo 2**64; lanes k = 0, 1):

- an item is text (its UTF-8 bytes, lone surrogates as ``surrogatepass`` writes them) or any
  other value (``0xFF`` then the UTF-8 of its compact JSON: ``0xFF`` never occurs in UTF-8, so
  the text ``"1"`` and the number ``1`` differ, and no delimiter is needed anywhere);
- ``digest(b, seed)`` of bytes ``b`` (length L) is, per lane, ``h = seed[k] ^ (L * P[1-k])``,
  then for each 8-byte little-endian word ``w`` of ``b`` (the last one zero-padded)
  ``h = (h ^ w) * P[k]; h ^= h >> 29``, and last ``fmix64(h)`` (MurmurHash3's finaliser);
- the items are taken in pairs (name, value); a pair's digest is ``digest(value, digest(name,
  IV))``; a list of odd length ends with a lone item, digested as ``digest(item, IV_LONE)``;
- a row's hash is, from ``H = IV_ROW``, per pair digest ``p`` in order ``H = (rotl(H, 23) ^ p)
  * Q[k]``, then ``H = fmix64(H ^ (count * P[k]))`` with ``count`` the number of digests; it
  is written as 32 hex digits, lane 0 then lane 1, each big-endian (the width of version 2's
  blake2b-128, so the lake's column and ``keyset`` are unchanged).

It is a fast non-cryptographic hash (a multiply-xorshift in the family of MurmurHash and
wyhash): for rows nobody crafted, two different rows meet with odds of about 2**-128; it is no
defence against a bill *built* to collide with another. The file's own content hash (SHA-256)
is unchanged.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

M64 = (1 << 64) - 1
P = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F)
Q = (0xD6E8FEB86659FD93, 0xA0761D6478BD642F)
IV = (0x6A09E667F3BCC908, 0xBB67AE8584CAA73B)  # the fractional parts of sqrt(2), sqrt(3)
IV_LONE = (0x3C6EF372FE94F82B, 0xA54FF53A5F1D36F1)  # of sqrt(5), sqrt(7)
IV_ROW = (0x510E527FADE682D1, 0x9B05688C2B3E6C1F)  # of sqrt(11), sqrt(13)
JSON_MARK = b"\xff"

_KEY_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), default=str).encode


# -- the reference: one list at a time ----------------------------------------------------------


def item_bytes(item: Any) -> bytes:
    """The bytes an item is digested as: text as UTF-8, any other value as 0xFF + its JSON."""
    if type(item) is str:
        return item.encode("utf-8", "surrogatepass")
    return JSON_MARK + _KEY_JSON(item).encode("utf-8", "surrogatepass")


def _fmix(h: int) -> int:
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & M64
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & M64
    return h ^ (h >> 33)


_LE = sys.byteorder == "little"


def item_digest(data: bytes, seed: tuple[int, int]) -> tuple[int, int]:
    """``digest(b, seed)`` of the definition above, both lanes."""
    n = len(data)
    padded = data + b"\x00" * (-n % 8)
    words = memoryview(padded).cast("Q") if _LE else [
        int.from_bytes(padded[i : i + 8], "little") for i in range(0, n, 8)]
    p0, p1 = P
    a = seed[0] ^ ((n * p1) & M64)
    b = seed[1] ^ ((n * p0) & M64)
    for w in words:
        a = ((a ^ w) * p0) & M64
        a ^= a >> 29
        b = ((b ^ w) * p1) & M64
        b ^= b >> 29
    return _fmix(a), _fmix(b)


@functools.lru_cache(maxsize=4096)
def _name_seed(name: Any) -> tuple[int, int]:
    return item_digest(item_bytes(name), IV)


@functools.lru_cache(maxsize=1 << 16)  # a bill's columns repeat their values row after row
def _text_pair(name: str, value: str) -> tuple[int, int]:
    return item_digest(value.encode("utf-8", "surrogatepass"), _name_seed(name))


def fold(digests: Sequence[tuple[int, int]]) -> str:
    """The row hash (32 hex digits) of a row's pair digests, in order."""
    q0, q1 = Q
    a, b = IV_ROW
    for d0, d1 in digests:
        a = ((((a << 23) | (a >> 41)) & M64 ^ d0) * q0) & M64
        b = ((((b << 23) | (b >> 41)) & M64 ^ d1) * q1) & M64
    n = len(digests)
    return f"{_fmix(a ^ ((n * P[0]) & M64)):016x}{_fmix(b ^ ((n * P[1]) & M64)):016x}"


def content_key_v3(items: Sequence[Any]) -> str:
    """Version 3 of ``keys.content_key``: the hash of a flat ``[name, value, ...]`` list."""
    digests = []
    for j in range(0, len(items) - 1, 2):
        name, value = items[j], items[j + 1]
        if type(name) is str and type(value) is str:
            digests.append(_text_pair(name, value))
        else:
            digests.append(item_digest(item_bytes(value), item_digest(item_bytes(name), IV)))
    if len(items) % 2:
        digests.append(item_digest(item_bytes(items[-1]), IV_LONE))
    return fold(digests)


# -- the same over columns ----------------------------------------------------------------------
#
# Each step writes into buffers allocated once per call (lanes as rows: (2, n), numpy's inner
# loops run along a lane). Columns of the same values under several names (a bill's BilledCost,
# EffectiveCost, ListCost, ContractedCost: one array, ``focus_fast._Twins``) read their words
# once and digest them with each name's seed together.

_U = np.uint64
_P = np.array(P, dtype=np.uint64)
_Q = np.array(Q, dtype=np.uint64)[:, None]
_Pk = _P[:, None]


def _fmix_np(h: np.ndarray) -> np.ndarray:
    h ^= h >> _U(33)
    h *= _U(0xFF51AFD7ED558CCD)
    h ^= h >> _U(33)
    h *= _U(0xC4CEB9FE1A85EC53)
    h ^= h >> _U(33)
    return h


def _buffers(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(start, length, data padded by 8 zero bytes) of a string / binary array's values."""
    wide = pa.types.is_large_string(arr.type) or pa.types.is_large_binary(arr.type)
    n = len(arr)
    off = np.frombuffer(arr.buffers()[1], dtype=np.int64 if wide else np.int32)
    off = off[arr.offset : arr.offset + n + 1].astype(np.int64)
    data = arr.buffers()[2]
    lo, hi = (int(off[0]), int(off[-1])) if n else (0, 0)
    raw = np.frombuffer(data, dtype=np.uint8)[lo:hi] if data is not None else np.zeros(0, np.uint8)
    buf = np.zeros(hi - lo + 8, dtype=np.uint8)
    buf[: hi - lo] = raw
    return off[:-1] - lo, np.diff(off), buf


def digest_many(arr: pa.Array, seeds: Sequence[tuple[int, int]]) -> np.ndarray:
    """``item_digest`` of each value of a string or binary array (a null as b"") with each of
    ``seeds``: (len(seeds), 2, n) — the words of the values read once for all the seeds."""
    start, length, buf = _buffers(arr)
    n, k = len(start), len(seeds)
    words = np.ndarray((len(buf) - 7,), dtype="<u8", buffer=buf, strides=(1,))  # at every byte
    ulen = length.astype(np.uint64)
    h = np.empty((k, 2, n), dtype=np.uint64)
    for j, seed in enumerate(seeds):
        h[j, 0] = _U(seed[0]) ^ (ulen * _P[1])
        h[j, 1] = _U(seed[1]) ^ (ulen * _P[0])
    top = int(length.max()) if n else 0
    step = np.empty_like(h)
    shifted = np.empty_like(h)
    for w in range(0, top, 8):
        rem = length - w
        live = rem > 0
        x = words[np.minimum(start + w, len(words) - 1)]
        short = live & (rem < 8)
        if short.any():  # the last word of a value: its bytes only, zero-padded
            keep = (_U(8) * rem[short].astype(np.uint64))
            x[short] &= (_U(1) << keep) - _U(1)
        np.bitwise_xor(h, x, out=step)
        step *= _Pk
        np.right_shift(step, _U(29), out=shifted)
        step ^= shifted
        if live.all():
            h, step = step, h
        else:
            np.copyto(h, step, where=live)
    for j in range(k):
        _fmix_np(h[j])
    return h


def digest_array(arr: pa.Array, seed: tuple[int, int]) -> np.ndarray:
    """``item_digest`` of each value of a string or binary array (a null as b""): (2, n)."""
    return digest_many(arr, [seed])[0]


def digest_pairs(name: str, values: pa.Array) -> np.ndarray:
    """The pair digest of (``name``, each text / binary value): (2, len(values))."""
    return digest_array(values, _name_seed(name))


class Folder:
    """Folds pair digests into ``m`` row hashes, a column at a time (``fold`` by columns)."""

    def __init__(self, m: int) -> None:
        self.h = np.empty((2, m), dtype=np.uint64)
        self.h[0], self.h[1] = IV_ROW
        self.count = 0  # digests folded into every row
        self.more: np.ndarray | None = None  # per row, beyond ``count`` (columns with nulls)
        self._tmp = np.empty((2, m), dtype=np.uint64)
        self._low = np.empty((2, m), dtype=np.uint64)
        self._p = np.empty((2, m), dtype=np.uint64)

    def add(self, digests: np.ndarray, codes: np.ndarray, valid: np.ndarray | None) -> None:
        """Fold in each row's pair digest ``digests[:, codes[row]]``; rows where the per-code
        ``valid`` is False (a null: no item) are left as they are."""
        h, tmp, low, p = self.h, self._tmp, self._low, self._p
        np.take(digests[0], codes, out=p[0], mode="clip")  # codes are in range: no check
        np.take(digests[1], codes, out=p[1], mode="clip")
        np.left_shift(h, _U(23), out=tmp)
        np.right_shift(h, _U(41), out=low)
        tmp |= low
        tmp ^= p
        tmp *= _Q
        if valid is None or valid.all():
            self.h, self._tmp = tmp, h
            self.count += 1
            return
        row_valid = valid[codes]
        np.copyto(h, tmp, where=row_valid)
        if self.more is None:
            self.more = np.zeros(h.shape[1], dtype=np.uint64)
        self.more += row_valid

    def hex(self) -> pa.Array:
        """The rows' hashes as 32-hex-digit strings."""
        m = self.h.shape[1]
        count = np.full(m, self.count, dtype=np.uint64)
        if self.more is not None:
            count += self.more
        h = self.h ^ (count * _Pk)
        h = _fmix_np(h)
        raw = np.empty((m, 2), dtype=">u8")
        raw[:, 0], raw[:, 1] = h[0], h[1]
        b = raw.view(np.uint8).reshape(m, 16)
        out = np.empty((m, 32), dtype=np.uint8)
        out[:, 0::2] = _HEX[b >> 4]
        out[:, 1::2] = _HEX[b & 15]
        offsets = np.arange(0, 32 * m + 1, 32, dtype=np.int32)
        return pa.StringArray.from_buffers(m, pa.py_buffer(offsets), pa.py_buffer(out.tobytes()))


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def hash_columns(spelled: list[tuple[str, np.ndarray, pa.Array]], m: int) -> pa.Array:
    """``content_key_v3`` of each of ``m`` rows, given per column (sorted by name) its name,
    each row's code and, per code, the item (text or binary; null: no item). Columns given the
    same values array are digested together (``digest_many``)."""
    live: list[tuple[str, np.ndarray, pa.Array, np.ndarray]] = []
    names_of: dict[int, list[str]] = {}
    for name, codes, values in spelled:
        valid = np.asarray(values.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
        if not valid.any():
            continue
        live.append((name, codes, values, valid))
        names_of.setdefault(id(values), []).append(name)
    digests: dict[tuple[int, str], np.ndarray] = {}
    for name, _codes, values, _valid in live:
        if (id(values), name) not in digests:
            names = names_of[id(values)]
            for n, d in zip(names, digest_many(values, [_name_seed(n) for n in names]), strict=True):
                digests[(id(values), n)] = d
    folder = Folder(m)
    for name, codes, values, valid in live:
        folder.add(digests[(id(values), name)], np.asarray(codes, dtype=np.int64), valid)
    return folder.hex()
