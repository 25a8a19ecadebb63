"""``MappedImporter``: a CSV-like source whose columns a mapping (``mapping.py``) names.

Subclasses say which fields exist (``fields``), which a row needs, and how each is converted;
this class turns the import's mapping into ``Column``s, checks the file's header against the
mapping's signature (naming the preset that would fit), and folds the import's constants
(``--set FIELD=VALUE`` over the mapping's ``[constants]``) into every row's key, so rows of two
virtual clusters or two jobs with the same numbers are never taken for duplicates.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

from trainledger.errors import BadInput
from trainledger.ingest.base import Column, Context, Record, Verdict, col
from trainledger.ingest.convert import stripped
from trainledger.ingest.delimited import DelimitedImporter, reading_options
from trainledger.ingest.keys import canon_number, canon_time_local, content_key
from trainledger.ingest.mapping import Settings, settings
from trainledger.ingest.preset_fit import fitting
from trainledger.ingest.text import sniff
from trainledger.names import did_you_mean

TIME_REMEDY = {"number": "write the time as a plain number of {unit} from the origin",
               "iso": "write the time as ISO 8601, e.g. 2026-01-01 08:00:00"}  # fmt: skip


def other_kind(path: Path, me: str) -> Verdict | None:
    """A Verdict naming the importer the file belongs to, when another one claims it."""
    from trainledger.ingest import IMPORTERS  # the registry imports this module

    for imp in IMPORTERS:
        if imp.kind != me and getattr(imp, "claims", True) and imp.identify(path) is True:
            return Verdict(
                f"this looks like {imp.description}",
                remedy=f"import it with `trainledger import {imp.kind}`",
            )
    return None


def constants(cfg: Settings) -> dict[str, str]:
    """The mapping's constants with the import's ``--set`` values over them."""
    return {**cfg.mapping.constants, **cfg.overrides}


class MappedImporter(DelimitedImporter):
    claims: ClassVar[bool] = False  # any CSV could be such a table: never claim another's file
    options_used: ClassVar[tuple[str, ...]] = ("tz", "preset", "mapping", "set")
    mapping_table: ClassVar[str]
    fields: ClassVar[frozenset[str]]
    needed: ClassVar[tuple[str, ...]] = ()
    converters: ClassVar[Mapping[str, Any]] = {}
    remedies: ClassVar[Mapping[str, str]] = {}
    time_fields: ClassVar[tuple[str, ...]] = ()

    def configure(self, options: Mapping[str, Any]) -> Settings:
        cfg = settings(options, self.mapping_table)
        unknown = sorted(set(cfg.overrides) - self.fields)
        if unknown:
            raise BadInput(f"--set {', '.join(unknown)}: no such field of {self.mapping_table}",
                           remedy=f"set one of {', '.join(sorted(self.fields))}")  # fmt: skip
        return cfg

    def identity(
        self, path: Path, options: Mapping[str, Any], cfg: Settings
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The constants set for an import are also its *statement*: the same file said of
        another virtual cluster (``--set vc=…``) is another statement, not a repeat."""
        reading = reading_options(options, ("tz",) if cfg.mapping.needs_tz else ())
        reading["mapping"] = cfg.mapping.digest
        if not cfg.overrides:
            return reading, {}
        fixed = dict(sorted(cfg.overrides.items()))
        reading["set"] = fixed
        return reading, {"set": fixed}

    def identify(self, path: Path) -> bool | str:
        head = sniff(path)
        if head.container == "empty":
            return True
        verdict = other_kind(path, self.kind)
        if verdict is not None:
            return verdict
        if head.container != "text" or head.json_keys is not None:
            return f"it is {head.describe()}, not a delimited table with a header"
        return True

    def layout(self, cfg: Settings) -> tuple[Column, ...]:
        m = cfg.mapping
        cached = getattr(self, "_layout", None)
        if cached is not None and cached[0] is m:
            return cached[1]
        unknown = sorted(set(m.columns) - self.fields)
        if unknown:
            raise BadInput(f"mapping {m.name}: no {self.mapping_table} field {', '.join(unknown)}"
                           f"{did_you_mean(unknown[0], self.fields)}",
                           path=m.source, remedy=f"map columns to {', '.join(sorted(self.fields))}")  # fmt: skip
        given = set(m.columns) | set(m.constants) | set(cfg.overrides)
        missing = [f for f in self.needed if f not in given]
        if missing:
            raise BadInput(f"mapping {m.name} gives no {', '.join(missing)}", path=m.source,
                           remedy=f'add {missing[0]} = "…" under [columns] or [constants],'
                                  f' or pass --set {missing[0]}=…')  # fmt: skip
        cols = []
        signed = {x.casefold() for group in m.signature for x in group}
        for name, sources in m.columns.items():
            canon, remedy = None, self.remedies.get(name)
            if name in self.time_fields:
                canon = canon_number if m.time_format == "number" else canon_time_local
                remedy = TIME_REMEDY[m.time_format].format(unit=m.time_unit)
            # a column outside the signature may be missing from a file: its field is then null
            required = name in self.needed or any(s.casefold() in signed for s in sources)
            cols.append(col(name, *sources, convert=self.converters.get(name, stripped), required=required,
                            needed=name in self.needed, canon=canon, remedy=remedy))  # fmt: skip
        cols += [col(f"tag:{t}", s, convert=stripped) for t, s in m.tags.items()]
        layout = tuple(cols)
        self._layout = (m, layout)
        return layout

    def parse(self, path: Path, ctx: Context) -> Iterator[Record]:
        cfg: Settings = ctx.cfg
        m = cfg.mapping
        head = sniff(path)
        if head.container == "text" and head.header:
            missing = [" or ".join(g) for g in m.signature if not any(head.has(s) for s in g)]
            if missing:
                fits = fitting(head, self.mapping_table, m.name)  # every mapped kind's presets (J9)
                if fits and fits[0][1] == self.mapping_table:
                    remedy = f"use --preset {fits[0][0]}"
                elif fits:
                    name, table, kind = fits[0]
                    remedy = (f"it is the layout of preset {name} ({table}): import it with"
                              f" `trainledger import {kind} {path} --preset {name}`")
                else:
                    remedy = "write a mapping for it (--mapping FILE)"
                raise BadInput(
                    f"its header has no {', '.join(missing)} column: it is not the layout of "
                    f"{m.source}; it has {head.describe()}",
                    path=str(path), remedy=remedy,
                )
        self.nulls = m.nulls
        fixed = constants(cfg)
        salt = [x for k in sorted(fixed) for x in (k, fixed[k])]
        for rec in super().parse(path, ctx):
            if salt and not rec.problem:
                rec.key = content_key([rec.key, *salt])
            yield rec
