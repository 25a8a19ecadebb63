"""Bill rows that restate a row of an earlier import: the same charge, from a later file.

FOCUS corrects a charge with ``ChargeClass = Correction`` rows; a later export that simply
repeats a charge with another amount (or other columns) is ambiguous — a correction, or a
second charge? Both rows are counted (nothing is dropped), so this is surfaced, once at import
(``ingest/notices.py`` ``restated``) and at every ``attribute`` (problem ``restated_bill_row``).

    same charge = billing account, resource, charge period (start, end), charge category and
                  class, SKU and SKU price id, currency — one of resource / SKU present;
                  correction rows never count

``find`` groups the rows of every file by that key; a key held by two or more files is a
restatement of the earliest import (log order) by each later one — unless every row the later
file holds of it is a row the earlier holds (same ``row_hash``, given by ``in_lake``): then it is
a *repeat*, a row the later file states more often than the earlier (the cross-file copies are
duplicates, the rest flagged ``repeated_row_in_file``), counted as the later file states it. A
charge at the same amount with other columns is a restatement (both rows are counted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from trainledger.engine.context import Problem

KEY = ("billing_account_id", "resource_id", "charge_period_start", "charge_period_end", "charge_category",
       "charge_class", "sku_id", "sku_price_id", "currency")
COLUMNS = (*KEY, "billed_cost", "source_sha256")
EXAMPLES = 3  # restated amounts (earlier then later) an import's notice names


@dataclass(frozen=True, slots=True)
class Restatement:
    """Rows of import ``later`` restating rows of import ``earlier`` (content hashes)."""

    earlier: str
    later: str
    rows: int
    earlier_amount: Decimal  # billed cost of the restated rows in the earlier import
    later_amount: Decimal  # and in the later one: both are in the figures
    currency: str
    repeated: int = 0  # of ``rows``, the charges whose later rows are all rows the earlier holds (same row_hash)
    earlier_rows: int = 0  # the earlier import's rows holding these charges (a charge may be in a file twice)
    examples: tuple[tuple[Decimal, Decimal], ...] = ()  # (earlier, later) of the first few whose amount differs
    repeated_earlier: Decimal = Decimal(0)  # of ``earlier_amount`` and ``later_amount``: the repeated charges'
    repeated_later: Decimal = Decimal(0)

    @property
    def restated(self) -> int:
        """Charges whose amount differs from the earlier import's: the restatements proper."""
        return self.rows - self.repeated


def _counts(row: Mapping[str, Any]) -> bool:
    return (str(row.get("charge_class") or "").lower() != "correction"
            and bool(row.get("resource_id") or row.get("sku_id")))


def find(rows: Iterable[Mapping[str, Any]], order: Sequence[str]) -> list[Restatement]:
    """Restatements among bill ``rows`` (with ``source_sha256``); ``order``: content hashes in
    import order (an unknown one sorts last)."""
    rank = {sha: i for i, sha in enumerate(order)}
    rows = rows if isinstance(rows, Sequence) else list(rows)
    if len({r["source_sha256"] for r in rows}) < 2:
        return []  # one import restates nothing
    first_sha: dict[tuple, str] = {}
    several: set[tuple] = set()  # keys that more than one import has: only their amounts are summed
    for r in rows:
        if _counts(r):
            key = tuple(r.get(c) for c in KEY)
            if first_sha.setdefault(key, r["source_sha256"]) != r["source_sha256"]:
                several.add(key)
    groups: dict[tuple, dict[str, Decimal]] = {}
    copies: dict[tuple, dict[str, int]] = {}
    hashes: dict[tuple, dict[str, set]] = {}  # each copy's row_hash (None: not given)
    for r in rows if several else ():
        if _counts(r) and (key := tuple(r.get(c) for c in KEY)) in several:
            by = groups.setdefault(key, {})
            sha = r["source_sha256"]
            amount = Decimal(str(r["billed_cost"]))
            by[sha] = by.get(sha, Decimal(0)) + amount
            n = copies.setdefault(key, {})
            n[sha] = n.get(sha, 0) + 1
            hashes.setdefault(key, {}).setdefault(sha, set()).add(r.get("row_hash"))
    pairs: dict[tuple[str, str, str], list] = {}
    for key, by in sorted(groups.items(), key=lambda kv: tuple(str(v) for v in kv[0])):  # examples: stable
        if len(by) < 2:
            continue
        first, *later = sorted(by, key=lambda s: (rank.get(s, len(rank)), s))
        for sha in later:
            acc = pairs.setdefault((first, sha, str(key[-1])),
                                   [0, Decimal(0), Decimal(0), 0, 0, [], Decimal(0), Decimal(0)])
            acc[0] += 1
            acc[1] += by[first]
            acc[2] += by[sha]
            acc[4] += copies[key][first]
            mine = hashes[key][sha]
            if None not in mine and mine <= hashes[key][first]:  # every copy a row the earlier holds
                acc[3] += 1
                acc[6] += by[first]
                acc[7] += by[sha]
            elif len(acc[5]) < EXAMPLES:
                acc[5].append((by[first], by[sha]))
    return [Restatement(e, la, n, ea, lb, cur, rep, er, tuple(ex), re_, rl)
            for (e, la, cur), (n, ea, lb, rep, er, ex, re_, rl) in sorted(pairs.items())]


def problems(bill_lines: Iterable[Mapping[str, Any]], imports: Sequence[Mapping[str, Any]]) -> list[Problem]:
    """Per (earlier import, later import, currency): one ``restated_bill_row`` problem for the charges
    restated (another amount or other columns: both counted), one ``repeated_bill_row`` for the
    charges the later file repeats unchanged (same row hash: counted as it states them) — the
    distinction the import notice makes (service.py ``_restated_notice``)."""
    order, seen = [], set()
    info: dict[str, Mapping[str, Any]] = {}
    for rec in imports:
        sha = rec.get("sha256")
        if isinstance(sha, str) and sha not in seen:
            seen.add(sha)
            order.append(sha)
        if isinstance(sha, str):
            info[sha] = rec
    out = []
    for r in find(_candidates(bill_lines), order):
        later = info.get(r.later, {})
        e, la, cur = r.earlier[:12], r.later[:12], r.currency
        if r.repeated:  # the later file states rows of the earlier unchanged, more often: no charge twice
            out.append(Problem("repeated_bill_row",
                               f"{r.repeated} bill row(s) of import {la} repeat rows of import {e} unchanged (same"
                               f" charge, {cur} amount and every other column): a repeat, not a restatement;"
                               f" counted as import {la} states them, nothing twice",
                               {"rows": r.repeated, "earlier": e, "later": la, "currency": cur}))
        if not r.restated:
            continue
        command = (f"trainledger import {later.get('kind') or 'focus'} {later.get('path') or 'PATH'}"
                   f" --replace {r.earlier[:12]}")
        ea, lb = r.earlier_amount - r.repeated_earlier, r.later_amount - r.repeated_later
        out.append(Problem("restated_bill_row",
                           f"{r.restated} bill row(s) of import {la} restate rows of import {e} (same billing"
                           f" account, resource, charge period, category, class and SKU): {ea} then {lb} {cur},"
                           f" both counted; if the later export replaces the earlier, {ea} {cur} is counted"
                           f" twice: run `{command}`",
                           {"rows": r.restated, "earlier": e, "later": la, "earlier_amount": str(ea),
                            "later_amount": str(lb), "currency": cur, "command": command}))
    return out


def _candidates(bill_lines: Iterable[Mapping[str, Any]]) -> Sequence[Mapping[str, Any]]:
    """The bill rows ``find`` needs, as rows of ``COLUMNS``: from the lake's columns, only those
    whose key (as text, nulls as "") more than one import has — a superset of the rows whose key
    several imports share, so ``find`` on them finds what it finds on all; the others are never made."""
    from trainledger.engine.context import Rows
    from trainledger.engine.lines import dense

    if not isinstance(bill_lines, Rows) or not bill_lines.is_columns:
        return bill_lines if isinstance(bill_lines, Sequence) else list(bill_lines)
    import pyarrow as pa
    import pyarrow.compute as pc

    t = bill_lines.table
    if "source_sha256" not in t.column_names or pc.count_distinct(dense(t.column("source_sha256"))).as_py() < 2:
        return ()  # one import restates nothing
    text = [pc.fill_null(pc.cast(t.column(c), pa.string()), "") if c in t.column_names
            else pa.array([""] * t.num_rows, pa.string()) for c in KEY]
    key = pc.binary_join_element_wise(*text, "\x1f")
    per = pa.table({"k": key, "s": t.column("source_sha256")}).group_by("k", use_threads=False).aggregate(
        [("s", "count_distinct")])
    shared = per.filter(pc.greater(per.column("s_count_distinct"), 1)).column("k")
    if not len(shared):
        return ()
    hit = t.filter(pc.is_in(key, value_set=shared.combine_chunks()))
    return hit.select([c for c in (*COLUMNS, "row_hash") if c in t.column_names]).to_pylist()  # row_hash: repeats


__all__ = ["COLUMNS", "KEY", "Restatement", "find", "in_lake", "live_rows", "other_sources", "problems"]


def in_lake(lake: Any, sha: str) -> list[Restatement]:
    """The restatements between import ``sha``'s live bill rows and the lake's other bill rows
    (at import time). Only the key columns are read, and only rows whose key the other side
    shares become Python rows; a lake with no other bill partition is not read at all."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    parts = lake.partition_files("bill_lines")
    mine = [p for p in parts if p.parent.name == f"source={sha}"]
    others = [p for p in parts if p.parent.name != f"source={sha}"]
    if not mine or not others:
        return []

    def keyed(path: Any) -> pa.Table:
        have = set(pq.ParquetFile(path).schema_arrow.names)  # a column added since: null
        t = pq.read_table(path, columns=[c for c in (*COLUMNS, "row_hash") if c in have])
        for c in (*COLUMNS, "row_hash"):
            if c not in have:
                t = t.append_column(c, pa.nulls(t.num_rows, pa.string()))
        parts_ = [pc.fill_null(pc.cast(t.column(c), pa.string()), "") for c in KEY]
        return t.append_column("_k", pc.binary_join_element_wise(*parts_, "\x1f"))

    new = pa.concat_tables([keyed(p) for p in mine])
    new_keys = pc.unique(new.column("_k"))
    hits = [t.filter(pc.is_in(t.column("_k"), value_set=new_keys)) for t in map(keyed, others)]
    hits = [t for t in hits if t.num_rows]
    if not hits:
        return []
    theirs = pa.concat_tables(hits)
    ours = new.filter(pc.is_in(new.column("_k"), value_set=pc.unique(theirs.column("_k"))))
    order = []
    for rec in lake.imports():
        if rec.get("sha256") not in order:
            order.append(rec.get("sha256"))
    return [r for r in find(theirs.to_pylist() + ours.to_pylist(), order) if sha in (r.earlier, r.later)]


def live_rows(lake: Any, sha: str) -> int:
    """How many live bill rows import ``sha`` holds (its partitions' row counts; none read)."""
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in lake.partition_files("bill_lines")
               if p.parent.name == f"source={sha}")


def other_sources(lake: Any, sha: str) -> set[str]:
    """The content hashes of the live bill imports other than ``sha``."""
    return {p.parent.name.removeprefix("source=") for p in lake.partition_files("bill_lines")
            if p.parent.name != f"source={sha}"}
