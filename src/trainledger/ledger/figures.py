"""Tamper evidence for the figures: digests of the stored cost lines, runs and attribution summary.

The audit chain (``audit.py``) proves the *events*; this module proves the *figures* they left
behind. Whenever the cost lines, the runs or the latest attribution change, the writer records in
that same transaction's audit entry the digests of what it stored::

    row fingerprint  sha256 of the row's canonical text (every column but the table id, in a fixed
                     order, each value typed and length-prefixed; Decimals as their exact text,
                     instants in UTC ISO form), first 32 hex digits
    table digest     sha256 of the fingerprints joined by newlines, in id order
    summary digest   sha256 of the canonical JSON of the attribution's summary (conservation,
                     problems, assumptions — what the sheet prints beside the lines)
    figures digest   sha256 over the attribution id and the three digests: one value a printed
                     sheet carries so it can be tied to a verified ledger state

The fingerprints themselves are kept in ``figure_digests`` (not hashed into the chain — only their
digest is), so ``verify`` can name the first row that differs. If that table was edited too, the
mismatch is still reported, only less precisely. A 128-bit fingerprint means a forged row must hit
a second preimage of sha256 truncated to 128 bits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from hashlib import sha256
from typing import Any

from trainledger.ledger.audit import canonical, jsonable

FP_LEN = 32  # hex digits of a row fingerprint
KEYS = {"cost_lines": "lines_digest", "runs": "runs_digest"}  # table → audit detail key
SUMMARY_KEY = "summary_digest"


def _field(v: Any) -> str:
    """One value, typed and length-prefixed (so no two rows serialise alike). Decimals as their
    exact text — the ledger stores and returns value *and* exponent, so ``1.10`` → ``1.1`` is a
    change, as it is on the sheet, which prints the digits stored."""
    t = type(v)
    if t is str:
        text = "s" + v
    elif v is None:
        return "-"
    elif t is Decimal:
        text = "d" + str(v)
    elif t is int or t is bool:
        text = "i" + str(int(v))
    elif isinstance(v, datetime):
        text = "t" + v.astimezone(UTC).isoformat()
    elif isinstance(v, str):
        text = "s" + str(v)
    else:
        text = "j" + canonical(jsonable(v))
    return f"{len(text)}:{text}"


# columns added after ledgers already held fingerprints: a null value leaves the row's fingerprint
# as it was before the column existed, so an upgraded ledger still verifies
LATER_COLUMNS = frozenset({"gpu_share", "import_key"})


def fingerprint(row: Mapping[str, Any], columns: Sequence[str]) -> str:
    body = ",".join([_field(row[c]) for c in columns if not (c in LATER_COLUMNS and row[c] is None)])
    return sha256(body.encode("utf-8", "surrogatepass")).hexdigest()[:FP_LEN]


def fingerprints(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> list[str]:
    return [fingerprint(r, columns) for r in rows]


def digest_of(fps: Sequence[str]) -> str:
    return hashlib.sha256("\n".join(fps).encode("ascii")).hexdigest()


def summary_digest(summary: Any) -> str:
    return hashlib.sha256(canonical(jsonable(summary)).encode("utf-8")).hexdigest()


def stored_summary_digest(summary: Any) -> str:
    """``summary_digest`` of a summary as the database gives it back: already JSON values, so
    ``jsonable`` (a dump and a parse of the whole summary, ~430 MB at 1M job attempts) is the
    identity and is skipped."""
    return hashlib.sha256(canonical(summary).encode("utf-8")).hexdigest()


def figures_digest(attribution_id: int | None, lines: str, runs: str, summary: str) -> str:
    body = canonical({"attribution": attribution_id, "lines": lines, "runs": runs, "summary": summary})
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Recorded:
    """The newest digests the audit chain holds, and the entry that recorded each."""

    attribution_id: int | None = None
    lines_digest: str | None = None
    runs_digest: str | None = None
    summary_digest: str | None = None
    entry: dict[str, int] | None = None  # detail key → audit entry id


def recorded(entries: Iterable[Mapping[str, Any]]) -> Recorded:
    found: dict[str, Any] = {}
    where: dict[str, int] = {}
    for e in entries:
        d = e["detail"]
        if not isinstance(d, dict):
            continue
        for key in (*KEYS.values(), SUMMARY_KEY, "attribution"):
            if d.get(key) is not None:
                found[key], where[key] = d[key], e["id"]
    return Recorded(attribution_id=found.get("attribution"), lines_digest=found.get("lines_digest"),
                    runs_digest=found.get("runs_digest"), summary_digest=found.get(SUMMARY_KEY),
                    entry=where)


def first_difference(have: Sequence[str], want: Sequence[str]) -> int | None:
    """0-based index of the first fingerprint that differs (or the shorter length); None if equal."""
    for i, (a, b) in enumerate(zip(have, want, strict=False)):
        if a != b:
            return i
    return None if len(have) == len(want) else min(len(have), len(want))


__all__ = ["FP_LEN", "KEYS", "Recorded", "digest_of", "figures_digest", "fingerprint", "fingerprints",
           "first_difference", "recorded", "summary_digest"]


# -- storing and verifying (inside the ledger's transactions) ------------------------------------

def store(conn: Any, name: str, fps: Sequence[str]) -> str:
    """Keep the fingerprints of table ``name`` (replacing the previous ones); return their digest."""
    from sqlalchemy import delete, insert

    from trainledger.ledger.schema import figure_digests

    digest = digest_of(fps)
    conn.execute(delete(figure_digests).where(figure_digests.c.name == name))
    conn.execute(insert(figure_digests).values(name=name, digest=digest, rows=len(fps),
                                               fingerprints="\n".join(fps)))
    return digest


def table_fingerprints(conn: Any, name: str) -> list[str]:
    """The fingerprints of the rows table ``name`` holds now, in id order."""
    from sqlalchemy import select

    from trainledger.ledger import schema

    table = getattr(schema, name)
    cols = columns_of(name)
    return [fingerprint(m, cols) for m in conn.execute(select(table).order_by(table.c.id)).mappings()]


def table_digest(conn: Any, name: str) -> tuple[str, int]:
    """(``digest_of(table_fingerprints(conn, name))``, row count), fed a fingerprint at a time: no
    list of every row's fingerprint is held (2.6M at 1M job attempts, H12). The rows come as tuples in
    ``columns_of`` order and each is fingerprinted by ``_row_fingerprint`` (``fingerprint`` inlined:
    the same text, ~2x faster: the precompute verifies every row, issue 7)."""
    from sqlalchemy import select

    from trainledger.ledger import schema

    table = getattr(schema, name)
    cols = columns_of(name)
    later = frozenset(i for i, c in enumerate(cols) if c in LATER_COLUMNS)
    h, n = hashlib.sha256(), 0
    q = select(*(table.c[c] for c in cols)).order_by(table.c.id).execution_options(yield_per=65_536)
    for row in conn.execute(q):
        fp = _row_fingerprint(row, later).encode("ascii")
        h.update(b"\n" + fp if n else fp)
        n += 1
    return h.hexdigest(), n


def _row_fingerprint(row: Sequence[Any], later: frozenset[int]) -> str:
    """``fingerprint`` of a row given as its values in column order (``later``: the indexes of
    ``LATER_COLUMNS``), ``_field``'s cases inlined for the common types."""
    parts = []
    add = parts.append
    for i, v in enumerate(row):
        t = type(v)
        if t is str:
            add(f"{len(v) + 1}:s{v}")
        elif v is None:
            if i not in later:
                add("-")
        elif t is Decimal:
            text = str(v)
            add(f"{len(text) + 1}:d{text}")
        elif t is int:
            text = str(v)
            add(f"{len(text) + 1}:i{text}")
        else:
            add(_field(v))
    return sha256(",".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:FP_LEN]


def columns_of(name: str) -> tuple[str, ...]:
    from trainledger.ledger import schema

    table = getattr(schema, name)
    return tuple(c.name for c in table.columns if not (name == "cost_lines" and c.name == "id"))


def _split(text: str) -> list[str]:
    return text.split("\n") if text else []


def _describe(conn: Any, name: str, index: int) -> str:
    """What the ``index``-th stored row of ``name`` is, for a message."""
    from sqlalchemy import select

    from trainledger.ledger import schema

    table = getattr(schema, name)
    m = conn.execute(select(table).order_by(table.c.id).offset(index).limit(1)).mappings().first()
    if m is None:
        return f"row {index + 1} is missing (rows were deleted)"
    if name == "runs":
        gpus = m["gpus"] if m.get("gpu_share") is None else m["gpu_share"]
        return f"run {m['id']!r}, as stored now: batch {m['batch_id']}, {gpus} GPUs, state {m['state']}"
    where = m["batch_id"] or "unattributed"
    return (f"cost line {index + 1} (id {m['id']}), as stored now: {where}, {m['category']} {m['detail']},"
            f" {m['expected']} {m['currency']}, source row {m['source_row']}")


def _kept(conn: Any, name: str) -> Mapping[str, Any] | None:
    """Table ``name``'s row of ``figure_digests`` (its fingerprints' text: ~85 MB at 1M job attempts,
    so one table's at a time)."""
    from sqlalchemy import select

    from trainledger.ledger.schema import figure_digests

    return conn.execute(select(figure_digests).where(figure_digests.c.name == name)).mappings().first()


def verify(conn: Any, entries: Sequence[Mapping[str, Any]]) -> tuple[list[str], dict[str, Any]]:
    """Recompute the digests of the stored figures and compare them with the newest ones the
    audit chain recorded. Returns (problems, proof): problems name the attribution and the first
    row that differs; proof is what a sheet prints (audit head, attribution, figures digest)."""
    from sqlalchemy import select

    from trainledger.ledger.schema import attributions

    rec = recorded(entries)
    head = entries[-1] if entries else None
    latest = conn.execute(select(attributions).order_by(attributions.c.id.desc()).limit(1)).mappings().first()
    proof: dict[str, Any] = {"audit_head_id": head["id"] if head else None,
                             "audit_head_hash": head["hash"] if head else None,
                             "attribution_id": latest["id"] if latest else None,
                             "figures_digest": None, "verified": False}
    problems: list[str] = []
    if latest is not None and rec.lines_digest is None:
        problems.append(f"attribution {latest['id']} was written before the ledger recorded figure digests:"
                        " its figures cannot be verified (run `trainledger attribute` to record them)")
        return problems, proof
    what = f"attribution {rec.attribution_id}" if rec.attribution_id is not None else "the ledger"
    if latest is None and rec.attribution_id is None:
        pass  # nothing attributed yet: only runs can have been written
    elif latest is None or latest["id"] != rec.attribution_id:
        problems.append(f"{what} is the latest in the audit chain, but the ledger's latest attribution row is"
                        f" {latest['id'] if latest else 'missing'} (an attribution row was inserted or deleted)")
    elif stored_summary_digest(latest["summary"]) != rec.summary_digest:
        problems.append(f"{what}: its summary (conservation, problems, assumptions) differs from what was"
                        " written (edited after writing)")
    digests = {}
    for name, key in KEYS.items():
        want = getattr(rec, key)
        digests[name], n_have = table_digest(conn, name)  # streamed; the rows' list only to name a difference
        if want is None and n_have:
            problems.append(f"{what}: the ledger holds {n_have} {name.replace('_', ' ')} that no audited write"
                            " recorded (inserted behind the ledger's back)")
            continue
        stored = _kept(conn, name)
        if want is None or digests[name] == want:
            # digest_of(the stored list) is the sha256 of its text: "\n".join(text.split("\n")) is text
            if want is not None and (stored is None or stored["digest"] != want
                                     or hashlib.sha256(stored["fingerprints"].encode("ascii")).hexdigest() != want):
                problems.append(f"{what}: the stored fingerprints of {name} (table figure_digests) were"
                                " edited; the rows themselves still match the audit chain")
            continue
        plural = "cost lines" if name == "cost_lines" else "runs"
        ref = _split(stored["fingerprints"]) if stored else []
        if stored is not None and digest_of(ref) == want:
            have = table_fingerprints(conn, name)
            at = first_difference(have, ref) or 0  # the digests differ, so the lists do
            extra = f" ({len(have)} stored, {len(ref)} written)" if len(have) != len(ref) else ""
            problems.append(f"{what}: the stored {plural} differ from what was written (audit entry"
                            f" {rec.entry.get(key) if rec.entry else '?'}); first difference:"
                            f" {_describe(conn, name, at)}{extra}")
        else:
            problems.append(f"{what}: the stored {plural} differ from what was written, and their fingerprints"
                            " (table figure_digests) were rewritten too: the first differing row cannot be named")
    if not problems:
        proof["figures_digest"] = figures_digest(rec.attribution_id, digests["cost_lines"], digests["runs"],
                                                 rec.summary_digest or "")
        proof["verified"] = True
    return problems, proof
