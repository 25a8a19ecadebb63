"""``timesheet``: time entries CSV (or a Jira-style worklog export with the same column names)
→ table ``labor_entries``.

Role and phase must be trainledger vocabulary (case, spaces and hyphens forgiven); a missing
recurrence defaults from the phase (build → one_time, otherwise ongoing). The batch comes from
the ``batch`` column, or from the column the workspace names (``timesheet_batch_column``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from trainledger.ingest.base import Column, Context, Flagged, Record, Rejected, col
from trainledger.ingest.convert import _NUMBER, iso_date, nonneg_decimal_text, one_of, stripped
from trainledger.ingest.delimited import DelimitedImporter
from trainledger.ingest.keys import canon_number
from trainledger.model.assets import default_recurrence
from trainledger.model.vocab import LaborPhase, LaborRole, Recurrence

DAY_HOURS = Decimal(24)
HOURS_REMEDY = "write hours as a decimal number with a point, e.g. 7.5 (not 7,5 or 7:30)"


def hours(value: Any, ctx: Context | None = None) -> str | Flagged:
    """Decimal hours >= 0. ``7,5`` (a decimal comma) and ``1:30`` (a clock duration) are not
    guessed: the row is quarantined with how to write them."""
    if isinstance(value, str):
        text = value.strip()
        if re.fullmatch(r"\d+,\d+", text):
            fixed = text.replace(",", ".")
            raise Rejected(
                f"hours: {value!r} has a decimal comma", f"write it with a point: {fixed}"
            )
        m = re.fullmatch(r"(\d+):([0-5]\d)(?::([0-5]\d))?", text)
        if m:
            h, mi, sec = int(m[1]), int(m[2]), int(m[3] or 0)
            fixed = format((Decimal(h * 3600 + mi * 60 + sec) / 3600).normalize(), "f")
            raise Rejected(
                f"hours: {value!r} is a clock duration, not decimal hours",
                f"write it as decimal hours: {fixed} (h + minutes / 60)",
            )
        if not _NUMBER.fullmatch(text):
            raise Rejected(f"hours: not a number: {value!r}", HOURS_REMEDY)
    return nonneg_decimal_text(value, ctx)


class TimesheetImporter(DelimitedImporter):
    kind = "timesheet"
    table = "labor_entries"
    description = "a timesheet CSV"
    signature = ("date", "person", "hours")
    options_used = ("timesheet_batch_column",)
    missing_remedy = "a timesheet needs date, person, role, phase and hours columns"
    columns = (
        col("date", "date", convert=iso_date, required=True, needed=True),
        col("person", "person", convert=stripped, required=True, needed=True),
        col("role", "role", convert=one_of(LaborRole), required=True, needed=True),
        col("activity", "activity", default=""),
        col("phase", "phase", convert=one_of(LaborPhase), required=True, needed=True),
        col(
            "hours",
            "hours",
            convert=hours,
            canon=canon_number,
            required=True,
            needed=True,
        ),
        col("recurrence", "recurrence", convert=one_of(Recurrence)),
        col("batch", "batch", convert=stripped),
    )

    def configure(self, options: Mapping[str, Any]) -> tuple[Column, ...]:
        """The columns of this import: the batch comes from the column the workspace names."""
        name = str(options.get("timesheet_batch_column") or "batch")
        if name == "batch":
            return self.columns
        return tuple(
            col("batch", name, convert=stripped) if c.name == "batch" else c for c in self.columns
        )

    def layout(self, cfg: tuple[Column, ...]) -> tuple[Column, ...]:
        return cfg

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        if Decimal(values["hours"]) > DAY_HOURS:
            values["flags"].append(f"hours {values['hours']} is more than a day")
        if values["recurrence"] is None:
            values["recurrence"] = default_recurrence(LaborPhase(values["phase"])).value
        values["batch"] = values["batch"] or None
        return values
