"""init, import, attribute, batch list and audit: the commands that build and check a workspace's ledger."""

from __future__ import annotations

import json
from collections import defaultdict
from decimal import Decimal
from pathlib import Path

import click

from trainledger import fmt
from trainledger.cli.output import KindChoice, grouped, lang, note, pad, t, width
from trainledger.ledger.review_repo import verify_records
from trainledger.model import CASH_BASES
from trainledger.service import Workspace


def open_ws(ctx: click.Context) -> Workspace:
    return Workspace.open(ctx.obj["workspace"])


def _with_bar(ctx: click.Context, as_json: bool, run):
    """``run(bar)`` with the import progress bar (on a terminal only; never with --json or
    --quiet), its line wiped afterwards."""
    from trainledger.cli.progress import import_bar

    bar = import_bar(ctx, as_json)
    try:
        return run(bar)
    finally:
        if bar is not None:
            bar.clear()


@click.command("init")
@click.argument("directory", required=False, type=click.Path(file_okay=False))
@click.option("--db", "db_url", default="",
              help="Ledger URL, e.g. postgresql+psycopg://user@host/db (default: SQLite in the workspace).")
@click.option("--currency", default="USD", show_default=True, help="Default currency of the workspace.")
@click.pass_context
def init(ctx: click.Context, directory: str | None, db_url: str, currency: str) -> None:
    """Create a workspace: config, ledger and lake. / 创建工作区。"""
    root = Path(directory or ctx.obj["workspace"])
    with Workspace.init(root, db_url=db_url, currency=currency.upper()) as wsp:
        click.echo(t("cli.init.ready", ctx, root=root, ledger=wsp.config.get("workspace.db_url") or "sqlite"))


@click.command("import")
@click.argument("kind", type=KindChoice())
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--tz", default=None, help="Time zone of offset-less times (slurm), e.g. Asia/Shanghai.")
@click.option("--currency", default=None, help="Currency for FOCUS files without BillingCurrency.")
@click.option("--encoding", default=None,
              help="Text encoding when not UTF-8/UTF-16, e.g. gb18030 for Excel exports in Chinese.")
@click.option("--preset", default=None,
              help="Built-in mapping (jobs, occupancy, nodes, steps, mapped_*), e.g. alibaba-openb-2023; a wrong name"
                   " lists them.")
@click.option("--mapping", default=None, type=click.Path(dir_okay=False),
              help="A TOML mapping of the file's columns (jobs, occupancy, nodes, steps, mapped_*); see docs/formats.md"
                   " § Mappings.")
@click.option("--set", "fixed", multiple=True, metavar="FIELD=VALUE",
              help="A field the file does not hold (mapped kinds, k8s, wandb's run), e.g. --set vc=vc6YE,"
                   " --set job=job_1 or --set run=r03.")
@click.option("--worklog-role", "worklog_role", multiple=True, metavar="AUTHOR=ROLE",
              help="worklog: the labor role of an author's entries without a role: label (over [import.worklog]"
                   " roles).")
@click.option("--worklog-phase", default=None, metavar="PHASE",
              help="worklog: the phase (build, run, rework) of entries without a phase: label.")
@click.option("--replace", "replace_id", default=None, metavar="ID",
              help="Drop this import first (see `trainledger imports list`), e.g. one read with the wrong --tz.")
@click.option("--reason", default="", help="Why the replaced import is dropped (kept in the audit log).")
@click.option("--strict", is_flag=True, help="Exit 1 when any row was quarantined (for pipelines).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object with the counts.")
@click.pass_context
def import_(ctx: click.Context, kind: str, paths: tuple[str, ...], tz: str | None, currency: str | None,
            encoding: str | None, preset: str | None, mapping: str | None, fixed: tuple[str, ...],
            worklog_role: tuple[str, ...], worklog_phase: str | None,
            replace_id: str | None, reason: str, strict: bool, as_json: bool) -> None:
    """Import source files into the lake (idempotent). / 导入源数据（可重复执行）。

    Exit codes: 0 imported (quarantined rows are reported, not fatal); 1 with --strict when any
    row was quarantined; 2 a usage or input error (nothing imported)."""
    from trainledger.i18n import localize
    from trainledger.imports import quarantine_remedy
    from trainledger.ingest.notices import render as render_notice

    options = {k: val for k, val in (("tz", tz), ("currency", currency), ("encoding", encoding),
                                     ("preset", preset), ("mapping", mapping), ("set", list(fixed)),
                                     ("worklog_roles", _pairs("--worklog-role", worklog_role)),
                                     ("worklog_phase", worklog_phase)) if val}
    check_options_apply(kind, options)
    from trainledger.ingest.mapfile import legacy_notes

    for line in legacy_notes(kind, options, lang(ctx)):
        note(line, err=True)
    with open_ws(ctx) as wsp:
        results = _with_bar(ctx, as_json, lambda bar: wsp.import_files(kind, paths, options=options,
                                                                       replace=replace_id, reason=reason,
                                                                       progress=bar))
        held = {(r.kind, r.import_key): r for r in wsp.ledger.imports()}
        repaired = {(r.kind, r.import_key) for r in wsp.repaired}
        from trainledger.imports import restored_rows, short_id

        # the rows --replace's drop gave other imports back (lake/resettle.py), by import id
        restored = {short_id(k): n for k, n in restored_rows(wsp.lake, getattr(wsp, "restored", [])).items()}
        reasons = {r.sha256: _first_reasons(r.quarantine_file) for r in results if r.quarantined}
    total = {"accepted": sum(r.accepted for r in results), "duplicates": sum(r.duplicates for r in results),
             "quarantined": sum(r.quarantined for r in results),
             "quarantine_file": next((r.quarantine_file for r in results if r.quarantine_file), None)}
    notices = [{"notice": key, "path": r.path, "text": render_notice(key, values, (ctx.obj or {}).get("lang") or "en")}
               for r in results for key, values in r.notices]
    if notices:  # a re-read that changed nothing, a restated bill row, steps without a job name
        total["notices"] = notices
    if restored:
        total["restored"] = restored
    if as_json:
        click.echo(json.dumps(total))
    else:
        given = "_given" if tz else ""  # --tz given: say which zone, do not suggest --tz again
        if kind == "slurm":
            note(t("cli.import.sacct_tz" + given, ctx, tz=tz or wsp.config.get("sources.slurm.timezone")))
        elif (preset or mapping) and _local_times(kind, options):
            note(_zone_note(ctx, kind, wsp.config.import_options(kind, options), tz))
        if restored:
            click.echo(t("cli.imports.restored", ctx, n=sum(restored.values()),
                         ids=", ".join(f"{k} +{n}" for k, n in restored.items())))
        for r in results:
            click.echo(t("cli.import.summary", ctx, path=r.path, accepted=r.accepted, duplicates=r.duplicates,
                         quarantined=r.quarantined, id=r.import_id,
                         flagged=t("cli.import.flagged", ctx, n=r.flagged) if r.flagged else ""))
            if r.accepted + r.duplicates + r.quarantined == 0 and not r.notices:
                click.echo(t("cli.import.no_data_rows", ctx))
            rec = held.get((r.kind, r.import_key or r.sha256))
            if rec is not None and rec.accepted != r.accepted and not r.accepted and not r.notices:
                held = "cli.import.held_repaired" if (r.kind, rec.import_key) in repaired else "cli.import.held"
                click.echo(t(held, ctx, n=rec.accepted))
            for key, values in r.notices:
                click.echo("  " + render_notice(key, values, (ctx.obj or {}).get("lang") or "en"))
            for q in reasons.get(r.sha256, []):
                click.echo(t("cli.import.reason", ctx, row=q.get("row"), reason=localize(q.get("reason"), lang(ctx)),
                             remedy=localize(q.get("remedy") or quarantine_remedy(kind), lang(ctx))))
            if r.quarantined:
                more = r.quarantined - len(reasons.get(r.sha256, []))
                click.echo(t("cli.import.all_quarantined", ctx, more=t("cli.import.more", ctx, n=more) if more > 0
                             else "", id=r.import_id, file=r.quarantine_file))
            if r.flagged and _bill_kind(kind):  # FOCUS problems per rule / 按规则
                from trainledger.imports import live_flags, states
                from trainledger.ingest.focus import validation_report

                state = states(wsp.lake).get((r.kind, r.import_key or r.sha256))  # this import's live rows only
                flags = live_flags(wsp.lake, state) if state is not None else []
                for rule, columns in validation_report(flags).items():  # counts, never "rows 10"
                    click.echo(t("cli.import.rule_line", ctx, rule=_rule_name(rule, ctx), counts=[
                        t("cli.import.flag_rows", ctx, n=f"{n:,}") if c == "rows" else
                        t("cli.import.flag_column", ctx, column=c, n=f"{n:,}") for c, n in sorted(columns.items())]))
    if strict and total["quarantined"]:
        ctx.exit(1)


def _rule_name(rule: str, ctx: click.Context) -> str:
    """A flag rule of the import summary (``ingest.focus.RULES``) in the command's language."""
    try:
        return t("cli.import.rule." + rule.replace(" ", "_"), ctx)
    except KeyError:  # a rule without a catalogue entry keeps its English name
        return rule


def _pairs(flag: str, items: tuple[str, ...]) -> dict[str, str]:
    """``KEY=VALUE`` texts as a dict; anything else is a usage error."""
    out = {}
    for item in items:
        k, sep, v = item.partition("=")
        if not sep or not k.strip() or not v.strip():
            raise click.BadParameter(f"{item!r} is not AUTHOR=ROLE / 应写作 作者=角色", param_hint=flag)
        out[k.strip()] = v.strip()
    return out


def _first_reasons(qfile: str | None, n: int = 3) -> list[dict]:
    """The first ``n`` records of a quarantine file (row, reason, remedy)."""
    from trainledger.lake.fs import read_jsonl

    if not qfile or not Path(qfile).exists():
        return []
    out = []
    for rec in read_jsonl(Path(qfile), []):
        out.append(rec)
        if len(out) >= n:
            break
    return out


def _bill_kind(kind: str) -> bool:
    from trainledger.ingest import KIND_TABLES

    return KIND_TABLES.get(kind) == "bill_lines"


def _zone_note(ctx, kind: str, options: dict, tz: str | None) -> str:
    """What a mapped import says of the zone its offset-less times were read in: the one --tz gave,
    the one the preset documents for its source, or UTC assumed — never suggesting the zone used."""
    from trainledger.ingest.preset_fit import mapped_zone

    if tz:
        return t("cli.import.local_tz_given", ctx, tz=tz)
    zone, why = mapped_zone(kind, options)
    if why == "source":
        return t("cli.import.local_tz_source", ctx, tz=zone, preset=options.get("preset") or options.get("mapping"))
    return t("cli.import.local_tz", ctx, tz=zone, example="UTC" if zone == "Asia/Shanghai" else "Asia/Shanghai")


def _local_times(kind: str, options: dict) -> bool:
    """Whether the mapping of a mapped import reads offset-less times in the import's zone."""
    from trainledger.ingest import importer_for
    from trainledger.ingest.mapping import load_mapping

    table = getattr(importer_for(kind), "mapping_table", None)
    return bool(table) and load_mapping(options, table).needs_tz


def _as_of_time(text: str):
    """``--as-of``: a tz-aware ISO 8601 time, or a usage error (exit 2) saying how to write one."""
    from datetime import datetime

    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        when = None
    if when is None or when.tzinfo is None:
        raise click.BadParameter(f"{text!r} is not a time with an offset: write it as ISO 8601 with Z or +HH:MM,"
                                 " e.g. 2026-11-10T14:00:00Z / 不是带时区偏移的时间：请写成 ISO 8601 并带 Z 或"
                                 " +HH:MM，例如 2026-11-10T14:00:00Z", param_hint="--as-of")
    return when


def _capacity_occupancy(ctx: click.Context, rec: dict) -> None:
    """A pool's occupancy lines under its capacity line: held, jobs not imported, and the demand left
    waiting while capacity was idle — an opportunity cost shown beside, never in, the totals."""
    occ, cur = rec.get("occupancy"), rec["currency"]
    if not occ:
        return
    gh = rec.get("gpu_hours", {})
    click.echo(t("cli.attribute.capacity_held", ctx, amount=fmt.amount(rec.get("held_not_imported", "0"), cur,
                                                                      exact=True), currency=cur,
                 hours=f"{Decimal(gh.get('held_not_imported', '0')):,.2f}", samples=f"{occ['samples']:,}",
                 idle_hours=f"{Decimal(gh.get('unheld', '0')):,.2f}"))
    w = occ["waiting_while_idle"]
    if w.get("gpu_hours") is not None:
        click.echo(t("cli.attribute.capacity_waiting", ctx, hours=f"{Decimal(w['gpu_hours']):,.2f}",
                     value=fmt.amount(w["opportunity_cost"], cur, exact=True), currency=cur,
                     pending=f"{Decimal(w['pending_while_any_idle_gpu_hours']):,.2f}",
                     pending_value=fmt.amount(w["pending_while_any_idle_value"], cur, exact=True)))


@click.command("attribute")
@click.option("--json", "as_json", is_flag=True, help="Print the conservation check per currency as JSON.")
@click.option("--engine", type=click.Choice(["python", "duckdb", "spark"]), default=None,
              help="Where the bill stage runs (default: the workspace's engine.backend); same figures on each.")
@click.option("--as-of", "as_of", default=None, metavar="TIMESTAMP",
              help="Cut open jobs and capacities at this time (ISO 8601 with an offset, e.g."
                   " 2026-11-10T14:00:00Z)")
@click.pass_context
def attribute(ctx: click.Context, as_json: bool, engine: str | None, as_of: str | None) -> None:
    """Recompute every cost line from the lake and check conservation. / 重新归属并做守恒校验。"""
    cut = _as_of_time(as_of) if as_of is not None else None
    with open_ws(ctx) as wsp:  # printed once the ledger holds it; then freed before the sheets' precompute (H12)
        wsp.attribute(engine=engine, as_of_time=cut, report=lambda result: _report(ctx, as_json, result))


def _report(ctx: click.Context, as_json: bool, result) -> None:
    """What ``attribute`` prints of its result: the conservation JSON, or the text summary."""
    from trainledger.engine import storage_reconcile as sr

    storage = sr.view(result.storage_reconciliation)
    if as_json:  # each currency's record also carries its storage bills beside the estimate (docs/ledger.md),
        # its non-cash bases' bucket and its labor-hours control (engine/unattributed.py)
        click.echo(json.dumps([rec | {"storage_reconciliation": sr.for_currency(storage, rec["currency"])}
                               for rec in currency_records(result)] + list(result.conservation_capacity)))
        return  # an owned / reserved capacity's record after the currencies' (its key "capacity")
    from trainledger.model.vocab import detail_label, label, reason_label

    language = lang(ctx)  # --lang, TRAINLEDGER_LANG, the workspace's, the locale (trainledger/i18n/choose.py)
    click.echo(t("cli.attribute.lines", ctx, lines=f"{len(result.lines):,}", runs=f"{len(result.runs):,}"))
    for rec in result.conservation:
        a = _amounts(rec)
        click.echo(t("cli.attribute.conservation", ctx, currency=rec["currency"], billed=a["billed_total"],
                     attributed=a["attributed"], unattributed=a["unattributed"], difference=a["difference"]))
    for rec in result.conservation_amortized:
        a = _amounts(rec)
        click.echo(t("cli.attribute.amortized", ctx, currency=rec["currency"], billed=a["billed_total"],
                     attributed=a["attributed"], unattributed=a["unattributed"], difference=a["difference"]))
    for rec in result.conservation_capacity:
        a = {k: fmt.amount(rec[k], rec["currency"], exact=True)
             for k in ("total", "attributed", "unheld", "job_without_batch", "difference")}
        click.echo(t("cli.attribute.capacity", ctx, capacity=rec["capacity"], currency=rec["currency"],
                     total=a["total"], attributed=a["attributed"], unheld=a["unheld"],
                     jwb=a["job_without_batch"], difference=a["difference"]))
        _capacity_occupancy(ctx, rec)
    from trainledger.report.storage_section import summary_lines

    for line in summary_lines(storage, language):  # two bases side by side
        click.echo(f"  {line}")
    buckets = unattributed_by_reason(result.lines)
    if buckets:  # grouped by reason: a count, the few largest items and how to list all (review F11)
        click.echo(t("cli.attribute.bucket", ctx))
        cut_short = False
        sep = ": " if language == "en" else "："
        groups = group_by_reason(buckets)
        said = {key[0]: key[0] if language == "en" else label(key[0], language) for key, _a, _i in groups}
        basis_col = max(15, *map(width, said.values()))  # the widest basis shown: the reasons line up after it
        for (basis, code, cur), amount, items in groups:
            shown_basis = pad(said[basis], basis_col)
            shown_code = code if language == "en" else reason_label(code, language)  # the codes stay in JSON
            head = f"{shown_basis} {shown_code}" if shown_code != said[basis] else said[basis]  # said once
            if len(items) <= BUCKET_SHOWN:  # a few items: each on its line, as the reason and its detail
                for detail, x in items:
                    detail = detail if language == "en" else detail_label(detail, language)
                    click.echo(f"    {fmt.amount(x, cur, exact=True):>16} {cur}  {head}"
                               + (f"{sep}{detail}" if detail else ""))
                continue
            cut_short = True  # many: the reason's total and count, its largest items, how to list all
            click.echo(f"    {fmt.amount(amount, cur, exact=True):>16} {cur}  {head}"
                       + t("cli.attribute.bucket_items", ctx, n=f"{len(items):,}"))
            for detail, x in items[:BUCKET_SHOWN]:
                shown = detail if language == "en" or not detail else detail_label(detail, language)
                click.echo(f"      {fmt.amount(x, cur, exact=True):>16} {cur}  {shown or '-'}")
            click.echo("      " + t("cli.attribute.bucket_more", ctx, n=f"{len(items) - BUCKET_SHOWN:,}"))
        if cut_short:
            click.echo("    " + t("cli.attribute.bucket_all", ctx))
    from trainledger.report.noncash import cli_lines

    for line in cli_lines(result.unattributed_noncash, result.labor_hours, language):
        click.echo(line)
    if any(fmt.MARK in fmt.amount(x, r["currency"], exact=True) for r in result.conservation
           for x in (r["billed_total"], r["attributed"], r["unattributed"], r["difference"])) or \
            any(fmt.MARK in fmt.amount(amount, cur, exact=True) for (_, _, cur), amount in buckets):
        click.echo(f"  {fmt.precision_note(language)}")
    from trainledger.report import problems_i18n  # each problem's label and message (codes only in JSON)

    grouped((problems_i18n.label(p.kind, language),
             p.message if language == "en" else problems_i18n.message(p.as_dict(), language)) for p in result.problems)


FLAGS = {"worklog_roles": "worklog-role", "worklog_phase": "worklog-phase"}  # option → its flag


def check_options_apply(kind: str, options: dict) -> None:
    """An option the importer of ``kind`` does not read is a usage error, never silently ignored."""
    from trainledger.ingest import IMPORTERS

    reads = {"encoding"} | {o for imp in IMPORTERS if imp.kind == kind for o in getattr(imp, "options_used", ())}
    for name in options:
        if name not in reads:
            kinds = [imp.kind for imp in IMPORTERS if name in getattr(imp, "options_used", ())]
            raise click.BadOptionUsage(name, t("cli.import.option_not_read", name=FLAGS.get(name, name), kind=kind,
                                               kinds=", ".join(kinds)))


def currency_records(result) -> list[dict]:
    """``attribute --json``'s per-currency records: the conservation record with, added, the currency's
    non-cash bases' bucket (``unattributed_noncash``: a list) and its labor-hours control
    (``labor_hours``: null without a timesheet). A currency only labor, estimates or queued time carry
    (no bill) gets a record of its own, its cash all zero."""
    from trainledger.model.money import minor_quantum

    recs = {r["currency"]: r for r in result.conservation}
    for cur in sorted({r["currency"] for r in (*result.unattributed_noncash, *result.labor_hours)} - set(recs)):
        zero = format(Decimal(0).quantize(minor_quantum(cur)), "f")
        recs[cur] = {"currency": cur, "billed_total": zero, "attributed": zero, "unattributed": zero,
                     "difference": zero, "unattributed_by_reason": []}
    labor = {r["currency"]: r for r in result.labor_hours}
    return [recs[cur] | {"unattributed_noncash": [r for r in result.unattributed_noncash if r["currency"] == cur],
                         "labor_hours": labor.get(cur)} for cur in recs]


def _amounts(rec: dict) -> dict[str, str]:
    """A conservation record's figures as finance reads them (every digit of cash kept)."""
    return {k: fmt.amount(rec[k], rec["currency"], exact=True)
            for k in ("billed_total", "attributed", "unattributed", "difference")}


BUCKET_SHOWN = 3  # items shown per reason; `attribute --json` lists every one


def group_by_reason(buckets) -> list[tuple[tuple[str, str, str], Decimal, list[tuple[str, Decimal]]]]:
    """``unattributed_by_reason``'s entries grouped by (basis, reason code, currency): the total and
    the items (detail, amount), largest first; groups largest first."""
    groups: dict[tuple[str, str, str], list[tuple[str, Decimal]]] = defaultdict(list)
    for (basis, reason, cur), amount in buckets:
        code, _sep, detail = reason.partition(": ")
        groups[(basis, code, cur)].append((detail, amount))
    out = [(k, sum((x for _d, x in items), Decimal(0)), items) for k, items in groups.items()]
    return sorted(out, key=lambda g: -abs(g[1]))


def unattributed_by_reason(lines) -> list[tuple[tuple[str, str, str], Decimal]]:
    """Cash in the unattributed bucket grouped by basis, reason and currency, largest first."""
    from trainledger.engine.conservation import line_sums  # sums of the lines, or of their columns

    cash = {str(b) for b in CASH_BASES} | {"effective_cost"}  # and the bill's EffectiveCost view
    acc: dict[tuple[str, str, str], Decimal] = defaultdict(Decimal)
    for (basis, kind, cur, held, reason), amount in line_sums(lines).items():
        if not held and (basis in cash or kind in ("config", "capacity")):  # a capacity's rate card too
            acc[(basis, reason, cur)] += amount
    return sorted(acc.items(), key=lambda kv: -abs(kv[1]))


@click.group("batch")
def batch() -> None:
    """Training batches (训练批次)."""


@batch.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def batch_list(ctx: click.Context, as_json: bool) -> None:
    """List batches with their attribution keys."""
    with open_ws(ctx) as wsp:
        wsp.sync_config()
        batches = wsp.ledger.list_batches()
    if as_json:
        click.echo(json.dumps([{"id": b.id, "project": b.project, "name": b.name, "team": b.team,
                                "owner": b.owner, "task_type": b.task_type, "key": b.key.as_dict()}
                               for b in batches], ensure_ascii=False))
        return
    for b in batches:
        click.echo(f"{b.id}\t{b.project}\t{b.key.data_snapshot}\t{b.key.model_version}\t{b.team}\t{b.name}")


@click.command("audit")
@click.option("--expect", "expected", default=None, metavar="HASH",
              help="A head hash published earlier (a report, a ticket): it must still be in the chain.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def audit(ctx: click.Context, expected: str | None, as_json: bool) -> None:
    """Verify the audit log and the figures it recorded. / 校验审计日志哈希链与账本数字。

    Exits 1 when an entry was edited, removed or reordered, when a stored cost line, run or
    attribution summary differs from the digest the chain recorded for it, or when --expect names
    a head that is no longer in the chain (the newest entries were cut off)."""
    with open_ws(ctx) as wsp:
        log, problems, figure_problems, proof = wsp.ledger.verify()
        problems += verify_records(wsp.ledger)  # plans, alerts, decisions against their audit entries
        lake_problems = wsp.lake_problems()  # the lake's rows against what the live imports state
    if expected and not any(e["hash"] == expected for e in log):
        problems.append(f"the published head {expected} is not in the chain: entries were removed or rewritten")
    head = log[-1] if log else None
    report = {"entries": len(log), "head_id": head["id"] if head else None,
              "head_hash": head["hash"] if head else None, "intact": not problems and not figure_problems,
              "chain_intact": not problems, "figures_intact": not figure_problems,
              "attribution_id": proof["attribution_id"], "figures_digest": proof["figures_digest"],
              "lake_intact": not lake_problems, "lake_problems": [p.as_dict() for p in lake_problems],
              "problems": problems + figure_problems + [p.message for p in lake_problems]}
    report["intact"] = report["intact"] and not lake_problems
    if as_json:
        click.echo(json.dumps(report))
    else:
        from trainledger.i18n import localize

        click.echo(t("cli.audit.entries", ctx, n=len(log), id=report["head_id"], hash=report["head_hash"]))
        click.echo(t("cli.audit.chain_intact" if not problems else "cli.audit.chain_broken", ctx))
        for p in problems:
            click.echo(f"  ! {localize(p, lang(ctx))}")
        if not figure_problems:
            which = (t("cli.audit.attribution", ctx, id=proof["attribution_id"]) if proof["attribution_id"] is not None
                     else t("cli.audit.no_attribution", ctx))
            click.echo(t("cli.audit.figures_match", ctx, which=which, digest=proof["figures_digest"]))
        else:
            click.echo(t("cli.audit.figures_changed", ctx))
            for p in figure_problems:
                click.echo(f"  ! {localize(p, lang(ctx))}")
        from trainledger.report import problems_i18n

        click.echo(t("cli.audit.lake_intact" if not lake_problems else "cli.audit.lake_broken", ctx))
        for p in lake_problems:
            click.echo(f"  ! {problems_i18n.message(p.as_dict(), lang(ctx))}")
    if report["problems"]:
        ctx.exit(1)


COMMANDS = (init, import_, attribute, batch, audit)
