"""The ledger path on the demo data set: import of each source kind, attribution, cost sheet.

Each figure is the median of a few repetitions in fresh workspaces (imports must start from an
empty lake, or they would only measure the duplicate fast path). Rows per second are quoted
beside import times so runs on different data sizes stay comparable.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from trainledger.cli.demo_cmd import IMPORT_ORDER
from trainledger.demo import generate
from trainledger.engine import Facts, attribute
from trainledger.service import Workspace
from trainledger.workspace import today

REPEATS = 5


def _timed(fn) -> tuple[float, object]:
    t0 = time.perf_counter()
    out = fn()
    return (time.perf_counter() - t0) * 1000, out


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        files = generate(tmp / "src")
        imports: dict[str, list[float]] = {k: [] for k in IMPORT_ORDER}
        rows: dict[str, int] = {}
        engine_ms, persist_ms, sheet_ms, lines = [], [], [], 0
        for i in range(REPEATS):
            root = tmp / f"ws{i}"
            root.mkdir()
            (root / "trainledger.toml").write_bytes(files.config.read_bytes())
            (root / files.price_book.name).write_bytes(files.price_book.read_bytes())
            with Workspace.init(root) as wsp:
                for kind in IMPORT_ORDER:
                    ms, results = _timed(lambda k=kind: wsp.import_files(k, [getattr(files, k)]))
                    imports[kind].append(ms)
                    rows[kind] = sum(r.rows_read for r in results)
                facts = Facts.from_lake(wsp.lake)
                lookup = wsp.price_lookup()
                ms, result = _timed(lambda w=wsp, f=facts, p=lookup: attribute(f, w.config, p, today()))
                engine_ms.append(ms)
                lines = len(result.lines)
                ms, _ = _timed(wsp.attribute)
                persist_ms.append(ms)
                batch = wsp.config.batches[-1].id
                ms, _ = _timed(lambda w=wsp, b=batch: w.sheet(b))
                sheet_ms.append(ms)
        out = []
        for kind in IMPORT_ORDER:
            med = statistics.median(imports[kind])
            out.append((f"import {kind} ({rows[kind]} rows, {rows[kind] / med * 1000:,.0f} rows/s)", med, "ms"))
        out.append((f"engine.attribute ({lines} cost lines)", statistics.median(engine_ms), "ms"))
        out.append(("attribute + ledger write (whole command)", statistics.median(persist_ms), "ms"))
        out.append(("cost sheet build (largest batch)", statistics.median(sheet_ms), "ms"))
        return out

