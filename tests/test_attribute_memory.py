"""``attribute`` hands freed memory back between its stages (engine/memory.py, issue 7): the Arrow
pool's free pages after the lake's rows are dropped (before the ledger write) and again after the
result is reported and dropped (before the sheets' precompute); the figures are those of a run without it."""

from __future__ import annotations

import pyarrow as pa

from trainledger.engine import memory


def test_release_asks_the_arrow_pool_and_the_heap(monkeypatch):
    calls = []

    class Pool:
        def release_unused(self):
            calls.append("arrow")

    monkeypatch.setattr(pa, "default_memory_pool", lambda: Pool())
    monkeypatch.setattr(memory, "_trim", lambda: calls.append("heap"))
    memory.release()
    assert calls == ["arrow", "heap"]


def test_release_on_this_machine_runs():
    memory.release()  # the real pool and malloc_trim (or nothing where there is none): no error


def test_attribute_releases_before_the_ledger_write_and_before_the_precompute(demo_copy, monkeypatch):
    from trainledger.ledger.repo import Ledger
    from trainledger.report import precompute
    from trainledger.service import Workspace

    order: list[str] = []
    write, replace = precompute.write, Ledger.replace_cost_lines
    monkeypatch.setattr(memory, "release", lambda: order.append("release"))
    monkeypatch.setattr(precompute, "write", lambda wsp: order.append("precompute") or write(wsp))
    monkeypatch.setattr(Ledger, "replace_cost_lines",
                        lambda self, *a, **k: order.append("ledger write") or replace(self, *a, **k))
    wsp = Workspace.open(demo_copy)
    reported = []
    assert wsp.attribute(report=lambda result: reported.append(len(result.lines)) or order.append("report")) is None
    assert reported and reported[0] > 0
    assert order == ["release", "ledger write", "report", "release", "precompute"]
