"""runs: list runs with their failure causes and evidence; confirm or override a cause."""

from __future__ import annotations

import json

import click

from trainledger import run_causes
from trainledger.cli.ledger_cmds import open_ws
from trainledger.cli.output import lang, t
from trainledger.model import FailureCause


@click.group("runs")
def runs() -> None:
    """Runs and their failure causes; confirm a cause. / 运行与失败归因。"""


@runs.command("list")
@click.option("--batch", "batch_id", default=None, help="Only this batch's runs.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
def runs_list(ctx: click.Context, batch_id: str | None, as_json: bool) -> None:
    """Each run's failure cause, its evidence and source, and its review class."""
    with open_ws(ctx) as wsp:
        rows = run_causes.explained(wsp)
        runs = {r.id: r for r in wsp.ledger.runs()}
    rows = {k: r for k, r in rows.items() if batch_id is None or r["batch_id"] == batch_id}
    for k, r in rows.items():  # the sheet's and `review`'s review class (run_causes.review_key)
        if k in runs:
            r["review_class"] = run_causes.review_key(runs[k], r)
    if as_json:
        click.echo(json.dumps(rows, ensure_ascii=False))
        return
    from trainledger.i18n import localize
    from trainledger.model.vocab import label

    language = lang(ctx)
    say = (lambda v: v) if language == "en" else (lambda v: label(v, language))  # codes only in JSON
    for k, r in rows.items():
        cause = f"{say(r['cause'])} ({say(r['cause_evidence'])})" if r["cause"] else "—"
        note = localize(r["review_note"], language) if r["review_note"] else ""
        click.echo(f"{k}\t{r['batch_id'] or '—'}\t{r['state']}\t{cause}\t{say(r['review_class'] or 'needs_review')}"
                   f"\t{localize(r['cause_source'], language)}{'; ' + note if note else ''}")


@runs.command("confirm")
@click.argument("run_id")
@click.option("--cause", required=True, type=click.Choice([c.value for c in FailureCause]),
              help="The failure cause you confirm (or set instead of the suggestion).")
@click.option("--by", "by", required=True, help="Who confirms it (recorded in the audit chain).")
@click.option("--note", default="", help="Why, e.g. a ticket.")
@click.pass_context
def runs_confirm(ctx: click.Context, run_id: str, cause: str, by: str, note: str) -> None:
    """Confirm or override a run's failure cause; recorded in the audit chain. / 确认失败原因。"""
    with open_ws(ctx) as wsp:
        r = run_causes.confirm(wsp, run_id, cause, by, note)
    from trainledger.i18n import localize
    from trainledger.model.vocab import label

    language = lang(ctx)
    say = (lambda v: v) if language == "en" else (lambda v: label(v, language))
    click.echo(t("cli.runs.confirmed", ctx, run=run_id, cause=say(r["cause"]),
                 source=localize(r["cause_source"], language), review_class=say(r["review_class"] or "needs_review")))


COMMANDS = (runs,)
