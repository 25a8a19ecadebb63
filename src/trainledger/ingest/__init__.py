"""Ingest: read what teams already have into the lake, one immutable partition per file.

    file ─► identify ─► configure(options) ─► parse ─► validate ─► normalise ─► lake partition
                                                          └─► quarantine (row, reason, raw)

    base.py       the Importer protocol, Record, ImportResult, declarative Columns
    delimited.py  DelimitedImporter and the strict CSV reader (unbalanced quotes, `;` CSV)
    text.py       encodings, what a file looks like (sniff), reads hashed as they go, safe JSON
    keys.py       row hashes over canonical values (1.10 == 1.1, times in UTC); the version in force
    rowhash.py    row hash version 3: each item digested on its own, folded per row, by columns (numpy)
    convert.py    field converters: exact decimals, UTC timestamps, dates, vocabularies; refuses
                  implausible values (int64, 15-digit amounts, exponents, non-ASCII digits)
    run.py        the driver: identity, hashing, counting, batching, cross-file duplicates, log;
                  an importer's ``fast_batches`` (column at a time) first, the per-row path after
                  it gives a file back (``fastcsv.NotFast``), from the start
    fastcsv.py    the column-at-a-time CSV reader (pyarrow.csv in bounded chunks, read ahead by a
                  thread) for UTF-8 text it
                  reads exactly as delimited.py does; anything else it gives back
    vector.py     converters and row-hash spellings by column, equal to their per-value originals
    focus_fast.py FOCUS CSV a chunk at a time: the per-row path's rows, quarantine and row hashes;
                  the row hashes of a Parquet batch a column at a time (``record_hashes``)
    fastlines.py  a UTF-8 text file in blocks of whole lines, read as the per-row readers read it
    coltime.py    ISO times a column at a time (numpy), equal to parse_datetime + localize
    colrows.py    what the line readers share: the rows left to the importer's own steps, merging
    progress_fast.py  progress JSONL a block at a time: plain rows by Arrow, the rest per row
    slurm_fast.py sacct --parsable2 a block at a time: the per-row path's rows, quarantine, hashes
    notices.py    what an import says besides its counts (re-read with other options, restated
                  bill rows, steps without a job name), en + zh-CN
    keyset.py     row hashes as sorted 128-bit integers: groups, ranks, copies held elsewhere
    slurm.py      sacct --parsable2 → jobs (hostlists, AllocTRES, Comment tags, --tz)
    focus.py      FOCUS 1.0 - 1.3 CSV / Parquet → bill_lines (flag non-conformance, keep the money)
    storage.py    storage inventory CSV → storage_objects (prefix rules, governance flags)
    timesheet.py  time entries CSV → labor_entries
    progress.py   training progress JSONL → progress_events
    invoice.py    vendor invoices CSV → external_services
    mapfile.py    the one TOML mapping format and its loader (--preset / --mapping, presets/*.toml)
    mapping.py    the job tables' side of a mapping: columns → fields, times, state vocabulary
    tabular.py    MappedImporter: a CSV read through a mapping (header check, --set constants)
    mapped.py     any job table CSV through a mapping → jobs (presets: openb pods, Helios/Acme)
    occupancy.py  running / pending / idle GPUs or nodes over time → occupancy (helios, philly)
    nodes.py      node / capacity lists → capacity (openb node list, Helios GPUs per VC, Philly VCs)
    steps.py      per-worker step times of a distributed job → worker_steps (alibaba-pai-2020)
    kube.py       Kubernetes pods (kubectl get pods -o json, watch streams) → jobs
    s3inv.py      S3 / OSS inventory reports (manifest.json + data files) → storage_objects
    worklog.py    Jira-style worklog CSV → labor_entries
    mlflow.py     an MLflow file-store run (meta.yaml, metrics/, tags/, params/) → progress_events
    vendor_mapping.py  the other tables' side of a mapping, and vendor spellings (times, ranges, tags)
    remap.py      MappedImporter: a native importer behind a mapping — the Chinese cloud bills
                  (aliyun, huawei, volcengine), W&B histories and the mapped_* kinds
    presets/      the built-in mappings (TOML, one format): job traces, occupancy, node lists, steps,
                  Chinese cloud bills, W&B (their descriptions in both languages: presets/__init__.py)

Options (``import_files(..., options=...)``): ``tz`` (slurm, required), ``currency`` (focus and
invoice default), ``storage_prefixes`` ((prefix, storage class) pairs), ``import_date``
(storage snapshot date default), ``timesheet_batch_column`` (default ``batch``), ``encoding``
(text files; default: UTF-8 with or without BOM, or UTF-16 with BOM — e.g. ``gb18030`` for
Excel exports on Chinese Windows), ``preset`` / ``mapping`` (jobs, occupancy, nodes, steps and the mapped_*
kinds: a built-in mapping's name / a TOML mapping file, ``mapfile.py``),
``worklog_roles`` / ``worklog_phase`` (worklog), ``set`` (``FIELD=VALUE`` texts: fields the file does not hold;
for k8s ``cluster`` and ``gpu_replicas``). The options that change what rows become are part of an
import's identity: the same file imported again with the same ones is not read again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from trainledger.errors import BadInput, WrongFileType
from trainledger.ingest.base import Importer, ImportResult
from trainledger.ingest.focus import FocusImporter
from trainledger.ingest.invoice import InvoiceImporter
from trainledger.ingest.kube import KubeImporter
from trainledger.ingest.mapped import MappedJobsImporter
from trainledger.ingest.mlflow import MlflowImporter
from trainledger.ingest.nodes import NodesImporter
from trainledger.ingest.occupancy import OccupancyImporter
from trainledger.ingest.progress import ProgressImporter
from trainledger.ingest.remap import MappedImporter
from trainledger.ingest.run import run_import
from trainledger.ingest.s3inv import InventoryImporter
from trainledger.ingest.slurm import SlurmImporter
from trainledger.ingest.steps import StepsImporter
from trainledger.ingest.storage import StorageImporter
from trainledger.ingest.text import check_encoding, sniff
from trainledger.ingest.timesheet import TimesheetImporter
from trainledger.ingest.worklog import WorklogImporter

if TYPE_CHECKING:
    from trainledger.lake import Lake

IMPORTERS: tuple[Importer, ...] = (
    SlurmImporter(),
    FocusImporter(),
    StorageImporter(),
    TimesheetImporter(),
    ProgressImporter(),
    InvoiceImporter(),
    MappedJobsImporter(),
    OccupancyImporter(),
    NodesImporter(),  # node / capacity lists (engine/capacity.py reads them)
    StepsImporter(),
    KubeImporter(),
    # native Chinese cloud bills: FOCUS's bill table through a preset mapping (presets/*.toml)
    MappedImporter("aliyun", FocusImporter(), "an Alibaba Cloud split-item bill",
                   "aliyun-split-bill"),
    MappedImporter("huawei", FocusImporter(), "a Huawei Cloud resource detail bill",
                   "huawei-resource-bill"),
    MappedImporter("volcengine", FocusImporter(), "a Volcano Engine bill detail",
                   "volcengine-bill"),
    InventoryImporter(),  # S3 / OSS inventory reports, by their manifest.json
    WorklogImporter(),  # Jira-style worklogs into labor_entries
    # experiment trackers, into the progress table
    MlflowImporter(),
    MappedImporter("wandb", ProgressImporter(), "a W&B run history (wandb-history.jsonl or CSV)",
                   "wandb-history", settable=("run",)),
    # any CSV / Parquet / JSONL through the user's mapping (``options["mapping"]``)
    MappedImporter("mapped_bills", FocusImporter(), "a bill table read through a mapping"),
    MappedImporter("mapped_storage", StorageImporter(), "a storage table read through a mapping"),
    MappedImporter("mapped_labor", TimesheetImporter(), "a labor table read through a mapping"),
    MappedImporter("mapped_progress", ProgressImporter(), "a progress table read through a mapping"),
)
KINDS: tuple[str, ...] = tuple(i.kind for i in IMPORTERS)
# Which lake table each import kind fills, and the kind that reads a table through the user's
# mapping (its importer claims no file for itself): both read off the registry, kept nowhere else.
KIND_TABLES: MappingProxyType[str, str] = MappingProxyType({i.kind: i.table for i in IMPORTERS})
MAPPED_KIND: MappingProxyType[str, str] = MappingProxyType(
    {i.table: i.kind for i in reversed(IMPORTERS) if not getattr(i, "claims", True)}
)  # reversed: the first generic importer of a table wins

__all__ = [
    "IMPORTERS",
    "KINDS",
    "KIND_TABLES",
    "MAPPED_KIND",
    "ImportResult",
    "Importer",
    "import_files",
    "importer_for",
    "looks_like",
    "table_of",
]


def importer_for(kind: str) -> Importer:
    for imp in IMPORTERS:
        if imp.kind == kind:
            return imp
    raise BadInput(f"unknown import kind {kind!r}", remedy=f"use one of {', '.join(KINDS)}")


def table_of(kind: str) -> str:
    """The lake table import ``kind`` fills (BadInput naming the kinds when there is none)."""
    return importer_for(kind).table


def looks_like(path: Path, *, besides: str | None = None) -> tuple[str, str | None]:
    """What ``path`` appears to be: (description, the kind that would import it, if any)."""
    for imp in IMPORTERS:
        # an importer that takes any table (through a mapping) claims no file for itself
        if imp.kind != besides and getattr(imp, "claims", True) and imp.identify(path) is True:
            return imp.description, imp.kind
    return sniff(path).describe(), None


def check_file(importer: Importer, path: Path) -> None:
    """Raise BadInput if ``path`` is missing, WrongFileType if it is not ``importer``'s kind."""
    if not path.is_file():
        raise BadInput("no such file", path=str(path), remedy="check the path")
    verdict = importer.identify(path)
    if verdict is True:
        return
    remedy = getattr(verdict, "remedy", None)  # a base.Verdict knows what to do
    if remedy:
        raise WrongFileType(f"not {importer.description}: {verdict}", path=str(path), remedy=remedy)
    what, other = looks_like(path, besides=importer.kind)
    raise WrongFileType(
        f"not {importer.description}: {verdict}; it looks like {what}",
        path=str(path),
        remedy=f"import it with `trainledger import {other}`"
        if other
        else f"give {importer.kind} a file in the format of docs/formats.md",
    )


def import_files(
    kind: str,
    paths: Sequence[Path | str],
    lake: Lake,
    *,
    options: Mapping[str, Any] | None = None,
    progress: Callable[[Path, int, int], None] | None = None,
) -> list[ImportResult]:
    """Import each file into ``lake``. Every path is identified before any is imported, so a
    wrong file stops the command before anything is written. ``progress(path, bytes read, size)``
    is told as each file is read (the CLI's progress bar)."""
    importer = importer_for(kind)
    files = [Path(p) for p in paths]
    for p in files:
        check_file(importer, p)
    opts = dict(options or {})
    check_encoding(opts.get("encoding"))  # a bad option stops the command before any import
    importer.configure(opts)
    return [
        run_import(importer, p, lake, opts, None if progress is None else partial(progress, p))
        for p in files
    ]
