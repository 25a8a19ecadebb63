"""``storage``: a storage inventory CSV (S3/OSS-like listing with a header) → ``storage_objects``.

Each object needs a storage class: the file's own ``storage_class`` column when it names a
trainledger StorageClass, else the workspace's prefix rules (``options["storage_prefixes"]``,
longest matching prefix wins), else the row is quarantined. Governance gaps — no owner, no
purpose, neither retention nor review date — are accepted and flagged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import (
    FLAG,
    Context,
    DelimitedImporter,
    Head,
    Record,
    Rejected,
    col,
    content_key,
)
from trainledger.ingest.convert import (
    iso_date,
    nonneg_integer,
    one_of,
    stripped,
    timestamp_flag_naive,
)
from trainledger.model.vocab import StorageClass

_storage_class = one_of(StorageClass)
CLASSES = ", ".join(m.value for m in StorageClass)


@dataclass(frozen=True, slots=True)
class StorageSettings:
    prefixes: tuple[tuple[str, str], ...]  # (prefix, storage class), longest prefix first
    import_date: date


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
        col("storage_class", "storage_class", convert=stripped),
        col("tier", "tier", convert=stripped, default="standard"),
        col("owner", "owner", convert=stripped, default=""),
        col("purpose", "purpose", convert=stripped, default=""),
        col("retention_until", "retention_until", convert=iso_date, on_error=FLAG),
        col("review_at", "review_at", convert=iso_date, on_error=FLAG),
        col("last_modified", "last_modified", convert=timestamp_flag_naive, on_error=FLAG),
        col("snapshot_date", "snapshot_date", convert=iso_date),
        col("batch", "batch", convert=stripped),
    )

    def identify_head(self, head: Head) -> bool | str:
        verdict = super().identify_head(head)
        if verdict is not True:
            return verdict
        if not (head.has("path") or head.has("key")) or not (
            head.has("size_bytes") or head.has("size")
        ):
            return "its header has no path (or key) and size_bytes (or size) columns"
        return True

    def configure(self, options: Mapping[str, Any]) -> StorageSettings:
        rules = []
        for item in options.get("storage_prefixes") or ():
            try:
                prefix, klass = item
                rules.append((str(prefix), _storage_class(klass)))
            except (TypeError, ValueError) as e:
                raise BadInput(
                    f"bad storage prefix rule {item!r}: {e}",
                    remedy=f"give (prefix, storage class) pairs; classes: {CLASSES}",
                ) from None
        rules.sort(key=lambda r: -len(r[0]))
        day = options.get("import_date") or datetime.now(UTC).date()
        return StorageSettings(tuple(rules), iso_date(day))

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
        path = values["path"] or (f"{bucket}/{key}" if bucket and key else key)
        if not path:
            raise Rejected("path (or key) is empty", "fill in the object's path")
        given = values["storage_class"]
        klass = None
        if given:
            try:
                klass = _storage_class(given)
            except ValueError:
                klass = None
        if klass is None:
            klass = next((c for p, c in cfg.prefixes if path.startswith(p)), None)
            if klass is None:
                what = (
                    f"storage_class {given!r} is not one of {CLASSES}"
                    if given
                    else ("no storage_class and no prefix rule matches")
                )
                raise Rejected(
                    f"{what} (path {path!r})",
                    "add a storage_class column, or a prefix rule for this path "
                    "(sources.storage.prefixes)",
                )
            if given:
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
            "snapshot_date": values["snapshot_date"] or cfg.import_date,
            "batch": values["batch"] or None,
            "flags": flags,
        }
