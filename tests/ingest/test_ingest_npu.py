"""Accelerators that are not NVIDIA GPUs (review 5 J1): Ascend NPUs count as accelerator cards.

sacct: Huawei's Slurm NPU plugin writes ``gres/npu:910b=16`` in AllocTRES; Kubernetes: the Ascend
device plugin's resource ``huawei.com/Ascend910`` (the Ascend MindCluster device plugin and the
ascend-for-volcano scheduler plugin name it so; HAMi's Ascend plugin ``huawei.com/Ascend910B``).
An accelerator resource the readers do not know is flagged at import (counted 0, never silently).
"""

from __future__ import annotations

import json

import pytest
from ingest_helpers import run
from test_ingest_k8s import pod

from trainledger.analysis.jobs import job_summary
from trainledger.errors import BadInput
from trainledger.ingest.slurm import gpus_of, parse_tres
from trainledger.lake import Lake

HEADER = ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|"
          "Restarts\n")
ROW = "{id}|j|llm|b1||u|2026-11-10T07:50:00|2026-11-10T07:50:00|{start}|{end}|{state}|0:0|{tres}|{nodes}|0\n"


def _row(job, tres, start="2026-11-10T08:00:00", end="2026-11-10T20:00:00", state="COMPLETED", nodes="asc-[01-02]"):
    return ROW.format(id=job, tres=tres, start=start, end=end, state=state, nodes=nodes)


@pytest.mark.parametrize(("tres", "cards", "kind"), [
    ("cpu=192,gres/npu:910b=16,mem=1500G,node=2", 16, "910b"),
    ("cpu=96,gres/npu=8,node=1", 8, "npu"),
    ("gres/npu=8,gres/npu:910b=8", 8, "910b"),
    ("cpu=8,gres/gpu:h800=8,node=1", 8, "h800"),  # GPUs as before
    ("cpu=8,gres/gpu=8,node=1", 8, None),
    ("cpu=8,gres/gpu=4,gres/mps=400", 4, None),  # a GPU-sharing gres beside the cards: no note
])
def test_npu_gres_are_cards_with_their_type(tres, cards, kind):
    n, t, notes = gpus_of(parse_tres(tres))
    assert (n, t, notes) == (cards, kind, [])


def test_an_accelerator_gres_the_reader_does_not_know_is_noted():
    n, t, notes = gpus_of(parse_tres("billing=192,cpu=192,gres/xyz=16,node=2"))
    assert (n, t) == (0, None)
    (note,) = notes
    assert note.startswith("AllocTRES names gres/xyz=16 and no gres/gpu or gres/npu: counted 0 GPUs")
    assert gpus_of(parse_tres("cpu=8,gres/xyz=0,node=1"))[2] == []  # nothing held: nothing to say
    assert gpus_of(parse_tres("cpu=8,mem=10G,node=1"))[2] == []  # a CPU job is no surprise
    with pytest.raises(ValueError, match="is not a GPU count"):
        gpus_of(parse_tres("gres/npu:910b=eight"))


@pytest.mark.parametrize("encoding", [None, "gb18030"])  # the block-at-a-time path, and per row
def test_the_reviewers_ascend_jobs_hold_268_card_hours(lake, write, encoding):
    # 7001: 16 NPUs × 12 h = 192; 7002: two attempts (sacct -D) × 8 × 4 h = 64; 7003: 8 × 1.5 h = 12
    # = 268 (COMPLETED 192 + 32, NODE_FAIL 32, CANCELLED 12); 7005 names gres/xyz: 0, flagged
    text = HEADER + "".join([
        _row("7001", "billing=192,cpu=192,gres/npu:910b=16,mem=1500G,node=2"),
        _row("7001.batch", "cpu=96,gres/npu:910b=8,mem=750G,node=1", nodes="asc-01"),
        _row("7002", "cpu=96,gres/npu:910b=8,node=1", "2026-11-10T21:00:00", "2026-11-11T01:00:00", "NODE_FAIL",
             "asc-01"),
        _row("7002", "cpu=96,gres/npu:910b=8,node=1", "2026-11-11T02:00:00", "2026-11-11T06:00:00", "COMPLETED",
             "asc-02"),
        _row("7003", "cpu=96,gres/npu:910b=8,node=1", "2026-11-11T08:00:00", "2026-11-11T09:30:00",
             "CANCELLED by 1005", "asc-01"),
        _row("7005", "billing=192,cpu=192,gres/xyz=16,node=2", "2026-11-11T10:00:00", "2026-11-11T11:00:00"),
    ])
    opts = {"tz": "UTC", **({"encoding": encoding} if encoding else {})}
    r = run("slurm", write("asc.txt", text), lake, **opts)
    assert (r.rows_read, r.accepted, r.quarantined) == (6, 6, 0)
    rows = lake.read("jobs").to_pylist()
    alloc = [x for x in rows if not x["is_step"]]
    assert {(x["job_id"], x["gpus"], x["gpu_type"]) for x in alloc} == {
        ("7001", 16, "910b"), ("7002", 8, "910b"), ("7003", 8, "910b"), ("7005", 0, None)}
    unknown = next(x for x in alloc if x["job_id"] == "7005")
    assert any(f.startswith("AllocTRES names gres/xyz=16 and no gres/gpu") for f in json.loads(unknown["flags"]))
    flagged = [x["job_id"] for x in rows if any("counted 0 GPUs" in f for f in json.loads(x["flags"] or "[]"))]
    assert flagged == ["7005"]
    s = job_summary(lake)
    assert str(s.gpu_hours) == "268.000000"
    assert {k: str(v) for k, v in dict(s.gpu_hours_by_attempt_state).items()} == {
        "COMPLETED": "224.000000", "NODE_FAIL": "32.000000", "CANCELLED": "12.000000"}


def test_ascend_pods_are_cards(lake, write):
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        pod("asc-0", gpus={"huawei.com/Ascend910": "8"}, phase="Succeeded", finished="2026-11-02T10:05:00Z"),
        pod("hami-0", gpus={"huawei.com/Ascend910B": "2", "huawei.com/Ascend910B-memory": "32768"},
            phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("npu-0", gpus={"huawei.com/npu": "1"}, phase="Succeeded", finished="2026-11-02T08:35:00Z"),
        # a vNPU (2 of a 32-core card's AI cores): 1/16 of a card, flagged; another vendor's device: 0, flagged
        pod("vnpu-0", gpus={"huawei.com/Ascend910-2c": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("mlu-0", gpus={"cambricon.com/mlu": "4", "cpu": "8"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("cpu-0", gpus={"cpu": "8", "memory": "16Gi"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
    ]}
    r = run("k8s", write("asc.json", json.dumps(doc)), lake)
    assert (r.rows_read, r.accepted) == (6, 6)
    rows = {x["job_id"]: x for x in lake.read("jobs").to_pylist()}
    got = {k: (x["gpus"], x["gpu_share"], x["gpu_type"]) for k, x in rows.items()}
    assert got == {"llm/asc-0": (8, "8", "Ascend910"), "llm/hami-0": (2, "2", "Ascend910B"),
                   "llm/npu-0": (1, "1", "npu"), "llm/vnpu-0": (1, "0.0625", "Ascend910-2c"),
                   "llm/mlu-0": (0, "0", None),
                   "llm/cpu-0": (0, "0", None)}  # fmt: skip
    flags = {k: json.loads(x["flags"] or "[]") for k, x in rows.items()}
    assert flags["llm/vnpu-0"] == ["huawei.com/Ascend910-2c=1: a vNPU of 2 AI cores, counted as 2/32 of a card each"
                                   " (32 AI cores a card assumed; another card: --set npu_cores=N)"]
    assert flags["llm/mlu-0"][0].startswith("resources name cambricon.com/mlu=4 and no GPU")
    assert flags["llm/cpu-0"] == flags["llm/asc-0"] == flags["llm/hami-0"] == []
    # 8 × 2 h + 2 × 1 h + 1 × 0.5 h + 2/32 × 1 h
    assert str(job_summary(lake).gpu_hours) == "18.562500"


def test_vnpu_slices_are_counted_pro_rata_by_ai_cores(lake, write):
    """A vNPU of N AI cores holds N / the card's AI cores of a card: 32 for Ascend910, 8 for
    Ascend310P (Huawei's virtual-instance rules); ``--set npu_cores`` for another card; a chip of
    unknown cores without it is counted 0 and flagged, never a silent guess."""
    doc = {"apiVersion": "v1", "kind": "List", "items": [
        pod("p310", gpus={"huawei.com/Ascend310P-4c.3cpu": "2"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("p910", gpus={"huawei.com/Ascend910-8c": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
        pod("p710", gpus={"huawei.com/Ascend710-2c": "1"}, phase="Succeeded", finished="2026-11-02T09:05:00Z"),
    ]}
    run("k8s", write("v.json", json.dumps(doc)), lake)
    rows = {x["job_id"]: (x["gpus"], x["gpu_share"], json.loads(x["flags"] or "[]"))
            for x in lake.read("jobs").to_pylist()}
    assert rows["llm/p310"][:2] == (2, "1")  # 2 × 4/8
    assert rows["llm/p910"][:2] == (1, "0.25")  # 8/32
    assert rows["llm/p910"][2] == ["huawei.com/Ascend910-8c=1: a vNPU of 8 AI cores, counted as 8/32 of a card"
                                   " each (32 AI cores a card assumed; another card: --set npu_cores=N)"]
    assert rows["llm/p710"][:2] == (0, "0") and rows["llm/p710"][2][0].startswith(
        "resources name huawei.com/Ascend710-2c=1 and no GPU")
    other = Lake(lake.root.parent / "lake30")
    run("k8s", write("v30.json", json.dumps(doc)), other, set=["npu_cores=30"])
    got = {x["job_id"]: x["gpu_share"] for x in other.read("jobs").to_pylist()}
    assert got == {"llm/p310": "0.266667", "llm/p910": "0.266667", "llm/p710": "0.066667"}  # 2 × 4/30, 8/30, 2/30
    with pytest.raises(BadInput, match="npu_cores must be a whole number"):
        run("k8s", write("v0.json", json.dumps(doc)), other, set=["npu_cores=0"])
