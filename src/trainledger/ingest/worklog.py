"""``worklog``: a Jira-style worklog export (CSV) → table ``labor_entries``.

Columns (matched by name, Jira's and Tempo's spellings): issue key (``Issue Key``, ``issueKey``,
``Issue key``), author (``Author``, ``Username``, ``Full name``), started (``Started``,
``started``, ``Work date``; an ISO time with its offset, e.g. ``2026-11-02T09:00:00.000+0800``,
or a date), time spent (``Time Spent (s)``, ``timeSpentSeconds``, ``Time Spent``: seconds, or
Jira's ``3h 20m`` / ``1d 2h`` with ``1d`` = 8 h and ``1w`` = 5 d — flagged, as Jira's own
working-day settings decide them; ``Hours`` is decimal hours), labels (``Labels``, ``Issue
labels``), comment (``Comment``, ``Work Description``).

What the entry is for comes from the issue's labels — ``role:<role>``, ``phase:<phase>``,
``activity:<text>``, ``batch:<batch>`` (``=`` works as well as ``:``) — else from the import's
settings: ``worklog_roles`` ({author: role}), ``worklog_phase`` (a default phase) — the workspace's
``[import.worklog]`` roles / phase, with ``--worklog-role AUTHOR=ROLE`` / ``--worklog-phase`` over
them (``workspace.Config.import_options``). The activity
defaults to the issue key's project (``LLM-123`` → ``LLM``) and the issue key is kept in it
(``LLM: LLM-123``). A row with no role or no phase is quarantined with what to add.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, col
from trainledger.ingest.convert import one_of, stripped
from trainledger.ingest.delimited import DelimitedImporter
from trainledger.ingest.timesheet import DAY_HOURS
from trainledger.model.assets import default_recurrence
from trainledger.model.vocab import LaborPhase, LaborRole

_role, _phase = one_of(LaborRole), one_of(LaborPhase)
PLACES = Decimal("0.000001")
UNITS = {"w": Decimal(5 * 8 * 3600), "d": Decimal(8 * 3600), "h": Decimal(3600), "m": Decimal(60),
         "s": Decimal(1)}


@dataclass(frozen=True, slots=True)
class WorklogSettings:
    roles: Mapping[str, str]
    phase: str | None


def spent_hours(value: str, unit: str) -> tuple[str, list[str]]:
    """(decimal hours text, notes) of a time spent in seconds, Jira duration or hours."""
    text = value.strip()
    notes: list[str] = []
    if unit == "hours":
        d = Decimal(text)
    elif re.fullmatch(r"\d+", text):
        d = Decimal(text) / 3600
    else:
        parts = re.findall(r"(\d+(?:\.\d+)?)\s*([wdhms])", text)
        if not parts or re.sub(r"\s|\d+(?:\.\d+)?\s*[wdhms]", "", text):
            raise Rejected(f"time spent {value!r} is not seconds or a Jira duration (3h 20m)",
                           "export time spent in seconds, or as Jira writes it (1d 2h 30m)")
        secs = sum(Decimal(n) * UNITS[u] for n, u in parts)
        if any(u in "wd" for _, u in parts):
            notes.append(f"time spent {value!r}: read 1d = 8 h, 1w = 5 d (Jira's default)")
        d = secs / 3600
    if d < 0:
        raise Rejected(f"time spent {value!r} is negative", "log time spent >= 0")
    if d.adjusted() >= 6:  # a million hours in one worklog row is no one's time: a damaged cell
        raise Rejected(f"time spent {value!r} is implausible (over 1,000,000 h)",
                       "check the export's time-spent column (seconds or a Jira duration)")
    q = d.quantize(PLACES, rounding=ROUND_HALF_EVEN)
    if q != d:
        notes.append(f"time spent {value!r} is {q} h (rounded to 6 places)")
    return format(q.normalize(), "f"), notes


def labels_of(text: str | None) -> dict[str, str]:
    out: dict[str, str] = {}
    for label in re.split(r"[\s,;]+", text or ""):
        k, sep, v = label.partition(":")
        if not sep:
            k, sep, v = label.partition("=")
        if sep and k.strip() and v.strip():
            out[k.strip().casefold()] = v.strip()
    return out


def _started(value: Any, ctx: Context) -> date:
    text = str(value).strip()
    m = re.fullmatch(r"(.*[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?)([+-]\d\d)(\d\d)", text)
    if m:  # Jira writes +0800
        text = f"{m[1]}{m[2]}:{m[3]}"
    try:
        return datetime.fromisoformat(text).date()  # the day where the work was logged
    except ValueError:
        raise ValueError(f"not a time or date: {value!r}") from None


class WorklogImporter(DelimitedImporter):
    kind = "worklog"
    table = "labor_entries"
    description = "a Jira-style worklog export (CSV)"
    require_any = (("Time Spent (s)", "timeSpentSeconds", "Time Spent", "Hours"),)
    signature = ()
    options_used = ("worklog_roles", "worklog_phase")
    missing_remedy = "a worklog needs issue key, author, started and time spent columns"
    columns = (
        col("issue", "Issue Key", "issueKey", "Issue key", "Issue", required=True, needed=True,
            convert=stripped),
        col("person", "Author", "author", "Username", "Full name", required=True, needed=True,
            convert=stripped),
        col("date", "Started", "started", "Work date", "Date", convert=_started, required=True,
            needed=True, remedy="write the start as ISO 8601, e.g. 2026-11-02T09:00:00+08:00"),
        col("seconds", "Time Spent (s)", "timeSpentSeconds", "Time Spent", "Time spent"),
        col("hours_given", "Hours"),
        col("labels", "Labels", "Issue labels", "labels", default=""),
        col("comment", "Comment", "Work Description", "comment", default=""),
    )

    def identify_head(self, head: Any) -> bool | str:
        verdict = super().identify_head(head)
        if verdict is not True or head.container == "empty":
            return verdict
        has = head.has
        if not any(has(n) for n in ("Issue Key", "issueKey", "Issue key", "Issue")):
            return "its header has no Issue Key column"
        if not any(has(n) for n in ("Started", "started", "Work date")):
            return "its header has no Started column"
        return True

    def configure(self, options: Mapping[str, Any]) -> WorklogSettings:
        roles = options.get("worklog_roles") or {}
        if not isinstance(roles, Mapping):
            raise BadInput("worklog_roles must map authors to roles", remedy="e.g. {alice = 'data_prep'}")
        checked = {}
        for person, role in roles.items():
            try:
                checked[str(person)] = _role(role)
            except ValueError as e:
                raise BadInput(f"worklog_roles: {person}: {e}", remedy="use a labor role") from None
        phase = options.get("worklog_phase")
        try:
            return WorklogSettings(checked, _phase(phase) if phase else None)
        except ValueError as e:
            raise BadInput(f"worklog_phase: {e}", remedy="use build, run or rework") from None

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        cfg: WorklogSettings = ctx.cfg
        flags: list[str] = values["flags"]
        if values["hours_given"] is not None:
            hours, notes = spent_hours(values["hours_given"], "hours")
        elif values["seconds"] is not None:
            hours, notes = spent_hours(values["seconds"], "seconds")
        else:
            raise Rejected("time spent is empty", "fill in the worklog's time spent")
        flags += notes
        if Decimal(hours) > DAY_HOURS:
            flags.append(f"hours {hours} is more than a day")
        labels = labels_of(values["labels"])
        role = labels.get("role") or cfg.roles.get(values["person"])
        phase = labels.get("phase") or cfg.phase
        if not role:
            raise Rejected(f"no role for {values['person']!r}",
                           "label the issue role:<role> or name the author in worklog_roles")
        if not phase:
            raise Rejected("no phase", "label the issue phase:build|run|rework or set worklog_phase")
        try:
            role, phase = _role(role), _phase(phase)
        except ValueError as e:
            raise Rejected(str(e), "use trainledger's labor vocabulary (docs/formats.md)") from None
        issue = values["issue"]
        project = issue.split("-", 1)[0]
        activity = labels.get("activity") or project
        return {
            "date": values["date"],
            "person": values["person"],
            "role": role,
            "activity": f"{activity}: {issue}",
            "phase": phase,
            "hours": hours,
            "recurrence": default_recurrence(LaborPhase(phase)).value,
            "batch": labels.get("batch"),
            "flags": flags,
        }
