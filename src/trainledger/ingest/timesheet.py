"""``timesheet``: time entries CSV (or a Jira-style worklog export with the same column names)
→ table ``labor_entries``.

Role and phase must be trainledger vocabulary (case, spaces and hyphens forgiven); a missing
recurrence defaults from the phase (build → one_time, otherwise ongoing). The batch comes from
the ``batch`` column, or from the column the workspace names (``timesheet_batch_column``).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from trainledger.ingest.base import Column, Context, DelimitedImporter, Record, col
from trainledger.ingest.convert import iso_date, nonneg_decimal_text, one_of, stripped
from trainledger.model.assets import default_recurrence
from trainledger.model.vocab import LaborPhase, LaborRole, Recurrence

DAY_HOURS = Decimal(24)


class TimesheetImporter(DelimitedImporter):
    kind = "timesheet"
    table = "labor_entries"
    description = "a timesheet CSV"
    signature = ("date", "person", "hours")
    missing_remedy = "a timesheet needs date, person, role, phase and hours columns"
    columns = (
        col("date", "date", convert=iso_date, required=True, needed=True),
        col("person", "person", convert=stripped, required=True, needed=True),
        col("role", "role", convert=one_of(LaborRole), required=True, needed=True),
        col("activity", "activity", default=""),
        col("phase", "phase", convert=one_of(LaborPhase), required=True, needed=True),
        col("hours", "hours", convert=nonneg_decimal_text, required=True, needed=True),
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
