"""Storage, labor and external services: the costs beside compute.

* storage — each inventory object is priced at its tier's price-book rate per GiB-month for the
  time it has been held (the last_modified instant → 00:00 UTC of the inventory date, or since
  the same object's previous inventory; an object is its path and write instant, so a
  noncurrent version pays beside the current one); basis ``estimate`` (measured size ×
  listed price). A listing without ``last_modified`` pays from the previous snapshot; an
  object's first snapshot without one is not charged, and said (``storage_held_unknown``).
  Objects without owner, purpose or a retention/review date are flagged.
* labor — hours × the role's loaded rate range; basis ``internal`` (existing staff: opportunity
  cost, never new cash), phase and role kept.
* external — vendor invoices; basis ``billed``, evidence ``contract``, stage delivery or ongoing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime
from decimal import Decimal

from trainledger.engine.context import Context, Facts, Problem, StageOutput, price_assumption, price_of
from trainledger.engine.guard import Owed, Stage
from trainledger.engine.rules import NO_RULE
from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance
from trainledger.model.evidence import weakest
from trainledger.model.money import valuation
from trainledger.model.objpath import identity

NOT_VALUED = "not_valued"  # a quantity with no price: shown as "not valued", never as 0.00

GIB = Decimal(1024**3)
DAYS_PER_MONTH = Decimal(730) / 24  # a month is 730 hours, as the price book and cloud bills count it


def _batch(ctx: Context, source: str, row, problems: list[Problem]) -> tuple[str | None, str]:
    explicit = str(row.get("batch") or "").strip()
    if explicit and explicit in ctx.matcher.batch_ids:
        return explicit, f"{source}_batch_column"
    if explicit:
        problems.append(Problem("unknown_batch", f"{source} row {row['row']} names batch {explicit!r}, which the"
                                " workspace does not define; rules decide instead",
                                {"source": source, "row": row["row"], "batch": explicit}))
    return ctx.matcher.match(source, row)


def _day(value) -> date | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return date.fromisoformat(str(value)[:10])


def snapshot_instant(day: date) -> datetime:
    """An inventory's date as an instant: 00:00 UTC of that day (an S3 / OSS manifest's date is
    its ``creationTimestamp``'s UTC day; storage months are UTC calendar months)."""
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _instant(value) -> datetime | None:
    """A ``last_modified`` as a UTC instant (a bare date is its 00:00 UTC)."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return (value if value.tzinfo else value.replace(tzinfo=UTC)).astimezone(UTC)
    if isinstance(value, date):
        return snapshot_instant(value)
    return _instant(datetime.fromisoformat(str(value).replace("Z", "+00:00")))


def held_intervals(rows, as_of: date) -> dict[tuple[str, int], tuple[datetime, datetime]]:
    """(source sha256, row) → (since, snapshot) as UTC instants: the time an inventory row pays
    for — since the same object's previous snapshot, else since the instant it was written, up
    to this snapshot's instant (``snapshot_instant``; ``since`` is never after it, so a row
    written after its snapshot pays for nothing). A row without ``last_modified`` pays since the
    object's previous snapshot; its first snapshot pays for nothing (``since`` = the snapshot:
    the time held before it is unknown — storage_stage says so).

    An object is its path *and* its write instant: two rows of one path in one snapshot (a
    noncurrent S3 version beside the current one, or two listings) are two objects, each paying
    from its own write; a row follows the latest *earlier* snapshot of the same object."""
    out: dict[tuple[str, int], tuple[datetime, datetime]] = {}
    snaps: dict[tuple[str, str], list[datetime]] = {}
    keyed = []
    for row in rows:
        snap = snapshot_instant(_day(row.get("snapshot_date")) or as_of)
        written = _instant(row.get("last_modified"))
        obj = (identity(row["path"]), written.isoformat() if written else "")  # oss://b/k is b/k
        snaps.setdefault(obj, []).append(snap)
        keyed.append((row, obj, snap, written))
    for row, obj, snap, written in keyed:
        before = max((s for s in snaps[obj] if s < snap), default=None)
        if written is None:  # no write time: from the previous snapshot; the first pays nothing (unknown)
            since = before if before is not None else snap
        else:
            since = max(d for d in (written, before) if d is not None)
        out[(str(row["source_sha256"]), int(row["row"]))] = (min(since, snap), snap)
    return out


def storage_stage(facts: Facts, ctx: Context) -> StageOutput:
    """Each inventory row pays for the time since the object's previous snapshot (or since it was
    written), so an object listed in every monthly inventory is charged once per month, not
    again from its creation each time."""
    lines, problems, assumptions = [], [], []
    priced: dict[tuple[str, date], object] = {}
    described: set[str] = set()
    held = held_intervals(facts.storage_objects, ctx.as_of)
    unknown: dict[date, list[str]] = {}  # snapshot → paths listed there first, with no write time
    rows = sorted(facts.storage_objects, key=lambda r: (str(r["path"]), _day(r.get("snapshot_date")) or ctx.as_of))
    for row in rows:
        tier = str(row.get("tier") or "standard")
        item = f"storage:{tier}"
        since, snap = held[(str(row["source_sha256"]), int(row["row"]))]
        if (item, snap) not in priced:
            priced[(item, snap)] = price = price_of(ctx, item, snap.date(), "gb_month", problems)
            if price is None and item not in described:
                problems.append(Problem("unpriced_storage", f"no price-book entry {item!r}: objects of tier"
                                        f" {tier} are listed but not priced", {"item": item, "tier": tier}))
            elif price is not None and item not in described:
                assumptions.append(price_assumption(f"storage price {item}", price, "gb_month (GB = 2^30 bytes)"))
            described.add(item)
        price = priced[(item, snap)]
        path = str(row["path"])
        written = _day(row.get("last_modified"))
        if written is not None and written > snap.date():
            problems.append(Problem("modified_after_snapshot", f"storage row {row['row']}: {path} was modified"
                                    f" {written}, after its inventory date {snap.date()}; it is not charged",
                                    {"path": path, "row": row["row"], "written": str(written),
                                     "snapshot": str(snap.date())}))
        if written is None and since == snap and not row.get("last_modified"):
            unknown.setdefault(snap.date(), []).append(path)
        held_s = (snap - since).total_seconds()  # whole seconds: a write instant, a 00:00 UTC snapshot
        months = Decimal(int(held_s)) / 86400 / DAYS_PER_MONTH
        gib_months = Decimal(int(row["size_bytes"])) / GIB * months
        batch_id, rule = _batch(ctx, "storage", row, problems)
        cur = price.currency if price else ctx.config.get("workspace.currency")
        amount = (AmountRange(*(valuation(gib_months * p, cur) for p in (price.low, price.price, price.high)), cur)
                  if price else AmountRange.zero(cur))  # rounded once at the documented scale (model.money)
        reason = "" if batch_id else f"{NO_RULE}: storage {path}"
        if not price:
            reason = f"{NOT_VALUED}: no price-book entry {item}" + (f"; {reason}" if reason else "")
        lines.append(CostLine(  # measured size × the price's evidence: the weakest of the two
            category="storage", basis=Basis.ESTIMATE,
            evidence=weakest(Evidence.MEASURED, price.evidence) if price else Evidence.ASSUMED,
            amount=amount, provenance=Provenance.of(row, rule, "storage"),
            batch_id=batch_id, detail=str(row.get("storage_class") or ""), quantity=gib_months,
            unit="gib_month", reason=reason))
    for day, paths in sorted(unknown.items()):
        problems.append(Problem(
            "storage_held_unknown", f"{len(paths)} storage object(s) of the {day} inventory (e.g. {paths[0]}) have"
            " no last_modified: held time before this snapshot unknown, not charged (a later snapshot pays from"
            " this one; list last_modified to charge the time before)",
            {"count": len(paths), "path": paths[0], "snapshot": str(day)}))
    return StageOutput(tuple(lines), tuple(problems), tuple(assumptions))


def labor_stage(facts: Facts, ctx: Context) -> StageOutput:
    lines, problems = [], []
    missing: set[str] = set()
    for row in facts.labor_entries:
        role = str(row["role"])
        rate = ctx.config.labor_rate(role)
        hours = Decimal(str(row["hours"]))
        batch_id, rule = _batch(ctx, "timesheet", row, problems)
        if rate is None:
            missing.add(role)
            amount, evidence = AmountRange.zero(ctx.config.get("workspace.currency")), Evidence.ASSUMED
        else:
            amount, evidence = rate.rate.scale(hours), rate.evidence
        reason = "" if batch_id else f"shared_work: {row['phase']}/{role} (no batch named)"
        lines.append(CostLine(
            category="labor", basis=Basis.INTERNAL, evidence=evidence, amount=amount,
            provenance=Provenance.of(row, rule, "timesheet"),
            batch_id=batch_id, detail=f"{row['phase']}/{role}", quantity=hours, unit="hour",
            reason=reason if rate else f"{NOT_VALUED}: no labor rate for {role}" + (f"; {reason}" if reason else "")))
    for role in sorted(missing):
        problems.append(Problem("missing_labor_rate", f"no [[labor_rates]] entry for role {role}: its hours"
                                " are counted but valued at zero", {"role": role}))
    return StageOutput(tuple(lines), tuple(problems), tuple(ctx.config.rate_assumptions()))


def _external_stage(facts: Facts, ctx: Context) -> StageOutput:
    lines, problems = [], []
    for row in facts.external_services:
        amount = Decimal(str(row["amount"]))
        batch_id, rule = _batch(ctx, "invoice", row, problems)
        lines.append(CostLine(
            category="external", basis=Basis.BILLED, evidence=Evidence.CONTRACT,
            amount=AmountRange(amount, amount, amount, row["currency"]),
            provenance=Provenance.of(row, rule, "invoice"),
            batch_id=batch_id, detail=f"{row['stage']}/{row['vendor']}",
            reason="" if batch_id else f"{NO_RULE}: invoice {row['invoice_id']} ({row['vendor']}, {row['stage']})"))
    return StageOutput(tuple(lines), tuple(problems))


def _external_owes(facts: Facts, ctx: Context) -> Iterator[Owed]:
    """What the external stage owes when it fails: every invoice, whole (guard.py)."""
    for row in facts.external_services:
        yield Owed(row, "invoice", "external", Basis.BILLED, Decimal(str(row["amount"])))


external_stage = Stage("external_stage", _external_stage, owes=_external_owes)
