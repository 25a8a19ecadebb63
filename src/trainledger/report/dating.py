"""The day (UTC) of each cost line, from the lake row it came from — cost lines carry no date.

A line names its source file and row (``Provenance``); that row's date column gives the day:

    bill rows (FOCUS and the cloud bills)   charge_period_start
    jobs (Slurm, Kubernetes …)              start, else submit (queued value accrues from submit)
    storage inventories                     snapshot_date
    timesheets and work logs                date
    invoices of external services           date

A line whose row has no date (a line made from the workspace file, e.g. an owned capacity's cost)
takes its run's start; failing that it has none (``None``) and reports list it as undated — it is
never dropped.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from trainledger.ingest import KIND_TABLES

COLUMNS = {"bill_lines": ("charge_period_start",), "jobs": ("start", "submit"),
           "storage_objects": ("snapshot_date",), "labor_entries": ("date",), "external_services": ("date",)}


def day_of(value) -> date | None:
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC).date()
    return value if isinstance(value, date) else None


def line_dates(wsp, lines, runs: dict) -> list[date | None]:
    """One day (or None) per line, in the order given. ``runs``: run id → Run."""
    wanted: dict[str, set[str]] = {}
    for ln in lines:
        table = KIND_TABLES.get(ln.provenance.source_kind)
        if table in COLUMNS:
            wanted.setdefault(table, set()).add(ln.provenance.source_sha256)
    found: dict[tuple[str, str, int], date] = {}
    for table, shas in wanted.items():
        t = wsp.lake.read(table)
        if not t.num_rows:
            continue
        cols = COLUMNS[table]
        for r in t.select(["source_sha256", "row", *cols]).to_pylist():
            if r["source_sha256"] not in shas:
                continue
            day = next((d for c in cols if (d := day_of(r[c])) is not None), None)
            if day is not None:
                found[(table, r["source_sha256"], int(r["row"]))] = day
    out = []
    for ln in lines:
        p = ln.provenance
        day = found.get((KIND_TABLES.get(p.source_kind, ""), p.source_sha256, p.row))
        if day is None and ln.run_id in runs:
            r = runs[ln.run_id]
            day = day_of(r.started_at or r.submitted_at or r.ended_at)
        out.append(day)
    return out
