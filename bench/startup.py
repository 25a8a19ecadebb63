"""Start-up cost of the CLI: CPU seconds of a whole ``trainledger`` process, as a user pays it.

``trainledger --help`` must import no command module and ``trainledger batch list`` only the ledger
(issue 12: both under 0.3 CPU-s). Each figure is the median over fresh processes of user + system
CPU time (``os.wait4``), which a busy machine inflates far less than wall time; wall time is shown
beside it. The target is reported, never failed on: a loaded machine is not a regression.
Find what a command imports with ``python -X importtime -m trainledger.cli batch list``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPEATS = 7
TARGET_MS = 300.0
COMMANDS = (("--help",), ("batch", "list"), ("sheet", "--help"))


def cpu_ms(args: tuple[str, ...], cwd: Path) -> tuple[float, float]:
    """(CPU ms, wall ms) of one ``python -m trainledger.cli ARGS`` process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "trainledger.cli", *args], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = (time.perf_counter() - t0) * 1000
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"trainledger {' '.join(args)} exited {proc.returncode}")
    return (usage.ru_utime + usage.ru_stime) * 1000, wall


def main():
    from trainledger.cli.demo_cmd import run_demo

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "demo"
        run_demo(root, seed=_seed(), echo=lambda *_: None)
        for args in COMMANDS:
            runs = [cpu_ms(args, root) for _ in range(REPEATS)]
            cpu = statistics.median(r[0] for r in runs)
            wall = statistics.median(r[1] for r in runs)
            label = f"trainledger {' '.join(args)}"
            yield f"{label} CPU", cpu, "ms"
            yield f"{label} wall", wall, "ms"


def _seed() -> int:
    from trainledger.demo import DEFAULT_SEED

    return DEFAULT_SEED


if __name__ == "__main__":
    for label, value, unit in main():
        print(f"{label:<40} {value:8.1f} {unit}")
