"""Demo data: one realistic, seeded training story written in the formats users really have.

``generate(out_dir, seed)`` writes the workspace config, a price book and six source files; it
never touches a ledger or lake (the caller imports the files through the real importers). Same
seed → byte-identical files.

    scenario.py   the story as data: project, two batches, nodes, period, every run's plan
    timeline.py   plays the plans: job times and progress events, consistent by construction
    slurm.py      sacct --parsable2 (job + step rows)            → data/sacct.txt
    bill.py       FOCUS 1.0 CSV in CNY, hourly per GPU node       → data/bill-focus.csv
    storage_bill.py  the bill's OSS storage rows (per bucket and class, PUT requests)
    progress.py   training progress JSONL                         → data/progress.jsonl
    storage.py    OSS inventory CSV (checkpoints from the runs)   → data/storage-inventory.csv
    labor.py      timesheet, vendor invoices    → data/timesheet.csv, data/vendor-invoices.csv
    config.py     trainledger.toml and prices.toml
    owned.py      the ``owned`` scenario: owned (amortised) and reserved (rate card) capacity
    plans.py      the plan / alert / decision / review loop the demo runs (plans/spec-a.toml)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from trainledger.demo import bill, config, labor, progress, slurm, storage
from trainledger.demo.owned import SCENARIOS
from trainledger.demo.timeline import play

DEFAULT_SEED = 20261129

__all__ = ["DEFAULT_SEED", "SCENARIOS", "DemoFiles", "generate"]


@dataclass(frozen=True)
class DemoFiles:
    config: Path
    price_book: Path
    slurm: Path
    focus: Path
    progress: Path
    storage: Path
    timesheet: Path
    invoice: Path


def generate(out_dir: Path, seed: int = DEFAULT_SEED, scenario: str = "rented") -> DemoFiles:
    """Write the demo workspace config and source files under ``out_dir``; return their paths.
    ``scenario``: ``rented`` (a rented cluster, hourly on the bill) or ``owned`` (owned and
    reserved capacity, no GPU rows on the bill: owned.py)."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown demo scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    out_dir = Path(out_dir)
    data = out_dir / "data"
    files = DemoFiles(
        config=out_dir / "trainledger.toml",
        price_book=out_dir / config.PRICE_BOOK,
        slurm=data / "sacct.txt",
        focus=data / "bill-focus.csv",
        progress=data / "progress.jsonl",
        storage=data / "storage-inventory.csv",
        timesheet=data / "timesheet.csv",
        invoice=data / "vendor-invoices.csv",
    )
    jobs = play(seed)
    texts = {
        files.config: config.render_workspace(scenario),
        files.price_book: config.render_price_book(),
        files.slurm: slurm.render(jobs),
        files.focus: bill.render(seed, scenario, jobs),
        files.progress: progress.render(jobs),
        files.storage: storage.render(jobs, seed),
        files.timesheet: labor.render_timesheet(),
        files.invoice: labor.render_invoices(),
    }
    data.mkdir(parents=True, exist_ok=True)
    for path, text in texts.items():
        with path.open("w", encoding="utf-8", newline="") as fh:
            fh.write(text)
    return files
