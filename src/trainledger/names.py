"""Names users type, read forgivingly where that is safe: a "did you mean" for a near miss, and
IANA time-zone names matched case-insensitively (``asia/shanghai`` is ``Asia/Shanghai``).
Used by the workspace config and the import options alike; imports nothing of trainledger."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def closest(name: str, known: Iterable[str]) -> str | None:
    """The known name closest to ``name`` (case-insensitive), or None."""
    by_fold = {k.casefold(): k for k in known}
    close = difflib.get_close_matches(name.casefold(), list(by_fold), n=1, cutoff=0.6)
    return by_fold[close[0]] if close else None


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """" — did you mean X?" (en / zh-CN) for the known name closest to ``name``
    (case-insensitive), or ""."""
    close = closest(name, known)
    return f" — did you mean {close}? / 是否想写 {close}？" if close else ""


def time_zone(name: str) -> str:
    """The IANA time-zone name ``name`` means, matched case-insensitively; else ValueError
    naming the closest one."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

    if ".." not in name and ("/" in name or name.isalpha()):
        try:
            ZoneInfo(name)
            return name
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    zones = available_timezones() | {"UTC"}
    by_fold = {z.casefold(): z for z in zones}
    if name.casefold() in by_fold:
        return by_fold[name.casefold()]
    raise ValueError(f"unknown time zone {name!r}{did_you_mean(name, zones)} / 未知时区 {name!r}")
