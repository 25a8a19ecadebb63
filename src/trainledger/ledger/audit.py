"""The tamper-evident audit log: a sha256 hash chain over every change to the ledger.

Each entry's hash covers its id, time, actor, action, object, detail and the previous entry's
hash, as canonical JSON. Editing, deleting, inserting or reordering a row breaks the chain at
that row and ``verify`` names it. What a chain cannot show on its own is the removal of the
*last* entries or a rewrite of the whole tail with fresh hashes: for that, keep the latest hash
somewhere else (a report, a ticket, a commit) and compare.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping
from datetime import UTC, date, datetime
from decimal import Decimal
from enum import Enum
from typing import Any

GENESIS = "0" * 64  # prev_hash of the first entry


def _json_default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime):
        return value.astimezone(UTC).isoformat() if value.tzinfo else value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, set | frozenset):
        return sorted(value, key=str)
    raise TypeError(f"cannot store {type(value).__name__} {value!r} as JSON")


def jsonable(value: Any) -> Any:
    """``value`` as the JSON the database will give back: Decimals and dates become strings,
    tuples and sets lists. Hashing and storing this form makes the chain verifiable later."""
    return json.loads(json.dumps(value, default=_json_default, allow_nan=False))


def jsonable_each(value: Mapping[str, Any]) -> dict[str, Any]:
    """``jsonable`` of a mapping a key at a time, keeping a value that already is what the database
    gives back (``is_plain``) as it is: the attribution summary's run columns (``engine/summary_runs``,
    lists of text per run) are, and their dump and parse made a second copy of them, ~0.8 KB a run
    beside the first, in the ledger write of 1M job attempts (H12). Equal to ``jsonable(value)``."""
    if not all(type(k) is str for k in value):
        return jsonable(value)  # keys JSON would rename (1 → "1", None → "null"): the whole round trip
    return {k: v if is_plain(v) else jsonable(v) for k, v in value.items()}


_SCALARS = frozenset((str, int, bool, type(None)))


def is_plain(value: Any) -> bool:
    """Whether ``value`` is already its own JSON round trip: dicts of text keys, lists, exact ``str`` /
    ``int`` / ``bool`` / ``None`` and finite floats (not a tuple, a str or int subclass — an enum, a
    ``Msg`` —, a Decimal or a date: ``jsonable`` converts those)."""
    kind = type(value)
    if kind in _SCALARS:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(type(x) in _SCALARS or is_plain(x) for x in value)
    if kind is dict:
        return all(type(k) is str and is_plain(x) for k, x in value.items())
    return False


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def entry_hash(
    *, id: int, at: datetime, actor: str, action: str, object: str, detail: Any, prev_hash: str
) -> str:
    payload = {
        "id": id,
        "at": at.astimezone(UTC).isoformat(),
        "actor": actor,
        "action": action,
        "object": object,
        "detail": detail,
        "prev_hash": prev_hash,
    }
    return hashlib.sha256(canonical(payload).encode("utf-8")).hexdigest()


def verify(entries: Iterable[Mapping[str, Any]], after: tuple[int, str] = (0, GENESIS)) -> list[str]:
    """Problems with the chain, in id order; an empty list means intact. ``after``: the (id, hash)
    of an entry already verified, which ``entries`` (the ones after it) must continue — the
    incremental check of ledger/seal.py; the default starts at the genesis."""
    problems: list[str] = []
    prev_id, prev_hash = after
    for e in entries:
        what = f"audit entry {e['id']} ({e['action']} {e['object']})"
        if e["id"] != prev_id + 1:
            problems.append(
                f"audit entries {prev_id + 1}..{e['id'] - 1} are missing (deleted after writing)"
                if e["id"] > prev_id + 1
                else f"{what}: id out of order after entry {prev_id}"
            )
        if e["prev_hash"] != prev_hash:
            problems.append(
                f"{what}: prev_hash does not match the hash of entry {prev_id}"
                " (an entry was removed, inserted or reordered)"
            )
        expected = entry_hash(
            id=e["id"], at=e["at"], actor=e["actor"], action=e["action"], object=e["object"],
            detail=e["detail"], prev_hash=e["prev_hash"],
        )
        if expected != e["hash"]:
            problems.append(f"{what}: content does not match its hash (edited after writing)")
        prev_id, prev_hash = e["id"], e["hash"]
    return problems
