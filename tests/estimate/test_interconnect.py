"""MoE all-to-all and interconnect factors (estimate/interconnect.py), with hand-worked numbers.

Formulas: data/priors.toml ``[moe.*]`` / ``[interconnect.*]`` / ``[network.*]`` and
docs/estimate-spec.md "Communication". DeepSeek-V3 figures: arXiv:2412.19437 sections 2.1.2,
3.2.1 (computation-to-communication "approximately 1:1") and 3.2.2 (H800: IB 50 GB/s).
"""

from __future__ import annotations

import pytest

from tests.estimate.helpers import estimate
from trainledger.errors import BadInput
from trainledger.estimate.catalog import custom, get_accelerator
from trainledger.estimate.interconnect import (
    MoePlan,
    a2a_bytes_per_token,
    a2a_factor,
    a2a_seconds_per_token,
    comm_ratio,
    interconnect_factors,
    moe_all_to_all,
)
from trainledger.estimate.memory import ModelShape, Setup
from trainledger.estimate.quantities import Uncertain
from trainledger.estimate.spec import build_spec
from trainledger.estimate.throughput import flops_per_token, mfu_model
from trainledger.model.vocab import TaskType

V3 = MoePlan(top_k=8, moe_layers=58, ep=64, overlap="full")
V3_SHAPE = ModelShape(671e9, 37e9, 61, 7168, 128, 129280, 18432, False)
DENSE_7B = ModelShape(7e9, 7e9, 32, 4096, 32, 32000, 11008, False)


def test_bytes_per_token_by_hand():
    # 58 layers x top-8 x 7,168 x (1 FP8 dispatch + 3 x 2 BF16) = 23,281,664; x 63/64 leave the GPU
    assert a2a_bytes_per_token(V3, 7168, "fp8") == pytest.approx(22_917_888)
    # BF16 dispatch: x (2 + 6) = 26,607,616 x 63/64
    assert a2a_bytes_per_token(V3, 7168, "bf16") == pytest.approx(26_191_872)
    # one GPU holds every expert: nothing leaves it
    assert a2a_bytes_per_token(MoePlan(2, 32, 1, "partial"), 4096, "bf16") == 0


def test_seconds_cross_node_take_the_slower_of_link_and_nic():
    h800 = get_accelerator("h800")  # NVLink 200 GB/s per direction, NIC 50 GB/s
    nbytes = 22_917_888.0
    # 56 of the 63 peers are on other nodes: 20,371,456 B / 50 GB/s = 407.4 us; the 7 local ones
    # 2,546,432 B / 200 GB/s = 12.7 us
    assert a2a_seconds_per_token(V3, nbytes, h800) == pytest.approx(20_371_456 / 50e9)
    in_node = MoePlan(8, 58, 8, "full")
    assert a2a_seconds_per_token(in_node, nbytes, h800) == pytest.approx(nbytes / 200e9)
    # the H100's NVLink is 2.25x the H800's: the in-node time falls by that much
    assert a2a_seconds_per_token(in_node, nbytes, get_accelerator("h100-80gb")) == pytest.approx(nbytes / 450e9)
    # no interconnect in the catalog (a custom card): None, the caller falls back to a prior
    assert a2a_seconds_per_token(in_node, nbytes, custom(80, 500)) is None


def test_ratio_and_factor_by_hand():
    acc = custom(80, 1000)  # 1e15 FLOP/s
    # compute: 1e12 FLOPs / (1e15 x 0.5) = 2 ms; all-to-all 1 ms -> r = 0.5
    assert comm_ratio(1e-3, 1e12, acc, 0.5) == pytest.approx(0.5)
    overlap = Uncertain("o", 0.0, 0.5, 0.9)
    eff = Uncertain("e", 0.5, 1.0, 1.0)
    lo, mo, hi = a2a_factor(1.0, overlap, eff)
    assert lo == pytest.approx(1 / 3)  # 1 / (1 + 1 x 1 / 0.5)
    assert mo == pytest.approx(2 / 3)  # 1 / (1 + 0.5)
    assert hi == pytest.approx(1 / 1.1)  # 1 / (1 + 0.1)


def test_deepseek_v3_layout_gives_the_reported_one_to_one_ratio():
    spec = build_spec(
        dict(
            task="pretrain",
            params="671B",
            active_params="37B",
            tokens="14.8T",
            gpu="h800",
            gpus=2048,
            precision="fp8",
            top_k=8,
            ep=64,
            moe_layers=58,
            ep_overlap="full",
        )
    )
    setup = Setup(TaskType.PRETRAIN, precision="fp8")
    _, hw = flops_per_token(V3_SHAPE, setup)
    mode = 0.41 * 1.25  # hopper.large MFU mode x FP8 mode
    u = moe_all_to_all(spec, get_accelerator("h800"), V3_SHAPE, setup, 2048, hw, mode)
    ratio = comm_ratio(20_371_456 / 50e9, hw, get_accelerator("h800"), mode)
    assert 0.7 < ratio < 1.2  # "approximately 1:1" (section 3.2.1), computed, not fitted
    assert f"r = {ratio:.2f}" in u.source
    assert u.low < u.mode < u.high <= 1.0
    assert u.evidence.value == "measured"  # every layout key given, DualPipe overlap measured


def test_defaults_are_assumed_and_named():
    spec = build_spec(dict(task="pretrain", params="47B", active_params="13B", tokens="1T", gpu="h100-80gb"))
    shape = ModelShape(47e9, 13e9, 32, 4096, 32, 32000, 14336, False)
    mm = mfu_model(get_accelerator("h100-80gb"), shape, Setup(TaskType.PRETRAIN), 64, spec)
    a2a = [f for f in mm.factors if f.name.startswith("MoE all-to-all")]
    assert [f.name for f in a2a] == ["MoE all-to-all (expert parallelism)"]
    assert a2a[0].source.startswith("ep 8, top-2, partial overlap: ")
    assert a2a[0].evidence.value == "assumed"
    assert "MoE expert compute efficiency" in [f.name for f in mm.factors]


def test_no_link_in_catalog_falls_back_to_the_assumed_range():
    spec = build_spec(dict(task="pretrain", params="47B", active_params="13B", tokens="1T", gpu="tpu-v4"))
    shape = ModelShape(47e9, 13e9, 32, 4096, 32, 32000, 14336, False)
    mm = mfu_model(get_accelerator("tpu-v4"), shape, Setup(TaskType.PRETRAIN), 64, spec)
    a2a = next(f for f in mm.factors if f.name.startswith("MoE all-to-all"))
    assert (a2a.low, a2a.mode, a2a.high) == (0.50, 0.75, 0.95)


@pytest.mark.parametrize(
    ("gpu", "task", "gpus", "tp", "network", "expected"),
    [
        ("rtx-4090", TaskType.FULL_FINETUNE, 1, 1, None, []),  # one GPU never communicates
        ("rtx-4090", TaskType.FULL_FINETUNE, 4, 1, None, [(0.55, 0.75, 0.95)]),  # PCIe-only DP
        ("l40s", TaskType.PRETRAIN, 8, 1, None, [(0.55, 0.75, 0.95)]),
        ("rtx-4090", TaskType.LORA, 4, 1, None, []),  # adapter gradients only
        ("h800", TaskType.PRETRAIN, 8, 8, None, [(0.88, 0.95, 1.00)]),  # reduced NVLink under TP
        ("h800", TaskType.PRETRAIN, 8, 1, None, []),
        ("h100-80gb", TaskType.PRETRAIN, 8, 8, None, []),
        ("h100-80gb", TaskType.PRETRAIN, 16, 1, "roce", [(0.93, 0.98, 1.00)]),
        ("h100-80gb", TaskType.PRETRAIN, 16, 1, "ethernet", [(0.30, 0.60, 0.85)]),
        ("h100-80gb", TaskType.PRETRAIN, 8, 1, "ethernet", []),  # one node: no network in the step
        ("h100-80gb", TaskType.PRETRAIN, 16, 1, None, []),  # InfiniBand: the MFU rows' own
    ],
)
def test_interconnect_factors(gpu, task, gpus, tp, network, expected):
    spec = build_spec(dict(task="pretrain", params="7B", tokens="1T", gpu=gpu, network=network))
    got = interconnect_factors(spec, get_accelerator(gpu), Setup(task), gpus, tp)
    assert [(u.low, u.mode, u.high) for u in got] == expected
    assert all(u.source and u.evidence for u in got)


def test_a_single_gpu_dense_plan_has_no_communication_factor(book):
    e = estimate(book, task="full_finetune", params="1B", tokens="1B", gpu="h100-80gb", gpus=1, network="ethernet")
    names = [a["name"] for a in e.to_dict()["assumptions"]]
    assert not [n for n in names if n.startswith(("MoE", "interconnect", "network"))]


def test_the_drawer_shows_both_in_two_languages(book):
    d = estimate(
        book,
        task="pretrain",
        params="47B",
        active_params="13B",
        tokens="100B",
        gpu="l40s",
        gpus=64,
        network="ethernet",
    ).to_dict()
    rows = {a["name"]: a for a in d["assumptions"]}
    a2a = rows["MoE all-to-all (expert parallelism)"]
    assert "MB per token and step" in a2a["source"] and "L40S" in a2a["source"]
    assert a2a["name_zh"].startswith("MoE all-to-all 通信")
    assert rows["interconnect: l40s over PCIe (no NVLink), data parallel"]["name_zh"].startswith("互联")
    assert rows["network between nodes: Ethernet without RDMA"]["name_zh"] == "节点间网络：无 RDMA 的以太网"


def test_multi_node_default_network_is_a_drawer_row(book):
    d = estimate(book, task="pretrain", params="7B", tokens="100B", gpu="h100-80gb", gpus=16).to_dict()
    row = next(a for a in d["assumptions"] if a["name"] == "network between nodes")
    assert row["value"] == "InfiniBand" and row["evidence"] == "assumed"


def test_communication_lowers_utilisation(book):
    base = dict(task="pretrain", params="7B", tokens="100B", gpu="h100-80gb", gpus=16)
    ib = estimate(book, **base).to_dict()["effective_gpu_hours"]["p50"]
    eth = estimate(book, network="ethernet", **base).to_dict()["effective_gpu_hours"]["p50"]
    assert eth > ib * 1.3  # mode 0.60: about 1 / 0.6 more time


@pytest.mark.parametrize(("key", "value"), [("ep_overlap", "some"), ("network", "nvlink")])
def test_bad_values_are_refused(key, value):
    with pytest.raises(BadInput, match=key):
        build_spec({"task": "pretrain", "params": "7B", "tokens": "1T", "gpu": "h100-80gb", key: value})


def test_ep_is_capped_at_the_gpu_count():
    from trainledger.estimate.interconnect import moe_plan

    spec = build_spec(dict(task="pretrain", params="47B", active_params="13B", tokens="1T", gpu="h100-80gb", ep=64))
    shape = ModelShape(47e9, 13e9, 32, 4096, 32, 32000, 14336, False)
    assert moe_plan(spec, shape, 16).ep == 16
    assert moe_plan(spec, shape, 128).ep == 64
    default = build_spec(dict(task="pretrain", params="47B", active_params="13B", tokens="1T", gpu="h100-80gb"))
    assert moe_plan(default, shape, 4).ep == 4 and moe_plan(default, shape, 64).ep == 8
    assert moe_plan(default, shape, 64).moe_layers == 32 and moe_plan(default, shape, 64).top_k == 2
