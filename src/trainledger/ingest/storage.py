"""``storage``: a storage inventory CSV (S3/OSS-like listing with a header) → ``storage_objects``.

Each object needs a storage class: the file's own ``storage_class`` column when it names a
trainledger StorageClass, else the workspace's prefix rules (``options["storage_prefixes"]``,
longest matching prefix wins), else the row is quarantined. An object's path is stored in one
form (``model.objpath.canonical``: a URI keeps its scheme, a bucket and key are joined) and rules
match on its identity without the scheme, so ``oss://b/ckpt/`` and ``b/ckpt/`` name the same
objects whichever way the file writes them. A provider's storage class in that
column (S3 ``DEEP_ARCHIVE``, OSS ``ColdArchive``) is the object's *tier* (``PROVIDER_TIERS``); with
no rule for its path such an object is accepted with the class ``unknown`` and flagged (its
bytes and tier are known, so it is priced; what it is for is not). ``prefix_notice`` warns of a
rule whose prefix matches no object of an import that lists objects of the rule's bucket.
Governance gaps — no owner, no purpose, neither retention nor review date — are accepted and
flagged. An S3 Inventory CSV has no header line: it is refused with the line to add.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import FLAG, Context, Record, Rejected, Verdict, col
from trainledger.ingest.convert import (
    iso_date,
    nonneg_integer,
    one_of,
    stripped,
    timestamp_flag_naive,
)
from trainledger.ingest.delimited import DelimitedImporter, reading_options
from trainledger.ingest.keys import content_key
from trainledger.ingest.text import Head, sniff
from trainledger.model.objpath import canonical, identity, under
from trainledger.model.vocab import StorageClass

_storage_class = one_of(StorageClass)
UNKNOWN = "unknown"  # the class of an object whose provider class gives its tier and no rule its use
CLASSES = ", ".join(m.value for m in StorageClass)
# A provider's storage class names the object's tier (its price), not what the object is for.
# Keys are case-folded: S3 StorageClass values, then OSS storage classes.
PROVIDER_TIERS = {
    "standard": "standard",  # S3 STANDARD, OSS Standard
    "reduced_redundancy": "standard",
    "intelligent_tiering": "standard",  # starts in the frequent-access tier
    "express_onezone": "standard",
    "standard_ia": "infrequent",
    "onezone_ia": "infrequent",
    "ia": "infrequent",  # OSS IA
    "glacier_ir": "archive",  # S3 Glacier Instant Retrieval
    "archive": "archive",  # OSS Archive
    "glacier": "cold_archive",  # S3 Glacier Flexible Retrieval
    "coldarchive": "cold_archive",  # OSS ColdArchive
    "deep_archive": "deep_archive",  # S3 Glacier Deep Archive
    "deepcoldarchive": "deep_archive",  # OSS DeepColdArchive
}
S3_HEADER = "bucket,key,size,last_modified_date,e_tag,storage_class"
OSS_ONLY = ("ia", "archive", "coldarchive", "deepcoldarchive")
S3_CLASSES = frozenset(k.upper() for k in PROVIDER_TIERS if k not in OSS_ONLY)
_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def provider_tier(value: str | None) -> str | None:
    """The tier a provider's storage class names (``DEEP_ARCHIVE`` → ``deep_archive``)."""
    return PROVIDER_TIERS.get(value.strip().casefold()) if value else None


def headerless_s3(head: Head) -> Verdict | None:
    """An S3 Inventory CSV (no header; its first line is an object) and the header to add."""
    fields = head.header
    if len(fields) < 3 or not fields[2].isdigit():
        return None
    if not any(_TIME.match(f) or f in S3_CLASSES for f in fields[3:]):
        return None
    names = ["bucket", "key", "size"]
    for i, f in enumerate(fields[3:], 4):
        if _TIME.match(f) and "last_modified_date" not in names:
            names.append("last_modified_date")
        elif f in S3_CLASSES and "storage_class" not in names:
            names.append("storage_class")
        elif "e_tag" not in names and (
            re.fullmatch(r"[0-9a-f]{32}(-\d+)?", f) or names[-1] == "last_modified_date"
        ):
            names.append("e_tag")  # S3 lists ETag after LastModifiedDate
        else:
            names.append(f"field{i}")
    return Verdict(
        "it has no header line: its first line is an object (an S3 Inventory CSV?)",
        remedy=(
            f"add a header line naming the fields in order, e.g. `{','.join(names)}` "
            f"(S3 Inventory: `{S3_HEADER},...` as the manifest's fileSchema lists them)"
        ),
    )


@dataclass(frozen=True, slots=True)
class StorageSettings:
    prefixes: tuple[tuple[str, str], ...]  # (prefix, storage class), longest prefix first
    import_date: date
    path_rules: tuple[tuple[str, Mapping[str, Any]], ...] = ()  # (prefix, owner/purpose/...)


TAG_FIELDS = ("owner", "purpose", "retention_until", "review_at", "batch")
RULE_KEYS = frozenset({"prefix", "storage_class", "owner", "purpose", "retention_days", "review_days"})


def from_tags(values: dict[str, Any], raw: Any, flags: list[str]) -> None:
    """Fill the governance columns an object's tags name (``owner``, ``purpose``,
    ``retention_until``, ``review_at``, ``batch``, ``storage_class`` or ``class``) where the row
    has none; the file's own columns win."""
    from trainledger.ingest.vendor_mapping import vendor_tags

    try:
        tags = vendor_tags(str(raw))
    except ValueError as e:
        flags.append(f"tags: {e}; not used")
        return
    for k in TAG_FIELDS:
        v = tags.get(k)
        if v and not values.get(k):
            if k in ("retention_until", "review_at"):
                try:
                    v = iso_date(v)
                except ValueError as e:
                    flags.append(f"tag {k}: {e}")
                    continue
            values[k] = v
    klass = tags.get("storage_class") or tags.get("class")
    if klass and not values.get("storage_class"):
        values["storage_class"] = klass


def apply_path_rules(values: dict[str, Any], path: str, cfg: StorageSettings) -> None:
    """Owner, purpose and retention from the longest path rule that names them, where the row
    (and its tags) did not; retention / review in days after the snapshot date."""
    from datetime import timedelta

    day = values["snapshot_date"] or cfg.import_date
    for prefix, rule in cfg.path_rules:
        if not under(path, prefix):
            continue
        for k in ("owner", "purpose"):
            if rule.get(k) and not values.get(k):
                values[k] = str(rule[k])
        for k, days in (("retention_until", "retention_days"), ("review_at", "review_days")):
            if rule.get(days) is not None and values.get(k) is None:
                values[k] = day + timedelta(days=int(rule[days]))


class StorageImporter(DelimitedImporter):
    kind = "storage"
    table = "storage_objects"
    description = "a storage inventory CSV"
    signature = ()
    require_any = (("path", "key"), ("size_bytes", "size"))
    missing_remedy = "the inventory needs a path (or key) and a size_bytes (or size) column"
    columns = (
        col("path", "path", convert=stripped),
        col("key", "key", convert=stripped),
        col("bucket", "bucket", convert=stripped),
        col("size_bytes", "size_bytes", "size", convert=nonneg_integer, needed=True),
        col("storage_class", "storage_class", "StorageClass", convert=stripped),
        col("tier", "tier", convert=stripped),
        col("owner", "owner", convert=stripped, default=""),
        col("purpose", "purpose", convert=stripped, default=""),
        col("retention_until", "retention_until", convert=iso_date, on_error=FLAG),
        col("review_at", "review_at", convert=iso_date, on_error=FLAG),
        col(
            "last_modified",
            "last_modified",
            "last_modified_date",
            "LastModifiedDate",
            convert=timestamp_flag_naive,
            on_error=FLAG,
        ),
        col("snapshot_date", "snapshot_date", convert=iso_date),
        col("batch", "batch", convert=stripped),
        col("tags", "tags", "Tags", "object_tags"),  # read for the columns above, not stored
    )

    options_used = ("storage_prefixes",)

    def identify_head(self, head: Head) -> bool | str:
        verdict = super().identify_head(head)
        if verdict is not True or head.container == "empty":
            return verdict
        if not (head.has("path") or head.has("key")) or not (
            head.has("size_bytes") or head.has("size")
        ):
            return headerless_s3(head) or (
                "its header has no path (or key) and size_bytes (or size) columns"
            )
        return True

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: StorageSettings
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """An inventory without a ``snapshot_date`` column is a statement about the import
        date: that date is part of its identity, and makes its rows a new snapshot."""
        reading = reading_options(options, self.options_used)
        if sniff(path).has("snapshot_date"):
            return reading, {}
        day = {"snapshot_date": cfg.import_date.isoformat()}
        return {**reading, **day}, day

    def configure(self, options: Mapping[str, Any]) -> StorageSettings:
        rules, path_rules = [], []
        for item in options.get("storage_prefixes") or ():
            try:
                if isinstance(item, Mapping):  # {prefix, storage_class?, owner?, purpose?, ...}
                    unknown = set(item) - RULE_KEYS
                    if unknown or "prefix" not in item:
                        raise ValueError(f"keys are {', '.join(sorted(RULE_KEYS))}")
                    if item.get("storage_class"):
                        rules.append((str(item["prefix"]), _storage_class(item["storage_class"])))
                    path_rules.append((str(item["prefix"]), dict(item)))
                    continue
                prefix, klass = item
                rules.append((str(prefix), _storage_class(klass)))
            except (TypeError, ValueError) as e:
                raise BadInput(
                    f"bad storage prefix rule {item!r}: {e}",
                    remedy=f"give (prefix, storage class) pairs; classes: {CLASSES}",
                ) from None
        rules.sort(key=lambda r: -len(identity(r[0])))  # longest first, whatever its scheme
        path_rules.sort(key=lambda r: -len(identity(r[0])))
        day = options.get("import_date") or datetime.now(UTC).date()
        return StorageSettings(tuple(rules), iso_date(day), tuple(path_rules))

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        """A row of an inventory without ``snapshot_date`` is a statement about the import
        date: its key includes that date, so the same listing imported on another day is a
        new snapshot, not a duplicate."""
        day = ctx.cfg.import_date.isoformat()
        for rec in super().parse(path, ctx):
            if rec.problem is None and "snapshot_date" not in rec.values:
                rec.key = content_key([rec.key, "snapshot_date", day])
            yield rec

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        cfg: StorageSettings = ctx.cfg
        flags: list[str] = values["flags"]
        key, bucket = values.pop("key"), values.pop("bucket")
        path = canonical(values["path"], bucket=bucket, key=key, scheme=values.pop("scheme", None))
        if not path:
            raise Rejected("path (or key) is empty", "fill in the object's path")
        raw_tags = values.pop("tags", None)
        if raw_tags:
            from_tags(values, raw_tags, flags)
        apply_path_rules(values, path, cfg)
        given = values["storage_class"]
        klass = None
        if given:
            try:
                klass = _storage_class(given)
            except ValueError:
                klass = None
        tier_of_class = provider_tier(given) if klass is None else None
        tier = _tier(values["tier"], given, tier_of_class, flags)
        if klass is None:
            klass = next((c for p, c in cfg.prefixes if under(path, p)), None)
            if klass is None and tier_of_class:  # an S3 / OSS inventory with no rule for this path: its bytes
                klass = UNKNOWN  # and tier are known, what it is for is not — accepted, flagged, never dropped
                flags.append(f"storage_class {given!r} is the provider's class (tier {tier_of_class}):"
                             f" what the object is for is unknown, no prefix rule matches")
            if klass is None:
                if given:
                    what = f"storage_class {given!r} is not one of {CLASSES}"
                else:
                    what = "no storage_class and no prefix rule matches"
                raise Rejected(
                    f"{what} (path {path!r})",
                    "add a storage_class column, or a prefix rule for this path "
                    "([[storage_prefixes]] in trainledger.toml)",
                )
            if given and not tier_of_class and klass != UNKNOWN:
                flags.append(
                    f"storage_class {given!r} is not a trainledger class; "
                    f"{klass!r} from the prefix rule"
                )
        if not values["owner"]:
            flags.append("no_owner")
        if not values["purpose"]:
            flags.append("no_purpose")
        if values["retention_until"] is None and values["review_at"] is None:
            flags.append("no_retention_or_review_date")
        return {
            **values,
            "path": path,
            "storage_class": klass,
            "tier": tier,
            "snapshot_date": values["snapshot_date"] or cfg.import_date,
            "batch": values["batch"] or None,
            "flags": flags,
        }


def _tier(column: str | None, given: str | None, of_class: str | None, flags: list[str]) -> str:
    """The object's tier: the tier column (a provider's class name there is mapped too), else
    the tier the provider's storage class names, else ``standard``."""
    if not column:
        return of_class or "standard"
    tier = provider_tier(column) or column
    if of_class and tier != of_class:
        flags.append(f"tier {column!r} differs from storage_class {given!r} ({of_class}); kept {tier}")
    return tier


def prefix_notice(lake: Any, result: Any, options: Mapping[str, Any]) -> Any:
    """A storage import gets the notice ``rule_unmatched`` per [[storage_prefixes]] rule whose
    prefix matches none of its objects although it lists objects of the rule's bucket (a rule
    for another bucket is another inventory's business), with one of that bucket's paths: such a
    rule classifies nothing, silently. Matching is on identities (``model.objpath``), so a rule's
    scheme never makes it miss."""
    import dataclasses

    import pyarrow.parquet as pq

    from trainledger.imports import state_parts, states
    from trainledger.lake import partition_key

    if result.kind not in ("storage", "inventory", "mapped_storage"):
        return result
    prefixes = [str(it.get("prefix") if isinstance(it, Mapping) else it[0])
                for it in options.get("storage_prefixes") or () if it]
    if not prefixes:
        return result
    state = states(lake).get((result.kind, result.import_key or result.sha256))
    dropped = lake.dropped()
    ids: list[str] = []
    for part in state_parts(lake, state, "storage_objects") if state else ():
        if partition_key(part) not in dropped:
            ids += [identity(p) for p in pq.read_table(part, columns=["path"]).column("path").to_pylist()]
    if not ids:
        return result
    from bisect import bisect_left

    ids.sort()  # the paths under a prefix are the run of sorted identities that starts at it
    first: dict[str, str] = {}  # bucket → its first path
    for i in ids:
        first.setdefault(i.split("/", 1)[0], i)
    notices = []
    for prefix in dict.fromkeys(prefixes):
        want = identity(prefix)
        bucket = want.split("/", 1)[0]
        at = bisect_left(ids, want)
        if bucket not in first or (at < len(ids) and ids[at].startswith(want)):
            continue
        notices.append(("rule_unmatched", {"prefix": prefix, "bucket": bucket, "example": first[bucket]}))
    return dataclasses.replace(result, notices=result.notices + tuple(notices)) if notices else result
