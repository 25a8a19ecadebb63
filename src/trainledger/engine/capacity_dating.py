"""When each owned or reserved capacity's pseudo bill row starts, so reports can date its lines.

A capacity's cost is split per node and day (``capacity.capacity_rows``: one pseudo row per node
and day of its period, numbered from 1 in the workspace file's content hash); its lines name that
file and row, and no row of the lake dates them. The attribution summary keeps, per capacity file,
the rows as runs ``[first, last, start]`` (``row_days``; key ``capacity_row_days``): row ``first``
starts at ``start`` (ISO 8601 with its offset), row ``first + i`` (0 < i ≤ last − first) at midnight
of the day ``i`` days later in the same offset — how ``capacity._days`` steps. One run per node
and span, so a 500-node year is 500 triples, not 182,500 dates. ``starts(runs)`` reads them back
(report/dating.py dates a line by its row's start in the workspace zone).
"""

from __future__ import annotations

from datetime import datetime, timedelta

KEY = "capacity_row_days"


def _nth(start: datetime, i: int) -> datetime:
    return start if i == 0 else (start + timedelta(days=i)).replace(hour=0, minute=0, second=0, microsecond=0)


def row_days(facts, ctx) -> dict[str, list[list]]:
    """{capacity file hash: [[first row, last row, first row's start], …]} for the attribution's
    capacities up to its cutoff (the rows ``capacity.capacity_rows`` makes)."""
    from trainledger.engine.capacity import capacities, capacity_rows

    out: dict[str, list[list]] = {}
    for cap in capacities(ctx, facts):
        runs: list[list] = []
        for _node, _amount, row in capacity_rows(cap, ctx.cutoff):
            n, at = row["row"], row["charge_period_start"]
            if runs and runs[-1][1] == n - 1 and _nth(runs[-1][2], n - runs[-1][0]) == at:
                runs[-1][1] = n
            else:
                runs.append([n, n, datetime.fromisoformat(at.isoformat())])  # as it reads back: offset only
        out.setdefault(cap.sha256, []).extend([f, last, s.isoformat()] for f, last, s in runs)
    return out


def starts(runs: list[list]) -> dict[int, datetime]:
    """Row number → its start, from ``row_days``' runs of one capacity file."""
    out: dict[int, datetime] = {}
    for first, last, start in runs:
        s = datetime.fromisoformat(start)
        for n in range(int(first), int(last) + 1):
            out[n] = _nth(s, n - int(first))
    return out


__all__ = ["KEY", "row_days", "starts"]
