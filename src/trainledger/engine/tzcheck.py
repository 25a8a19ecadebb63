"""Time zones checked: progress events carry their own offset, sacct times do not.

For each job with progress events (a requeued job's allocations as one span), every candidate
offset (±1..±14 h in half hours, and the quarter-hour zones) is tried: when one puts markedly more
of its events inside its allocation than no shift does (``MIN_GAIN`` more, ``INSIDE`` of them, half
as many outside; ties go to the offset that fits its first / last events to its start / end best),
the sacct file was most likely read in the wrong zone — a 1 h shift on a ten-hour job (90 % of its
events already inside) is caught as well as an 8 h one. One ``timezone_mismatch`` problem per
slurm import names the file, the zone it was read in and the zone the events imply; the user
re-imports it with ``trainledger import slurm FILE --tz ZONE --replace ID``.

``shift = o_true - o_read``: sacct's local times read in a zone ``o_read`` hours from UTC land
``shift`` hours later than the truth, so the events match after adding ``shift`` hours.

Without progress events the node bill is the other clock (``bill_problems``, review finding 6): the
jobs' node windows are compared with the hours the bill's rows for those nodes cover. When less than
half of the jobs' node time falls in billed hours and one of the same candidate shifts of the bill
puts ``INSIDE`` of it there, every node-hour would be "capacity unheld" and the runs' GPU-hours "not
valued": one ``timezone_mismatch_bill`` problem per slurm import names it and the likely ``--tz``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from trainledger.engine.context import Problem

ZONES = ("UTC", "Asia/Shanghai", "Asia/Tokyo", "Asia/Seoul", "Asia/Singapore", "Asia/Dubai", "Asia/Kolkata",
         "Asia/Kathmandu", "Asia/Tehran", "Asia/Kabul", "Asia/Yangon", "Australia/Adelaide", "Australia/Darwin",
         "Europe/London", "Europe/Berlin", "Europe/Helsinki", "Europe/Moscow", "America/Sao_Paulo",
         "America/St_Johns", "America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles",
         "Pacific/Honolulu", "Pacific/Auckland", "Pacific/Chatham", "Australia/Sydney")
MAX_SHIFT = 14  # hours: UTC-12 … UTC+14
# candidate shifts in minutes: every whole and half hour in ±14 h, and the quarter-hour zones (+5:45, +8:45, +12:45)
CANDIDATES = tuple(sorted({m * 30 for m in range(-2 * MAX_SHIFT, 2 * MAX_SHIFT + 1) if m}
                          | {sign * q for q in (345, 525, 765) for sign in (1, -1)}, key=lambda m: (abs(m), m)))
TOLERANCE = timedelta(minutes=5)  # loggers and schedulers disagree by seconds (engine/runs.py EVENT_TOLERANCE)
INSIDE = 0.9  # share of a job's events that must fall inside its allocation after the shift
MIN_GAIN = 2  # a shift must bring at least this many more events inside than no shift


@dataclass(frozen=True)
class Sample:
    source_sha256: str  # the slurm import the job came from
    start: datetime
    end: datetime
    events: tuple[datetime, ...]


def _inside(s: Sample, minutes: int) -> int:
    d = timedelta(minutes=minutes)
    lo, hi = s.start - TOLERANCE, s.end + TOLERANCE
    return sum(lo <= t + d <= hi for t in s.events)


def _misfit(s: Sample, minutes: int) -> timedelta:
    """How far the first / last of the shifted events inside the window sit from the job's start / end
    (a stray event outside does not pull the anchors)."""
    d = timedelta(minutes=minutes)
    lo, hi = s.start - TOLERANCE, s.end + TOLERANCE
    inside = [t + d for t in s.events if lo <= t + d <= hi]
    if not inside:
        return s.end - s.start + 2 * TOLERANCE
    return abs(min(inside) - s.start) + abs(s.end - max(inside))


def _rarity(minutes: int) -> int:
    """Whole-hour offsets are the common ones, then half hours (+5:30), then quarter hours (+5:45)."""
    return 0 if minutes % 60 == 0 else 1 if minutes % 30 == 0 else 2


def _hours(minutes: int) -> int | float:
    return minutes // 60 if minutes % 60 == 0 else minutes / 60


def best_shift_minutes(s: Sample) -> int | None:
    """The shift (minutes added to the events) that puts markedly more of the job's events inside its
    allocation than no shift does — at least ``MIN_GAIN`` more, ``INSIDE`` of them, and at most half as
    many outside; among equals the one that fits the first / last events to the start / end best, then
    a whole hour before a half before a quarter, then the smallest. None when no shift does (or the job
    has no events)."""
    if not s.events:
        return None
    n, at_zero = len(s.events), _inside(s, 0)
    if n - at_zero < MIN_GAIN:
        return None  # (nearly) all inside already: nothing a shift would explain
    scored = [(_inside(s, m), -_misfit(s, m), -_rarity(m), -abs(m), m) for m in CANDIDATES]
    inside, *_, m = max(scored)
    if inside - at_zero < MIN_GAIN or inside < INSIDE * n or 2 * (n - inside) > n - at_zero:
        return None
    return m


def best_shift(s: Sample) -> int | float | None:
    """``best_shift_minutes`` in hours (5.5 for +5:30); None when no shift fits markedly better."""
    m = best_shift_minutes(s)
    return None if m is None else _hours(m)


def _offset(zone: str, on: datetime) -> timedelta | None:
    try:
        return on.astimezone(ZoneInfo(zone)).utcoffset()
    except (KeyError, ValueError):
        return None


def likely_zones(read_tz: str, shift: int | float, on: datetime) -> list[str]:
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
        m = best_shift_minutes(s)
        if m is not None:
            votes.setdefault(s.source_sha256, Counter())[m] += 1
            when.setdefault(s.source_sha256, s.start)
    out = []
    for sha, counter in sorted(votes.items()):
        minutes, jobs = counter.most_common(1)[0]
        shift = _hours(minutes)
        rec = by_sha.get(sha, {})
        read_tz = str((rec.get("options") or {}).get("tz") or "UTC")
        zones = likely_zones(read_tz, shift, when[sha])
        base = _offset(read_tz, when[sha]) or timedelta(0)
        total = base + timedelta(minutes=minutes)
        sign = "-" if total < timedelta(0) else "+"
        hh, mm = divmod(int(abs(total).total_seconds() // 60), 60)
        zone = zones[0] if zones else f"a zone at UTC{sign}{hh:02d}:{mm:02d}"
        path = rec.get("path") or f"slurm import {sha[:12]}"
        ident = str(rec.get("import_key") or sha)[:12]  # the id `--replace` takes (imports list)
        out.append(Problem(
            "timezone_mismatch",
            f"{path}: the progress events of {jobs} job(s) fall {abs(shift)} h {'after' if shift < 0 else 'before'}"
            f" their sacct windows; it was read as {read_tz} — likely --tz {zone}"
            + (f" (or {', '.join(zones[1:3])})" if len(zones) > 1 else "")
            + f". Re-import: trainledger import slurm {path} --tz {zone} --replace {ident}",
            {"source_sha256": sha, "path": str(path), "read_tz": read_tz, "shift_hours": shift,
             "likely_tz": zone, "jobs": jobs, "import_id": ident}))
    return out


MAX_WINDOWS = 5000  # job-node windows per import tried against the bill: a sample, whatever the dump's size
NEAR = timedelta(hours=MAX_SHIFT)  # jobs farther than this from every billed hour say nothing of the zone


def _covered(spans: list[tuple[datetime, datetime]], starts: list[datetime], a: datetime, b: datetime) -> float:
    """Seconds of [a, b) inside the merged, sorted ``spans`` (``starts`` their starts)."""
    total, i = 0.0, max(bisect_right(starts, a) - 1, 0)
    while i < len(spans) and spans[i][0] < b:
        lo, hi = max(spans[i][0], a), min(spans[i][1], b)
        if hi > lo:
            total += (hi - lo).total_seconds()
        i += 1
    return total


def _merged(periods: list[tuple[datetime, datetime]]) -> list[tuple[datetime, datetime]]:
    out: list[tuple[datetime, datetime]] = []
    for a, b in sorted(periods):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def bill_shift_minutes(windows: list[tuple[str, datetime, datetime]],
                       billed: Mapping[str, list[tuple[datetime, datetime]]]) -> int | None:
    """The shift (minutes added to the bill's hours) that puts ``INSIDE`` of the jobs' node time
    (``windows``: node, start, end) in billed hours when, unshifted, less than half of it is; ties go
    to a whole hour before a half before a quarter, then the smallest. None when no shift does."""
    starts = {n: [a for a, _ in spans] for n, spans in billed.items()}
    lo = min(a for spans in billed.values() for a, _ in spans) - NEAR
    hi = max(b for spans in billed.values() for _, b in spans) + NEAR
    near = [(n, max(a, lo), min(b, hi)) for n, a, b in windows if n in billed and a < hi and b > lo and b > a]
    total = sum((b - a).total_seconds() for _, a, b in near)
    if not total:
        return None

    def share(minutes: int) -> float:
        d = timedelta(minutes=minutes)  # the bill + d against the jobs = the jobs − d against the bill
        return sum(_covered(billed[n], starts[n], a - d, b - d) for n, a, b in near) / total

    at_zero = share(0)
    if at_zero >= 0.5:
        return None
    best, *_, m = max((share(m), -_rarity(m), -abs(m), m) for m in CANDIDATES)
    return m if best >= INSIDE and best - at_zero >= 0.5 else None


def bill_problems(runs: Iterable, bill_rows, imports: Iterable[Mapping], names=None) -> list[Problem]:
    """``timezone_mismatch_bill`` per slurm import whose jobs' node windows fit the node bill's hours
    only after a shift (``runs``: RunInfo; ``bill_rows``: the lake's FOCUS rows, or a function of the
    nodes giving their merged billed hours, as ``_merged`` of those rows would). ``names``: a
    function of the nodes giving what a bill may call each (``node_map.names``: ``[[nodes]]`` ids)."""
    from trainledger.engine.compute import _node_of  # the bill's node names, as the split reads them

    by_sha: dict[str, list[tuple[str, datetime, datetime]]] = defaultdict(list)
    for info in runs:
        a, b = info.run.started_at, info.run.ended_at
        if a is None or b is None or not info.nodes or info.run.gpu_equivalents <= 0:
            continue
        if len(by_sha[info.source_sha256]) < MAX_WINDOWS:
            by_sha[info.source_sha256].extend((n, a, b) for n in info.nodes)
    if not by_sha:
        return []
    nodes = {n for windows in by_sha.values() for n, _, _ in windows}
    if names is not None:
        nodes = names(nodes)
    if callable(bill_rows):  # the rows' merged hours per node, from their columns (runs.billed_hours)
        return _bill_problems(by_sha, bill_rows(nodes), imports)
    periods: dict[str, list] = defaultdict(list)
    for row in bill_rows:
        p0, p1 = row.get("charge_period_start"), row.get("charge_period_end")
        if p0 is None or p1 is None or p1 <= p0 or p1 - p0 > timedelta(days=1):
            continue  # a monthly row covers every hour: it says nothing of the zone
        node = _node_of(row, nodes)
        if node is not None:
            periods[node].append((p0, p1))
    if not periods:
        return []
    return _bill_problems(by_sha, {n: _merged(p) for n, p in periods.items()}, imports)


def _bill_problems(by_sha, billed: Mapping[str, list[tuple[datetime, datetime]]], imports) -> list[Problem]:
    if not billed:
        return []
    recs = {str(r.get("sha256")): r for r in imports if r.get("kind") == "slurm"}
    out = []
    for sha, windows in sorted(by_sha.items()):
        minutes = bill_shift_minutes(windows, billed)
        if minutes is None:
            continue
        rec = recs.get(sha, {})
        read_tz = str((rec.get("options") or {}).get("tz") or "UTC")
        on = windows[0][1]
        zones = likely_zones(read_tz, _hours(minutes), on)
        base = _offset(read_tz, on) or timedelta(0)
        total = base + timedelta(minutes=minutes)
        sign = "-" if total < timedelta(0) else "+"
        hh, mm = divmod(int(abs(total).total_seconds() // 60), 60)
        zone = zones[0] if zones else f"a zone at UTC{sign}{hh:02d}:{mm:02d}"
        path = rec.get("path") or f"slurm import {sha[:12]}"
        ident = str(rec.get("import_key") or sha)[:12]  # the id `--replace` takes (imports list)
        shift = _hours(minutes)
        out.append(Problem(
            "timezone_mismatch_bill",
            f"{path}: the jobs' node time falls {abs(shift)} h {'after' if shift > 0 else 'before'} the node"
            f" bill's hours; it was read as {read_tz} — likely --tz {zone}."
            f" Until then the bill is capacity no job held. Re-import: trainledger import slurm {path}"
            f" --tz {zone} --replace {ident}",
            {"source_sha256": sha, "path": str(path), "read_tz": read_tz, "shift_hours": shift,
             "likely_tz": zone, "import_id": ident}))
    return out
