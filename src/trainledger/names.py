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


# Abbreviations people type for a zone, which are no IANA name (or mean another zone than they think):
# what each may mean, most likely first for this tool's users. "CST" for a Chinese cluster is China
# Standard Time, UTC+8; the nearest IANA spelling is "UCT", UTC, eight hours off (review 7 L11).
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "cst": ("Asia/Shanghai", "America/Chicago"), "bjt": ("Asia/Shanghai",), "beijing": ("Asia/Shanghai",),
    "北京时间": ("Asia/Shanghai",), "china": ("Asia/Shanghai",), "hkt": ("Asia/Hong_Kong",),
    "sgt": ("Asia/Singapore",), "jst": ("Asia/Tokyo",), "kst": ("Asia/Seoul",),
    "ist": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"), "pst": ("America/Los_Angeles",),
    "pdt": ("America/Los_Angeles",), "edt": ("America/New_York",), "cdt": ("America/Chicago",),
    "cest": ("Europe/Berlin",), "bst": ("Europe/London",),
}


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
    if (meant := ABBREVIATIONS.get(name.strip().casefold())) is not None:
        one = " or ".join(meant)
        raise ValueError(f"{name!r} is an abbreviation, not a time-zone name: give the IANA name it means"
                         f" ({one}) / {name!r} 是缩写而非时区名：请写出它所指的 IANA 时区名（{'或'.join(meant)}）")
    zones = available_timezones() | {"UTC"}
    by_fold = {z.casefold(): z for z in zones}
    if name.casefold() in by_fold:
        return by_fold[name.casefold()]
    raise ValueError(f"unknown time zone {name!r}{did_you_mean(name, zones)} / 未知时区 {name!r}")
