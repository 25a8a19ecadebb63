"""Small plans and cost lines written out by hand, for the review tests."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from trainledger.model import AmountRange, Basis, CostLine, Evidence, Provenance, Run
from trainledger.review.plan import DEFAULT_BOUNDS, Plan, PlanLine, Rng

SHA = "a" * 64
T0 = datetime(2026, 11, 2, tzinfo=UTC)
T1 = datetime(2026, 11, 3, tzinfo=UTC)


def R(lo, ex=None, hi=None) -> Rng:
    ex = lo if ex is None else ex
    hi = ex if hi is None else hi
    return Rng(Decimal(str(lo)), Decimal(str(ex)), Decimal(str(hi)))


def compute_line(price=None, eff=None, rework=None, fixed=None) -> PlanLine:
    price = price if price is not None else R(30, 36, 45)
    return PlanLine(id="compute", category="compute", basis=Basis.BILLED, currency="CNY", unit="gpu_hour",
                    price=price, price_meta={"item": "gpu_hour:h800", "effective": "2026-11-01",
                                             "source": "test", "evidence": "assumed"},
                    efficiency=eff if eff is not None else {"effective": R("2.0"), "overhead": R("0.5")},
                    rework=rework if rework is not None else {"fault_retry": R(10)}, fixed=fixed or {})


def plan_of(*lines: PlanLine, work=None, max_rounds=16, rules=(), gates=()) -> Plan:
    work = work if work is not None else R(100)
    return Plan(batch="b1", version=1, reason="test", author="t", source={"kind": "test"}, work=work,
                work_evidence={"evidence": "assumed"}, lines=tuple(lines), max_rounds=max_rounds,
                bounds=dict(DEFAULT_BOUNDS), gates=tuple(gates), rules=tuple(rules), assumptions=())


def cost(amount, qty, *, state="effective", run="r1", basis=Basis.BILLED, category="compute", row=1,
         low=None, high=None) -> CostLine:
    a = Decimal(str(amount))
    rng = AmountRange(Decimal(str(low)) if low is not None else a, a,
                      Decimal(str(high)) if high is not None else a, "CNY")
    return CostLine(category=category, basis=basis, evidence=Evidence.CONTRACT, amount=rng,
                    provenance=Provenance(SHA, row, "test", "focus"), batch_id="b1", run_id=run,
                    detail=state, quantity=Decimal(str(qty)), unit="gpu_hour")


def run(rid, reason="planned_experiment", cause=None, state="COMPLETED", job=None) -> Run:
    return Run(id=rid, batch_id="b1", reason=reason, cause=cause, source_job=job or rid, state=state,
               started_at=T0, ended_at=T1, gpus=8)


def steps(rid, *pairs) -> list[dict]:
    """Progress events: (step, tokens) pairs, and ("resume", step) / ("ckpt", step)."""
    out = []
    for i, (a, b) in enumerate(pairs):
        ts = datetime(2026, 11, 2, 1, i, tzinfo=UTC)
        if a == "resume":
            out.append({"run": rid, "event": "resume", "step": b, "ts": ts})
        elif a == "ckpt":
            out.append({"run": rid, "event": "checkpoint_saved", "step": b, "ts": ts})
        else:
            out.append({"run": rid, "event": "step", "step": a, "tokens": b, "ts": ts})
    return out
