"""``focus``: FinOps FOCUS 1.0 - 1.3 bills, CSV or Parquet → table ``bill_lines``.

Money is real, so a row whose money parses is kept even when its enumerations do not conform to
FOCUS (it is *flagged*); a row whose money does not parse, whose charge period is missing or
runs backwards, or which has no currency, is quarantined. Columns trainledger does not model
are kept, non-null, in the ``extra`` JSON column so nothing on the bill is lost. ``tags`` is
always a JSON object; ``extra.Tags`` keeps the origin where it differs: the text of a Tags that
is no JSON object, or ``null`` when the bill's Tags is NULL (``export focus-allocation`` writes
the origin back as it was).

Later versions: ``ServiceProviderName`` (1.3) feeds ``provider`` before the deprecated
``ProviderName``; ``HostProviderName``, capacity reservations (1.1) and the split-allocation
columns (1.3, ``Allocated*``) are kept in ``extra`` and checked against each other; an allocated
charge's ``AllocatedTags`` join its ``tags``; a ``ChargeClass = Correction`` row that corrects an
earlier charge period is noted. ``validation_report`` counts the flags per FOCUS rule.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import FLAG, Context, Record, Rejected, col, dumps
from trainledger.ingest.convert import currency, decimal_text, money_text, timestamp_utc
from trainledger.ingest.delimited import DelimitedImporter, resolve_header
from trainledger.ingest.keys import canon_for, canon_json, canon_loose, canon_text, mapping_key
from trainledger.ingest.text import Head, json_loads, sniff
from trainledger.model.money import check_currency

# FOCUS 1.0 allowed values; anything else is accepted and flagged.
ALLOWED = {
    "charge_category": frozenset({"Usage", "Purchase", "Tax", "Credit", "Adjustment"}),
    "charge_class": frozenset({"Correction"}),
    "charge_frequency": frozenset({"One-Time", "Recurring", "Usage-Based"}),
    "commitment_discount_status": frozenset({"Used", "Unused"}),
    "commitment_discount_category": frozenset({"Spend", "Usage"}),
    "pricing_category": frozenset({"Standard", "Dynamic", "Committed", "Other"}),
    "service_category": frozenset(
        {
            "AI and Machine Learning",
            "Analytics",
            "Business Applications",
            "Compute",
            "Databases",
            "Developer Tools",
            "Multicloud",
            "Identity",
            "Integration",
            "Internet of Things",
            "Management and Governance",
            "Media",
            "Migration",
            "Mobile",
            "Networking",
            "Security",
            "Storage",
            "Web",
            "Other",
        }
    ),
}
# FOCUS 1.0 columns that must not be null when present.
NOT_NULL = ("effective_cost", "list_cost", "contracted_cost", "charge_category")
CURRENCY_REMEDY = "pass --currency CODE (e.g. --currency USD) for rows without BillingCurrency"
FILE_CURRENCY_REMEDY = "import it again with the bill's currency: --currency CODE (e.g. --currency USD)"


def no_currency_column(path: Any) -> BadInput:
    """A bill without a BillingCurrency column and no --currency: refused once, not row by row."""
    return BadInput("the bill has no BillingCurrency column: no row can be priced; nothing was imported",
                    path=str(path), remedy=FILE_CURRENCY_REMEDY)
NUMBER = "write a plain decimal number (no exponent), e.g. 12.50 or -0.003"
TIME = "write an ISO 8601 time, e.g. 2024-09-01T00:00:00Z"


def _as_is(value: Any, ctx: Context) -> Any:
    return value


def _text(source: str, name: str | None = None, *more: str) -> Any:
    return col(name or _snake(source), source, *more)


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() else c for c in name).lstrip("_")


@dataclass(frozen=True, slots=True)
class FocusSettings:
    currency: str | None


class FocusImporter(DelimitedImporter):
    kind = "focus"
    table = "bill_lines"
    row_hash_versions = (2, 3)  # 3 a column at a time; 2 for an older lake's tables (keys.py)
    description = "a FOCUS bill (CSV or Parquet)"
    signature = ("BilledCost", "ChargePeriodStart")
    nulls = frozenset({"", "NULL", "null"})
    keep_extra = True
    options_used = ("currency",)
    missing_remedy = "export the bill in FOCUS 1.0 format (BilledCost, ChargePeriodStart/End)"
    columns = (
        col(
            "billed_cost",
            "BilledCost",
            convert=money_text,
            remedy=NUMBER,
            required=True,
            needed=True,
        ),
        col("effective_cost", "EffectiveCost", convert=money_text, remedy=NUMBER),
        col("list_cost", "ListCost", convert=money_text, remedy=NUMBER),
        col("contracted_cost", "ContractedCost", convert=money_text, remedy=NUMBER),
        col(
            "currency",
            "BillingCurrency",
            convert=currency,
            remedy="write a three-letter ISO 4217 code, e.g. USD",
        ),
        col(
            "charge_period_start",
            "ChargePeriodStart",
            convert=timestamp_utc,
            required=True,
            needed=True,
            remedy=TIME,
        ),
        col(
            "charge_period_end",
            "ChargePeriodEnd",
            convert=timestamp_utc,
            required=True,
            needed=True,
            remedy=TIME,
        ),
        col("billing_period_start", "BillingPeriodStart", convert=timestamp_utc, on_error=FLAG),
        col("billing_period_end", "BillingPeriodEnd", convert=timestamp_utc, on_error=FLAG),
        _text("ChargeCategory"),
        _text("ChargeClass"),
        _text("ChargeFrequency"),
        _text("ChargeDescription"),
        _text("CommitmentDiscountId"),
        _text("CommitmentDiscountStatus"),
        _text("CommitmentDiscountCategory"),
        _text("CommitmentDiscountType"),
        _text("PricingCategory"),
        _text("ResourceId"),
        _text("ResourceName"),
        _text("ResourceType"),
        _text("SkuId"),
        _text("SkuPriceId"),
        _text("ServiceName"),
        _text("ServiceCategory"),
        _text("ServiceProviderName", "provider", "ProviderName", "Provider"),  # 1.3 renamed it
        _text("RegionId", "region", "Region"),
        _text("BillingAccountId"),
        _text("SubAccountId"),
        _text("SubAccountName"),
        col("consumed_quantity", "ConsumedQuantity", convert=decimal_text, on_error=FLAG),
        _text("ConsumedUnit"),
        col("pricing_quantity", "PricingQuantity", convert=decimal_text, on_error=FLAG),
        _text("PricingUnit"),
        col("list_unit_price", "ListUnitPrice", convert=decimal_text, on_error=FLAG),
        col("contracted_unit_price", "ContractedUnitPrice", convert=decimal_text, on_error=FLAG),
        col("tags", "Tags", convert=_as_is, canon=canon_json),
    )

    def configure(self, options: Mapping[str, Any]) -> FocusSettings:
        code = options.get("currency")
        if not code:
            return FocusSettings(None)
        try:
            return FocusSettings(check_currency(str(code)))
        except ValueError as e:
            raise BadInput(str(e), remedy="pass a three-letter ISO 4217 code, e.g. USD") from None

    def identify_head(self, head: Head) -> bool | str:
        if head.container == "parquet":
            missing = [s for s in self.signature if not head.has(s)]
            return f"its columns have no {', '.join(missing)}" if missing else True
        return super().identify_head(head)

    def fast_batches(self, path: Path, ctx: Context) -> Iterator[Any] | None:
        """The rows of a CSV bill a chunk at a time (``focus_fast``), or None when only the
        per-row path reads the file (Parquet, text not in UTF-8)."""
        from trainledger.ingest.fastcsv import fast_encoding

        if sniff(path).container != "text" or not fast_encoding(path, ctx.options):
            return None
        from trainledger.ingest.focus_fast import batches

        return batches(self, path, ctx)

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        if sniff(path).container == "parquet":
            return self._parse_parquet(path)
        return super().parse(path, ctx)

    def _parse_parquet(self, path: Path) -> Iterator[Record]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        names = pf.schema_arrow.names
        try:
            plan, missing = resolve_header(names, self.columns, ())
        except ValueError as e:
            raise BadInput(str(e), path=str(path)) from None
        if missing:
            raise BadInput(
                f"no {', '.join(missing)} column", path=str(path), remedy=self.missing_remedy
            )
        by_name = {c.name: c for c in self.columns}
        plan_named = [(name, names[i]) for name, i in plan]
        canon = {names[i]: canon_for(by_name[name]) or canon_text for name, i in plan}
        used = {names[i] for _, i in plan}
        rest = [n for n in names if n not in used]
        nulls, row = self.nulls, 0
        from trainledger.ingest.focus_fast import record_hashes

        for batch in pf.iter_batches(batch_size=8192):
            batch, notes = _microseconds(batch)
            try:
                rows = batch.to_pylist()
            except (ValueError, OverflowError, pa.ArrowException) as e:
                raise BadInput(
                    f"a value in the Parquet file cannot be read: {e}",
                    path=str(path),
                    remedy="export the bill again with plain types (decimal or text money, "
                    "timestamps in microseconds)",
                ) from None
            keys = record_hashes(batch, canon, canon_loose, nulls)  # = mapping_key of each row
            for i, d in enumerate(rows):
                row += 1
                key = keys[i] if keys is not None else mapping_key(
                    {n: _null(v, nulls) for n, v in d.items()},
                    fold=True,
                    canon=canon,
                    default=canon_loose,
                )
                values = {k: _null(d[src], nulls) for k, src in plan_named}
                extra = {n: d[n] for n in rest if _null(d[n], nulls) is not None}
                yield Record(row, None, dumps(d), key, values, extra, notes=notes.get(i))

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        flags: list[str] = values["flags"]
        extra = dict(record.extra or {})
        if values["currency"] is None:
            if ctx.cfg.currency is None:
                if "currency" not in record.values:  # every row would say so: refuse the file once
                    raise no_currency_column(ctx.path)
                raise Rejected("BillingCurrency is empty", CURRENCY_REMEDY)
            values["currency"] = ctx.cfg.currency
        start, end = values["charge_period_start"], values["charge_period_end"]
        if end < start:
            raise Rejected(
                f"ChargePeriodEnd {end.isoformat()} is before "
                f"ChargePeriodStart {start.isoformat()}",
                "check the row's charge period",
            )
        for name, allowed in ALLOWED.items():
            v = values[name]
            if v is not None and v not in allowed:
                flags.append(f"{_camel(name)} {v!r} is not a FOCUS 1.0 value")
        for name in NOT_NULL:
            if name in record.values and values[name] is None:
                flags.append(f"{_camel(name)} is null")
        tags, note = parse_tags(values["tags"])
        if note:
            flags.append(note)
            extra["Tags"] = values["tags"]
        elif values["tags"] is None and "tags" in record.values and ctx.kind == self.kind:
            extra["Tags"] = None  # the bill's Tags is NULL: ``tags`` is {}, the origin stays NULL
        flags += conformance(values, extra, tags)
        values["tags"] = dumps(tags)
        values["extra"] = dumps(extra)
        return values


def _folded(extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` by case-folded name: FOCUS columns trainledger keeps there, found by name."""
    return {k.casefold(): v for k, v in extra.items()}


CAPACITY_STATUS = frozenset({"Used", "Unused"})


def conformance(values: dict[str, Any], extra: Mapping[str, Any], tags: dict[str, Any]) -> list[str]:
    """FOCUS 1.1 - 1.3 requirements between columns (each a flag, never a quarantine), and the
    1.3 split-allocation tags merged into ``tags`` (allocated wins; kept in extra as written)."""
    out: list[str] = []
    got = _folded(extra).get
    status, category = values["commitment_discount_status"], values["charge_category"]
    if status is not None and values["commitment_discount_id"] is None:
        out.append("CommitmentDiscountStatus is set but CommitmentDiscountId is null")
    if status is not None and category not in (None, "Usage"):
        out.append(f"CommitmentDiscountStatus is set on a {category} row (only Usage rows have one)")
    cap_status, cap_id = got("capacityreservationstatus"), got("capacityreservationid")
    if cap_status is not None and cap_status not in CAPACITY_STATUS:
        out.append(f"CapacityReservationStatus {cap_status!r} is not a FOCUS 1.1 value")
    if cap_status is not None and cap_id is None:
        out.append("CapacityReservationStatus is set but CapacityReservationId is null")
    allocated = [n for n in ALLOCATED if got(n.casefold()) is not None]
    if allocated and got("allocatedmethodid") is None:
        out.append(f"AllocatedMethodId is null on an allocated charge ({', '.join(allocated)} set)")
    raw = got("allocatedtags")
    if raw is not None:
        more, note = parse_tags(raw)
        if note:
            out.append("Allocated" + note)
        for k, v in more.items():
            if k in tags and tags[k] != v:
                out.append(f"AllocatedTags: tag {k!r} overrides the origin charge's value")
            tags[k] = v
    period, billing = values["charge_period_start"], values["billing_period_start"]
    if values["charge_class"] == "Correction" and billing is not None and period < billing:
        out.append(
            f"correction: corrects the charge period from {period.date().isoformat()} in the "
            f"billing period from {billing.date().isoformat()}"
        )
    return out


ALLOCATED = ("AllocatedResourceId", "AllocatedResourceName", "AllocatedTags", "AllocatedMethodDetails")
# Each flag of a bill line, by the FOCUS rule it reports (first match wins); notes that are no
# non-conformance (a correction, a float read exactly) are not problems.
RULES: tuple[tuple[str, str], ...] = (
    ("correction", r"^correction: "),
    ("provisional bill", r"^provisional: "),  # evidence notes of a mapped vendor bill
    ("evidence note", r"^note: "),
    ("allowed values", r"is not a FOCUS [\d.]+ value"),
    ("Tags is a JSON object", r"Tags is not (JSON|a JSON object)|Tags repeats key"),
    ("commitment discount columns agree", r"^CommitmentDiscountStatus is set"),
    ("capacity reservation columns agree", r"^CapacityReservationStatus is set"),
    ("allocated charges name their method", r"^AllocatedMethodId is null"),
    ("allocated tags", r"^AllocatedTags: "),
    ("timestamp precision", r"nanoseconds truncated"),
    ("decimal type", r"binary float"),
    ("not null", r" is null"),
)


def validation_report(flag_lists: Any) -> dict[str, dict[str, int]]:
    """{rule: {column: rows}} over the flag lists of bill lines: FOCUS problems per rule."""
    import re

    compiled = [(rule, re.compile(rx)) for rule, rx in RULES]
    out: dict[str, dict[str, int]] = {}
    for flags in flag_lists:
        if isinstance(flags, str):
            flags = json_loads(flags)
        for f in flags:
            rule = next((r for r, rx in compiled if rx.search(f)), "other")
            column = {"correction": "ChargeClass", "provisional bill": "rows", "evidence note": "rows"}.get(
                rule
            ) or f.split(":", 1)[0].split(" ", 1)[0]
            by_col = out.setdefault(rule, {})
            by_col[column] = by_col.get(column, 0) + 1
    return out


def _microseconds(batch: Any) -> tuple[Any, dict[int, list[str]]]:
    """``batch`` with nanosecond timestamps cast to microseconds (Python's resolution), and the
    rows whose value lost digits, each with a note: the time is truncated, never refused."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    notes: dict[int, list[str]] = {}
    columns = []
    changed = False
    for field, arr in zip(batch.schema, batch.columns, strict=True):
        if pa.types.is_timestamp(field.type) and field.type.unit == "ns":
            us = pc.cast(arr, pa.timestamp("us", field.type.tz), safe=False)
            lost = pc.fill_null(pc.not_equal(pc.cast(us, field.type), arr), False)
            for i in np.flatnonzero(lost.to_numpy(zero_copy_only=False)):
                notes.setdefault(int(i), []).append(
                    f"{field.name}: nanoseconds truncated to microseconds"
                )
            arr, changed = us, True
        columns.append(arr)
    if not changed:
        return batch, notes
    return pa.RecordBatch.from_arrays(columns, names=batch.schema.names), notes


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def _null(v: Any, nulls: frozenset[str]) -> Any:
    return None if v is None or (isinstance(v, str) and v in nulls) else v


def parse_tags(value: Any) -> tuple[dict[str, Any], str | None]:
    """FOCUS Tags (a JSON object, or a Parquet map) → dict; keys are kept exactly as written."""
    if value is None:
        return {}, None
    if isinstance(value, dict):
        return value, None
    if isinstance(value, list) and all(isinstance(p, tuple) and len(p) == 2 for p in value):
        return dict(value), None  # a Parquet map column
    repeated: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for k, v in items:
            if k in out:
                repeated.append(k)
            out[k] = v
        return out

    try:
        obj = json_loads(str(value), object_pairs_hook=pairs)
    except ValueError:  # not JSON, or nested too deeply
        return {}, "Tags is not JSON; kept the text in extra.Tags"
    if not isinstance(obj, dict):
        return {}, "Tags is not a JSON object; kept the text in extra.Tags"
    if repeated:
        return obj, f"Tags repeats key(s) {sorted(set(repeated))}; kept the last value"
    return obj, None


def source_report(lake: Any, sha256: str) -> dict[str, dict[str, int]]:
    """``validation_report`` of the bill lines a file (content hash) put in the lake."""
    import pyarrow.parquet as pq

    folder = lake.partition_path("bill_lines", sha256).parent
    flags: list[str] = []
    for part in sorted(folder.glob("part-*.parquet")):
        flags += pq.read_table(part, columns=["flags"]).column("flags").to_pylist()
    return validation_report(flags)
