"""``MappedImporter``: a native importer (focus, storage, timesheet, progress) behind a mapping.

The mapping (``vendor_mapping.py``) renames the file's headers onto the native importer's columns and
rewrites vendor spellings; the native importer then validates and normalises each row as it
would its own format, so a mapped file keeps every guarantee of the native one. A preset
(a vendor's bill, a tracker's export) is an importer with a fixed mapping and its own kind; the
``mapped_*`` kinds take the user's mapping from ``options["preset"]`` (a built-in name) or
``options["mapping"]`` (a TOML file, or a preset name).
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from types import MethodType
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Column, Context, Record, Rejected, Verdict, dumps
from trainledger.ingest.delimited import DelimitedImporter, read_delimited
from trainledger.ingest.keys import content_key
from trainledger.ingest.mapfile import load
from trainledger.ingest.preset_fit import fitting
from trainledger.ingest.text import Head, first_bad_byte, sniff
from trainledger.ingest.vendor_mapping import (
    Spec,
    month_start,
    next_month,
    period_of,
    spec_of,
    transform,
)

# A preset's look-alike: a file of the same vendor with the headers (any one of each group) that
# says what it is, and what to do with it, when the preset's signature is missing.
NEAR_MISSES: dict[str, tuple[tuple[tuple[str, ...], ...], str, str]] = {
    "aliyun-split-bill": (
        (("应付金额", "PretaxAmount"), ("实例ID", "InstanceID")),
        "it looks like an Alibaba Cloud bill-details file (BillingItemDetailDaily_*): it has"
        " 应付金额 and 实例ID but no split item (分拆项ID / SplitItemID)",
        "import the split bill (the console's Expenses and Costs › Split Bill) with `trainledger import aliyun`;"
        " with no split"
        " bill, import this file with `trainledger import mapped_bills {path} --preset aliyun-split-bill`"
        " (one row per instance) — never both: they hold the same charges",
    ),
}


class Fits(Verdict):
    """A file that lacks the preset's signature and has another built-in preset's (preset_fit.py)."""


@dataclass(frozen=True, slots=True)
class MappedSettings:
    spec: Spec
    base_cfg: Any
    native: Any  # the native importer, reading this mapping's headers
    columns: tuple[Column, ...]
    as_of: datetime
    pseudo: tuple[Column, ...] = ()  # reading-only columns (fallbacks, periods)
    fixed: Mapping[str, str] = field(default_factory=dict)  # ``--set FIELD=VALUE``: a field the file lacks
    memo: dict[int, Any] = field(default_factory=dict)  # the native importer's Context, by ctx
    headers: dict[str, dict[str, str]] = field(default_factory=dict)  # per file: column -> the file's header

    def native_ctx(self, ctx: Context) -> Context:
        hit = self.memo.get(id(ctx))
        if hit is None or hit[0] is not ctx:
            hit = (ctx, replace(ctx, cfg=self.base_cfg))
            self.memo.clear()
            self.memo[id(ctx)] = hit
        return hit[1]


class _Reader(DelimitedImporter):
    """How a non-delimited native importer (progress) reads a mapped CSV."""

    kind = "mapped"
    table = ""
    description = "a mapped table"
    keep_extra = True
    nulls = frozenset({"", "NULL", "null"})


class MappedImporter:
    def __init__(
        self, kind: str, base: Any, description: str, preset: str | None = None, settable: tuple[str, ...] = ()
    ) -> None:
        self.kind = kind
        self.settable = settable  # fields ``--set`` may give (wandb: the run of a history without one)
        self.base = base
        self.table = base.table
        self.description = description
        self.preset = preset
        self.generic = preset is None  # identifies any table: never offered for another kind
        self.claims = not self.generic  # (the registry's name for it: claims no file for itself)
        # the options the CLI lets through: the native importer's, and the user's mapping
        self.options_used = (tuple(getattr(base, "options_used", ()) or ())
                             + (("preset", "mapping") if self.generic else ()) + (("set",) if settable else ()))

    # -- settings ---------------------------------------------------------------------------

    def spec_for(self, options: Mapping[str, Any]) -> Spec:
        """The mapping: the kind's own preset, else the user's ``--preset`` / ``--mapping``."""
        chosen = {"preset": self.preset} if self.preset else options
        return spec_of(load(chosen, (self.table,), self.kind))

    def configure(self, options: Mapping[str, Any]) -> MappedSettings:
        spec = self.spec_for(options)
        base_cfg = self.base.configure(options)
        native_cols = (
            self.base.layout(base_cfg) if isinstance(self.base, DelimitedImporter)
            else tuple(self.base.columns)
        )
        by_name = {f.name: f for f in spec.fields}
        cols: list[Column] = []
        periodic = ("charge_period_start", "charge_period_end") if spec.period else ()
        for c in native_cols:
            f = by_name.get(c.name)
            if c.name in periodic:  # a day, month or range column can give the period instead
                c = replace(c, required=False)
            if f is None:
                cols.append(c)
                continue
            sources = f.sources or c.sources
            required = c.required and f.constant is None
            cols.append(replace(c, sources=sources, required=required))
        known = {c.name for c in cols}
        for f in spec.fields:  # a mapped column the native reader has no Column for
            if f.name not in known and f.sources:
                cols.append(Column(f.name, f.sources))
        for key, sources in spec.period.items():
            cols.append(Column(f"__period_{key}", sources))
        for f in spec.fields:
            cols.extend(Column(f"__fb_{f.name}_{i}", (s,)) for i, s in enumerate(f.fallback))
        columns = tuple(cols)
        native = copy.copy(self.base)
        if isinstance(self.base, DelimitedImporter):
            # a header group the native format needs one of (path or key): the mapped headers
            by_col = {c.name: c.sources for c in columns}
            native.require_any = tuple(
                tuple(s for name in group for s in by_col.get(name, (name,))) for group in self.base.require_any
            )
            native.columns = columns
            native.layout = MethodType(lambda self, cfg: columns, native)
        day = options.get("import_date")
        as_of = (
            datetime.combine(date.fromisoformat(str(day)), datetime.min.time(), spec.tz)
            if day
            else datetime.now(UTC)
        )
        pseudo = tuple(c for c in columns if c.name.startswith("__"))
        return MappedSettings(spec, base_cfg, native, columns, as_of, pseudo, fixed=self._fixed(options))

    def _fixed(self, options: Mapping[str, Any]) -> dict[str, str]:
        """``--set`` of a kind that takes it (wandb: ``run``); a field it does not take is refused."""
        from trainledger.errors import BadInput
        from trainledger.ingest.mapping import overrides

        fixed = overrides(options.get("set")) if self.settable else {}
        # a field it does not take, or one given no value (--set run=)
        unknown = sorted(set(fixed) - set(self.settable)) or sorted(k for k, v in fixed.items() if not v)
        kind, settable = self.kind, " | ".join(self.settable)
        if unknown:
            raise BadInput(f"--set {', '.join(unknown)}: `import {kind}` takes --set {settable}",
                           remedy=f"write --set {settable}=NAME")
        return fixed

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: MappedSettings
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        ident = getattr(self.base, "identity", None)
        reading, statement = ident(path, options, cfg.base_cfg) if ident else (dict(options), {})
        reading = {k: v for k, v in reading.items() if k not in ("mapping", "set")}
        if cfg.fixed:  # the run a history is said to be of is part of what its rows state
            reading["set"] = dict(sorted(cfg.fixed.items()))
            statement = {**statement, "set": reading["set"]}
        return {**reading, "mapping": f"{cfg.spec.name}@{cfg.spec.digest}"}, statement

    # -- identify ---------------------------------------------------------------------------

    def identify(self, path: Path) -> bool | str:
        head = sniff(path)
        if head.container == "empty":
            return True
        if head.container not in ("text", "parquet"):
            return f"it is {head.describe()}"
        if self.preset is None:
            if head.container == "text" and not head.header and head.json_keys is None:
                return "it has no header line"
            return True
        return self._signature(head, path)

    def _signature(self, head: Head, path: Path, spec: Spec | None = None) -> bool | str:
        spec = spec or self.spec_for({})  # presets are small files; read when asked
        names = head.json_keys if head.json_keys is not None else head.header
        if spec.encoding and any("\ufffd" in n for n in names):
            names = _header_as(path, spec.encoding, head.delimiter or ",") or names
        folded = {n.casefold() for n in names}
        missing = [" / ".join(g) for g in spec.signature if not any(s.casefold() in folded for s in g)]
        near = NEAR_MISSES.get(spec.name)
        if missing and near and all(any(s.casefold() in folded for s in g) for g in near[0]):
            return Verdict(near[1], near[2].format(path=path))  # the same vendor's other file: say which
        if missing:  # header names only between the words: the sentence reads in either language
            # --preset of a generic kind: every mapped kind's presets (review 5 J9); a vendor's own kind
            # (import aliyun) is told what the file looks like by the registry (ingest/detect)
            fits = fitting(head, self.table, spec.name) if self.generic else []
            if fits and fits[0][1] == self.table:
                return Fits(f"its header has no {'; '.join(missing)} column", f"use --preset {fits[0][0]}")
            if fits:
                name, table, kind = fits[0]
                return Fits(f"its header has no {'; '.join(missing)} column",
                            f"it is the layout of preset {name} ({table}): import it with"
                            f" `trainledger import {kind} {path} --preset {name}`")
            return f"its header has no {'; '.join(missing)} column"
        return True

    # -- rows -------------------------------------------------------------------------------

    def _native_ctx(self, ctx: Context, path: Path) -> Context:
        cfg: MappedSettings = ctx.cfg
        options = ctx.options
        enc = cfg.spec.encoding
        if enc and not options.get("encoding") and first_bad_byte(path, "utf-8-sig") is not None:
            options = {**options, "encoding": enc}  # e.g. a GB18030 export from a Chinese console
        return replace(ctx, cfg=cfg.base_cfg, options=options)

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        cfg: MappedSettings = ctx.cfg
        nctx = self._native_ctx(ctx, path)
        head = sniff(path)
        if self.generic and head.container == "text" and head.header:  # --preset / --mapping: its signature
            verdict = self._signature(head, path, cfg.spec)  # (a near miss is read: it says how, NEAR_MISSES)
            if isinstance(verdict, Fits):
                raise BadInput(f"{verdict}: it is not the layout of {cfg.spec.name}; it has {head.describe()}",
                               path=str(path), remedy=verdict.remedy)
        if head.container == "parquet" and not hasattr(self.base, "_parse_parquet"):
            records = _parquet_records(path, cfg)  # the focus reader has its own
            rename = True
        elif isinstance(self.base, DelimitedImporter):
            records = cfg.native.parse(path, nctx)
            rename = False
        elif head.json_keys is not None:
            records = self.base.parse(path, nctx)
            rename = True
        else:
            records = read_delimited(path, _Reader(), cfg.columns, nctx.options, nctx.watch)
            rename = False
        salt = [x for k in sorted(cfg.fixed) for x in (k, cfg.fixed[k])]  # --set run=…: rows of another run
        for rec in records:
            if rec.problem is None:
                self._rewrite(rec, cfg, rename, path)
                if salt:
                    rec.key = content_key([rec.key, *salt])
            yield rec

    def _rewrite(self, rec: Record, cfg: MappedSettings, rename: bool, path: Path) -> None:
        spec, tz = cfg.spec, cfg.spec.tz
        values = rec.values
        if rename:  # JSON objects, Parquet rows: keys are the source's names (any case)
            taken: set[str] = set()
            out: dict[str, Any] = {}
            index = {k.casefold(): k for k in values}
            for c in cfg.columns:
                for s in c.sources:
                    k = index.get(s.casefold())
                    if k is not None:
                        out[c.name] = values[k]
                        taken.add(k)
                        break
            rest = {k: v for k, v in values.items() if k not in taken and k not in out}
            values = {**rest, **out}
        elif rec.extra and not isinstance(self.base, DelimitedImporter):
            values = {**rec.extra, **values}  # progress keeps unmapped keys in ``extra``
        pseudo = cfg.pseudo
        if pseudo:  # what fed a fallback or a period stays on the row, in ``extra``
            extra = rec.extra if rec.extra is not None else {}
            for c in pseudo:
                if values.get(c.name) is not None:
                    extra.setdefault(c.label, values[c.name])
            rec.extra = extra
        for f in spec.fields:
            if f.name not in values and f.constant is None and not f.fallback and f.sources:
                continue  # a column the file does not have stays absent, as in the native format
            v = values.get(f.name)
            for i in range(len(f.fallback)):
                if v is not None:
                    break
                v = values.get(f"__fb_{f.name}_{i}")
            values[f.name] = transform(f, v, tz)
        for k, v in cfg.fixed.items():  # --set run=r03: the file's own value, when it has one, stays
            if values.get(k) is None:
                values[k] = v
        # the run directory's id (wandb/run-…-<id>) only when neither the file nor --set names the run
        if spec.run_from_path and values.get("run") is None:
            m = re.search(spec.run_from_path, str(path))
            if m:
                values["run"] = m.group("run")
        if spec.period and (values.get("charge_period_start") is None or values.get("charge_period_end") is None):
            got = period_of(values, tz)
            if got is not None and values.get("charge_period_start") is None:
                values["charge_period_start"] = got[0]
                if values.get("charge_period_end") is None:
                    values["charge_period_end"] = got[1]
            elif got is not None and values["charge_period_start"] == got[0]:
                # a day's row whose start is that day and whose end is empty (Volcano Engine's
                # ListBillDetail by day: ExpenseBeginTime 2024-11-26, ExpenseEndTime "") ends with it
                values["charge_period_end"] = got[1]
        month = values.get("__period_month") if spec.period else None
        if month and values.get("billing_period_start") is None:
            try:  # the bill's month (账期) is the billing period; an unreadable one is left to the period
                m = month_start(str(month), tz)
                values["billing_period_start"] = m.astimezone(UTC).isoformat()
                values["billing_period_end"] = next_month(m).astimezone(UTC).isoformat()
            except ValueError:
                pass
        for c in pseudo:
            values.pop(c.name, None)
        rec.values = values

    def validate(self, record: Record, ctx: Context) -> dict[str, Any]:
        cfg: MappedSettings = ctx.cfg
        try:
            values = cfg.native.validate(record, cfg.native_ctx(ctx))
        except Rejected as e:  # say the file's own header, not the preset's first alias nor the lake column
            reason, remedy = _own_headers(e.reason, e.remedy, self._headers(cfg, ctx.path))
            field = reason.removesuffix(" is empty")
            if field in self.settable and field != reason:  # a W&B history CSV without a run column
                remedy = f"pass --set {field}=NAME for the whole file, or add a column of that name"
            raise Rejected(reason, remedy) from None
        for c in cfg.pseudo:
            values.pop(c.name, None)  # the reading-only columns (fallbacks, periods) are no lake columns
        return values

    def _headers(self, cfg: MappedSettings, path: Path) -> dict[str, str]:
        """{column label or lake column: the header of ``path`` that fed it} where they differ (an
        Alibaba API export's ``PretaxAmount`` for the preset's ``应付金额``, W&B's ``_timestamp``
        for ``ts``); read once per file."""
        key = str(path)
        if key not in cfg.headers:
            head = sniff(path)
            names = list(head.json_keys if head.json_keys is not None else head.header or ())
            if cfg.spec.encoding and any("\ufffd" in n for n in names):
                names = list(_header_as(path, cfg.spec.encoding, head.delimiter or ",") or names)
            have = {n.casefold(): n for n in names}
            out: dict[str, str] = {}
            for c in cfg.columns:
                actual = next((have[s.casefold()] for s in c.sources if s.casefold() in have), None)
                if actual is not None:
                    for said in (c.label, c.name):
                        if said != actual:
                            out.setdefault(said, actual)
            cfg.headers[key] = out
        return cfg.headers[key]

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        cfg: MappedSettings = ctx.cfg
        out = cfg.native.normalise(values, record, cfg.native_ctx(ctx))
        flags: list[str] = out["flags"]
        for note in cfg.spec.notes:
            if note.when == "always":
                flags.append(f"note: {note.text}")
            elif note.when == "missing":
                if out.get(note.column) in (None, ""):
                    flags.append(f"note: {note.text}")
            elif note.when == "decimals_over":
                v = out.get(note.column)
                if isinstance(v, str) and "." in v and len(v.split(".", 1)[1].rstrip("0")) > note.places:
                    flags.append(f"note: {note.text}")
        if cfg.spec.finalised is not None:
            note = provisional(out, cfg)
            if note:
                flags.append(note)
        return out


def _own_headers(reason: str, remedy: str | None, headers: Mapping[str, str]) -> tuple[str, str | None]:
    """A quarantine reason (``应付金额: not a number …``, ``ts is empty``) and its remedy
    (``fill in ts``) naming the file's header instead of the column it fed."""
    for said, actual in headers.items():
        for form in (f"{said}: ", f"{said} is "):
            if reason.startswith(form):
                reason = actual + reason[len(said):]
                if remedy and remedy.endswith(f" {said}"):  # "fill in ts"
                    remedy = remedy.removesuffix(said) + actual
                return reason, remedy
    return reason, remedy


def _header_as(path: Path, encoding: str, delimiter: str) -> tuple[str, ...] | None:
    """The header line of ``path`` decoded as ``encoding`` (a GB18030 export whose mostly-ASCII
    rows made it look like damaged UTF-8)."""
    import csv

    with open(path, "rb") as f:
        for raw in f:
            if raw.strip():
                try:
                    line = raw.decode(encoding)
                except UnicodeDecodeError:
                    return None
                try:
                    return tuple(h.strip() for h in next(csv.reader([line], delimiter=delimiter), []))
                except csv.Error:  # a stray carriage return inside the header: no header to read
                    return None
    return None


def _parquet_records(path: Path, cfg: MappedSettings) -> Iterator[Record]:
    """A Parquet table's rows, keyed by column name like JSON objects. An undated storage row is
    a statement about the import date, as in the ``storage`` importer: its key includes it."""
    import pyarrow.parquet as pq

    from trainledger.ingest.keys import canon_loose, content_key, mapping_key

    day = getattr(cfg.base_cfg, "import_date", None)
    pf = pq.ParquetFile(path)
    names = {n.casefold() for n in pf.schema_arrow.names}
    dated = any(s.casefold() in names for c in cfg.columns if c.name == "snapshot_date" for s in c.sources)
    row = 0
    for batch in pf.iter_batches(batch_size=8192):
        for d in batch.to_pylist():
            row += 1
            values = {k: v for k, v in d.items() if v is not None and v != ""}
            key = mapping_key(values, fold=True, default=canon_loose)
            if day is not None and not dated:
                key = content_key([key, "snapshot_date", day.isoformat()])
            yield Record(row, None, dumps(d), key, values, {})


def provisional(row: Mapping[str, Any], cfg: MappedSettings) -> str | None:
    """The note for a row of a billing month the vendor had not finalised at ``as_of``."""
    day, hour = cfg.spec.finalised or (1, 0)
    tz = cfg.spec.tz
    at = row.get("billing_period_start") or row.get("charge_period_start")
    if not isinstance(at, datetime):
        return None
    month = month_start(at.astimezone(tz).strftime("%Y-%m"), tz)
    final = next_month(month).replace(day=day, hour=hour)
    if cfg.as_of >= final:
        return None
    return (
        f"provisional: the {cfg.spec.name} bill for {month:%Y-%m} is final after "
        f"{final.isoformat()}; import the final export then (this row may still change)"
    )
