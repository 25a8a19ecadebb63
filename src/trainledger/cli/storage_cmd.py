"""storage: the workspace's storage bills beside the inventory estimate (engine/storage_reconcile.py)."""

from __future__ import annotations

import json

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.errors import NotFound


@click.command("storage")
@click.option("--json", "as_json", is_flag=True, help="The reconciliation object (docs/ledger.md).")
@click.option("--batch", "batch_id", default=None, metavar="BATCH", help="Only this batch's bill rows and objects.")
@click.pass_context
def storage(ctx: click.Context, as_json: bool, batch_id: str | None) -> None:
    """Storage bills against the inventory estimate, per month and bucket. / 存储账单与存储清单估算对账。"""
    from trainledger.engine.storage_reconcile import view
    from trainledger.report.storage_section import to_text

    with open_ws(ctx) as wsp:
        if batch_id is not None:
            wsp.config.batch(batch_id)  # NotFound with a remedy when the id is wrong
        latest = wsp.ledger.latest_attribution()
    record = (latest or {}).get("summary", {}).get("storage_reconciliation")
    if record is None:
        raise NotFound("no storage reconciliation yet", remedy="run `trainledger attribute` first")
    v = view(record, batch_id)
    if as_json:
        click.echo(json.dumps(v, ensure_ascii=False))
        return
    lang = (ctx.obj or {}).get("lang") or "en"
    click.echo(to_text(v, lang))
