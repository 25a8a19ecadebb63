"""imports list / show / drop and quarantine: see and correct what the imports left. / 导入记录与隔离行。"""

from __future__ import annotations

import json

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.cli.output import lang, reason_text, t
from trainledger.imports import (
    FileState,
    flagged_count,
    flagged_rows,
    history_fields,
    quarantined_rows,
    resolve,
    restored_rows,
    short_id,
    states,
)
from trainledger.ingest import KINDS as INGEST_KINDS
from trainledger.ingest import table_of

SHOWN = 20  # rows of a kind listed before "... and N more"


def _record(rec, state=None, lake=None) -> dict:
    out = {"id": short_id(rec.import_key), "kind": rec.kind, "path": rec.path, "sha256": rec.source_sha256,
           "imported_at": rec.imported_at.isoformat(), "status": "dropped" if rec.dropped_at else "live",
           "rows_read": rec.rows_read, "accepted": rec.accepted, "duplicates": rec.duplicates,
           "quarantined": rec.quarantined, "quarantine_file": rec.quarantine_file,
           "dropped_at": rec.dropped_at.isoformat() if rec.dropped_at else None, "drop_reason": rec.drop_reason}
    out.update(history_fields(state))  # a drop stays in the history when the file is imported again
    if state is not None:
        out["flagged"] = flagged_count(lake, state) if lake is not None else 0
        out["options"] = options_read(rec.kind, (state.latest or {}).get("options", {}))
    return out


def options_read(kind: str, options: dict) -> dict:
    """The options of an import that its importer reads: the workspace's defaults every import
    is handed (``tz``, ``storage_prefixes``) are left out of a kind that ignores them (a FOCUS
    bill never reads ``--tz``)."""
    from trainledger.ingest import IMPORTERS

    reads = {"encoding"} | {o for imp in IMPORTERS if imp.kind == kind
                            for o in (getattr(imp, "options_used", ()) or ())}
    if not any(imp.kind == kind for imp in IMPORTERS):
        return dict(options)
    return {k: v for k, v in options.items() if k in reads}


@click.group("imports")
def imports() -> None:
    """Imported files: list, inspect, drop. / 已导入的文件：列出、查看、撤销。"""


@imports.command("list")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def imports_list(ctx: click.Context, as_json: bool) -> None:
    """Every imported file with its counts and status. / 列出全部导入。"""
    with open_ws(ctx) as wsp:
        wsp.repair_imports()
        st = states(wsp.lake)
        rows = [_record(r, st.get((r.kind, r.import_key)), wsp.lake) for r in wsp.ledger.imports()]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        click.echo(t("cli.imports.none", ctx))
        return
    click.echo(t("cli.imports.header", ctx))
    for r in rows:
        status = t("cli.status." + r["status"], ctx)
        click.echo(f"{r['id']}  {r['kind']:<9}  {_padded(status, 7)} {_counts(r)}  {r['path']}")
        if r["drops"]:  # dropped before and imported again (or dropped more than once): say so
            click.echo(history_text(r, ctx, indent=" " * 14))
    # the totals are the sums of the lines above (every import listed, then the live ones)
    click.echo(f"{_padded(t('cli.imports.total', ctx, n=len(rows)), 32)} {_counts(_sums(rows))}")
    live = [r for r in rows if r["status"] == "live"]
    if len(live) != len(rows):
        click.echo(f"{_padded(t('cli.imports.total_live', ctx, n=len(live)), 32)} {_counts(_sums(live))}")


COUNTS = ("rows_read", "accepted", "duplicates", "quarantined", "flagged")


def _sums(rows: list[dict]) -> dict:
    return {k: sum(int(r.get(k) or 0) for r in rows) for k in COUNTS}


def _counts(r: dict) -> str:
    """The count columns of an `imports list` line (read, accepted, dup, quarantined, flagged)."""
    return (f"{r['rows_read']:>5}  {r['accepted']:>8}  {r['duplicates']:>3}  {r['quarantined']:>11}"
            f"  {r.get('flagged', 0):>7}")


def _padded(text: str, width: int) -> str:
    """``text`` padded to ``width`` terminal columns (a CJK character takes two)."""
    import unicodedata

    used = sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)
    return text + " " * max(width - used, 0)


@imports.command("show")
@click.argument("ident", metavar="ID")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def imports_show(ctx: click.Context, ident: str, as_json: bool) -> None:
    """One import: counts, options, quarantine file, quarantined and flagged rows. / 查看一次导入。"""
    with open_ws(ctx) as wsp:
        wsp.repair_imports()
        rec = resolve(wsp.ledger.imports(), ident)
        state = states(wsp.lake).get((rec.kind, rec.import_key)) or FileState(rec.kind, rec.source_sha256, (), None)
        out = _record(rec, state, wsp.lake)
        out["attempts"] = [{k: a.get(k) for k in ("imported_at", "path", "accepted", "duplicates", "quarantined",
                                                  "partition", "options")} for a in state.records]
        out["quarantined_rows"] = quarantined_rows(state)
        out["flagged_rows"] = flagged_rows(wsp.lake, state)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    click.echo(t("cli.imports.title", ctx, id=out["id"], kind=out["kind"], path=out["path"],
                 status=t("cli.status." + out["status"], ctx)))
    click.echo(t("cli.imports.sha", ctx, sha=out["sha256"], at=out["imported_at"]))
    click.echo(t("cli.imports.counts", ctx, read=out["rows_read"], accepted=out["accepted"], dup=out["duplicates"],
                 quarantined=out["quarantined"], flagged=out["flagged"]))
    click.echo(t("cli.imports.options", ctx, options=options_text(out["options"], ctx)))
    if out["dropped_at"]:
        from trainledger.i18n import localize

        reason = localize(out["drop_reason"], lang(ctx))
        click.echo(t("cli.imports.dropped_at", ctx, at=out["dropped_at"], reason=reason))
    if out["reimported_at"] or len(out["drops"]) > 1:
        click.echo(history_text(out, ctx, indent="  "))
    if out["quarantine_file"]:
        click.echo(t("cli.imports.qfile", ctx, file=out["quarantine_file"]))
    _rows(ctx, out["quarantined_rows"], t("cli.imports.quarantined", ctx))
    _rows(ctx, out["flagged_rows"], t("cli.imports.flagged_title", ctx))


def history_text(r: dict, ctx: click.Context, indent: str) -> str:
    """An import's history in one line: ``history: imported AT; dropped AT (by): REASON; re-imported AT``."""
    from trainledger.i18n import localize

    said = []
    for e in r["history"]:
        at = str(e.get("at") or "?")[:19].replace("T", " ")  # to the second; the JSON keeps it all
        if e["event"] == "dropped":
            said.append(t("cli.imports.ev_dropped", ctx, at=at, by=e.get("by") or "?",
                          reason=localize(e.get("reason") or "", lang(ctx))))
        else:
            said.append(t("cli.imports.ev_" + e["event"], ctx, at=at))
    return indent + t("cli.imports.history", ctx, events=("；" if lang(ctx).startswith("zh") else "; ").join(said))


def options_text(options: dict | None, ctx: click.Context | None = None) -> str:
    """An import's options as ``name value`` pairs (``tz UTC; storage_prefixes oss://a/ → raw_data``),
    not JSON: a list joined with commas, a pair with an arrow, an empty value as none."""
    none = t("cli.imports.options_none", ctx)

    def said(v) -> str:
        if isinstance(v, list | tuple):
            if not v:
                return none
            if all(isinstance(x, list | tuple) and len(x) == 2 for x in v):
                return ", ".join(f"{a} → {b}" for a, b in v)
            return ", ".join(said(x) for x in v)
        if isinstance(v, dict):
            return ", ".join(f"{k}={said(x)}" for k, x in v.items()) if v else none
        return none if v is None or v == "" else str(v)

    sep = "；" if lang(ctx).startswith("zh") else "; "
    return sep.join(f"{k} {said(v)}" for k, v in (options or {}).items()) or none


def _rows(ctx: click.Context, rows: list[dict], title: str) -> None:
    from trainledger.i18n import localize

    if not rows:
        return
    click.echo(f"  {title}:")
    for r in rows[:SHOWN]:
        click.echo(t("cli.imports.row", ctx, row=r.get("row"),
                     line=t("cli.imports.line", ctx, line=r["line"]) if r.get("line") else "",
                     reason=reason_text(r, lang(ctx)),
                     remedy=t("cli.imports.remedy", ctx, remedy=localize(r["remedy"], lang(ctx)))
                     if r.get("remedy") else ""))
    if len(rows) > SHOWN:
        click.echo(t("cli.imports.rows_more", ctx, n=len(rows) - SHOWN))


@imports.command("drop")
@click.argument("ident", metavar="ID")
@click.option("--reason", required=True, help="Why (kept in the audit log), e.g. 'imported with the wrong --tz'.")
@click.option("--by", "by", default=None, help="Who withdraws it (recorded in the audit log; default: login name).")
@click.pass_context
def imports_drop(ctx: click.Context, ident: str, reason: str, by: str | None) -> None:
    """Withdraw an import: its rows leave the next `attribute`. / 撤销一次导入。

    Nothing is deleted: the lake tombstones the file's partitions and the ledger's audit log
    records the drop. Import the file again (with the right options) to bring it back."""
    with open_ws(ctx) as wsp:
        rec = wsp.drop_import(ident, reason, by=by)
        table = table_of(rec.kind)
        # an import written before imports recorded their duplicates (lake/resettle.py) cannot get
        # back the rows it shared with the dropped file: it must be read again
        overlapping = [r for r in wsp.ledger.imports() if r.kind == rec.kind and r.dropped_at is None
                       and r.duplicates and r.imported_at >= rec.imported_at
                       and not wsp.lake.source_held(table, r.source_sha256, live=True)]
        restored = restored_rows(wsp.lake, wsp.restored)
    click.echo(t("cli.imports.dropped", ctx, id=short_id(rec.import_key), kind=rec.kind, path=rec.path,
                 n=rec.accepted))
    if restored:
        click.echo(t("cli.imports.restored", ctx, n=sum(restored.values()),
                     ids=", ".join(f"{short_id(k)} +{n}" for k, n in restored.items())))
    if overlapping:
        click.echo(t("cli.imports.overlap", ctx, n=len(overlapping), kind=rec.kind,
                     ids=", ".join(short_id(r.import_key) for r in overlapping)))


@click.command("quarantine")
@click.option("--kind", type=click.Choice(INGEST_KINDS), default=None, help="Only this import kind.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def quarantine(ctx: click.Context, kind: str | None, as_json: bool) -> None:
    """Quarantined and flagged rows of the live imports, with reasons and remedies. / 隔离与带标记的行。"""
    with open_ws(ctx) as wsp:
        rows = []
        for (k, _sha), state in states(wsp.lake).items():
            if (kind and k != kind) or not state.live:
                continue
            rows += quarantined_rows(state) + flagged_rows(wsp.lake, state)
    from trainledger.i18n import localize
    from trainledger.i18n.patterns import code

    if as_json:  # the stored English, its reason code, and the zh-CN beside them
        for r in rows:
            r["reason_code"] = code(r.get("reason") or "")
            if r.get("notes"):  # a flagged row: one code per note
                r["reason_codes"] = [code(n) for n in r["notes"]]
            r["reason_zh"] = reason_text(r, "zh-CN")
            if r.get("remedy"):
                r["remedy_zh"] = localize(r["remedy"], "zh-CN")
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        click.echo(t("cli.quarantine.none", ctx))
        return
    language = lang(ctx)
    for r in rows:
        click.echo(t("cli.quarantine.line", ctx, status=f"{t('cli.status.' + r['status'], ctx):<11}",
                     kind=f"{r['kind']:<9}", import_=r["import"] + " ", file=r.get("file"), row=r.get("row"),
                     reason=reason_text(r, language),
                     remedy=t("cli.imports.remedy", ctx, remedy=localize(r["remedy"], language))
                     if r.get("remedy") else ""))


COMMANDS = (imports, quarantine)
