"""The openb pod list (Alibaba GPU-sharing trace) through the ``alibaba-openb-2023`` preset, priced
by an owned-capacity rate card over the cluster's 6,212 GPUs as one pool (the trace names no pod's
node): every scheduled pod is charged its num_gpu × gpu_milli / 1000 GPU-equivalents, not whole
GPUs, and the GPU-hours the engine attributes are the ones ``trainledger jobs`` reports."""

import csv
import textwrap
from collections import defaultdict
from datetime import date
from decimal import Decimal
from pathlib import Path

import pytest

from trainledger import workspace
from trainledger.analysis.jobs import job_summary
from trainledger.engine import Facts, attribute
from trainledger.engine.capacity import parse
from trainledger.engine.capacity_source import parse_rule
from trainledger.engine.summary_runs import hours_of
from trainledger.errors import ConfigError
from trainledger.ingest import import_files
from trainledger.lake import Lake
from trainledger.model import Basis

from .factories import CONFIG, price_lookup

DATA = Path(__file__).resolve().parents[1] / "data" / "alibaba-openb-gpu-v2023"
POOL = """
[[rules]]
id = "openb"
source = "slurm"
field = "cluster"
match = "exact"
pattern = "openb"
batch = "b1"
[[capacity]]
id = "openb-pool"
cluster = "openb"
gpus = 6212                        # Σ gpu of openb_node_list_gpu_node.csv
from = 1970-01-01T00:00:00Z        # the trace's seconds, read from the epoch (see the preset)
until = 1970-06-01T00:00:00Z
currency = "CNY"
rate = "12.50"
unit = "gpu_hour"
effective = 1970-01-01
source = "internal chargeback rate card"
owner = "platform: zhou"
"""


def raw_gpu_hours() -> tuple[Decimal, Decimal]:
    """(pro rata, whole-GPU) hours of the scheduled pods, from the CSV with csv and Decimal alone."""
    held = whole = Decimal(0)
    with (DATA / "openb_pod_list_default.csv").open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["scheduled_time"]:
                seconds = Decimal(r["deletion_time"]) - Decimal(r["scheduled_time"])
                held += Decimal(r["num_gpu"]) * Decimal(r["gpu_milli"]) / 1000 * seconds
                whole += Decimal(r["num_gpu"]) * seconds
    return held / 3600, whole / 3600


@pytest.fixture(scope="module")
def openb(tmp_path_factory):
    root = tmp_path_factory.mktemp("openb")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG).replace('[[rules]]\nid = "wckey"', POOL.strip()
                                           + '\n[[rules]]\nid = "wckey"', 1), encoding="utf-8")
    config = workspace.load(root)
    lake = Lake(root / "lake")
    (res,) = import_files("jobs", [DATA / "openb_pod_list_default.csv"], lake, options={"preset": "alibaba-openb-2023"})
    assert res.accepted == res.rows_read == 8152
    facts = Facts(jobs=tuple(lake.read("jobs").to_pylist()))
    return lake, facts, attribute(facts, config, price_lookup, date(1970, 6, 1))


def test_attributed_gpu_hours_are_the_pods_gpu_equivalents(openb):
    lake, facts, result = openb
    lines = [ln for ln in result.lines if ln.basis is Basis.RATE_CARD]
    held = sum((ln.quantity for ln in lines if ln.run_id), Decimal(0))
    pro_rata, whole = raw_gpu_hours()
    assert abs(held - pro_rata) < Decimal("1e-15")
    assert held.quantize(Decimal("0.000001")) == Decimal("51470.674158")  # trainledger jobs' figure
    assert Decimal(job_summary(lake).as_json()["gpu_hours"]["total"]) == Decimal("51470.674158")
    assert whole > held * Decimal("1.15")  # whole-GPU counting would have charged 16 % more
    assert all(ln.batch_id == "b1" for ln in lines if ln.run_id)
    # one hand-worked pod: openb-pod-0001 holds 1 GPU at 460 milli from 427061 s to 12902960 s
    pod = [ln for ln in lines if ln.run_id == "openb/openb-pod-0001"]
    assert sum(ln.quantity for ln in pod) == Decimal("0.46") * (12902960 - 427061) / 3600  # 1594.1982…
    money = sum(ln.amount.expected for ln in pod)
    assert abs(money - Decimal("0.46") * (12902960 - 427061) / 3600 * Decimal("12.50")) < Decimal("0.01") * len(pod)


def test_the_pool_conserves_money_and_hours(openb):
    _lake, _facts, result = openb
    (rec,) = result.conservation_capacity
    # 6,212 GPUs × 151 days × 24 h × 12.50, all of it attributed or unheld
    assert Decimal(rec["total"]) == 6212 * 151 * 24 * Decimal("12.50")
    assert Decimal(rec["attributed"]) + Decimal(rec["unheld"]) == Decimal(rec["total"]) and rec["difference"] == "0.00"
    by_day = defaultdict(Decimal)
    for ln in result.lines:
        if ln.basis is Basis.RATE_CARD:
            p = ln.provenance  # the pool's day row: its own, or (a line a job held) named in its rule
            by_day[p.row if p.source_kind == "config" else parse_rule(p.rule)[2]] += ln.quantity
    assert set(by_day.values()) == {Decimal(6212 * 24)}  # every day's GPU-hours: held + unheld = the pool's
    assert "oversubscribed_node" not in {p.kind for p in result.problems}
    summary = hours_of(result.summary())
    assert sum(Decimal(h) for states in summary.values() for h in states.values()).quantize(
        Decimal("0.000001")) == Decimal("51470.674158")


def test_a_pool_takes_cluster_and_gpus_not_nodes():
    base = {"id": "p", "cluster": "c", "gpus": 8, "from": "2026-11-01T00:00:00+00:00",
            "until": "2026-11-02T00:00:00+00:00", "currency": "CNY", "rate": "1", "effective": "2026-11-01",
            "source": "s", "owner": "o"}
    (cap,) = parse([base], "ws")
    assert (cap.nodes, cap.gpus_per_node, cap.pool) == (("pool:c",), 8, "c")
    with pytest.raises(ConfigError, match="a pool"):
        parse([base | {"nodes": ["n1"]}], "ws")
