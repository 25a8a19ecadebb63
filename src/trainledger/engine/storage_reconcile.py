"""Storage bills against the inventory estimate: two bases side by side, never one figure.

A storage bill row (``ServiceCategory`` Storage — FOCUS, or a Chinese bill mapped to it) is cash,
basis ``billed``; the inventory × price book (``assets.storage_stage``) is basis ``estimate``.
This module puts them next to each other per currency, calendar month (UTC; a bill row's is the
month of the middle of its charge period) and **location** —
the bucket or prefix a bill row names — and explains their difference:

* a bill row's location: its tag ``storage_prefix`` / ``prefix`` / ``bucket``, else its
  ResourceId, else its ResourceName, read as a bucket or ``bucket/prefix`` (``arn:aws:s3:::b``,
  ``acs:oss:cn-hangzhou:123:b``, ``oss://b/p/``, ``b``), when some inventory object lies under it;
* an inventory object belongs to the longest location any bill row names that holds its path
  (``oss://b/k`` and ``b/k`` are the same path), else to its bucket; its estimate is spread over calendar months by
  the time it was held (``assets.held_intervals``; the last month takes the remainder, so the
  pieces of a line add up to the line);
* a cell is (currency, month, location, batch): ``matched`` (bill rows and objects),
  ``bill_only`` (bill rows of a location with no object held that month, or with no location in
  the inventory: ``unmatched bill rows``) or ``inventory_only`` (objects no bill row of that
  month names: ``not billed`` — a bucket missing from the bill, billing lag, another account).

The difference of a matched group is billed − estimate. When no bill row of the group carries a
GiB-month quantity (a Huawei OBS usage row of 使用量 100 GB, a bill with no quantity column) it is
one part, ``not_split_no_bill_quantity`` (``not_split`` when the objects held none either): nothing
on the bill splits it. Otherwise it is split exactly into
``other_charges`` (the group's other bill rows, without a GB-month quantity: requests, retrieval, credits),
``volume`` ((billed GiB-months − inventory GiB-months) × the estimate's price per GiB-month) and
``price`` (the rest: the bill's unit price against the price book's, and rounding) — unless the
objects are listed but not priced (no price-book entry for their tier): then the whole difference
is ``not_priced`` (the group's ``estimate_priced`` false; the currency's ``unpriced_groups``); without a
comparable quantity the rest is not split, and the part says which side lacks one:
``not_split_no_inventory_quantity`` (the bill has GB-months, the objects held none that month —
e.g. written on the inventory day), ``not_split_no_bill_quantity``, or ``not_split`` (neither). Billed figures keep
every digit; estimates and the volume part are rounded half-even to the currency's minor unit per group; a
difference is billed − the rounded estimate, and totals are sums of the groups, so every figure
shown adds up exactly as shown.

``cells(facts, lines, as_of)`` builds the additive cells the ledger keeps (summary key
``storage_reconciliation``); ``view(record, batch=None)`` turns them into the documented object
of ``attribute --json``, the ``storage`` command and the batch sheet (docs/ledger.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Any

from trainledger.engine.assets import held_intervals
from trainledger.engine.compute import _category
from trainledger.engine.context import rows_of
from trainledger.engine.rules import tags_of
from trainledger.model import Basis, CostLine
from trainledger.model.money import minor_quantum
from trainledger.model.objpath import identity

LOCATION_TAGS = ("storage_prefix", "prefix", "bucket")
# a bill's quantity unit → GiB-months per unit (GB on a cloud storage bill is 2^30 bytes, as the
# price book counts it); hourly capacity units are a 730-hour month
UNITS = {"gb-mo": Decimal(1), "gb-month": Decimal(1), "gb-months": Decimal(1), "gib-mo": Decimal(1),
         "gib-month": Decimal(1), "gbmonth": Decimal(1), "gb*月": Decimal(1), "gb月": Decimal(1),
         "gb-hours": Decimal(1) / 730, "gb-hour": Decimal(1) / 730, "gb*小时": Decimal(1) / 730,
         "gb-mo (binary)": Decimal(1), "tb-mo": Decimal(1024), "tb-month": Decimal(1024)}
ADDITIVE = ("billed", "billed_capacity", "billed_gib_months", "bill_rows", "estimate_low", "estimate",
            "estimate_high", "estimate_gib_months", "objects", "not_valued_gib_months")
MATCH_ORDER = ("matched", "inventory_only", "bill_only")


def norm_path(path: str) -> str:
    """``oss://b/k`` → ``b/k``: an object path or a location without its scheme (its identity)."""
    return identity(path)


def location_of(value: str | None) -> str | None:
    """A bucket or ``bucket/prefix`` from a ResourceId / ResourceName / tag value."""
    if not value:
        return None
    v = str(value).strip()
    if v.startswith("arn:"):  # arn:aws:s3:::bucket[/prefix]
        v = v.split(":::", 1)[1] if ":::" in v else v.rsplit(":", 1)[-1]
    elif v.startswith("acs:") or v.startswith("qcs:"):  # acs:oss:region:account:bucket
        v = v.rsplit(":", 1)[-1]
    v = norm_path(v).rstrip("/")
    return v or None


def _under(path: str, loc: str) -> bool:
    return path == loc or path.startswith(loc + "/") or (loc.endswith("/") and path.startswith(loc))


def _month(d: date | datetime) -> str:
    return f"{d.year:04d}-{d.month:02d}"


def _bill_month(row: Mapping) -> str:
    """The UTC calendar month of the middle of a bill row's charge period (a month billed in
    local time, 11-01 00:00+08:00 → 12-01, is November, though it starts on 10-31 in UTC)."""
    a, b = row["charge_period_start"], row.get("charge_period_end") or row["charge_period_start"]
    return _month(a + (b - a) / 2)


def _months(since: datetime, snap: datetime) -> list[tuple[str, Decimal]]:
    """Seconds held in each UTC calendar month of [since, snap)."""
    out, d = [], since
    while d < snap:
        nxt = datetime(d.year + (d.month == 12), d.month % 12 + 1, 1, tzinfo=d.tzinfo)
        end = min(nxt, snap)
        out.append((_month(d), Decimal(int((end - d).total_seconds()))))
        d = end
    return out


def _spread(line: CostLine, since: datetime, snap: datetime) -> list[tuple[str, Decimal, tuple[Decimal, ...]]]:
    """A storage line's GiB-months and (low, expected, high) per month; the last month takes the
    remainder, so the pieces add up to the line exactly."""
    parts = _months(since, snap)
    total = sum((d for _, d in parts), Decimal(0))
    whole = (line.quantity or Decimal(0), line.amount.low, line.amount.expected, line.amount.high)
    if not total:
        return [(_month(snap), whole[0], whole[1:])]
    out, left = [], list(whole)
    for i, (m, secs) in enumerate(parts):
        piece = left if i == len(parts) - 1 else [w * secs / total for w in whole]
        left = [a - b for a, b in zip(left, piece, strict=True)]
        out.append((m, piece[0], tuple(piece[1:])))
    return out


def _bill_quantity(row: Mapping) -> Decimal | None:
    """The row's GiB-months, when its unit is a storage-capacity unit."""
    for q, u in (("pricing_quantity", "pricing_unit"), ("consumed_quantity", "consumed_unit")):
        unit = str(row.get(u) or "").strip().casefold().replace(" ", "")
        if row.get(q) not in (None, "") and unit in UNITS:
            return Decimal(str(row[q])) * UNITS[unit]
    return None


def cells(facts, lines: Iterable[CostLine], as_of: date) -> dict[str, Any]:
    """The additive cells of the reconciliation (what the ledger keeps), and the bill rows that
    name no inventory location."""
    lines = list(lines)
    rows = list(rows_of(facts.bill_lines).where(  # only the storage rows are made (once per category)
        "service_category", lambda v: _category({"service_category": v}) == "storage"))
    if not rows:
        return {"cells": [], "unmatched_bill_rows": [], "storage_bill_rows": 0}
    objects = {(str(o["source_sha256"]), int(o["row"])): o for o in facts.storage_objects}
    paths = sorted({norm_path(o["path"]) for o in objects.values()})
    bill_batch = {(ln.provenance.source_sha256, ln.provenance.row): ln.batch_id for ln in lines
                  if ln.category == "storage" and ln.basis is Basis.BILLED}
    acc: dict[tuple, dict[str, Any]] = defaultdict(lambda: defaultdict(Decimal))
    unmatched, locations = [], set()
    for r in rows:
        loc, named = _bill_location(r, paths)
        cur, month = str(r["currency"]), _bill_month(r)
        batch = bill_batch.get((str(r["source_sha256"]), int(r["row"])))
        billed = Decimal(str(r.get("billed_cost") or 0))
        if loc is None:
            unmatched.append({"source_sha256": r["source_sha256"], "row": int(r["row"]), "currency": cur,
                              "month": month, "batch": batch, "billed": str(billed),
                              "resource": named or "", "service": str(r.get("service_name") or ""),
                              "reason": "names_no_inventory_location" if named else "no_location"})
        else:
            locations.add(loc)
        c = acc[(cur, month, loc, batch)]
        c["billed"] += billed
        c["bill_rows"] += 1
        qty = _bill_quantity(r)
        if qty is not None:
            c["billed_capacity"] += billed
            c["billed_gib_months"] += qty
    held = held_intervals(facts.storage_objects, as_of)
    seen: set[tuple] = set()
    by_len = sorted(locations, key=len, reverse=True)
    for ln in lines:
        if ln.category != "storage" or ln.basis is not Basis.ESTIMATE:
            continue
        key = (ln.provenance.source_sha256, ln.provenance.row)
        obj, interval = objects.get(key), held.get(key)
        if obj is None or interval is None:
            continue
        path = norm_path(obj["path"])
        # under no billed location: its bucket, which no bill row of the workspace names
        loc = next((x for x in by_len if _under(path, x)), None) or path.split("/", 1)[0]
        valued = not ln.reason.startswith("not_valued")
        for month, qty, (lo, ex, hi) in _spread(ln, *interval):
            c = acc[(ln.currency, month, loc, ln.batch_id)]
            if (path, month, ln.currency, ln.batch_id) not in seen:
                seen.add((path, month, ln.currency, ln.batch_id))
                c["objects"] += 1
            if not valued:
                c["not_valued_gib_months"] += qty
                continue
            c["estimate_low"] += lo
            c["estimate"] += ex
            c["estimate_high"] += hi
            c["estimate_gib_months"] += qty
    out = [{"currency": cur, "month": m, "location": loc, "batch": b,
            **{k: str(v[k]) if k not in ("bill_rows", "objects") else int(v[k]) for k in ADDITIVE}}
           for (cur, m, loc, b), v in sorted(acc.items(), key=lambda kv: tuple(str(x) for x in kv[0]))]
    return {"cells": out, "unmatched_bill_rows": unmatched, "storage_bill_rows": len(rows)}


def _bill_location(row: Mapping, paths: list[str]) -> tuple[str | None, str | None]:
    """(the inventory location the row names, or None; what it names)."""
    tags = tags_of(row)
    named = None
    for value in [*(tags.get(k) for k in LOCATION_TAGS), row.get("resource_id"), row.get("resource_name")]:
        loc = location_of(value)
        if loc is None:
            continue
        named = named or str(value)
        if any(_under(p, loc) for p in paths):
            return loc, str(value)
    return None, named


def _q(d: Decimal, cur: str) -> Decimal:
    return d.quantize(minor_quantum(cur), ROUND_HALF_EVEN)


def view(record: Mapping[str, Any] | None, batch: str | None = None) -> dict[str, Any]:
    """The reconciliation per currency, month and location with the difference and its parts.

    A location is reconciled whole: for one ``batch`` the view keeps the groups that hold the
    batch's objects or bill rows, with the whole location's figures, and beside them the batch's
    own share (``batch_billed``: its bill rows; ``batch_estimate``: its objects) — a bucket billed
    to nobody in particular is not "not billed" because its bill names no batch."""
    record = record or {}
    groups: dict[tuple, dict[str, Any]] = {}
    for c in record.get("cells", []):
        g = groups.setdefault((c["currency"], c["month"], c["location"]), defaultdict(Decimal))
        for k in ADDITIVE:
            g[k] += Decimal(str(c[k]))
        g.setdefault("batches", set()).add(c["batch"])
        if batch is not None and c["batch"] == batch:
            g["batch_billed"] += Decimal(str(c["billed"]))
            g["batch_estimate"] += Decimal(str(c["estimate"]))
    out_groups = sorted((_group(cur, m, loc, g, batch) for (cur, m, loc), g in groups.items()
                         if batch is None or batch in g["batches"]),
                        key=lambda g: (g["currency"], g["month"], MATCH_ORDER.index(g["match"]), g["location"] or ""))
    totals: dict[str, dict[str, Any]] = {}
    for g in out_groups:
        t = totals.setdefault(g["currency"], {"currency": g["currency"], "billed": Decimal(0),
                                              "estimate": {"low": Decimal(0), "expected": Decimal(0),
                                                           "high": Decimal(0)},
                                              "difference": Decimal(0), "by_match": defaultdict(Decimal),
                                              "bill_rows": 0, "groups": 0, "batch_billed": Decimal(0),
                                              "batch_estimate": Decimal(0), "unpriced_groups": 0})
        t["billed"] += Decimal(g["billed"])
        for k in ("low", "expected", "high"):
            t["estimate"][k] += Decimal(g["estimate"][k])
        t["difference"] += Decimal(g["difference"])
        t["by_match"][g["match"]] += Decimal(g["difference"])
        t["bill_rows"] += g["bill_rows"]
        t["groups"] += 1
        t["unpriced_groups"] += 0 if g["estimate_priced"] else 1
        if batch is not None:
            t["batch_billed"] += Decimal(g["batch_billed"])
            t["batch_estimate"] += Decimal(g["batch_estimate"])
    unmatched = [u for u in record.get("unmatched_bill_rows", []) if batch is None or u["batch"] == batch]
    by_currency = []
    for _, t in sorted(totals.items()):
        rec = {**t, "billed": str(t["billed"]), "estimate": {k: str(v) for k, v in t["estimate"].items()},
               "difference": str(t["difference"]), "by_match": {k: str(v) for k, v in sorted(t["by_match"].items())},
               "batch_billed": str(t["batch_billed"]), "batch_estimate": str(t["batch_estimate"])}
        if batch is None:
            del rec["batch_billed"], rec["batch_estimate"]
        by_currency.append(rec)
    return {
        "scope": "workspace" if batch is None else "batch", "batch": batch,
        "bases": {"billed": "billed", "estimate": "estimate"},
        "storage_bill_rows": record.get("storage_bill_rows", 0),
        "by_currency": by_currency,
        "groups": out_groups,
        "unmatched_bill_rows": unmatched,
    }


def _group(cur: str, month: str, loc: str | None, g: Mapping[str, Any], batch: str | None) -> dict[str, Any]:
    billed, est = g["billed"], _q(g["estimate"], cur)
    match = ("bill_only" if loc is None or not g["objects"] else
             "inventory_only" if not g["bill_rows"] else "matched")
    diff = billed - est  # the bill's digits kept; the estimate rounded to the minor unit
    unpriced = bool(g["not_valued_gib_months"]) and not g["estimate_gib_months"]  # listed, never priced
    parts: list[dict[str, str]] = []
    if match == "bill_only":
        parts.append({"kind": "unmatched_bill_rows" if loc is None else "no_object_held", "amount": str(diff)})
    elif match == "inventory_only":
        parts.append({"kind": "not_billed", "amount": str(diff)})
    elif unpriced:  # the objects have no price-book entry: nothing explains the difference yet
        parts.append({"kind": "not_priced", "amount": str(diff)})
    elif not g["billed_gib_months"] and not g["billed_capacity"]:
        # no bill row carries a GiB-month quantity (e.g. a Huawei OBS row of 使用量 100 GB): its
        # rows are not "other charges" — nothing on the bill splits the difference, so it is one part
        if diff:
            parts.append({"kind": "not_split_no_bill_quantity" if g["estimate_gib_months"] else "not_split",
                          "amount": str(diff)})
    else:
        other = billed - g["billed_capacity"]  # cash: every digit
        rest = diff - other
        if other:
            parts.append({"kind": "other_charges", "amount": str(other)})
        qb, qe = g["billed_gib_months"], g["estimate_gib_months"]
        if qb and qe:
            volume = _q((qb - qe) * g["estimate"] / qe, cur)
            parts += [{"kind": "volume", "amount": str(volume)}, {"kind": "price", "amount": str(rest - volume)}]
        elif rest:  # say which side has no quantity to compare
            kind = ("not_split_no_inventory_quantity" if qb else "not_split_no_bill_quantity" if qe else "not_split")
            parts.append({"kind": kind, "amount": str(rest)})
    q = Decimal("0.0001")
    mine = {} if batch is None else {"batch_billed": str(g["batch_billed"]),
                                     "batch_estimate": str(_q(g["batch_estimate"], cur))}
    return {**mine, "currency": cur, "month": month, "location": loc, "match": match,
            "batches": sorted((b for b in g["batches"] if b), key=str) + (["(unattributed)"] if None in g["batches"]
                                                                          else []),
            "billed": str(billed), "bill_rows": int(g["bill_rows"]),
            "billed_gib_months": str(g["billed_gib_months"].quantize(q)) if g["billed_gib_months"] else None,
            "estimate": {"low": str(_q(g["estimate_low"], cur)), "expected": str(est),
                         "high": str(_q(g["estimate_high"], cur))},
            "estimate_gib_months": str(g["estimate_gib_months"].quantize(q)), "objects": int(g["objects"]),
            "not_valued_gib_months": str(g["not_valued_gib_months"].quantize(q)) if g["not_valued_gib_months"]
            else None,
            "difference": str(diff), "parts": parts, "estimate_priced": not unpriced,
            "billed_price_per_gib_month": _per(g["billed_capacity"], g["billed_gib_months"]),
            "estimate_price_per_gib_month": _per(g["estimate"], g["estimate_gib_months"])}


def _per(amount: Decimal, qty: Decimal) -> str | None:
    return str((amount / qty).quantize(Decimal("0.000001"))) if qty else None





def for_currency(v: Mapping[str, Any], currency: str) -> dict[str, Any] | None:
    """One currency of a view (``attribute --json`` puts it in that currency's conservation record):
    the totals, its groups and its unmatched bill rows; None when no storage bill row or object
    of that currency was reconciled."""
    total = next((t for t in v["by_currency"] if t["currency"] == currency), None)
    if total is None:
        return None
    return {**total, "groups": [g for g in v["groups"] if g["currency"] == currency],
            "unmatched_bill_rows": [u for u in v["unmatched_bill_rows"] if u["currency"] == currency]}
__all__ = ["cells", "for_currency", "location_of", "norm_path", "view"]
