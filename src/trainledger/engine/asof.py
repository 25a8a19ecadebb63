"""Where an open attempt (no End in the scheduler's dump) is cut: a time the data says, never the clock.

``open_end(job, facts_time, override)`` → (end, source):

1. ``override`` — ``attribute --as-of TIMESTAMP`` (source ``as_of``);
2. the export's own time: a running job's ``Start + Elapsed`` (sacct writes the elapsed time at the
   moment of the dump; source ``export``);
3. else ``facts_time``: the latest time any imported fact shows — a job's submit / eligible /
   start / end, a progress event, a bill row's ChargePeriodEnd (source ``latest_fact``).

The same facts and the same override give the same cut on every run, so figures and digests are
reproducible. ``latest_fact_time(facts)`` computes (3) once per attribution.

``data_day(facts)``: the attribution's ``as_of`` day when ``attribute --as-of`` is not given — the
last day the data covers (the latest fact time's UTC day, an end at midnight closing the day
before; a storage snapshot, timesheet or invoice date), never the day attribution runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta

from trainledger.engine.context import Facts, rows_of

AS_OF, EXPORT, LATEST_FACT = "as_of", "export", "latest_fact"
WHY = {AS_OF: ("attribute --as-of", "attribute --as-of 指定"),
       EXPORT: ("the export's time: Start + Elapsed", "导出时刻：Start + Elapsed"),
       LATEST_FACT: ("the latest time an imported fact shows", "已导入数据中最晚的时刻")}  # (en, zh-CN)


def latest_fact_time(facts: Facts) -> datetime | None:
    """The latest timestamp any imported fact shows (None when the lake has no timed fact)."""
    times = [rows_of(facts.jobs).latest("submit", "eligible", "start", "end"),
             rows_of(facts.progress_events).latest("ts"), rows_of(facts.bill_lines).latest("charge_period_end")]
    times = [t for t in times if isinstance(t, datetime)]
    return max(times) if times else None  # by columns: no row made


def data_day(facts: Facts) -> date | None:
    """The last (UTC) day any imported fact covers; None when the lake has no dated fact."""
    days = []
    latest = latest_fact_time(facts)
    if latest is not None:
        days.append((latest.astimezone(UTC) - timedelta(microseconds=1)).date())  # [.., 00:00) ends the day before
    for rows, key in ((facts.storage_objects, "snapshot_date"), (facts.labor_entries, "date"),
                      (facts.external_services, "date")):
        days += [r.get(key) for r in rows if isinstance(r.get(key), date)]
    return max((d.date() if isinstance(d, datetime) else d for d in days), default=None)


def _elapsed(job: Mapping) -> object:
    from trainledger.ingest.slurm import elapsed

    try:
        extra = json.loads(job.get("extra") or "{}")
    except (TypeError, ValueError):
        return None
    return elapsed(extra.get("Elapsed")) if isinstance(extra, dict) else None


def open_end(job: Mapping, facts_time: datetime | None, override: datetime | None) -> tuple[datetime, str]:
    """The end of an open attempt and where it came from (``as_of`` / ``export`` / ``latest_fact``)."""
    start = job["start"]
    if override is not None:
        return max(override, start), AS_OF
    took = _elapsed(job)
    if took is not None:
        return start + took, EXPORT
    return max(facts_time or start, start), LATEST_FACT
