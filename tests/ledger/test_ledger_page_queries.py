"""The dashboard's narrow ledger queries (web/views.py) agree with ``cost_lines()`` on both backends:
``batch_amounts`` the batches list's sums, ``run_lines`` a run's lines and their line-id ordinals."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal

from trainledger.model import AmountRange, CostLine, Provenance

SHA_A, SHA_B = "a" * 64, "b" * 64


def _line(sha: str, row: int, batch: str | None, run: str | None, amount: str, detail: str,
          category: str = "compute", basis: str = "billed") -> CostLine:
    a = Decimal(amount)
    return CostLine(category=category, basis=basis, evidence="contract",
                    amount=AmountRange(a, a, a + 1, "CNY"), provenance=Provenance(sha, row, "rule:wckey", "focus"),
                    batch_id=batch, run_id=run, detail=detail, quantity=Decimal("1.5"), unit="gpu_hour",
                    reason="" if batch else "no batch")


def test_batch_amounts_and_run_lines_agree_with_cost_lines(seeded):
    lines = [_line(SHA_A, 1, "b1", "r1", "1.10", "effective"), _line(SHA_A, 1, "b2", "r9", "2.205", "setup"),
             _line(SHA_A, 1, "b1", "r1", "0.001", "setup"), _line(SHA_B, 1, None, None, "7", "capacity_unheld"),
             _line(SHA_B, 1, "b1", "r2", "3.30", "effective"), _line(SHA_A, 2, "b1", "r1", "4", "effective"),
             _line(SHA_B, 1, "b1", None, "2.5", "idle/billed", category="allocation", basis="allocated")]
    seeded.replace_cost_lines(lines, summary={})
    stored = seeded.cost_lines()
    assert seeded.batch_amounts() == [(ln.batch_id, str(ln.basis), ln.currency, ln.amount.low, ln.amount.expected,
                                       ln.amount.high) for ln in stored if ln.batch_id and ln.category != "allocation"]
    assert seeded.allocation_lines() == [ln for ln in stored if ln.category == "allocation"]  # the views apart
    assert str(seeded.batch_amounts()[0][3]) == "1.10"  # exact text, exponent kept
    seen: Counter[tuple[str, int]] = Counter()
    ordinals = []
    for ln in stored:
        key = (ln.provenance.source_sha256, ln.provenance.row)
        ordinals.append((ln, seen[key]))
        seen[key] += 1
    want = [(ln, n) for ln, n in ordinals if (ln.batch_id, ln.run_id) == ("b1", "r1")]
    assert seeded.run_lines("b1", "r1") == want
    assert [n for _, n in want] == [0, 2, 0]  # the b2 line of the same row comes between
    assert seeded.run_lines("b1", "r2") == [(stored[4], 1)]
    assert seeded.run_lines("b1", "nope") == []
