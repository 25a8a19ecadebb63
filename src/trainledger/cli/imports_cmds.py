"""imports list / show / drop and quarantine: see and correct what the imports left. / 导入记录与隔离行。"""

from __future__ import annotations

import json

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.imports import FileState, flagged_rows, quarantined_rows, resolve, short_id, states
from trainledger.ingest import KINDS as INGEST_KINDS

SHOWN = 20  # rows of a kind listed before "... and N more"


def _record(rec, state=None) -> dict:
    out = {"id": short_id(rec.source_sha256), "kind": rec.kind, "path": rec.path, "sha256": rec.source_sha256,
           "imported_at": rec.imported_at.isoformat(), "status": "dropped" if rec.dropped_at else "live",
           "rows_read": rec.rows_read, "accepted": rec.accepted, "duplicates": rec.duplicates,
           "quarantined": rec.quarantined, "quarantine_file": rec.quarantine_file,
           "dropped_at": rec.dropped_at.isoformat() if rec.dropped_at else None, "drop_reason": rec.drop_reason}
    if state is not None:
        out["flagged"] = sum(int(r.get("flagged") or 0) for r in state.records if r.get("partition"))
        out["options"] = (state.latest or {}).get("options", {})
    return out


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
        rows = [_record(r, st.get((r.kind, r.source_sha256))) for r in wsp.ledger.imports()]
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        click.echo("no imports yet / 尚无导入: trainledger import KIND PATH")
        return
    click.echo("id            kind       status   read  accepted  dup  quarantined  flagged  path")
    for r in rows:
        click.echo(f"{r['id']}  {r['kind']:<9}  {r['status']:<7} {r['rows_read']:>5}  {r['accepted']:>8}"
                   f"  {r['duplicates']:>3}  {r['quarantined']:>11}  {r.get('flagged', 0):>7}  {r['path']}")


@imports.command("show")
@click.argument("ident", metavar="ID")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def imports_show(ctx: click.Context, ident: str, as_json: bool) -> None:
    """One import: counts, options, quarantine file, quarantined and flagged rows. / 查看一次导入。"""
    with open_ws(ctx) as wsp:
        wsp.repair_imports()
        rec = resolve(wsp.ledger.imports(), ident)
        state = states(wsp.lake).get((rec.kind, rec.source_sha256)) or FileState(rec.kind, rec.source_sha256, (), None)
        out = _record(rec, state)
        out["attempts"] = [{k: a.get(k) for k in ("imported_at", "path", "accepted", "duplicates", "quarantined",
                                                  "partition", "options")} for a in state.records]
        out["quarantined_rows"] = quarantined_rows(state)
        out["flagged_rows"] = flagged_rows(wsp.lake, state)
    if as_json:
        click.echo(json.dumps(out, ensure_ascii=False))
        return
    click.echo(f"import {out['id']} ({out['kind']}) {out['path']}  [{out['status']}]")
    click.echo(f"  sha256 {out['sha256']}, first imported {out['imported_at']}")
    click.echo(f"  {out['rows_read']} rows read = {out['accepted']} accepted + {out['duplicates']} duplicate"
               f" + {out['quarantined']} quarantined; {out['flagged']} accepted with flags")
    click.echo(f"  options: {json.dumps(out['options'], ensure_ascii=False)}")
    if out["dropped_at"]:
        click.echo(f"  dropped {out['dropped_at']}: {out['drop_reason']}")
    if out["quarantine_file"]:
        click.echo(f"  quarantine file: {out['quarantine_file']}")
    _rows(out["quarantined_rows"], "quarantined / 隔离")
    _rows(out["flagged_rows"], "flagged / 带标记")


def _rows(rows: list[dict], title: str) -> None:
    if not rows:
        return
    click.echo(f"  {title}:")
    for r in rows[:SHOWN]:
        click.echo(f"    row {r.get('row')}"
                   + (f" (line {r['line']})" if r.get("line") else "") + f": {r.get('reason')}"
                   + (f" — {r['remedy']}" if r.get("remedy") else ""))
    if len(rows) > SHOWN:
        click.echo(f"    … and {len(rows) - SHOWN} more (--json lists all)")


@imports.command("drop")
@click.argument("ident", metavar="ID")
@click.option("--reason", required=True, help="Why (kept in the audit log), e.g. 'imported with the wrong --tz'.")
@click.pass_context
def imports_drop(ctx: click.Context, ident: str, reason: str) -> None:
    """Withdraw an import: its rows leave the next `attribute`. / 撤销一次导入。

    Nothing is deleted: the lake tombstones the file's partitions and the ledger's audit log
    records the drop. Import the file again (with the right options) to bring it back."""
    with open_ws(ctx) as wsp:
        rec = wsp.drop_import(ident, reason)
        overlapping = [r for r in wsp.ledger.imports() if r.kind == rec.kind and r.dropped_at is None
                       and r.duplicates and r.imported_at >= rec.imported_at]
    click.echo(f"dropped import {short_id(rec.source_sha256)} ({rec.kind}, {rec.path}): {rec.accepted} accepted"
               " row(s) no longer feed any figure; run `trainledger attribute` to recompute")
    if overlapping:
        click.echo(f"note: {len(overlapping)} later {rec.kind} import(s) counted rows as duplicates of what the lake"
                   " held then (" + ", ".join(short_id(r.source_sha256) for r in overlapping) + "); rows they shared"
                   " with the dropped file are in no figure now. Re-read such a file with"
                   f" `trainledger import {rec.kind} PATH --replace ID`.")


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
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    if not rows:
        click.echo("no quarantined or flagged rows / 没有隔离或带标记的行")
        return
    for r in rows:
        click.echo(f"{r['status']:<11} {r['kind']:<9} {r['import']}  {r.get('file')} row {r.get('row')}:"
                   f" {r.get('reason')}" + (f" — {r['remedy']}" if r.get("remedy") else ""))


COMMANDS = (imports, quarantine)
