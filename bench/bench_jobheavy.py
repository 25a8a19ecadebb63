"""``attribute`` on a job-heavy workspace: many short Slurm jobs share each hourly node bill row
(``python -m bench.bench_jobheavy [JOBS ...]``, default 35,000 and 140,000 jobs).

The shape of review 4's H12 (1,000,000 jobs over 29 days on 100 nodes, 72,000 bill rows): ~34,500
jobs a day on 100 nodes of 8 GPUs, 1-8 GPUs and 60-900 s each, 5 batches by WCKey, one node-hour bill
row per node and hour of the days the jobs cover. The bill-heavy shape is bench/bench_engine.py.
Prints, per size, the import and ``attribute`` CPU seconds (each a fresh process: user + system of the
child) and its peak RSS, and the per-job figures, so growth with the job count is visible (the same
per-job cost at every size means linear). Reports, never fails.

Measured 2026-12-01 (shared 2-core machine at a load of ~16; CPU seconds are the comparable figure),
``attribute`` on day-prefixes of the H12 files (tools: a per-phase CPU/RSS probe and cProfile): 34k jobs
18.4 CPU-s / 698 MB, 68k 33.4 / 1,101 MB, 206k 112.5 / 2,558 MB — linear (exponent 1.01), ~0.55 ms and
~11 KB per job, no phase superlinear; at 206k: engine 20 CPU-s, summary 8, ledger write 26, sheet
precompute 56. After the H12 fix (summary dicts without deep copies, the lake's rows and the summary
freed before the ledger write): 68k jobs 934 MB peak (−15 %), summary 2.85 → 1.60 CPU-s.
"""

from __future__ import annotations

import random
import resource
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

NODES, PER_DAY, BATCHES = 100, 34_500, 5
HEAD = "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts\n"
STATES = ("COMPLETED",) * 8 + ("FAILED", "CANCELLED")
T0 = datetime(2026, 11, 1)  # local (Asia/Shanghai) midnight = 2026-10-31T16:00Z


def generate(root: Path, jobs: int, seed: int = 7) -> tuple[Path, Path]:
    rng = random.Random(seed)
    days = max(1, -(-jobs // PER_DAY))
    sacct, bill = root / "sacct.txt", root / "bill.csv"
    with sacct.open("w") as f:
        f.write(HEAD)
        for i in range(jobs):
            start = T0 + timedelta(seconds=rng.randrange(days * 86400 - 900))
            end = start + timedelta(seconds=rng.randint(60, 900))
            g, b, node = rng.randint(1, 8), i % BATCHES, rng.randrange(NODES)
            sub = start - timedelta(seconds=rng.randint(0, 120))
            f.write(f"{100000 + i}|j{i}|acct|big-{b}|run=r{i};reason=planned_experiment|u{b}|{sub:%Y-%m-%dT%H:%M:%S}|"
                    f"{sub:%Y-%m-%dT%H:%M:%S}|{start:%Y-%m-%dT%H:%M:%S}|{end:%Y-%m-%dT%H:%M:%S}|{rng.choice(STATES)}|"
                    f"0:0|billing={8 * g},cpu={8 * g},gres/gpu:h800={g},mem=100G,node=1|gn-{node:03d}|0\n")
    with bill.open("w") as f:
        f.write("BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ChargeDescription,"
                "ResourceId,ServiceCategory,ServiceName,ProviderName,Tags\n")
        t = datetime(2026, 10, 31, 16, tzinfo=UTC)
        for h in range(days * 24):
            a, z = t + timedelta(hours=h), t + timedelta(hours=h + 1)
            for n in range(NODES):
                f.write(f"288.01,CNY,{a:%Y-%m-%dT%H:%M:%SZ},{z:%Y-%m-%dT%H:%M:%SZ},Usage,node-hour,gn-{n:03d},"
                        "Compute,ECS,X,{}\n")
    return sacct, bill


CONFIG = """[workspace]
name = "jobheavy"
currency = "CNY"
language = "en"
db_url = ""
price_book = ""

[sources.slurm]
timezone = "Asia/Shanghai"

[cluster]
gpus_per_node = 8
gpu_item = ""

[[projects]]
id = "p"
name = "P"
goal = "g"
owner = "o"
""" + "".join(f"""
[[batches]]
id = "big-{b}"
project = "p"
name = "B{b}"
goal = "g"
data_snapshot = "d"
data_processing_version = "v"
model_version = "m"
code_version = "c"
config_version = "k"
team = "t"
owner = "o"
task_type = "full_finetune"
""" for b in range(BATCHES))


def _child(args: list[str], ws: Path) -> tuple[float, float]:
    """CPU seconds and peak RSS (MB) of one CLI command in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = ("import resource, sys; from trainledger.cli import main; sys.argv = ['trainledger'] + sys.argv[1:]\n"
            "try: main()\nexcept SystemExit: pass\n"
            "print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         env={**__import__("os").environ, "TRAINLEDGER_WORKSPACE": str(ws)}, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak = next((int(x.split()[1]) for x in out.stderr.splitlines() if x.startswith("PEAK")), 0)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, peak / 1024


def main(sizes: list[int] | None = None) -> list[tuple[str, float, str]]:
    results = []
    for jobs in sizes or [35_000, 140_000]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            sacct, bill = generate(root, jobs)
            ws = root / "ws"
            ws.mkdir()
            (ws / "trainledger.toml").write_text(CONFIG)
            imp = [_child(["import", "slurm", str(sacct)], ws), _child(["import", "focus", str(bill)], ws)]
            cpu, peak = _child(["attribute"], ws)
            results += [(f"import slurm+focus {jobs:,} jobs CPU", imp[0][0] + imp[1][0], "s"),
                        (f"attribute {jobs:,} jobs CPU", cpu, "s"),
                        (f"attribute {jobs:,} jobs peak RSS", peak, "MB"),
                        (f"attribute {jobs:,} jobs per job", 1000 * cpu / jobs, "ms"),
                        (f"attribute {jobs:,} jobs RSS per job", 1024 * peak / jobs, "KB")]
    return results


if __name__ == "__main__":
    for label, value, unit in main([int(a) for a in sys.argv[1:]] or None):
        print(f"  {label:<45} {value:10.2f} {unit}")
