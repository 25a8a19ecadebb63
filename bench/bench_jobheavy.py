"""``attribute`` on a job-heavy workspace: many short Slurm jobs share each hourly node bill row
(``python -m bench.bench_jobheavy [JOBS ...]``, default 35,000 and 140,000 jobs).

The shape of review 4's H12 (1,000,000 jobs over 29 days on 100 nodes, 72,000 bill rows): ~34,500
jobs a day on 100 nodes of 8 GPUs, 1-8 GPUs and 60-900 s each, 5 batches by WCKey, one node-hour bill
row per node and hour of the days the jobs cover. The bill-heavy shape is bench/bench_engine.py.
Prints, per size, the import and ``attribute`` CPU seconds (each a fresh process: user + system of the
child) and its peak RSS, each stage's CPU seconds and its own peak RSS (``probe``: facts, engine,
summary, ledger write, sheet precompute), and the per-job figures, so growth with the job count is
visible (the same per-job cost at every size means linear). ``TRAINLEDGER_BENCH_GUARD_MB``: kill
``attribute`` when its RSS passes it (the run then says so). Reports, never fails. The workspace maps
a job's WCKey to its batch (``[[rules]]``, as H12's did; without it every run was unattributed and the
runs table empty).

Measured 2026-12-01 (shared 2-core machine at a load of ~16; CPU seconds are the comparable figure),
``attribute`` on day-prefixes of the H12 files (tools: a per-phase CPU/RSS probe and cProfile): 34k jobs
18.4 CPU-s / 698 MB, 68k 33.4 / 1,101 MB, 206k 112.5 / 2,558 MB — linear (exponent 1.01), ~0.55 ms and
~11 KB per job, no phase superlinear; at 206k: engine 20 CPU-s, summary 8, ledger write 26, sheet
precompute 56. After the H12 fix (summary dicts without deep copies, the lake's rows and the summary
freed before the ledger write): 68k jobs 934 MB peak (−15 %), summary 2.85 → 1.60 CPU-s.

Measured 2026-12-02 (load 11-16; this generator with the WCKey rule, one run each, in-process probe),
before → after the summary's run columns (engine/summary_runs.py), the runs' bulk write and a stage's
many lines held as columns:

  | jobs | CPU-s | peak RSS | summary | ledger write | sheet precompute |
  |---|---|---|---|---|---|
  | 68k | 29.9 → 31.0 | 962 → 786 MB | 1.2 → 1.3 s, +85 → +29 MB | 6.4 → 5.3 s, +223 → +106 MB | 15.4 → 16.0 s |
  | 206k | 105.6 → 93.4 | 2,094 → 1,595 MB | 6.8 → 4.7 s | 23.4 → 17.1 s, +669 → +342 MB | 53.6 → 49.2 s |

Per job at 206k: 0.51 → 0.45 ms, 10.4 → 7.9 KB. ``attribute --json`` and every sheet (JSON, Markdown,
the precomputed figures) are byte-identical before / after at 68k but for the ledger proof (206k:
``attribute --json`` and the JSON / Markdown sheets of two of the five batches, the rest not compared
in time on the loaded machine).
1M (``TRAINLEDGER_BENCH_GUARD_MB=7000 python -m bench.bench_jobheavy 1000000``, load ~16, the tree
before the last precompute change): the ledger write now completes — at ~211 CPU-s, RSS ≤ 4.1 GB
(before: killed at 6.96 GB at 212 CPU-s inside it); the precompute's verify stays at 4.4-4.7 GB; the
per-batch sheet figures then take it to 6.1-6.7 GB (two of five batches written at 350 CPU-s, 01:02
UTC; the run had not finished at the session's end). ≤ 4 GB is not met: what is held through the
precompute is the engine's result (RunInfo ~1.5 KB a run) plus one batch's lines as objects (~1.1 KB
a line) and its figures.

Measured 2026-12-02 (load 9-14; the H12 generator at 206k; in-process probe, one run each), before →
after the CLI frees the engine's result before the precompute (``Workspace.attribute(report=...)``),
``figures.verify`` streams each table's digest, the precompute reads only the summary's facts and hours
columns, shares a batch's repeated texts and equal Decimals and gzips the figures as a stream, and the
engine drops a stage's line objects once they are columns (made a chunk at a time):

  | 206k jobs | before | after |
  |---|---|---|
  | whole ``attribute`` peak RSS | 1,557 MB | 1,207 MB (now the ledger write's) |
  | engine stage peak | 1,172-1,192 MB | 1,060 MB |
  | RSS through the precompute | 1,067 → 1,557 MB | 868 → ~985 MB |
  | precompute CPU | 50.0 s (verify 11.8) | ~48 s (verify 9.5) |
  | ``attribute`` CPU (probe's process) | 101 s | 97.6 s |

``attribute --json``, the runs and summary digests and every batch's precomputed figures are
byte-identical before / after (the streamed gzip too: tests/test_precompute_slim.py).
1M (load 13-14, the tree before the engine's change): engine stage peak 4,250 MB, ledger write 4,558 MB;
the precompute then starts at 3,144 MB (the freed result's memory is reused, not returned), its
verify adds nothing (3,189 MB, 39.5 CPU-s) and each of the five batches peaks at 3,719-3,729 MB
(21-25 CPU-s each; before: 6.1-6.7 GB); all five written at 504 CPU-s (before: two at 350).
The engine's derived runs as Python objects (RunInfo,
segments, facts) and the ledger write are what keep the whole ``attribute`` above 4 GB at 1M.

Measured 2026-12-02 (load 16-20; per-stage probe, each size's before and after run side by side on
copies of one workspace, so both got the same attribution id), before → after runs share the values
a million of them repeat (batch, state, import hash, node list; Eligible = Submit: one object) and are
slotted (RunInfo 1,438 → 845 B a run held, tracemalloc at 68k), a job's row is freed once its run is
made, the queued stage's lines become columns a chunk at a time, and the summary's run columns go to
the ledger without a dump and parse (``audit.jsonable_each``):

  | jobs | whole peak | derive_runs | queued stage | ledger write | precompute | CPU-s |
  |---|---|---|---|---|---|---|
  | 68k | 619 → 532 MB | 388 → 367 | 524 → 529 | 619 → 532 | 583 → 532 | 47.5 → 47.2 |
  | 206k | 1,230 → 951 MB | 824 → 660 | 1,049 → 824 | 1,230 → 940 | 1,075 → 951 | 139.1 → 134.8 |

Per job (68k → 206k): 4.4 → 3.0 KB. ``attribute --json``, the lines / runs / summary / figures
digests and all five precomputed sheets are byte-identical before / after at both sizes.
1M (one run, the tree before the job rows were freed in derive_runs): derive_runs 77 CPU-s / 2,907 MB,
bill stage 2,505 MB, queued stage 2,775 MB (engine 142 CPU-s; before: 4,250 MB), summary 34 CPU-s /
2,817 MB, ledger write 124 CPU-s / 3,450 MB (before: 4,558 MB), sheet precompute 370 CPU-s / 3,860 MB
(it starts at 2,722 MB): the whole ``attribute`` 3,860 MB peak, 675 CPU-s at load ~16-20 — under 4 GB,
now the precompute's (the summary's facts and hours columns read back, one text object a value, and
one batch's lines as objects).

Measured 2026-12-02 (session 22, load 7-10 on 2 cores; in-process probe, one run each, before and after on
copies of one workspace): pyarrow's pool (mimalloc) kept the lake's and the engine's freed Arrow pages
(147 MB at 100k: an anonymous region /proc/self/smaps shows, ``total_allocated_bytes`` 0), which no
Python object can reuse; ``attribute`` now hands them back (engine/memory.py) after the lake's rows and
after the result are freed. The whole run's peak is the largest stage's (before: the last stage's, as
clear_refs reset the high-water mark; each stage now also says the RSS it starts at):

  | 1M jobs (peak MB / CPU-s) | main | after the release |
  |---|---|---|
  | engine | 2,750 / 125 | 2,748 / 96 |
  | summary | 2,769 / 24 | 2,246 / 17 |
  | ledger write | 3,467 / 89 | 3,168 / 73 |
  | sheet precompute | 3,874 / 273 (starts at 2,722) | 3,360 / 259 (starts at 1,619) |
  | whole ``attribute`` | 3,874 | 3,360 |

100k: summary 612 → 513 MB, ledger write 697 → 646, precompute 679 → 575 (starts 544 → 422). The
precompute's own CPU (standalone on one attributed 100k workspace): 22.9 → 19.1 s, from dumping long
maps and lists a slice per ``json.dumps`` call, rows fetched as tuples and the verify's fingerprints
inlined. ``attribute --json``, the five sheets' JSON, the stored lines / runs rows, the lines / runs /
summary digests and the precomputed files are byte-identical to main's at 100k. At 1M the precompute
still grows ~1.7 GB from its start (a batch's figure objects and the summary's run columns): the next cut.
1M with the precompute's CPU changes too (one run): engine 2,758 MB / 88 s, summary 2,247 / 16, ledger write
3,185 / 71, precompute 3,269 MB / 198 CPU-s (main 273): whole peak 3,269 MB; ``attribute --json`` the same
bytes as the run with the release alone.
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
""" for b in range(BATCHES)) + """
[[rules]]                # a job's WCKey is its batch (review 4 H12's workspace)
id = "slurm-wckey"
source = "slurm"
field = "wckey"
match = "template"
"""


STAGES = (("trainledger.engine:Facts.from_lake", "facts"), ("trainledger.engine:attribute", "engine"),
          ("trainledger.engine:Attribution.summary", "summary"),
          ("trainledger.ledger.repo:Ledger.replace_cost_lines", "ledger write"),
          ("trainledger.report.precompute:write", "sheet precompute"))


def probe(stages=STAGES) -> list:
    """Wrap each stage of ``attribute`` to record (label, CPU-s, peak RSS MB during it, RSS MB at its
    start); the peak is reset before each stage (``/proc/self/clear_refs``), so each is that stage's own
    high-water mark — and the process's ``ru_maxrss`` only the last stage's: the whole run's peak is the
    largest of the stages' (``_child``)."""
    import importlib

    records = []

    def status(key: str) -> int:
        with open("/proc/self/status") as f:
            return next(int(x.split()[1]) for x in f if x.startswith(key)) // 1024

    def wrap(owner, name, label):
        fn = getattr(owner, name)

        def timed(*a, **k):
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")
            except OSError:
                pass
            start = status("VmRSS")
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            try:
                return fn(*a, **k)
            finally:
                r1 = resource.getrusage(resource.RUSAGE_SELF)
                records.append((label, r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime, status("VmHWM"),
                                start))
        setattr(owner, name, timed)

    for where, label in stages:
        module, _, attr = where.partition(":")
        owner = importlib.import_module(module)
        *path, name = attr.split(".")
        for part in path:
            owner = getattr(owner, part)
        wrap(owner, name, label)
    return records


CHILD = """import resource, sys
from trainledger.cli import main
stages = None
if sys.argv[1] == "attribute":
    from bench.bench_jobheavy import probe
    stages = probe()
sys.argv = ['trainledger'] + sys.argv[1:]
try: main()
except SystemExit: pass
for label, cpu, peak, start in stages or ():
    print('STAGE', label, '|', cpu, '|', peak, '|', start, file=sys.stderr)
print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""


def _rss_mb(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((int(x.split()[1]) for x in f if x.startswith("VmRSS")), 0) // 1024
    except OSError:
        return 0


def _child(args: list[str], ws: Path, guard_mb: int = 0) -> tuple[float, float, list, str]:
    """(CPU seconds, peak RSS MB, per-stage records, stderr) of one CLI command in a fresh process;
    with ``guard_mb`` the child is killed when its RSS passes it (stderr then says so)."""
    import os
    import time

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    env = {**os.environ, "TRAINLEDGER_WORKSPACE": str(ws),
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parents[1]), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-c", CHILD, *args], stdout=subprocess.DEVNULL, stderr=err,
                                env=env, text=True)
        killed = 0
        while proc.poll() is None:
            time.sleep(0.5)
            if guard_mb and _rss_mb(proc.pid) > guard_mb:
                killed = _rss_mb(proc.pid)
                proc.kill()
        proc.wait()
        err.seek(0)
        text = err.read() + (f"\nKILLED by the memory guard at {killed} MB (> {guard_mb} MB)" if killed else "")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    stages = [(a.split(" ", 1)[1].strip(), float(b), int(c), int(d)) for a, b, c, d in
              (x.split("|") for x in text.splitlines() if x.startswith("STAGE "))]
    last = next((int(x.split()[1]) for x in text.splitlines() if x.startswith("PEAK")), 0) / 1024
    # clear_refs reset the high-water mark before each stage: the run's peak is the largest stage's
    peak = max([last, *(p for _l, _c, p, _s in stages)]) or killed
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, peak, stages, text


def main(sizes: list[int] | None = None) -> list[tuple[str, float, str]]:
    import os

    guard = int(os.environ.get("TRAINLEDGER_BENCH_GUARD_MB", "0"))  # kill ``attribute`` past this RSS
    results = []
    for jobs in sizes or [35_000, 140_000]:
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            sacct, bill = generate(root, jobs)
            ws = root / "ws"
            ws.mkdir()
            (ws / "trainledger.toml").write_text(CONFIG)
            imp = [_child(["import", "slurm", str(sacct)], ws), _child(["import", "focus", str(bill)], ws)]
            cpu, peak, stages, err = _child(["attribute"], ws, guard)
            if "KILLED" in err or "Traceback" in err:
                print(err[-2000:], file=sys.stderr)
            results += [(f"import slurm+focus {jobs:,} jobs CPU", imp[0][0] + imp[1][0], "s"),
                        (f"attribute {jobs:,} jobs CPU", cpu, "s"),
                        (f"attribute {jobs:,} jobs peak RSS", peak, "MB")]
            results += [(f"  {label} CPU / peak RSS", c, f"s  {p:,} MB (starts at {st:,} MB)")
                        for label, c, p, st in stages]
            results += [(f"attribute {jobs:,} jobs per job", 1000 * cpu / jobs, "ms"),
                        (f"attribute {jobs:,} jobs RSS per job", 1024 * peak / jobs, "KB")]
    return results


if __name__ == "__main__":
    for label, value, unit in main([int(a) for a in sys.argv[1:]] or None):
        print(f"  {label:<45} {value:10.2f} {unit}", flush=True)
