"""The ledger path at cluster scale: 64 GPU nodes billed hourly for 30 days (46,080 FOCUS rows)
and 3,000 Slurm jobs, imported and attributed once (median of 3 fresh workspaces).

The data is synthetic but in the real formats: sacct --parsable2 and FOCUS 1.0 CSV.
"""

from __future__ import annotations

import csv
import random
import statistics
import tempfile
import textwrap
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from trainledger.service import Workspace

NODES, DAYS, JOBS, REPEATS = 64, 30, 3000, 3
T0 = datetime(2026, 10, 1, tzinfo=UTC)
CONFIG = textwrap.dedent("""
    [workspace]
    currency = "CNY"
    [[projects]]
    id = "p"
    goal = "g"
    [[batches]]
    id = "b1"
    project = "p"
    goal = "g"
    data_snapshot = "d"
    data_processing_version = "v"
    model_version = "m"
    code_version = "c"
    config_version = "k"
    team = "t"
    [[rules]]
    id = "wckey"
    source = "slurm"
    field = "wckey"
    match = "template"
    """)
FOCUS_COLUMNS = ("BilledCost", "EffectiveCost", "ListCost", "BillingCurrency", "ChargePeriodStart", "ChargePeriodEnd",
                 "ChargeCategory", "ResourceId", "ServiceName", "ServiceCategory", "ProviderName", "Tags")


def write_data(root: Path) -> tuple[Path, Path]:
    rnd = random.Random(7)
    sacct, bill = root / "sacct.txt", root / "bill.csv"
    with open(sacct, "w", encoding="utf-8") as f:
        f.write("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|"
                "NodeList|Restarts\n")
        for i in range(JOBS):
            start = T0 + timedelta(minutes=rnd.randrange(DAYS * 24 * 60 - 600))
            end = start + timedelta(minutes=rnd.randrange(10, 600))
            node = f"gpu-{rnd.randrange(NODES):03d}"
            gpus = rnd.choice((1, 2, 4, 8))
            fmt = "%Y-%m-%dT%H:%M:%S"
            f.write(f"{100000 + i}|j|ml|{'b1' if i % 5 else ''}||u|{start:{fmt}}|{start:{fmt}}|{start:{fmt}}|"
                    f"{end:{fmt}}|COMPLETED|0:0|gres/gpu={gpus},node=1|{node}|0\n")
    with open(bill, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(FOCUS_COLUMNS)
        for h in range(DAYS * 24):
            p0 = T0 + timedelta(hours=h)
            for n in range(NODES):
                w.writerow(("288.00", "288.00", "360.00", "CNY", p0.strftime("%Y-%m-%dT%H:%M:%SZ"),
                            (p0 + timedelta(hours=1)).strftime("%Y-%m-%dT%H:%M:%SZ"), "Usage", f"gpu-{n:03d}",
                            "Elastic Compute Service", "Compute", "Alibaba Cloud", "{}"))
    return sacct, bill


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sacct, bill = write_data(tmp)
        times: dict[str, list[float]] = {"slurm": [], "focus": [], "attribute": [], "verify": []}
        lines = 0
        for i in range(REPEATS):
            root = tmp / f"ws{i}"
            root.mkdir()
            (root / "trainledger.toml").write_text(CONFIG, encoding="utf-8")
            with Workspace.init(root) as wsp:
                for kind, path in (("slurm", sacct), ("focus", bill)):
                    t0 = time.perf_counter()
                    wsp.import_files(kind, [path], options={"tz": "UTC"})
                    times[kind].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                lines = len(wsp.attribute().lines)
                times["attribute"].append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                wsp.verify()  # what every `sheet` does first: the audit chain and the figure digests
                times["verify"].append(time.perf_counter() - t0)
        bill_rows = NODES * DAYS * 24
        return [
            (f"import slurm ({JOBS} jobs)", statistics.median(times["slurm"]) * 1000, "ms"),
            (f"import focus ({bill_rows} rows)", statistics.median(times["focus"]) * 1000, "ms"),
            (f"attribute + ledger write ({lines} cost lines)", statistics.median(times["attribute"]) * 1000, "ms"),
            (f"verify chain + figures ({lines} cost lines)", statistics.median(times["verify"]) * 1000, "ms"),
        ]
