"""Each batch's sheet figures computed once per attribution, so the first read of a sheet is fast.

A sheet (report/sheet.py) is two parts: ``batch_figures`` — what the batch's cost lines, its runs
and the attribution summary give (totals, compute by state, sections, labor, allocation, the
summary's workspace-wide parts, the run facts its failure causes need) — and what is read per
request (the config's batch, its runs, confirmations in the audit chain, storage objects, the plan).
The first part is a function of the figures the ledger proves (ledger/figures.py), so
``write(wsp)`` — called after ``attribute`` (service.py ``_after_attribution``) — computes it for
every batch in one pass over the ledger, batch by batch (one indexed query each), and ``load``
hands it to the sheet instead of reading the batch's lines and the whole summary again. At 1M job
attempts the summary alone is ~430 MB of JSON.

Memory (review 4 H12): ``attribute`` frees the engine's result before calling ``write`` (service.py
``attribute(report=...)``); ``write`` reads of the summary only what the sheets take (its shared keys,
the runs' facts and hours columns, each extracted by the database: ``_summary_for_sheets``), holds one
batch's lines and runs at a time with their repeated texts as one object (``_shared``), and gzips a
batch's figures as a stream of JSON pieces (``_gzip_json``, the same bytes as compressing the whole
text), so the JSON text is never whole.

Stored as files, not in the ledger: it is derived and can always be rebuilt, like a rendered
report; the ledger keeps only the proof. Layout: ``<workspace>/cache/sheets/<figures digest>/
<batch id, quoted>.json.gz``. ``write`` computes from one snapshot that it verifies first
(``figures.verify``: nothing is precomputed from a ledger that does not match its chain), then
appends one audit entry ``precompute_sheets`` naming the figures digest and each file's sha256, and
the seal of the verified tables (ledger/seal.py), with which a server proves the same state at
its first request without recomputing every fingerprint.

``load`` serves a file only when all of these hold, else None (the sheet is then built from the
lines, as before): the sheet's proof is verified and its figures digest is the entry's (so a
precompute of other figures — an older attribution, a restored database — is never served), and
the file's bytes hash to what the chain recorded (a file edited behind the ledger's back is not
used; ``trainledger audit`` proves the chain itself).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import shutil
import zlib
from collections.abc import Iterator
from decimal import Decimal
from itertools import islice
from pathlib import Path
from typing import Any
from urllib.parse import quote

from sqlalchemy import select

ACTION = "precompute_sheets"
DIR = Path("cache") / "sheets"


def folder(root: Path, digest: str) -> Path:
    return Path(root) / DIR / digest


def _name(batch_id: str) -> str:
    return quote(batch_id, safe="") + ".json.gz"


def write(wsp) -> dict[str, Any] | None:
    """Every batch's ``batch_figures`` from one verified snapshot of the ledger, written under the
    figures digest, and the audit entry that records them; None (nothing written) when the ledger
    does not verify or has no attribution."""
    from trainledger.ledger import figures, seal
    from trainledger.ledger.rows import cost_line_from, run_from
    from trainledger.ledger.schema import attributions, audit_log, cost_lines, runs
    from trainledger.report.sheet import SUMMARY_KEYS, RetryLinks, batch_figures

    ledger = wsp.ledger
    root = Path(wsp.config.root)
    with ledger.snapshot() as conn:
        log = [dict(m) for m in conn.execute(select(audit_log).order_by(audit_log.c.id)).mappings()]
        problems, proof = figures.verify(conn, log)
        latest = conn.execute(select(attributions.c.id).order_by(attributions.c.id.desc()).limit(1)).mappings().first()
        if problems or not proof["verified"] or latest is None:
            return None
        # the problems too: indexed once, each batch's own given to its sheet (report/sheet_problems.py)
        summary = _summary_for_sheets(conn, latest["id"], (*SUMMARY_KEYS, "allocation", "problems"))
        facts = RetryLinks(summary)
        shared = {k: summary[k] for k in SUMMARY_KEYS if k in summary}
        target = folder(root, proof["figures_digest"])
        tmp = target.with_name(target.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        sheets = {}
        for b in ledger.list_batches():
            lines = [cost_line_from(m) for m in _rows(
                conn, select(cost_lines).where(cost_lines.c.batch_id == b.id).order_by(cost_lines.c.id))]
            its_runs = [run_from(m) for m in _rows(
                conn, select(runs).where(runs.c.batch_id == b.id).order_by(runs.c.batch_id, runs.c.id))]
            body = batch_figures(lines, its_runs, summary, latest["id"], facts, shared)
            data = _gzip_json(body)
            (tmp / _name(b.id)).write_bytes(data)
            sheets[b.id] = hashlib.sha256(data).hexdigest()
            del lines, its_runs, body, data  # one batch's lines and figures held at a time, not two (H12)
        sealed = seal.tables(conn)  # the verified tables, for a server's first check (ledger/seal.py)
    shutil.rmtree(target, ignore_errors=True)
    os.replace(tmp, target)
    for old in target.parent.iterdir():  # earlier figures' files: never served again
        if old != target:
            shutil.rmtree(old, ignore_errors=True)
    detail = {"figures_digest": proof["figures_digest"], "dir": str(DIR / proof["figures_digest"]),
              "sheets": sheets, **({"seal": sealed} if sealed is not None else {})}
    ledger.audit("", ACTION, "workspace", detail)
    return detail


def _summary_for_sheets(conn, attribution_id: int, keys: tuple[str, ...]) -> dict[str, Any]:
    """What the sheets read of the attribution's summary: ``keys`` and the runs' facts and hours
    columns, each extracted by the database — not the stored explanations, which a summary with
    facts never serves (``RetryLinks``; a third of the summary, ~400 MB as Python at 1M job attempts,
    H12). A summary without run columns (an older attribution) is read whole."""
    from trainledger.engine.summary_runs import KEY
    from trainledger.ledger.schema import attributions

    s = attributions.c.summary
    where = attributions.c.id == attribution_id
    facts = conn.execute(select(s[(KEY, "facts", "run_id")]).where(where)).scalar()
    if not facts:
        return conn.execute(select(s).where(where)).scalar()
    out: dict[str, Any] = {}
    for key in keys:  # one at a time: a key the summary lacks comes back null and is left out
        value = conn.execute(select(s[key]).where(where)).scalar()
        if value is not None:
            out[key] = value
    del facts
    out[KEY] = {part: conn.execute(select(s[(KEY, part)]).where(where)).scalar() for part in ("facts", "hours")}
    return out


SMALL = 64  # a dict or list of at most this many items is walked item by item (one of them may be large)
SLICE = 512  # a longer one's items are dumped this many at a time: one ``json.dumps`` call per slice


def _pieces(value: Any, depth: int = 2) -> Iterator[str]:
    """``json.dumps(value, separators=(",", ":"))`` in pieces: a short dict or list item by item, down to
    ``depth``; a long one (a batch's per-run maps: ~100 MB of JSON at 1M job attempts, H12) ``SLICE``
    items per ``json.dumps`` call — the same text, as the C encoder writes a container as its items joined
    by commas, with a small piece per call (~2 µs of it per call, not ~10 µs: issue 7)."""
    if depth and type(value) is dict and all(type(k) is str for k in value):
        if len(value) > SMALL:
            items, sep = iter(value.items()), ""
            yield "{"
            while part := dict(islice(items, SLICE)):
                yield sep + json.dumps(part, separators=(",", ":"))[1:-1]
                sep = ","
            yield "}"
            return
        yield "{"
        for i, (k, v) in enumerate(value.items()):
            yield ("," if i else "") + json.dumps(k) + ":"
            yield from _pieces(v, depth - 1)
        yield "}"
    elif depth and type(value) is list:
        if len(value) > SMALL:
            yield "["
            for i in range(0, len(value), SLICE):
                yield ("," if i else "") + json.dumps(value[i:i + SLICE], separators=(",", ":"))[1:-1]
            yield "]"
            return
        yield "["
        for i, v in enumerate(value):
            if i:
                yield ","
            yield from _pieces(v, depth - 1)
        yield "]"
    else:
        yield json.dumps(value, separators=(",", ":"))


def _gzip_json(body: dict) -> bytes:
    """``gzip.compress(json.dumps(body, separators=(",", ":")).encode(), compresslevel=1, mtime=0)``,
    byte for byte (zlib's stream does not depend on how its input is cut; a gzip header with mtime 0),
    without the whole JSON text in memory."""
    z = zlib.compressobj(1, zlib.DEFLATED, 31)
    out, buf, size = [], [], 0
    for piece in _pieces(body, 3):
        buf.append(piece)
        size += len(piece)
        if size > 1 << 20:
            out.append(z.compress("".join(buf).encode("utf-8")))
            buf, size = [], 0
    out.append(z.compress("".join(buf).encode("utf-8")))
    out.append(z.flush())
    return b"".join(out)


def _shared(rows, keys: tuple[str, ...] | None = None) -> Iterator[dict[str, Any]]:
    """The rows with each repeated text one object (a batch's lines name a few source files, rules,
    states and units, each read back as a new string per row) and a row's equal Decimals one object
    (an exact line's low, expected and high): the same values, ~0.6 KB less per line held (H12).
    With ``keys`` the rows are tuples of those columns' values (a query's result as it comes: no
    mapping per row, issue 7); else mappings."""
    texts: dict[str, str] = {}
    for m in rows:
        row, last = {}, None
        for k, v in (m.items() if keys is None else zip(keys, m, strict=True)):
            if type(v) is str:
                v = texts.setdefault(v, v)
            elif type(v) is Decimal:
                if last is not None and v == last and v.as_tuple() == last.as_tuple():
                    v = last  # Decimals are immutable: the same digits and exponent, one object
                last = v
            row[k] = v
        yield row


def _rows(conn, query) -> Iterator[dict[str, Any]]:
    """``query``'s rows as dicts with their repeated values shared (``_shared``), fetched as tuples."""
    result = conn.execute(query)
    return _shared(result, tuple(result.keys()))


def recorded(ledger) -> dict[str, Any] | None:
    """The detail of the newest ``precompute_sheets`` entry of the audit chain."""
    from trainledger.ledger.schema import audit_log

    q = (select(audit_log.c.detail).where(audit_log.c.action == ACTION)
         .order_by(audit_log.c.id.desc()).limit(1))
    with ledger._read() as conn:
        row = conn.execute(q).first()
    return row[0] if row is not None and isinstance(row[0], dict) else None


def load(wsp, batch_id: str, proof: dict[str, Any]) -> dict[str, Any] | None:
    """The batch's precomputed figures for the verified ``proof``, or None (module docstring)."""
    if not proof.get("verified") or not proof.get("figures_digest"):
        return None
    entry = recorded(wsp.ledger)
    if entry is None or entry.get("figures_digest") != proof["figures_digest"]:
        return None
    want = (entry.get("sheets") or {}).get(batch_id)
    path = folder(Path(wsp.config.root), proof["figures_digest"]) / _name(batch_id)
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if want is None or hashlib.sha256(data).hexdigest() != want:
        return None
    return json.loads(gzip.decompress(data))
