"""Per-VC pools conserve money and GPU-hours whatever the jobs — summed from the lines themselves.

Random daily GPUs of two VCs (vcA, vcB: always more than their jobs can hold at once, so no pool
is oversubscribed), random jobs of vcA, vcB and vcC (which has no pool) with or without a batch.
For every example, per pool: its lines' money sums to its total, which is Σ day GPUs × 24 h × its
rate; its record's money and GPU-hour differences are zero; each job's GPU-hours on its VC's
pool are its GPUs × the time it held them inside the period, exactly; a vcC job has no line and
is counted in ``vc_not_pooled``.
"""

import textwrap
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.engine.capacity import parse
from trainledger.engine.capacity_source import capacity_of
from trainledger.service import engine_settings

from .factories import CONFIG, T0, job, price_lookup

SHA = "9" * 64
END = T0 + timedelta(days=2)
RATES = {"vcA": Decimal("10.00"), "vcB": Decimal("3.33")}
POOLS = "".join(f"""
[[capacity]]
id = "pool-{vc}"
cluster = "X"
vc = "{vc}"
from = 2026-11-02T00:00:00Z
until = 2026-11-04T00:00:00Z
currency = "CNY"
rate = "{rate}"
unit = "gpu_hour"
effective = 2026-11-01
source = "rate card"
owner = "platform"
""" for vc, rate in RATES.items())


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    root = tmp_path_factory.mktemp("vc-ws")
    text = textwrap.dedent(CONFIG).replace('[[rules]]\nid = "wckey"', POOLS.strip() + '\n[[rules]]\nid = "wckey"', 1)
    (root / "trainledger.toml").write_text(text, encoding="utf-8")
    return engine_settings(workspace.load(root))


gpus_st = st.lists(st.integers(48, 64), min_size=4, max_size=4)  # vcA day 1, day 2, vcB day 1, day 2
jobs_st = st.lists(st.tuples(st.sampled_from(["vcA", "vcB", "vcC"]), st.integers(0, 2800), st.integers(1, 600),
                             st.integers(1, 8), st.sampled_from(["b1", ""])), min_size=1, max_size=6)


def _facts(gpus, jobs) -> Facts:
    cap = []
    for i, (vc, day) in enumerate([("vcA", 0), ("vcA", 1), ("vcB", 0), ("vcB", 1)]):
        cap.append({"cluster": "X", "vc": vc, "node": "", "nodes": None, "gpus": gpus[i], "gpu_model": None,
                    "valid_from": T0 + timedelta(days=day), "valid_to": T0 + timedelta(days=day + 1),
                    "source_sha256": SHA, "row": i + 1})
    rows = []
    for n, (vc, start, minutes, g, wckey) in enumerate(jobs, 1):
        a = T0 + timedelta(minutes=start)
        rows.append(job(str(n), start=a, end=a + timedelta(minutes=minutes), gpus=g, nodes="", wckey=wckey,
                        tags=f'{{"vc": "{vc}"}}', row=n) | {"cluster": "X"})
    return Facts(jobs=tuple(rows), capacity=tuple(cap))


@settings(max_examples=25, deadline=None)
@given(gpus_st, jobs_st)
def test_vc_pools_conserve_money_and_hours(config, gpus, jobs):
    facts = _facts(gpus, jobs)
    result = attribute(facts, config, price_lookup, END.date())
    recs = {r["capacity"]: r for r in result.conservation_capacity}
    sha = {c.sha256: c.id for c in parse(list(config.raw["capacity"]), "ws")}
    by_pool = defaultdict(list)
    for ln in result.lines:  # on the workspace file, or (a line a job held) on the job's row
        if (got := capacity_of(ln, sha, set(sha.values()))) is not None:
            by_pool[got[0]].append(ln)
    day_gpus = {"vcA": gpus[0] + gpus[1], "vcB": gpus[2] + gpus[3]}
    for vc, rate in RATES.items():
        rec = recs[f"pool-{vc}"]
        total = Decimal(day_gpus[vc]) * 24 * rate
        assert Decimal(rec["total"]) == total and rec["difference"] == "0.00"
        assert rec["gpu_hours"]["difference"] == "0" and rec["gpu_hours"]["oversubscribed"] == "0"
        assert Decimal(rec["gpu_hours"]["total"]) == Decimal(day_gpus[vc]) * 24
        lns = by_pool[f"pool-{vc}"]
        assert sum(ln.amount.expected for ln in lns) == total
        held = defaultdict(Decimal)
        for ln in lns:
            if ln.run_id:
                held[ln.run_id] += ln.quantity
        for n, (jvc, start, minutes, g, _wckey) in enumerate(jobs, 1):
            a = T0 + timedelta(minutes=start)
            inside = max(timedelta(0), min(a + timedelta(minutes=minutes), END) - max(a, T0))
            want = Decimal(g) * Decimal(int(inside.total_seconds())) / 3600 if jvc == vc else Decimal(0)
            assert abs(held.get(f"X/{n}", Decimal(0)) - want) < Decimal("1e-20")
    unpooled = sum(1 for vc, *_ in jobs if vc == "vcC")
    got = [p for p in result.problems if p.kind == "vc_not_pooled"]
    assert (got[0].detail["jobs"] if got else 0) == unpooled
