"""Parsing counts (``7B``, ``2T``, ``7e9``), ranges (``1..3``) and the ``Uncertain`` input.

``Uncertain`` is one input of the estimate that is not known exactly: low / mode / high with a
unit, an evidence level, a source and — when assumed — the owner who must confirm it. The Monte
Carlo samples it from a triangular distribution (low and high are the ends a reviewer would
defend, mode the most likely value); a point value has low == mode == high. An input may add a
right tail: with probability ``tail_p`` the value comes from a second triangle
(``tail_low`` >= ``high``, e.g. a troubled training run), so a low-probability mass can sit far
above the body without fattening the body itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_EVEN, Decimal, InvalidOperation

from trainledger.errors import BadInput
from trainledger.estimate.messages import Msg
from trainledger.model.money import minor_quantum
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence

_SUFFIX = {"": 1, "K": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
_COUNT_RE = re.compile(r"^\s*([0-9][0-9_]*(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)\s*([KMBGTkmbgt]?)\s*$")


def parse_count(text: object, what: str = "number", *, allow_zero: bool = False) -> float:
    """``7e9``, ``7B``, ``2T``, ``500M``, ``1.5k``, ``4096`` -> float; refuses negatives, junk."""
    if isinstance(text, bool):
        raise BadInput(f"{what}: {text!r} is not a number", remedy="give e.g. 7e9, 7B, 2T or 500M")
    if isinstance(text, int | float | Decimal):
        value = float(text)
    else:
        m = _COUNT_RE.match(str(text))
        if not m:
            raise BadInput(f"{what}: {text!r} is not a number", remedy="give e.g. 7e9, 7B, 2T, 500M or 4096")
        try:
            value = float(Decimal(m.group(1).replace("_", ""))) * _SUFFIX[m.group(2).upper()]
        except InvalidOperation:
            raise BadInput(f"{what}: {text!r} is not a number") from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        floor = "0 or more" if allow_zero else "a number above 0"
        raise BadInput(f"{what}: {text!r} must be a positive finite number", remedy=f"give --{what} {floor}")
    return value


def parse_range(text: object, what: str) -> tuple[float, float, float]:
    """``2`` -> (2, 2, 2); ``1..3`` -> (1, 2, 3); ``1..1.5..3`` -> (1, 1.5, 3)."""
    if isinstance(text, int | float | Decimal):
        v = parse_count(text, what)
        return v, v, v
    parts = [p for p in str(text).split("..")]
    vals = [parse_count(p, what) for p in parts]
    if len(vals) == 1:
        return vals[0], vals[0], vals[0]
    if len(vals) == 2:
        lo, hi = vals
        mid = (lo + hi) / 2
    elif len(vals) == 3:
        lo, mid, hi = vals
    else:
        raise BadInput(f"{what}: {text!r} is not a value or a range", remedy="write 2, 1..3 or 1..2..4")
    if not lo <= mid <= hi:
        raise BadInput(
            f"{what}: range {text!r} must satisfy low <= mode <= high", remedy="write low..high or low..mode..high"
        )
    return lo, mid, hi


@dataclass(frozen=True, slots=True)
class Uncertain:
    """An estimate input: low <= mode <= high, with where it comes from."""

    name: str
    low: float
    mode: float
    high: float
    unit: str = ""
    evidence: Evidence = Evidence.ASSUMED
    source: str = ""
    owner: str = ""
    note: str = ""
    tail_p: float = 0.0  # probability of the right tail; 0: a plain triangle
    tail_low: float = 0.0
    tail_mode: float = 0.0
    tail_high: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "evidence", Evidence(self.evidence))
        lo, mo, hi = float(self.low), float(self.mode), float(self.high)
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= mo <= hi):
            raise BadInput(f"{self.name}: need finite low <= mode <= high, got {lo} / {mo} / {hi}")
        object.__setattr__(self, "low", lo)
        object.__setattr__(self, "mode", mo)
        object.__setattr__(self, "high", hi)
        if self.tail_p:
            tl, tm, th = float(self.tail_low), float(self.tail_mode), float(self.tail_high)
            if not (0 < self.tail_p < 1 and math.isfinite(th) and hi <= tl <= tm <= th):
                raise BadInput(f"{self.name}: need 0 < tail_p < 1 and high <= tail_low <= tail_mode <= tail_high")

    @property
    def has_tail(self) -> bool:
        return self.tail_p > 0

    @classmethod
    def point(cls, name: str, value: float, **kw) -> Uncertain:
        return cls(name, value, value, value, **kw)

    @classmethod
    def from_table(cls, name: str, row: dict, **kw) -> Uncertain:
        """From a data-file table with low/mode/high (or value) and source/evidence/owner."""
        if "value" in row:
            lo = mo = hi = float(row["value"])
        else:
            lo, mo, hi = float(row["low"]), float(row["mode"]), float(row["high"])
        opts = {k: row[k] for k in ("unit", "evidence", "source", "owner", "note") if k in row}
        if "tail_probability" in row:
            opts.update(
                tail_p=float(row["tail_probability"]),
                tail_low=float(row["tail_low"]),
                tail_mode=float(row["tail_mode"]),
                tail_high=float(row["tail_high"]),
            )
        opts.update(kw)
        return cls(name, lo, mo, hi, **opts)

    @property
    def is_point(self) -> bool:
        return self.low == self.high and not self.has_tail

    def scaled(self, factor: float, name: str | None = None, unit: str | None = None) -> Uncertain:
        return replace(
            self,
            name=name or self.name,
            low=self.low * factor,
            mode=self.mode * factor,
            high=self.high * factor,
            unit=self.unit if unit is None else unit,
            tail_low=self.tail_low * factor,
            tail_mode=self.tail_mode * factor,
            tail_high=self.tail_high * factor,
        )

    def as_assumption(self) -> Assumption:
        owner = self.owner or ("unassigned" if self.evidence is Evidence.ASSUMED else "")
        if self.is_point:
            return Assumption(
                self.name,
                self.evidence,
                self.source,
                value=fmt_num(self.low),
                unit=self.unit,
                owner=owner,
                note=self.note,
            )
        mode = fmt_num(self.mode)
        note = Msg("note.mode_and", mode=mode, note=self.note) if self.note else Msg("note.mode", mode=mode)
        if self.has_tail:
            note = Msg(
                "note.tail",
                mode=mode,
                p=self.tail_p,
                low=fmt_num(self.tail_low),
                high=fmt_num(self.tail_high),
                tail_mode=fmt_num(self.tail_mode),
            )
        return Assumption(
            self.name,
            self.evidence,
            self.source,
            low=fmt_num(self.low),
            high=fmt_num(self.tail_high if self.has_tail else self.high),
            unit=self.unit,
            owner=owner,
            note=note,
        )


def fmt_num(x: float, sig: int = 4) -> str:
    """A short, honest text for a number: ``4 significant digits``, no float noise."""
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 1e-3:
        return f"{x:.{sig - 1}e}".replace("e+0", "e").replace("e+", "e").replace("e-0", "e-")
    return f"{round_sig(x, sig):g}"


def fmt_count(x: float) -> str:
    """``5e7`` -> ``50M``, ``2e12`` -> ``2T``: a count as people write it (3 significant digits)."""
    for k, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(x) >= k:
            return f"{x / k:.3g}{suffix}"
    return f"{x:.3g}"


def round_sig(x: float, sig: int = 3) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, sig - 1 - int(math.floor(math.log10(abs(x)))))


def money_dec(x: float, currency: str) -> Decimal:
    """A float figure from the Monte Carlo as Decimal at the currency's minor unit."""
    return Decimal(repr(float(x))).quantize(minor_quantum(currency), ROUND_HALF_EVEN)
