"""AI-and-ML bill rows that bill GPU nodes are idle candidates (issue 7): Huawei ModelArts dedicated
resource pools and Alibaba PAI-DLC / Lingjun quotas, which the presets map to ServiceCategory "AI and
Machine Learning", are capacity no job held when no job ran on them — as a Compute node is — while the
services' platform fees (a CPU notebook, an inference API billed per call) stay no rule matched.

Each bill has one GPU node a job ran on (a Compute row, so the engine knows a held node) and the
service's rows on resources no job names. By hand (cluster.gpus_per_node = 8):

* Huawei, the hour 08:00–09:00 Beijing of 2026-11-02: the ModelArts pool node's 200.00 is all capacity
  no job held, 8 GPU-h (its 产品 names an NPU flavour); the CPU notebook (30.00) and the per-call
  inference (12.00, 使用量单位 次, though its 产品 names a GPU) are no rule matched.
* Alibaba, the month 2026-11 (720 h): the PAI-DLC node (实例规格 ecs.gn8v-8x.48xlarge) 207,360.00 and the
  Lingjun quota node (ml.gx8xf.8xlarge-gu108) 180,000.00 are capacity no job held, 5,760 GPU-h each; the
  DSW notebook on ecs.g6.xlarge (500.00) and EAS calls (88.00, 用量单位 千次) are no rule matched.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import pytest

from tests.engine.test_node_map import ENGINES, _by_reason, _stage, _workspace

SACCT_HW = ("JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|"
            "Restarts\n7001|a|x|sft-a||u|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:00:00|"
            "2026-11-02T09:00:00|COMPLETED|0:0|billing=32,gres/gpu:h800=8,node=1|gpu01|0\n")
HW_HEAD = ("账期,产品类型编码,产品类型,产品编码,产品ID,产品,使用开始时间,使用结束时间,账单类型,资源ID,资源名称,"
           "使用量,使用量单位,应付金额\n")
HW_ROW = ("2026-11,{code},{service},{rtype},{sku},{product},2026-11-02 08:00:00 GMT+08:00,"
          "2026-11-02 09:00:00 GMT+08:00,消费-使用,{rid},{name},1,{unit},{amount}\n")
HUAWEI = HW_HEAD + "".join(HW_ROW.format(**r) for r in (
    dict(code="hws.service.type.ec2", service="弹性云服务器", rtype="hws.resource.type.vm", sku="00301-215174-0--0",
         product="GPU加速型", rid="vm-gpu01", name="gpu01", unit="小时", amount="288.00"),
    dict(code="hws.service.type.modelarts", service="AI开发平台ModelArts", rtype="hws.resource.type.ma.pool",
         sku="modelarts.pool.node", product="modelarts.bm.npu.arm.8snt9b3.d", rid="ma-pool-node-7f3a",
         name="pool-a-node-1", unit="小时", amount="200.00"),
    dict(code="hws.service.type.modelarts", service="AI开发平台ModelArts", rtype="hws.resource.type.ma.notebook",
         sku="modelarts.notebook", product="modelarts.vm.cpu.8u", rid="notebook-3b2c", name="nb-li",
         unit="小时", amount="30.00"),
    dict(code="hws.service.type.modelarts", service="AI开发平台ModelArts", rtype="hws.resource.type.ma.infer",
         sku="modelarts.infer.call", product="modelarts.infer.gpu.t4 在线服务调用", rid="infer-svc-01",
         name="svc-chat", unit="次", amount="12.00"),
))

SACCT_ALI = SACCT_HW.replace("gpu01", "gpu-node-01").replace("2026-11-02T09:00:00", "2026-11-02T10:00:00")
ALI_HEAD = "账期,产品,产品Code,实例ID,实例规格,分拆项ID,分拆项名称,用量,用量单位,应付金额\n"
ALIYUN = ALI_HEAD + "".join(f"2026-11,{product},{code},{rid},{spec},{rid},{name},{used},{unit},{amount}\n"
                            for product, code, rid, spec, name, used, unit, amount in (
    ("云服务器ECS", "ecs", "i-bp1node01aaaa", "ecs.gn8v-8x.48xlarge", "gpu-node-01", "720", "Hour", "207360.00"),
    ("人工智能平台 PAI", "paidlc", "dlc1a2b3c4d5", "ecs.gn8v-8x.48xlarge", "dlc-quota-node-1", "720", "Hour",
     "207360.00"),
    ("人工智能平台 PAI", "learn", "lingjun-node-9x8y", "ml.gx8xf.8xlarge-gu108", "lingjun-quota-1", "720", "Hour",
     "180000.00"),
    ("人工智能平台 PAI", "paidsw", "dsw-5f6e7d", "ecs.g6.xlarge", "dsw-wang", "200", "Hour", "500.00"),
    ("人工智能平台 PAI", "pai", "eas-svc-77", "ecs.gn7i-c8g1.2xlarge", "eas-chat", "880", "千次", "88.00"),
))


@pytest.mark.parametrize("engine", ENGINES)
def test_a_modelarts_pool_node_no_job_ran_on_is_capacity_no_job_held(tmp_path, engine):
    if engine != "python":
        pytest.importorskip("ibis")
    root = _workspace(tmp_path, "", HUAWEI, sacct=SACCT_HW, kind="huawei", name="hw.csv", import_date="2026-12-10")
    out = _stage(root, engine, on=date(2026, 12, 1))
    got = _by_reason(out.lines)
    assert got["node_without_jobs: node ma-pool-node-7f3a"] == (Decimal("200.00"), Decimal(8))
    assert got["no_rule_matched: AI开发平台ModelArts notebook-3b2c"] == (Decimal("30.00"), Decimal(0))
    assert got["no_rule_matched: AI开发平台ModelArts infer-svc-01"] == (Decimal("12.00"), Decimal(0))
    assert got["sft-a"] == (Decimal("288.00"), Decimal(8))
    assert sum(m for m, _ in got.values()) == Decimal("530.00")
    (p,) = [p for p in out.problems if p.kind == "node_without_jobs"]
    assert p.detail["nodes"] == ["ma-pool-node-7f3a"]
    line = next(ln for ln in out.lines if ln.reason == "node_without_jobs: node ma-pool-node-7f3a")
    assert line.category == "compute"  # on the sheet's compute section, with the capacity no job held


@pytest.mark.parametrize("engine", ENGINES)
def test_pai_dlc_and_lingjun_nodes_no_job_ran_on_are_capacity_no_job_held(tmp_path, engine):
    if engine != "python":
        pytest.importorskip("ibis")
    root = _workspace(tmp_path, "", ALIYUN, sacct=SACCT_ALI, kind="aliyun", name="split.csv", import_date="2026-12-10")
    got = _by_reason(_stage(root, engine, on=date(2026, 12, 1)).lines)
    assert got["node_without_jobs: node dlc1a2b3c4d5"] == (Decimal("207360.00"), Decimal(5760))
    assert got["node_without_jobs: node lingjun-node-9x8y"] == (Decimal("180000.00"), Decimal(5760))
    assert got["no_rule_matched: 人工智能平台 PAI dsw-5f6e7d"] == (Decimal("500.00"), Decimal(0))
    assert got["no_rule_matched: 人工智能平台 PAI eas-svc-77"] == (Decimal("88.00"), Decimal(0))
    # gpu-node-01: the job's 8 GPUs × 2 h of 8 × 720 h = 576.00; the rest no job held
    assert got["sft-a"] == (Decimal("576.00"), Decimal(16))
    assert got["capacity_unheld: node gpu-node-01"] == (Decimal("206784.00"), Decimal(5744))
    assert sum(m for m, _ in got.values()) == Decimal("595308.00")


def test_a_declared_ai_ml_node_is_a_node_whatever_its_sku_and_a_per_call_row_never(tmp_path):
    """The node map is the user's word: the CPU-flavoured notebook resource declared as a node is one; the
    per-call inference row stays a platform fee even when its resource is declared."""
    extra = ('\n[[nodes]]\nnode = "nb-node"\nresource_id = "notebook-3b2c"\n'
             '\n[[nodes]]\nnode = "svc-node"\nresource_id = "infer-svc-01"\n')
    root = _workspace(tmp_path, extra, HUAWEI, sacct=SACCT_HW, kind="huawei", name="hw.csv", import_date="2026-12-10")
    got = _by_reason(_stage(root, on=date(2026, 12, 1)).lines)
    assert got["node_without_jobs: node nb-node"] == (Decimal("30.00"), Decimal(8))
    assert got["no_rule_matched: AI开发平台ModelArts infer-svc-01"] == (Decimal("12.00"), Decimal(0))


def test_the_gpu_instance_types_and_per_call_units():
    from trainledger.engine.capacity_nodes import GPU_SKU, PER_CALL

    for sku in ("modelarts.bm.npu.arm.8snt9b3.d", "modelarts.vm.gpu.v100", "ecs.gn7i-c32g1.8xlarge",
                "ecs.ebmgn8v.48xlarge", "ml.gu7i.c32m188.1-gu30", "ml.gx8xf.8xlarge-gu108", "ml.gni2.28xlarge",
                "8*H800", "Ascend 910B"):
        assert GPU_SKU.search(sku), sku
    for sku in ("modelarts.vm.cpu.8u", "ecs.g6.xlarge", "ecs.c7.2xlarge", "ml.c6.large", "ecs.g8i.48xlarge"):
        assert not GPU_SKU.search(sku), sku
    for unit in ("次", "千次", "calls", "1K tokens", "Requests"):
        assert PER_CALL.search(unit), unit
    for unit in ("Hour", "小时", "node-hour", "卡时"):
        assert not PER_CALL.search(unit), unit
