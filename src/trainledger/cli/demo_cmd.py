"""demo: generate a realistic seeded workspace and run the whole chain through the real importers."""

from __future__ import annotations

from dataclasses import fields
from decimal import Decimal
from pathlib import Path

import click

from trainledger import fmt
from trainledger.cli.output import lang, note, pad, t, width
from trainledger.demo import DEFAULT_SEED, SCENARIOS, DemoFiles
from trainledger.demo import plans as plan_loop
from trainledger.errors import BadInput
from trainledger.ingest import KINDS
from trainledger.report.render import in_seed_order, render
from trainledger.report.sheet import attributed_by_batch
from trainledger.report.xlsx import write_xlsx
from trainledger.service import Workspace

# every source kind the demo generates, through the same importers a user calls
IMPORT_ORDER = tuple(k for k in KINDS if k in {f.name for f in fields(DemoFiles)})


def run_demo(directory: Path, seed: int, echo=click.echo, *, db_url: str = "",
             scenario: str = "rented") -> dict[str, Path]:
    from trainledger.demo import generate

    _check_reusable(directory, seed, db_url, scenario)
    files = generate(directory, seed=seed, scenario=scenario)
    if db_url:
        _set_db_url(files.config, db_url)
    reports: dict[str, Path] = {}
    with Workspace.init(directory) as wsp:
        for kind in (k for k in IMPORT_ORDER if hasattr(files, k)):
            for r in wsp.import_files(kind, [getattr(files, kind)]):
                echo(t("cli.demo.import", kind=f"{kind:<9}", accepted=f"{r.accepted:>5}",
                       duplicates=f"{r.duplicates:>5}", quarantined=f"{r.quarantined:>3}"))
        plan_loop.before_attribution(wsp, directory, echo)
        result = wsp.attribute()
        plan_loop.after_attribution(wsp, echo)
        lang = wsp.config.get("workspace.language")
        out_dir = directory / "reports"
        out_dir.mkdir(exist_ok=True)
        for b in wsp.config.batches:
            data = wsp.sheet(b.id)
            for kind in ("md", "json", "html"):
                path = out_dir / f"{b.id}.{kind}"
                path.write_text(render(data, kind, lang), encoding="utf-8")
            write_xlsx(data, wsp.ledger.cost_lines(b.id), out_dir / f"{b.id}.xlsx",  # labels in both languages,
                       lang=None, others=attributed_by_batch(wsp, data.get("attribution_id")))  # as sheet / download
            reports[b.id] = out_dir / f"{b.id}.md"
            _summary(data, echo)
        _cross_report(wsp, out_dir, lang)
        reports["report"] = out_dir / "report.md"
        for rec in result.conservation:
            a = {k: fmt.amount(rec[k], rec["currency"], exact=True)
                 for k in ("billed_total", "attributed", "unattributed", "difference")}
            echo(t("cli.demo.conservation", currency=rec["currency"], billed=a["billed_total"],
                   attributed=a["attributed"], unattributed=a["unattributed"], difference=a["difference"]))
        for rec in result.conservation_capacity:
            a = {k: fmt.amount(rec[k], rec["currency"], exact=True)
                 for k in ("total", "attributed", "unheld", "job_without_batch", "difference")}
            jwb = (t("cli.demo.capacity_jwb", amount=a["job_without_batch"])
                   if Decimal(rec.get("job_without_batch", "0")) else "")
            echo(t("cli.demo.capacity", capacity=rec["capacity"], basis=_label(rec["basis"]),
                   price=rec["price_per_gpu_hour"], currency=rec["currency"], total=a["total"],
                   attributed=a["attributed"], unheld=a["unheld"], jwb=jwb, difference=a["difference"]))
    return reports


def _cross_report(wsp, out_dir: Path, lang: str) -> None:
    """reports/report.{md,html,json,xlsx}: the cross-batch report over every batch and date."""
    from trainledger.report import cross, cross_render
    from trainledger.report.cross_xlsx import write_xlsx as write_report

    rep = cross.build(wsp, cross.Scope())
    for kind in ("md", "json", "html"):
        (out_dir / f"report.{kind}").write_text(cross_render.render(rep, kind, lang), encoding="utf-8")
    write_report(rep, out_dir / "report.xlsx")


def _check_reusable(directory: Path, seed: int, db_url: str, scenario: str = "rented") -> None:
    """Run into an empty directory, or into the same demo again (idempotent). Anything else would
    mix two data sets in one lake, so it is refused."""
    if not directory.exists() or not any(directory.iterdir()):
        return
    import tempfile

    from trainledger.demo import generate

    with tempfile.TemporaryDirectory() as tmp:
        fresh = generate(Path(tmp), seed=seed, scenario=scenario)
        if db_url:
            _set_db_url(fresh.config, db_url)
        same = all((directory / Path(p).relative_to(tmp)).is_file()
                   and (directory / Path(p).relative_to(tmp)).read_bytes() == Path(p).read_bytes()
                   for p in vars(fresh).values())
    if not same:
        raise BadInput(f"{directory} is not empty and does not hold this demo (seed {seed})",
                       remedy="choose a new directory with --dir, or remove this one")


def _set_db_url(config: Path, db_url: str) -> None:
    import tomllib

    import tomli_w

    data = tomllib.loads(config.read_text(encoding="utf-8"))
    data.setdefault("workspace", {})["db_url"] = db_url
    config.write_text(tomli_w.dumps(data), encoding="utf-8")


def _label(value: str) -> str:
    """A basis or evidence code as printed: itself in English (as the sheets' tables), its label in Chinese."""
    from trainledger.model.vocab import label

    language = lang()
    return value if language == "en" else label(value, language)


def _summary(sheet: dict, echo) -> None:
    """The batch's totals by basis as the local user (admin) reads them: its figures unmasked."""
    from trainledger.model import Basis, Evidence
    from trainledger.report.access import for_role

    sheet = for_role(sheet, "admin")[0]
    echo("\n" + t("cli.demo.batch", batch=sheet["batch"]["id"], runs=len(sheet["runs"])))

    basis_col = max(16, *(width(_label(b)) + 1 for b in Basis))  # every batch's lines alike, in either language
    evidence_col = max(9, *(width(_label(e)) for e in Evidence))
    for tot in in_seed_order(sheet)["totals_by_basis"]:
        cash, cur = tot["cash"], tot["currency"]
        rng = fmt.amount(tot["expected"], cur, exact=cash)
        if tot["low"] != tot["high"]:
            rng += f" ({fmt.amount(tot['low'], cur, exact=cash)}–{fmt.amount(tot['high'], cur, exact=cash)})"
        echo(f"    {pad(_label(tot['basis']), basis_col)} {pad(_label(tot['evidence']), evidence_col)} {rng:>34}"
             f" {tot['currency']}")


@click.command("demo")
@click.option("--dir", "directory", default="trainledger-demo", show_default=True,
              type=click.Path(file_okay=False), help="Where to write the demo workspace.")
@click.option("--seed", default=DEFAULT_SEED, show_default=True, help="Seed of the generated data.")
@click.option("--db", "db_url", default="", help="Ledger URL (default: SQLite inside the demo directory).")
@click.option("--scenario", type=click.Choice(SCENARIOS), default="rented", show_default=True,
              help="rented: a rented cluster on the cloud bill; owned: owned and reserved capacity, no GPU bill.")
def demo(directory: str, seed: int, db_url: str, scenario: str) -> None:
    """Build a demo workspace end to end and print a summary. / 生成演示工作区并输出成本底稿。"""
    root = Path(directory)
    note(t("cli.demo.title", root=root, scenario=t("cli.demo.scenario", scenario=scenario)
           if scenario != "rented" else ""))
    reports = run_demo(root, seed, db_url=db_url, echo=note, scenario=scenario)
    note("\n" + t("cli.demo.reports"))
    for path in reports.values():
        click.echo(t("cli.demo.report", path=path))


COMMANDS = (demo,)
