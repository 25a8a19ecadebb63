"""Application services: what a command does, without the command line or HTTP around it.

``Workspace`` ties the parts together — config (``workspace.py``), ledger (system of record),
lake (immutable facts) and engine — so the CLI and tests (and a web API later) call the same few methods:
``init``, ``open``, ``import_files``, ``attribute``, ``sheet``.
"""

from __future__ import annotations

import getpass
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from trainledger import workspace as ws
from trainledger.errors import ConfigError, NotFound
from trainledger.ledger import ImportRecord, Ledger
from trainledger.model import PriceEntry

if TYPE_CHECKING:  # the engine is imported by the methods that run it: `batch list` need not pay for it
    from trainledger.engine import Attribution
    from trainledger.engine.context import Problem

STARTER_CONFIG = """\
# trainledger workspace — see docs/workspace.md for every section.
[workspace]
name = "{name}"
currency = "{currency}"
language = "en"
db_url = "{db_url}"
price_book = ""

[sources.slurm]
timezone = "UTC"

[cluster]
gpus_per_node = 8
gpu_item = ""

# A project says why training happens; a batch is the cost object every cost is joined to.
# [[projects]]
# id = "cs-assistant"
# goal = "answer tier-1 tickets in our tone"
#
# [[batches]]
# id = "csa-sft-2026-11-a"
# project = "cs-assistant"
# goal = "policy compliance >= 92% on eval-v3"
# data_snapshot = "tickets-2026-10-31"
# data_processing_version = "clean-v4"
# model_version = "qwen2.5-7b"
# code_version = "git:4f2a9c1"
# config_version = "sft-a-v2"
# team = "applied-ml"
#
# Rules map source fields to a batch; the first match wins.
# [[rules]]
# id = "slurm-wckey"
# source = "slurm"
# field = "wckey"
# match = "template"
"""


@dataclass
class Workspace:
    config: ws.Config
    ledger: Ledger

    @cached_property
    def lake(self):
        """The workspace's lake, opened on first use (pyarrow is not paid by `batch list`)."""
        from trainledger.lake import Lake

        return Lake(self.config.root / "lake")

    # --- lifecycle ---------------------------------------------------------------------------
    @classmethod
    def init(cls, root: str | Path, *, db_url: str = "", currency: str = "USD") -> Workspace:
        root = Path(root)
        root.mkdir(parents=True, exist_ok=True)
        cfg_path = root / ws.CONFIG_NAME
        if not cfg_path.exists():
            cfg_path.write_text(STARTER_CONFIG.format(name=root.resolve().name, currency=currency,
                                                      db_url=db_url), encoding="utf-8")
        (root / "lake").mkdir(exist_ok=True)
        (root / "reports").mkdir(exist_ok=True)
        return cls.open(root)

    @classmethod
    def open(cls, root: str | Path) -> Workspace:
        config = ws.load(root)
        return cls(config=config, ledger=Ledger.open(ws.db_url(config)))

    def close(self) -> None:
        self.ledger.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- prices ------------------------------------------------------------------------------
    def price_lookup(self):
        name = self.config.get("workspace.price_book")
        if not name:
            return lambda item, on, unit: None
        path = self.config.root / name
        if not path.exists():
            raise ConfigError(f"{self.config.path}: price_book {name!r} does not exist at {path}",
                              remedy="fix workspace.price_book or create the file")
        from trainledger.pricebook import load_price_book

        book = load_price_book(path)

        def lookup(item: str, on: date, unit: str) -> PriceEntry | None:
            try:  # stale entries come back too: the engine flags them (engine.context.price_of)
                return book.unit_price(item, unit, on, allow_stale=True)
            except NotFound:
                return None

        return lookup

    # --- import ------------------------------------------------------------------------------
    def import_files(self, kind: str, paths: Sequence[str | Path], *, options: dict | None = None):
        from trainledger.ingest import import_files

        opts = {"tz": self.config.get("sources.slurm.timezone"),
                "storage_prefixes": list(self.config.storage_prefixes)}
        opts.update(options or {})
        results = import_files(kind, [Path(p) for p in paths], self.lake, options=opts)
        for r in results:
            self.ledger.record_import(ImportRecord(
                kind=r.kind, path=str(r.path), source_sha256=r.sha256, rows_read=r.rows_read,
                accepted=r.accepted, duplicates=r.duplicates, quarantined=r.quarantined,
                quarantine_file=r.quarantine_file, imported_at=_now()))
        return results

    # --- attribution -------------------------------------------------------------------------
    def sync_config(self) -> None:
        """Projects and batches are declared in the config; the ledger mirrors them."""
        for p in self.config.projects:
            self.ledger.upsert_project(p)
        for b in self.config.batches:
            self.ledger.upsert_batch(b)

    def quarantine_problems(self) -> list[Problem]:
        """Rows the lake holds in quarantine: their money and hours are in no figure until fixed."""
        from trainledger.engine.context import Problem

        latest: dict[tuple[str, str], dict] = {}
        for rec in self.lake.imports():
            key = (rec["kind"], rec["sha256"])
            if key not in latest or rec.get("partition") or not latest[key].get("partition"):
                latest[key] = rec
        per_kind: dict[str, list[dict]] = {}
        for rec in latest.values():
            if rec.get("quarantined"):
                per_kind.setdefault(rec["kind"], []).append(rec)
        return [Problem("quarantined_rows", f"{sum(r['quarantined'] for r in recs)} {kind} row(s) are in"
                        " quarantine and in no figure: fix them and import again ("
                        + ", ".join(str(r["quarantine_file"]) for r in recs) + ")",
                        {"kind": kind, "rows": sum(r["quarantined"] for r in recs)})
                for kind, recs in sorted(per_kind.items())]

    def attribute(self, *, as_of: date | None = None) -> Attribution:
        from trainledger.engine import Facts, attribute

        as_of = as_of or ws.today()
        self.sync_config()
        result = attribute(Facts.from_lake(self.lake), self.config, self.price_lookup(), as_of)
        result = replace(result, problems=result.problems + tuple(self.quarantine_problems()))
        summary = result.summary() | {"as_of": as_of.isoformat()}
        self.ledger.replace_cost_lines(result.lines, summary=summary,
                                       runs=[info.run for info in result.runs.values() if info.batch_id])
        self.ledger.audit(_actor(), "attribute", "workspace", {"lines": len(result.lines),
                                                              "conservation": result.conservation})
        self._after_attribution()
        return result

    def _after_attribution(self) -> None:
        """Hard caps and reached gates of every planned batch raise their alerts (review/service.py)."""
        from trainledger.review.service import check

        check(self)

    # --- reports -----------------------------------------------------------------------------
    def sheet(self, batch_id: str) -> dict:
        from trainledger.report.sheet import build_sheet

        self.config.batch(batch_id)  # NotFound with a remedy when the id is wrong
        self.sync_config()  # a batch declared since the last `attribute` still gets its (empty) sheet
        return build_sheet(self, batch_id)


def _now():
    from datetime import UTC, datetime

    return datetime.now(UTC)


def _actor() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


__all__ = ["Workspace"]
