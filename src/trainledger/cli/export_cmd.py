"""export focus-allocation: the attribution as FOCUS 1.3 allocation rows (CSV or Parquet)."""

from __future__ import annotations

import csv
from decimal import Decimal
from pathlib import Path

import click

from trainledger.cli.ledger_cmds import open_ws
from trainledger.cli.output import lang, t
from trainledger.engine.focus_export import ALLOCATION_COLUMNS, allocation_rows
from trainledger.errors import NotFound
from trainledger.model import Basis
from trainledger.model.vocab import label

CAPACITY_BASES = ("amortized", "rate_card")  # owned / reserved capacity's own bases (engine/capacity.py)


@click.group("export")
def export() -> None:
    """Export the attribution, e.g. as FOCUS 1.3 allocation rows. / 导出归属结果（如 FOCUS 分摊行）。"""


@export.command("focus-allocation")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Default: reports/focus-allocation.<fmt>.")
@click.option("--format", "fmt", type=click.Choice(["csv", "parquet"]), default="csv", show_default=True)
@click.pass_context
def focus_allocation(ctx: click.Context, out: str | None, fmt: str) -> None:
    """Write the split as FOCUS 1.3 allocation rows. / 按 FOCUS 1.3 分摊格式导出。"""
    with open_ws(ctx) as wsp:
        if not wsp.ledger.latest_attribution():
            raise NotFound("no attribution yet", remedy="run `trainledger attribute` first")
        keys = {b.id: b.key.as_dict() for b in wsp.config.batches}
        lines = wsp.ledger.cost_lines()
        rows = allocation_rows(wsp.lake.read("bill_lines").to_pylist(), lines, keys)
        capacity = _capacity_totals(lines)
        path = Path(out) if out else wsp.config.root / "reports" / f"focus-allocation.{fmt}"
    columns = list(dict.fromkeys(k for r in rows for k in r if k not in ALLOCATION_COLUMNS)) + list(ALLOCATION_COLUMNS)
    path.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "csv":
        with path.open("w", encoding="utf-8", newline="") as f:
            w = csv.DictWriter(f, fieldnames=columns, lineterminator="\n")
            w.writeheader()
            w.writerows({c: r.get(c) for c in columns} for r in rows)  # NULL: an empty cell
    else:
        import pyarrow.parquet as pq

        from trainledger.engine.focus_parquet import arrow_table

        pq.write_table(arrow_table(rows, columns), path)  # FOCUS's Decimal and DateTime columns typed
    click.echo(t("cli.export.wrote", ctx, n=len(rows), path=path))
    if capacity:  # an owned-only workspace must not read "0 rows" as "nothing to charge back" (review 6 K15)
        n = sum(k for k, _ in capacity.values())
        amounts = ", ".join(f"{format(a, ',f')} {cur} {label(Basis(basis), lang(ctx))}"
                            for (basis, cur), (_, a) in sorted(capacity.items()))
        click.echo(t("cli.export.capacity_left_out", ctx, n=n, amounts=amounts), err=True)


def _capacity_totals(lines) -> dict[tuple[str, str], tuple[int, Decimal]]:
    """(basis, currency) → (count, total) of the owned / reserved capacity lines: priced by a rate card
    or amortised hardware, of no bill (a FOCUS bill's amortized view is the bill's own)."""
    out: dict[tuple[str, str], tuple[int, Decimal]] = {}
    for ln in lines:
        if str(ln.basis) in CAPACITY_BASES and ln.provenance.source_kind != "focus":
            k, a = out.get((str(ln.basis), ln.currency), (0, Decimal(0)))
            out[(str(ln.basis), ln.currency)] = (k + 1, a + ln.amount.expected)
    return out


COMMANDS = (export,)
