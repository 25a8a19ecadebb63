"""The Python engine's bill stage, bucketed as the frame path buckets it: the conformance oracle.

``context(facts, config, price, as_of[, as_of_time])`` is the context ``engine.attribute`` builds,
with the derived runs (no wall clock: the cut is ``as_of`` / ``as_of_time`` and the data's own);
``python_bill_buckets(facts, ctx)`` runs ``bill_stage`` and ``bucket_lines`` sums the billed-view
lines per ("batch", batch, detail, currency) and per ("unattributed", reason code, currency) — the
bench compares the frame, SQL and pandas methods by these buckets.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from decimal import Decimal

from trainledger.engine import node_map
from trainledger.engine.asof import latest_fact_time
from trainledger.engine.compute import bill_stage
from trainledger.engine.conservation import reason_of
from trainledger.engine.context import Context, Facts
from trainledger.engine.rules import matcher
from trainledger.engine.runs import derive_runs
from trainledger.model import Basis


def context(facts: Facts, config, price, as_of: date, as_of_time: datetime | None = None) -> Context:
    """The context ``engine.attribute`` builds, with the derived runs: cut at ``as_of_time`` or the
    end of ``as_of``, open jobs ending where the data says (``engine.asof``) — never the clock, so
    the same facts give the same oracle on any day."""
    cutoff = as_of_time or datetime.combine(as_of + timedelta(days=1), time(0), UTC)
    config, _ = node_map.with_imported(config, facts.capacity, facts.imports)  # as engine.attribute does
    ctx = Context(config=config, matcher=matcher(config.rules, (b.id for b in config.batches)),
                  price=price, as_of=as_of, cutoff=cutoff, as_of_time=as_of_time,
                  facts_time=latest_fact_time(facts))
    runs, _ = derive_runs(facts, ctx)
    return replace(ctx, runs=runs)


def bucket_lines(lines) -> dict[tuple, Decimal]:
    out: dict[tuple, Decimal] = {}
    for ln in lines:
        if ln.basis is Basis.EFFECTIVE_COST:
            continue  # the frame path covers the billed view only
        cur = ln.amount.currency
        key = ("batch", ln.batch_id, str(ln.detail), cur) if ln.batch_id else ("unattributed", reason_of(ln)[0], cur)
        out[key] = out.get(key, Decimal(0)) + ln.amount.expected
    return {k: v for k, v in out.items() if v != 0}  # a zero sum is no bucket


def python_bill_buckets(facts: Facts, ctx: Context) -> dict[tuple, Decimal]:
    return bucket_lines(bill_stage(facts, ctx).lines)
