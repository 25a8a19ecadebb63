"""Time zones checked: progress events carry their own offset, sacct times do not.

When a job's progress events fall outside its allocation but a whole-hour shift puts them inside,
the sacct file was most likely read in the wrong zone. One ``timezone_mismatch`` problem per
slurm import names the file, the zone it was read in and the zone the events imply; the user
re-imports it with ``trainledger import slurm FILE --tz ZONE --replace ID``.

``shift = o_true - o_read``: sacct's local times read in a zone ``o_read`` hours from UTC land
``shift`` hours later than the truth, so the events match after adding ``shift`` hours.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from trainledger.engine.context import Problem

ZONES = ("UTC", "Asia/Shanghai", "Asia/Tokyo", "Asia/Seoul", "Asia/Singapore", "Asia/Dubai", "Europe/London",
         "Europe/Berlin", "Europe/Moscow", "America/New_York", "America/Chicago", "America/Denver",
         "America/Los_Angeles", "Australia/Sydney")
MAX_SHIFT = 14  # hours: UTC-12 … UTC+14
INSIDE = 0.9  # share of a job's events that must fall inside its allocation after the shift


@dataclass(frozen=True)
class Sample:
    source_sha256: str  # the slurm import the job came from
    start: datetime
    end: datetime
    events: tuple[datetime, ...]


def _inside(s: Sample, hours: int) -> float:
    d = timedelta(hours=hours)
    return sum(s.start <= t + d <= s.end for t in s.events) / len(s.events)


def best_shift(s: Sample) -> int | None:
    """The whole-hour shift that puts the job's events inside its allocation, when 0 does not."""
    if not s.events or _inside(s, 0) >= 0.5:
        return None
    scored = [(_inside(s, h), -abs(h), h) for h in range(-MAX_SHIFT, MAX_SHIFT + 1) if h]
    share, _, h = max(scored)
    return h if share >= INSIDE else None


def _offset(zone: str, on: datetime) -> timedelta | None:
    try:
        return on.astimezone(ZoneInfo(zone)).utcoffset()
    except (KeyError, ValueError):
        return None


def likely_zones(read_tz: str, shift: int, on: datetime) -> list[str]:
    base = _offset(read_tz or "UTC", on)
    if base is None:
        return []
    want = base + timedelta(hours=shift)
    return [z for z in ZONES if _offset(z, on) == want]


def problems(samples: Iterable[Sample], imports: Iterable[Mapping]) -> list[Problem]:
    by_sha = {str(r.get("sha256")): r for r in imports if r.get("kind") == "slurm"}
    votes: dict[str, Counter] = {}
    when: dict[str, datetime] = {}
    for s in samples:
        h = best_shift(s)
        if h is not None:
            votes.setdefault(s.source_sha256, Counter())[h] += 1
            when.setdefault(s.source_sha256, s.start)
    out = []
    for sha, counter in sorted(votes.items()):
        shift, jobs = counter.most_common(1)[0]
        rec = by_sha.get(sha, {})
        read_tz = str((rec.get("options") or {}).get("tz") or "UTC")
        zones = likely_zones(read_tz, shift, when[sha])
        base = _offset(read_tz, when[sha]) or timedelta(0)
        total = base + timedelta(hours=shift)
        sign = "-" if total < timedelta(0) else "+"
        hh = int(abs(total).total_seconds() // 3600)
        zone = zones[0] if zones else f"a zone at UTC{sign}{hh:02d}:00"
        path = rec.get("path") or f"slurm import {sha[:12]}"
        out.append(Problem(
            "timezone_mismatch",
            f"{path}: the progress events of {jobs} job(s) fall {abs(shift)} h {'after' if shift < 0 else 'before'}"
            f" their sacct windows; it was read as {read_tz} — likely --tz {zone}"
            + (f" (or {', '.join(zones[1:3])})" if len(zones) > 1 else "")
            + f". Re-import: trainledger import slurm {path} --tz {zone} --replace <import id>",
            {"source_sha256": sha, "path": str(path), "read_tz": read_tz, "shift_hours": shift,
             "likely_tz": zone, "jobs": jobs}))
    return out
