"""Whether the figures shown are those of the lake as it is now (review 4 H4, H10, H12).

``attribute`` reads the lake's live imports once and the ledger keeps the figures; an import, a
re-import, ``import --replace`` or ``imports drop`` afterwards changes the lake, not the figures,
until the next ``attribute``. So the ``attribute`` audit entry records the *import set* it read
(``snapshot``: every import's live partitions, from the lake's log alone), and every output that
prints the figures — the sheet and the cross-batch report in each format, ``status``, ``review``,
the dashboard's batches list and batch, run, status and report pages — compares it with the lake's
set now (``check``) and says so at the top:

    stale = {"since": the attribution's time (None: no attribution yet), "attribution_id",
             "changes": [{"change": dropped | imported | imported_again | replaced, "import": id,
                          "kind", "path", "at", "by": {"import", "path"} (replaced)}, …],
             "text", "text_zh"}

``None`` when the figures are current (or nothing is imported and nothing attributed). An
attribution recorded before the set was (an older ledger) is compared by time: every import or
drop logged after it is a change. Only partitions count: a re-import that adds no row (the same
file again) changes nothing. The sentences are the ``freshness`` namespace (``TEXT``).

    snapshot(lake)        {"kind:import key": [live partition keys]}
    check(wsp)            the ``stale`` field above, or None
    note(stale, lang)     its sentence in ``lang``
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from trainledger.i18n import text

ACTION = "attribute"  # the audit entry service.py ``attribute`` appends, with ``imports``
SHOWN = 6  # changes named in the sentence; the rest counted

TEXT: dict[str, tuple[str, str]] = {
    "stale": ("Figures are from the attribution of {since}; since then: {changes} — run `trainledger attribute`"
              " to bring them up to date",
              "以下数字来自 {since} 的归属计算；此后：{changes}——请运行 `trainledger attribute` 更新"),
    "not_attributed": ("Not attributed yet: run `trainledger attribute` — the lake holds {n} import(s): {changes}",
                       "尚未进行归属计算：请运行 `trainledger attribute`——数据湖中已有 {n} 个导入：{changes}"),
    "dropped": ("import {id} ({name}) dropped", "导入 {id}（{name}）已撤销"),
    "imported": ("import {id} ({name}) imported", "新导入 {id}（{name}）"),
    "imported_again": ("import {id} ({name}) imported again", "导入 {id}（{name}）已重新导入"),
    "replaced": ("import {id} ({name}) replaced by {by} ({by_name})", "导入 {id}（{name}）已被 {by}（{by_name}）替换"),
    "listed": ("import {id} ({name})", "导入 {id}（{name}）"),
    "more": ("{n} more", "另有 {n} 项"),
    "sep": ("; ", "；"),
}


def _t(key: str, lang: str, **kw: Any) -> str:
    return text(f"freshness.{key}", lang, **kw)


def _live(lake) -> tuple[dict[str, list[str]], list[tuple[dict, str]]]:
    """({"kind:key": live partition keys}, the log's events with their import key) from the lake's
    log: an import's partitions are those its records published, less those a drop tombstoned."""
    from trainledger.lake import partition_key

    events = [(ev, key) for ev, key, _st in lake.keyed_events()]
    dropped = {k for ev, _ in events if ev.get("action") == "drop" for k in ev.get("partitions") or ()}
    parts: dict[str, set[str]] = {}
    for ev, key in events:
        if ev.get("action") != "drop" and ev.get("partition"):
            parts.setdefault(f"{ev['kind']}:{key}", set()).add(partition_key(ev["partition"]))
    live = {k: sorted(p - dropped) for k, p in parts.items()}
    return {k: p for k, p in sorted(live.items()) if p}, events


def snapshot(lake) -> dict[str, list[str]]:
    """The import set an attribution reads: every import with live rows and its live partitions."""
    return _live(lake)[0]


def _latest(ledger) -> tuple[int | None, dict | None]:
    """(the latest attribution's id, the newest ``attribute`` audit entry: at, detail) — two
    indexed reads, never the attribution's summary."""
    from sqlalchemy import select

    from trainledger.ledger.schema import attributions, audit_log

    with ledger._read() as conn:
        att = conn.execute(select(attributions.c.id).order_by(attributions.c.id.desc()).limit(1)).first()
        if att is None:
            return None, None
        entry = conn.execute(select(audit_log.c.at, audit_log.c.detail).where(audit_log.c.action == ACTION)
                             .order_by(audit_log.c.id.desc()).limit(1)).first()
    return att[0], (None if entry is None else {"at": entry.at, "detail": entry.detail or {}})


def _when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    try:
        at = datetime.fromisoformat(str(value))
    except ValueError:
        return None
    return at if at.tzinfo else at.replace(tzinfo=UTC)


def _change(kind_key: str, change: str, events: list[tuple[dict, str]], **extra: Any) -> dict[str, Any]:
    """A change of one import, with the path and time of its newest log line of that kind."""
    from trainledger.imports import short_id

    kind, _, key = kind_key.partition(":")
    mine = [ev for ev, k in events if k == key and ev.get("kind") == kind]
    drops = [ev for ev in mine if ev.get("action") == "drop"]
    reads = [ev for ev in mine if ev.get("action") != "drop" and ev.get("partition")]
    last = (drops if change == "dropped" else reads) or mine
    ev = last[-1] if last else {}
    path = str(next((e.get("path") for e in reversed(reads or mine) if e.get("path")), "") or "")
    out = {"change": change, "import": short_id(key), "kind": kind, "path": path,
           "at": str(ev.get("at") or ev.get("imported_at") or "")}
    if change == "dropped" and ev.get("reason"):
        out["reason"] = str(ev["reason"])
    if ev.get("replaced_by"):
        out["replaced_by"] = [str(p) for p in ev["replaced_by"]]
    return out | extra


def _by_time(since: datetime, live: dict[str, list[str]], events: list[tuple[dict, str]]) -> list[dict[str, Any]]:
    """An attribution that recorded no import set: every import or drop logged after it."""
    seen: dict[str, str] = {}
    for ev, key in events:
        at = _when(ev.get("at") or ev.get("imported_at"))
        if at is None or at <= since:
            continue
        kk = f"{ev.get('kind')}:{key}"
        if ev.get("action") == "drop":
            seen[kk] = "dropped"
        elif ev.get("partition"):
            seen[kk] = "imported" if seen.get(kk) != "dropped" else "imported_again"
    return [_change(kk, ch if (ch != "dropped" or kk not in live) else "imported_again", events)
            for kk, ch in seen.items()]


def _diff(then: dict[str, list[str]], now: dict[str, list[str]], events) -> list[dict[str, Any]]:
    changes = []
    for kk in sorted(set(then) | set(now), key=lambda k: _order(k, events)):
        if kk not in now:
            changes.append(_change(kk, "dropped", events))
        elif kk not in then:
            changes.append(_change(kk, "imported", events))
        elif sorted(then[kk]) != now[kk]:
            changes.append(_change(kk, "imported_again", events))
    return _replacements(changes)


def _order(kind_key: str, events) -> int:
    kind, _, key = kind_key.partition(":")
    return max((i for i, (ev, k) in enumerate(events) if k == key and ev.get("kind") == kind), default=-1)


def _replacements(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A drop made by ``import --replace`` and the import of the file that replaced it: one change."""
    out, used = [], set()
    for i, c in enumerate(changes):
        if c["change"] != "dropped" or not c.get("replaced_by"):
            continue
        names = {Path(p).name for p in c["replaced_by"]}
        for j, d in enumerate(changes):
            if j not in used and d["change"] in ("imported", "imported_again") and Path(d["path"]).name in names:
                used |= {i, j}
                out.append((i, dict(c, change="replaced", by={"import": d["import"], "path": d["path"]})))
                break
    merged = dict(out)
    return [merged.get(i, c) for i, c in enumerate(changes) if i not in used or i in merged]


def check(wsp) -> dict[str, Any] | None:
    """The ``stale`` field (module docstring): None when the figures are the lake's as it is now."""
    attribution_id, entry = _latest(wsp.ledger)
    now, events = _live(wsp.lake)
    if attribution_id is None:
        if not now:
            return None
        changes = [_change(kk, "imported", events) for kk in now]
        return _with_text({"since": None, "attribution_id": None, "changes": changes})
    if entry is None:
        return None  # an attribution without its audit entry: nothing to compare with
    detail = entry["detail"] if isinstance(entry["detail"], dict) else {}
    if detail.get("attribution_id") not in (None, attribution_id):
        return None  # the newest entry is of another attribution (cut off before its own): no set to compare
    since = _when(entry["at"])
    recorded = detail.get("imports")
    if isinstance(recorded, dict):
        changes = _diff(recorded, now, events)
    elif since is not None:
        changes = _by_time(since, now, events)
    else:
        changes = []
    if not changes:
        return None
    return _with_text({"since": since.isoformat() if since else None, "attribution_id": attribution_id,
                       "changes": changes})


def _name(path: str) -> str:
    return Path(path).name or path or "?"


def _item(c: dict[str, Any], lang: str, listed: bool = False) -> str:
    if listed:
        return _t("listed", lang, id=c["import"], name=_name(c["path"]))
    by = c.get("by") or {}
    return _t(c["change"], lang, id=c["import"], name=_name(c["path"]), by=by.get("import", ""),
              by_name=_name(by.get("path", "")))


def _stamp(since: str | None) -> str:
    at = _when(since) if since else None
    return f"{at.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if at else "?"


def note(stale: dict[str, Any] | None, lang: str = "en") -> str:
    """The sentence of a ``stale`` field in ``lang`` ("" for None)."""
    if not stale:
        return ""
    changes = stale.get("changes") or []
    first = stale.get("since") is None
    items = [_item(c, lang, listed=first) for c in changes[:SHOWN]]
    if len(changes) > SHOWN:
        items.append(_t("more", lang, n=len(changes) - SHOWN))
    joined = _t("sep", lang).join(items)
    if first:
        return _t("not_attributed", lang, n=len(changes), changes=joined)
    return _t("stale", lang, since=_stamp(stale["since"]), changes=joined)


def _with_text(stale: dict[str, Any]) -> dict[str, Any]:
    return stale | {"text": note(stale, "en"), "text_zh": note(stale, "zh-CN")}


__all__ = ["TEXT", "check", "note", "snapshot"]
