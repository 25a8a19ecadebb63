"""The day and month of each cost line, in the workspace's time zone, from the lake row it came from —
cost lines carry no date.

A line names its source file and row (``Provenance``); that row's date column gives the instant,
and the instant's day in the workspace zone (``Config.timezone``: ``workspace.timezone``, default
UTC) is the line's day:

    bill rows (FOCUS and the cloud bills)   charge_period_start
    jobs (Slurm, Kubernetes …)              start, else submit (queued value accrues from submit)
    storage inventories                     snapshot_date
    timesheets and work logs                date
    invoices of external services           date

A line's month is its day's month, except for a bill row that carries its own billing period: its
month is that period's — FOCUS ``BillingPeriodStart`` / ``End`` (a period of a calendar month in any
zone: the month holding its midpoint), or a Chinese bill's 账期 / BillPeriod, which the vendor
mappings keep on the row's ``extra`` under the [period] month header (``2026-12``). So a Beijing-time
bill of 账期 2026-12 whose first hours are 2026-11-30 in UTC is December's, as the vendor bills it.

An owned or reserved capacity's line (made from the workspace file, a pseudo row per node and day)
takes its row's start — the node-day it values, from the attribution summary's
``capacity_row_days`` (engine/capacity_dating.py) — in the workspace zone; so a ``--from/--to``
window holds exactly its share of idle capacity and of jobs without a batch. Any other line whose row
has no date takes its run's start; failing that it has none (``None``) and reports list it as
undated — it is never dropped.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta, tzinfo
from zoneinfo import ZoneInfo

from trainledger.ingest import KIND_TABLES

COLUMNS = {"bill_lines": ("charge_period_start",), "jobs": ("start", "submit"),
           "storage_objects": ("snapshot_date",), "labor_entries": ("date",), "external_services": ("date",)}
_MONTH = re.compile(r"^\s*(\d{4})[-/年](\d{1,2})月?\s*$")
_PERIOD_DAYS = (27, 32)  # a billing period this long is a month (in some zone)


@dataclass(frozen=True)
class When:
    """A line's day in the workspace zone and its reporting month ``YYYY-MM`` (its billing period's
    month when the bill row carries one, else the day's)."""

    day: date
    month: str


def month_of(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def zone(wsp) -> tzinfo:
    """The workspace's zone for days and months (``Config.timezone``)."""
    name = getattr(wsp.config, "timezone", None) or "UTC"
    return UTC if name == "UTC" else ZoneInfo(name)


def day_of(value, tz: tzinfo = UTC) -> date | None:
    """The day of an instant in ``tz`` (an offset-less datetime is UTC); a date is its own day."""
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(tz).date()
    return value if isinstance(value, date) else None


@functools.cache
def period_labels() -> tuple[str, ...]:
    """The ``extra`` keys a vendor bill's billing month is kept under: the first header of each
    built-in bill mapping's [period] month (ingest/remap.py keeps it under that label)."""
    from trainledger.ingest.mapfile import presets

    out = []
    for m in presets(("bill_lines",)).values():
        names = tuple(m.period.get("month", ()))
        if names and names[0] not in out:
            out.append(names[0])
    return tuple(out)


def billing_month(start, end, extra, tz: tzinfo) -> str | None:
    """The month a bill row is billed in, when the row says so; else None."""
    if (isinstance(start, datetime) and isinstance(end, datetime)
            and _PERIOD_DAYS[0] <= (end - start) / timedelta(days=1) <= _PERIOD_DAYS[1]):
        return month_of(day_of(start + (end - start) / 2, tz))
    if extra:
        try:
            got = json.loads(extra)
        except (TypeError, ValueError):
            return None
        if isinstance(got, dict):
            for label in period_labels():
                m = _MONTH.match(str(got.get(label, "")))
                if m and 1 <= int(m[2]) <= 12:
                    return f"{int(m[1]):04d}-{int(m[2]):02d}"
    return None


def capacity_days(wsp) -> dict:
    """The latest attribution's ``capacity_row_days`` (engine/capacity_dating.py); {} without one."""
    from trainledger.engine.capacity_dating import KEY

    att = wsp.ledger.latest_attribution() or {}
    summary = att.get("summary") if isinstance(att.get("summary"), dict) else {}
    return summary.get(KEY) or {}


def line_dates(wsp, lines, runs: dict, capacity: dict | None = None) -> list[When | None]:
    """One ``When`` (or None) per line, in the order given. ``runs``: run id → Run; ``capacity``:
    the attribution summary's ``capacity_row_days`` (read from the latest attribution when None)."""
    from trainledger.engine.capacity_dating import starts

    tz = zone(wsp)
    if capacity is None:
        capacity = capacity_days(wsp)
    rows_of: dict[str, dict] = {}  # capacity file → row → start, expanded for the files the lines name
    wanted: dict[str, set[str]] = {}
    for ln in lines:
        table = KIND_TABLES.get(ln.provenance.source_kind)
        if table in COLUMNS:
            wanted.setdefault(table, set()).add(ln.provenance.source_sha256)
    found: dict[tuple[str, str, int], When] = {}
    for table, shas in wanted.items():
        t = wsp.lake.read(table)
        if not t.num_rows:
            continue
        cols = COLUMNS[table]
        billing = ("billing_period_start", "billing_period_end", "extra") if table == "bill_lines" else ()
        for r in t.select(["source_sha256", "row", *cols, *billing]).to_pylist():
            if r["source_sha256"] not in shas:
                continue
            day = next((d for c in cols if (d := day_of(r[c], tz)) is not None), None)
            if day is None:
                continue
            month = billing_month(*(r[c] for c in billing), tz) if billing else None
            found[(table, r["source_sha256"], int(r["row"]))] = When(day, month or month_of(day))
    from trainledger.engine.capacity_source import KIND, parse_rule

    out = []
    for ln in lines:
        p = ln.provenance
        sha, row = p.source_sha256, p.row
        if p.source_kind == KIND and len(capacity) == 1:  # held: the job's row; its node-day is in the rule
            parsed = parse_rule(p.rule or "")
            if parsed is not None:
                sha, row = next(iter(capacity)), parsed[2]
        if (p.source_kind == "config" or sha != p.source_sha256) and sha in capacity:  # a capacity's node-day
            if sha not in rows_of:
                rows_of[sha] = starts(capacity[sha])
            at = rows_of[sha].get(row)
            if at is not None:
                day = day_of(at, tz)
                out.append(When(day, month_of(day)))
                continue
        when = found.get((KIND_TABLES.get(p.source_kind, ""), p.source_sha256, p.row))
        if when is None and ln.run_id in runs:
            r = runs[ln.run_id]
            day = day_of(r.started_at or r.submitted_at or r.ended_at, tz)
            when = When(day, month_of(day)) if day is not None else None
        out.append(when)
    return out
