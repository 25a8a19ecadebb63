"""Several writers at once: no 'database is locked', no lost write, no forked audit chain."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from trainledger.ledger import ImportRecord, Ledger
from trainledger.model import Run

WRITER = textwrap.dedent("""
    import hashlib, sys, time
    from trainledger.ledger import ImportRecord, Ledger
    from trainledger.model import Run
    url, me, n, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
    with Ledger(url, actor=me) as led:
        time.sleep(max(0.0, start - time.time()))
        for i in range(n):
            led.audit(me, "tick", f"{me}:{i}", {"i": i})
            led.upsert_runs([Run(f"{me}-{i}", "b1", "fault_retry")])
            sha = hashlib.sha256(f"{me}-{i}".encode()).hexdigest()
            led.record_import(ImportRecord("slurm", f"{me}-{i}.txt", sha, 1, 1, 0, 0))
""")


def test_threads_write_and_read_at_once(seeded, db_url):
    writers, per_writer, errors = 4, 12, []
    before = len(seeded.audit_log())

    def write(me: str) -> None:
        try:
            with Ledger(db_url, actor=me) as led:  # an engine of its own, like a process
                for i in range(per_writer):
                    led.audit(me, "tick", f"{me}:{i}", {"i": i})
                    led.upsert_runs([Run(f"{me}-{i}", "b1", "param_tuning")])
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    def read(stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                seeded.runs("b1")
                seeded.audit_log()
        except Exception as exc:  # pragma: no cover
            errors.append(exc)

    stop = threading.Event()
    reader = threading.Thread(target=read, args=(stop,))
    reader.start()
    threads = [threading.Thread(target=write, args=(f"w{k}",)) for k in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    reader.join()
    assert errors == []
    assert len(seeded.runs("b1")) == writers * per_writer
    assert len(seeded.audit_log()) == before + 2 * writers * per_writer
    assert seeded.verify_audit_chain() == []


def test_processes_write_at_once(seeded, db_url):
    procs, per_proc = 3, 10
    start = time.time() + 2.0  # all start together, after their imports
    running = [
        subprocess.Popen([sys.executable, "-c", WRITER, db_url, f"p{k}", str(per_proc),
                          str(start)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for k in range(procs)
    ]
    results = [p.communicate(timeout=120) for p in running]
    for p, (_, err) in zip(running, results, strict=True):
        assert p.returncode == 0, err
        assert "locked" not in err
    assert len(seeded.runs("b1")) == procs * per_proc
    assert len(seeded.imports()) == procs * per_proc
    assert seeded.verify_audit_chain() == []
    assert isinstance(seeded.imports()[0], ImportRecord)
