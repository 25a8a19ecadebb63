"""Application services: what a command does, without the command line or HTTP around it.

``Workspace`` ties the parts together — config (``workspace.py``), ledger (system of record),
lake (immutable facts) and engine — so the CLI and tests (and a web API later) call the same few methods:
``init``, ``open``, ``import_files`` (with ``repair_imports`` and ``drop_import``), ``attribute``,
``verify`` and ``sheet`` (built only from a ledger whose figures match its audit chain).
"""

from __future__ import annotations

import getpass
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from trainledger import workspace as ws
from trainledger.errors import ConfigError, NotFound
from trainledger.i18n import Msg
from trainledger.ledger import ImportRecord, Ledger
from trainledger.model import PriceEntry

if TYPE_CHECKING:  # the engine is imported by the methods that run it: `batch list` need not pay for it
    from trainledger.engine import Attribution
    from trainledger.engine.context import Problem, Settings

STARTER_CONFIG = """\
# trainledger workspace — see docs/workspace.md for every section.
[workspace]
name = "{name}"
currency = "{currency}"
language = "en"
db_url = "{db_url}"
price_book = ""
# timezone = "Asia/Shanghai"  # the days and months of reports (default UTC)

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
    repaired: list[ImportRecord] = field(default_factory=list)  # what the last import_files repaired
    restored: list[str] = field(default_factory=list)  # partitions the last drop wrote (lake/resettle.py)

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
    def import_files(self, kind: str, paths: Sequence[str | Path], *, options: dict | None = None,
                     replace: str | None = None, reason: str = "", progress=None):
        """Import files into the lake, then bring the ledger's import records in line with the
        lake's log (``repair_imports``). ``replace``: the id of an import to drop first (its rows
        leave every figure; the files are identified before anything is dropped)."""
        from trainledger.ingest import check_file, import_files, importer_for
        from trainledger.ingest.preset_fit import mapped_zone

        opts = {"storage_prefixes": list(self.config.storage_prefixes)}
        if getattr(importer_for(kind), "mapping_table", None) is None:  # sacct's zone is not a trace's (J9)
            opts["tz"] = self.config.get("sources.slurm.timezone")
        opts.update(self.config.import_options(kind, options))  # [import.<kind>], the command's over them
        zone, why = mapped_zone(kind, opts)  # a mapped table: the mapping's source zone, else UTC assumed
        if why in ("source", "assumed"):
            opts["tz"] = zone
        if replace is not None:
            self._replaceable(kind, replace)
            importer = importer_for(kind)
            for p in paths:
                check_file(importer, Path(p))
            self.drop_import(replace, reason or str(Msg("stored.replaced_by", paths=", ".join(map(str, paths)))),
                             replaced_by=[str(p) for p in paths])
        results = import_files(kind, [Path(p) for p in paths], self.lake, options=opts, progress=progress)
        self.repaired = self.repair_imports()  # the CLI says "repaired" only for these
        from trainledger.ingest.storage import prefix_notice

        results = [prefix_notice(self.lake, _unnamed_job_notice(self.lake, _restated_notice(self.lake, r), opts), opts)
                   for r in results]
        self._after_import()
        return results

    def _replaceable(self, kind: str, ident: str) -> None:
        """``import KIND FILE --replace ID`` withdraws ID: refused when ID's rows are of another kind
        of record (a timesheet replacing a bill would take the bill out of every figure and leave
        conservation at 0.00: review 7 L19). A bill in another bill format may replace a bill."""
        from trainledger.errors import BadInput
        from trainledger.imports import resolve, short_id
        from trainledger.ingest import table_of

        self.repair_imports()
        rec = resolve(self.ledger.imports(), ident)
        if table_of(rec.kind) != table_of(kind):
            raise BadInput(f"--replace {ident}: import {short_id(rec.import_key)} is a {rec.kind} import ({rec.path}),"
                           f" not one a {kind} file can replace; nothing was dropped or imported",
                           remedy=f"give the id of the {kind} import this file corrects (`trainledger imports list"
                                  f" --kind {kind}`), or import it without --replace")

    def _after_import(self) -> None:
        """Hard caps (rounds from the imported jobs, money as of the last attribution) of every
        planned batch raise their alerts (review/service.py ``check_at_import``)."""
        from trainledger.review.service import check_at_import

        check_at_import(self)

    def repair_imports(self) -> list[ImportRecord]:
        """Write the ledger's record of every file the lake's log names, rebuilt from the lake
        (``imports.record_from_lake``): a crash between the lake and the ledger left it behind,
        or a drop or re-import changed it. Returns the records that changed."""
        from trainledger.imports import record_from_lake, states

        have = {(r.kind, r.import_key): r for r in self.ledger.imports()}
        dropped = self.lake.dropped()
        changed = []
        for key, state in states(self.lake).items():
            rec = record_from_lake(self.lake, state, dropped)
            if rec is None:
                continue
            old = have.get(key)
            if old is not None and replace(rec, imported_at=old.imported_at) == old:
                continue  # already true: no write, no audit entry
            if self.ledger.sync_import(rec):
                changed.append(rec)
        return changed

    def drop_import(self, ident: str, reason: str, *, replaced_by: list[str] | None = None,
                    by: str | None = None) -> ImportRecord:
        """Withdraw an import: the lake tombstones its partitions (the next ``attribute`` no longer
        sees its rows) and the ledger marks its record dropped; both are logged."""
        from trainledger.errors import BadInput
        from trainledger.imports import resolve

        if not reason.strip():
            raise BadInput("a drop needs a reason", remedy="pass --reason TEXT (it is kept in the audit log)")
        self.repair_imports()
        rec = resolve(self.ledger.imports(), ident)
        if rec.dropped_at is not None:
            raise BadInput(f"import {ident} ({rec.path}) was already dropped on {rec.dropped_at:%Y-%m-%d %H:%M}"
                           f" UTC: {rec.drop_reason}", remedy="import the file again to bring its rows back")
        extra = {"replaced_by": replaced_by} if replaced_by else {}
        from trainledger.ingest import table_of

        actor = (by or "").strip() or _actor()  # `imports drop --by`: who withdrew it, in both logs
        from trainledger.imports import states

        state = states(self.lake).get((rec.kind, rec.import_key))  # which of the file's imports
        line = self.lake.log_drop(rec.kind, rec.source_sha256, reason, table=table_of(rec.kind),
                                  statement=state.statement if state else None,
                                  import_key=rec.import_key, actor=actor, **extra)
        restored = line.get("restored") or []
        dropped = self.ledger.drop_import(rec.kind, rec.import_key, reason,
                                          {"partitions": line["partitions"], "at": line["at"], **extra,
                                           **({"restored": restored} if restored else {})},
                                          at=datetime.fromisoformat(line["at"]), actor=actor)
        self.restored = restored  # the partitions the drop gave other imports back (lake/resettle.py)
        if restored:
            self.repair_imports()  # those imports' records: their accepted rows grew
        return dropped

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
        from trainledger.imports import states

        latest = {key: st.latest for key, st in states(self.lake).items() if st.live and st.latest}
        per_kind: dict[str, list[dict]] = {}
        for (_kind, key), rec in latest.items():
            if rec.get("quarantined"):
                per_kind.setdefault(rec["kind"], []).append(rec | {"import_key": key})
        def ids(recs: list[dict]) -> str:  # the import a fixed file replaces: `import KIND FILE --replace ID`
            return ", ".join(str(r["import_key"])[:12] for r in recs)

        def files(recs: list[dict]) -> dict[str, int]:  # two imports of one file (another --set) that
            return {str(r["quarantine_file"]): int(r["quarantined"]) for r in recs}  # share its rows: once

        return [Problem("quarantined_rows", f"{sum(files(recs).values())} {kind} row(s) are in"
                        f" quarantine and in no figure: fix them and import the fixed file with"
                        f" `trainledger import {kind} FILE --replace ID` (import {ids(recs)}; "
                        + ", ".join(files(recs)) + ")",
                        {"kind": kind, "rows": sum(files(recs).values()), "ids": ids(recs),
                         "files": ", ".join(files(recs))})
                for kind, recs in sorted(per_kind.items())]

    def lake_problems(self) -> list[Problem]:
        """Where the lake's live rows are not what the live imports state (lake/resettle.py
        ``check``): per import, the rows it states that the lake holds fewer copies of
        (``lake_rows_short``: in no figure), and the rows held more often than any live import
        states them (``lake_rows_extra``: counted more than once). Reads each live partition's
        ``row`` and ``row_hash`` columns only. A partition the log names that is gone from the lake
        is ``lake_partition_missing``; a copied partition's rows are ``lake_rows_extra``; the live files
        of an import the log never recorded (killed between publishing and logging) are
        ``lake_import_unlogged``."""
        import pyarrow.parquet as pq

        from trainledger.engine.context import Problem
        from trainledger.imports import missing_partitions, short_id, states
        from trainledger.ingest import KIND_TABLES
        from trainledger.lake.resettle import check, unrecorded

        named = {(st.sha256, st.statement or ""): st for st in states(self.lake).values() if st.live}
        any_statement = {st.sha256 for st in states(self.lake).values() if st.live and st.statement is None}

        def who(key: tuple[str, str]) -> tuple[str, str, str]:
            st = named.get(key)
            path = str((st.latest or {}).get("path") or "PATH") if st else "PATH"
            return (short_id(st.import_key if st else key[0]), st.kind if st else "?", path)

        out: list[Problem] = []
        for st, part, rows in missing_partitions(self.lake):  # a partition file gone from the lake
            ident, path = short_id(st.import_key), str((st.latest or {}).get("path") or "PATH")
            command = f"trainledger import {st.kind} {path} --replace {ident}"
            out.append(Problem("lake_partition_missing",
                               f"import {ident} ({st.kind}, {path}): its partition {part} ({rows} row(s)), named in"
                               f" lake/imports.jsonl, is not in the lake: those rows are in no figure; restore the"
                               f" file from a backup, or read the file again: `{command}`",
                               {"import": ident, "kind": st.kind, "path": path, "partition": part, "rows": rows,
                                "command": command}))
        for table in sorted(set(KIND_TABLES.values())):
            for (sha, _statement), parts, held, kind in unrecorded(self.lake, table, set(named), any_statement):
                rows = sum(pq.ParquetFile(p).metadata.num_rows for p in parts)
                kept = sum(pq.ParquetFile(p).metadata.num_rows for p in held)
                files = len(parts) + len(held)
                command = f"trainledger import {kind} FILE"
                out.append(Problem("lake_import_unlogged",
                                   f"the lake holds {files} file(s) of an import of the file {sha[:12]} ({kind},"
                                   f" {table}: {rows} row(s) in the figures, {kept} held for it) that"
                                   f" lake/imports.jsonl does not record — an import cut off between publishing"
                                   f" them and logging itself: it is in no `imports list` and cannot be dropped;"
                                   f" import that file again to record it: `{command}` (the file whose sha256"
                                   f" begins {sha[:12]})",
                                   {"sha": sha[:12], "kind": kind, "table": table, "rows": rows, "held": kept,
                                    "files": files, "command": command}))
            found = check(self.lake, table)
            short: dict[tuple[str, str], list[int]] = {}
            extra: dict[tuple[tuple[str, str], ...], list[int]] = {}
            for m in found:
                if m.stated > m.held:
                    acc = short.setdefault(m.stated_by, [0, 0])
                    acc[0] += 1
                    acc[1] += m.stated - m.held
                else:
                    acc = extra.setdefault(m.holders, [0, 0])
                    acc[0] += 1
                    acc[1] += m.held - m.stated
            for key, (rows, n) in sorted(short.items()):
                ident, kind, path = who(key)
                command = f"trainledger import {kind} {path} --replace {ident}"
                out.append(Problem("lake_rows_short",
                                   f"import {ident} ({kind}, {path}) states {rows} distinct row(s) that the lake"
                                   f" holds {n} copy(ies) fewer of than the file says: they are in no figure;"
                                   f" read the file again: `{command}`",
                                   {"import": ident, "kind": kind, "path": path, "rows": rows, "copies": n,
                                    "table": table, "command": command}))
            for keys, (rows, n) in sorted(extra.items()):
                ids = ", ".join(who(k)[0] for k in keys)
                out.append(Problem("lake_rows_extra",
                                   f"the lake holds {n} more copy(ies) of {rows} distinct {table} row(s) than any"
                                   f" live import states (held by import(s) {ids}): counted more than once;"
                                   f" drop those imports and import their files again",
                                   {"ids": ids, "rows": rows, "copies": n, "table": table}))
        return out

    def attribute(self, *, as_of: date | None = None, engine: str | None = None,
                  as_of_time: datetime | None = None,
                  report: Callable[[Attribution], None] | None = None) -> Attribution | None:
        """``engine`` (python | duckdb | spark) overrides the workspace's ``engine.backend``;
        ``as_of_time`` (tz-aware, ``attribute --as-of``) cuts open jobs and capacities there. Without
        either ``as_of`` is the last day the data covers (``engine.asof.data_day``), not today: the
        same lake gives the same figures whatever day attribution runs (the clock only for an empty lake).
        ``report``: given, it is called with the result once the ledger holds it, and the result is
        then freed before the sheets' precompute (which reads the ledger back), so the two are never
        resident together — at 1M job attempts the result's runs alone are ~1.5 GB (H12); None is
        returned then."""
        from trainledger.engine import Facts, attribute, memory
        from trainledger.engine.asof import data_day
        from trainledger.report.freshness import snapshot

        read = snapshot(self.lake)  # the import set these figures are of (report/freshness.py), before the read
        facts = _keyed(Facts.from_lake(self.lake), self.lake)
        as_of = as_of or (as_of_time.astimezone(UTC).date() if as_of_time else data_day(facts) or ws.today())
        self.sync_config()
        result = attribute(facts, engine_settings(self.config), self.price_lookup(), as_of, as_of_time,
                           engine=engine or self.config.get("engine.backend"))
        result = replace(result, problems=result.problems + tuple(self.quarantine_problems())
                         + tuple(self._occupancy_problems(result)) + tuple(self.lake_problems()))
        del facts  # the lake's rows are not needed past here: their memory goes to the ledger write
        memory.release()  # ... once the Arrow pool gives it back (engine/memory.py; issue 7)
        dated = {"as_of": as_of.isoformat()} | ({"as_of_time": as_of_time.isoformat()} if as_of_time else {})
        # the summary's only reference is the write's: it is freed once its JSON is made (H12);
        # the precompute reads the stored one back
        attribution_id = self.ledger.replace_cost_lines(
            result.lines, summary=result.summary() | dated,
            runs=[info.run for info in result.runs.values() if info.batch_id])
        self.ledger.audit(_actor(), "attribute", "workspace", {"lines": len(result.lines),
                                                              "conservation": result.conservation,
                                                              "attribution_id": attribution_id, "imports": read})
        if report is not None:
            report(result)
            del result
            memory.release()  # the result's memory, and Arrow's, to the precompute (engine/memory.py)
            self._after_attribution()
            return None
        self._after_attribution()
        return result

    def _occupancy_problems(self, result) -> list:
        """A pool whose occupancy series shows more running than its imported jobs hold (G23)."""
        from trainledger.analysis.occupancy_check import occupancy_problems
        from trainledger.engine.capacity import parse

        caps = parse(list(self.config.raw.get("capacity", []) or []), str(self.config.path))
        return occupancy_problems(self.lake, caps, list(result.conservation_capacity)) if caps else []

    def _after_attribution(self) -> None:
        """Hard caps and reached gates of every planned batch raise their alerts (review/service.py)."""
        from trainledger.review.service import check

        check(self)
        self._precompute_sheets()

    def _precompute_sheets(self) -> None:
        """Each batch's sheet figures computed once from the verified ledger, for the first read of
        a sheet (report/precompute.py)."""
        from trainledger.report.precompute import write

        write(self)

    # --- reports -----------------------------------------------------------------------------
    def sheet(self, batch_id: str) -> dict:
        from trainledger.errors import TrainledgerError
        from trainledger.report.precompute import load
        from trainledger.report.sheet import build_sheet

        self.config.batch(batch_id)  # NotFound with a remedy when the id is wrong
        self.sync_config()  # a batch declared since the last `attribute` still gets its (empty) sheet

        for _ in range(3):  # a write between verifying and reading would pair figures with another proof
            proof = self.verify()
            figures = load(self, batch_id, proof)  # computed at attribution for these verified figures
            sheet = build_sheet(self, batch_id, figures)
            head = self.ledger.audit_head()
            if (proof["audit_head_id"], proof["audit_head_hash"]) == (head or (None, None)):
                sheet["ledger"] = proof
                return sheet
        raise TrainledgerError(f"the ledger at {self.ledger.where} kept changing while the sheet of {batch_id}"
                               " was read",
                               remedy="run the command again when the running `attribute` or import has finished")

    def verify(self) -> dict:
        """The audit head and figures digest the ledger proves now; LedgerTampered when the audit
        chain is broken or the stored figures differ from what the chain recorded. A sheet is only
        ever built from a verified ledger state, and prints this proof."""
        from trainledger.errors import LedgerTampered

        _, chain_problems, fig_problems, proof = self.ledger.verify()
        problems = chain_problems + fig_problems
        if problems:
            raise LedgerTampered(
                f"the ledger at {self.ledger.where} does not match its audit chain, so no sheet is"
                " built from it:\n  " + "\n  ".join(problems),
                remedy="run `trainledger audit` for the details; restore the database from a backup, or run"
                       " `trainledger attribute` to recompute the figures from the lake (recorded in the chain)")
        return proof


def _actor() -> str:
    try:
        return getpass.getuser()
    except Exception:  # noqa: BLE001 - no login name in some containers
        return "unknown"


def _keyed(facts, lake):
    """``facts`` with an ``import_key`` column on each table where some rows came through another
    import of their content than its first (lake/rowkeys.py): the key each cost line records."""
    from dataclasses import replace

    from trainledger.engine.context import TABLES, Rows
    from trainledger.lake.rowkeys import import_key_column, partition_keys

    keyed, keys = {}, None
    for name in TABLES:
        t = getattr(facts, name).table
        if not t.num_rows:
            continue
        keys = keys or partition_keys(lake)  # the import log, read once
        col = import_key_column(lake, name, t.num_rows, keys)
        if col is not None:
            keyed[name] = Rows(t.append_column("import_key", col))
    return replace(facts, **keyed) if keyed else facts


def _restated_notice(lake, result):
    """A bill import sharing charges (engine/restated.py) with an earlier import gets, per earlier
    import, up to two notices — both rows stay counted:

    - ``repeated``: charges whose rows here are rows the earlier import holds, unchanged (a repeat,
      not a restatement: the file states them more often; the extra copies are flagged
      ``repeated_row_in_file``);
    - ``restated_replace`` or ``restated_partial``: charges at another amount or with other
      columns (old then new amount, a few examples). ``--replace ID`` is proposed only when this file touches at least
      half of the earlier import's live rows (``touches * 2 >= rows``: restated, repeated, or
      identical rows it carries — identical rows are taken as the earlier import's only when it is
      the lake's only other bill import, the lake not recording which file a duplicate matched);
      else the notice says how many rows replacing would withdraw, and the alternatives."""
    from trainledger.engine import restated
    from trainledger.ingest import KIND_TABLES

    if KIND_TABLES.get(result.kind) != "bill_lines" or not result.accepted:
        return result
    notices = []
    found = [r for r in restated.in_lake(lake, result.sha256) if r.later == result.sha256]
    others = restated.other_sources(lake, result.sha256) if found else set()
    for r in found:
        ident, cur = r.earlier[:12], r.currency
        if r.repeated:
            notices.append(("repeated", {"rows": r.repeated, "id": ident, "currency": cur}))
        if not r.restated:
            continue
        total = restated.live_rows(lake, r.earlier)
        touched = r.earlier_rows + (min(result.duplicates, total - r.earlier_rows) if others == {r.earlier} else 0)
        values = {"rows": r.restated, "id": ident, "currency": cur, "touched": touched, "total": total,
                  "others": total - touched,
                  "command": f"trainledger import {result.kind} {result.path} --replace {ident}"}
        more = r.restated > len(r.examples)  # a few examples, then "…"
        values["examples"] = "; ".join(f"{a} then {b}" for a, b in r.examples) + ("; …" if more else "")
        values["examples_zh"] = "；".join(f"先 {a}，后 {b}" for a, b in r.examples) + ("；……" if more else "")
        notices.append(("restated_replace" if touched * 2 >= total else "restated_partial", values))
    return replace(result, notices=result.notices + tuple(notices)) if notices else result


def _unnamed_job_notice(lake, result, options):
    """Steps imported without a job name (no ``--set job=``, no job column) are named after the
    file's hash (ingest/steps.py): say so, with the command that names them (notice ``unnamed_job``)."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if result.kind != "steps" or not result.accepted:
        return result
    from trainledger.imports import short_id, state_parts, states
    from trainledger.lake import partition_key

    dropped = lake.dropped()
    unnamed = set()
    state = states(lake).get((result.kind, result.import_key or result.sha256))  # this import's rows only
    for part in state_parts(lake, state, "worker_steps") if state else ():
        if partition_key(part) in dropped:
            continue
        jobs = pq.read_table(part, columns=["job"]).column("job")
        unnamed |= {j for j in pc.unique(jobs).to_pylist() if j and j.startswith("sha256:")}
    if not unnamed:
        return result
    how = " ".join(f"--{k} {options[k]}" for k in ("preset", "mapping") if options.get(k))
    ident = short_id(result.import_key or result.sha256)
    command = f"trainledger import steps {result.path} {how} --set job=JOB --replace {ident}".replace("  ", " ")
    values = {"job": ", ".join(sorted(unnamed)), "command": command}
    return replace(result, notices=result.notices + (("unnamed_job", values),))


def finished_batch_ratios(workspace: str | Path | Workspace) -> list[float]:
    """Held/effective GPU-hour ratios of the workspace's finished batches (empty when none): the
    estimator's calibration (estimate/calibrate.py), read from the ledger (engine/history.py)."""
    from trainledger.engine.history import ledger_ratios

    wsp = workspace if isinstance(workspace, Workspace) else Workspace.open(workspace)
    try:
        return ledger_ratios(wsp.ledger)
    finally:
        if wsp is not workspace:
            wsp.close()


def engine_settings(config: ws.Config) -> Settings:
    """What the engine reads of the workspace's config (engine/context.py ``Settings``): the engine
    never sees the Config itself."""
    from trainledger.engine.context import Settings

    return Settings(path=str(config.path), values=dict(config.settings), batches=config.batches,
                    rules=config.rules, labor_rates=config.labor_rates,
                    capacity=tuple(config.raw.get("capacity") or ()),
                    allocation=dict(config.raw.get("allocation") or {}),
                    labor_assumptions=tuple(config.rate_assumptions()), nodes=config.nodes)


__all__ = ["Workspace", "engine_settings", "finished_batch_ratios"]
