"""ISO 8601 times a column at a time, equal to ``convert.parse_datetime`` + ``localize`` / ``as_utc``.

Only one plain shape is read here: ``YYYY-MM-DD[T ]HH:MM:SS[.f{1,6}][Z|±HH:MM]``, years 2 - 9998
(so UTC stays inside the calendar), fields in range (a 30 February or a second 60 is not plain:
Python refuses it, and the caller gives such a value to the per-value converter, which says why).
Everything else — surrounding blanks, other separators, ``UTC`` words, offsets with seconds — is
``fast`` False: the caller converts those values itself.

A naive local time is read in a zone by the UTC offset of its *day*: the offset Python's
``zoneinfo`` gives at the day's first and last second, both folds; a day where they differ (a
DST change, a zone's history) is not plain either — its times go to ``convert.localize``, which
flags them. (A day with two changes that cancel out is outside what any tz database holds.)
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta, tzinfo

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

TS = pa.timestamp("us", tz="UTC")
EPOCH_DAY = np.datetime64("1970-01-01", "D")
US_PER_DAY = 86_400_000_000


@dataclass(frozen=True, slots=True)
class Times:
    """A text column's times: ``fast`` where the value has the plain shape and valid fields;
    there ``micros`` (UTC when ``aware``, else local wall-clock µs since 1970) and ``day``."""

    fast: np.ndarray  # bool
    aware: np.ndarray  # bool: an offset (or Z) was written
    micros: np.ndarray  # int64
    day: np.ndarray  # int64: the local day number (days since 1970-01-01) as written


SHAPE = (
    r"^[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,6})?(?:Z|[+-][0-9]{2}:[0-9]{2})?$"
)


def _bytes(arr: pa.Array) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(the string data as bytes, each value's first byte, each value's length in bytes)."""
    arr = arr.cast(pa.large_string()) if not pa.types.is_large_string(arr.type) else arr
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int64)[arr.offset : arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return raw, offsets[:-1], np.diff(offsets)


def parse(arr: pa.Array) -> Times:
    """The plain-shaped times of ``arr`` (string; nulls are not fast)."""
    n = len(arr)
    matched = np.asarray(pc.fill_null(pc.match_substring_regex(arr, SHAPE), False).to_numpy(zero_copy_only=False),
                         dtype=bool)
    zero = np.zeros(n, np.int64)
    if not matched.any():
        return Times(matched, np.zeros(n, bool), zero, zero)
    raw, start, length = _bytes(arr)
    start, length = start[matched], length[matched]  # ASCII: one byte per character

    def num(at: np.ndarray, width: int) -> np.ndarray:
        out = np.zeros(len(at), np.int64)
        for k in range(width):
            out = out * 10 + (raw[at + k].astype(np.int64) - 48)
        return out

    y, mo, d = num(start, 4), num(start + 5, 2), num(start + 8, 2)
    h, mi, s = num(start + 11, 2), num(start + 14, 2), num(start + 17, 2)
    last = start + length - 1
    utc_z = (length > 19) & (raw[last] == ord("Z"))
    signed = (length >= 25) & np.isin(raw[np.maximum(last - 5, 0)], (ord("+"), ord("-")))
    zone_len = np.where(utc_z, 1, np.where(signed, 6, 0))
    frac_len = np.maximum(length - 19 - zone_len - 1, 0)  # digits after the point
    frac = np.zeros(len(start), np.int64)
    for k in range(6):
        here = frac_len > k
        digit = raw[np.where(here, start + 20 + k, 0)].astype(np.int64) - 48
        frac += np.where(here, digit, 0) * 10 ** (5 - k)
    zh, zm = num(np.where(signed, last - 4, start), 2), num(np.where(signed, last - 1, start), 2)
    sign = np.where(raw[np.maximum(last - 5, 0)] == ord("-"), -1, 1)
    offset = np.where(signed, sign * (zh * 60 + zm) * 60_000_000, 0)
    ok = (y >= 2) & (y <= 9998) & (mo >= 1) & (mo <= 12) & (h <= 23) & (mi <= 59) & (s <= 59)
    ok &= ~signed | ((zh <= 23) & (zm <= 59))
    month = np.where(ok, (y - 1970) * 12 + (mo - 1), 0).astype("datetime64[M]")
    first = month.astype("datetime64[D]")
    days_in = ((month + 1).astype("datetime64[D]") - first).astype(np.int64)
    ok &= (d >= 1) & (d <= days_in)
    day = np.where(ok, (first - EPOCH_DAY).astype(np.int64) + d - 1, 0)
    local = day * US_PER_DAY + ((h * 60 + mi) * 60 + s) * 1_000_000 + frac
    micros = np.where(ok, local - offset, 0)
    aware = utc_z | signed
    out_fast, out_aware, out_micros, out_day = np.zeros(n, bool), np.zeros(n, bool), zero.copy(), zero.copy()
    out_fast[matched], out_aware[matched] = ok, aware & ok
    out_micros[matched], out_day[matched] = micros, day
    return Times(out_fast, out_aware, out_micros, out_day)


def day_offsets(days: np.ndarray, tz: tzinfo) -> tuple[np.ndarray, np.ndarray]:
    """(µs to subtract from local wall-clock time, whether the day is plain) per day number:
    plain when Python's offset is one and the same at the day's first and last second, both
    folds (see the module docstring)."""
    uniq, inv = np.unique(days, return_inverse=True)
    off = np.zeros(len(uniq), np.int64)
    plain = np.zeros(len(uniq), bool)
    for i, dn in enumerate(uniq.tolist()):
        day = date(1970, 1, 1) + timedelta(days=dn)
        seen = {
            datetime(day.year, day.month, day.day, hh, mm, ss, tzinfo=tz, fold=fold).utcoffset()
            for hh, mm, ss in ((0, 0, 0), (23, 59, 59))
            for fold in (0, 1)
        }
        if len(seen) == 1 and None not in seen:
            (o,) = seen
            off[i] = (o.days * 86_400 + o.seconds) * 1_000_000 + o.microseconds
            plain[i] = True
    return off[inv], plain[inv]


def local_to_utc(t: Times, tz: tzinfo) -> tuple[np.ndarray, np.ndarray]:
    """(UTC µs, fast) of ``t``'s times: naive ones read in ``tz`` where their day is plain; an
    aware one as written. Not fast: not plain, or a naive time on a day that is not."""
    fast = t.fast.copy()
    micros = t.micros.copy()
    naive = fast & ~t.aware
    if naive.any():
        off, plain = day_offsets(t.day[naive], tz)
        micros[naive] = t.micros[naive] - off
        idx = np.flatnonzero(naive)
        fast[idx[~plain]] = False
    return micros, fast


def to_array(micros: np.ndarray, valid: np.ndarray) -> pa.Array:
    """``timestamp[us, UTC]`` of ``micros``, null where not ``valid``."""
    return pa.array(micros, pa.int64(), mask=~valid).cast(TS)
