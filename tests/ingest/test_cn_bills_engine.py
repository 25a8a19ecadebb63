"""A native Chinese bill is attributed as the same bill written as FOCUS: same lines, same
batches, same conservation (the preset maps onto columns the engine already reads)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tests.engine.factories import CONFIG, T0, price_lookup
from tests.ingest.ingest_helpers import run

from trainledger import workspace
from trainledger.engine import Facts, attribute
from trainledger.lake import Lake

SACCT = (
    "JobID|JobName|WCKey|Submit|Start|End|State|AllocTRES|NodeList\n"
    "100|pretrain|b1|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T09:30:00|COMPLETED|"
    "gres/gpu=4|n1\n"
)
HUAWEI = (
    "账期,产品类型编码,产品类型,账单类型,使用开始时间,使用结束时间,资源ID,资源名称,资源标签,应付金额\n"
    "2026-11,hws.service.type.ec2,弹性云服务器,消费-使用,2026-11-02 08:00:00 GMT+08:00,"
    "2026-11-02 09:00:00 GMT+08:00,n1,n1,,80.00\n"
    "2026-11,hws.service.type.ec2,弹性云服务器,消费-使用,2026-11-02 09:00:00 GMT+08:00,"
    "2026-11-02 10:00:00 GMT+08:00,n1,n1,,80.00\n"
    "2026-11,hws.service.type.ec2,弹性云服务器,消费-使用,2026-11-02 08:00:00 GMT+08:00,"
    "2026-11-02 09:00:00 GMT+08:00,etl-vm,etl,batch=b1,7.00123456\n"
)
FOCUS = (
    "ChargePeriodStart,ChargePeriodEnd,ChargeCategory,ServiceCategory,ResourceId,ResourceName,"
    "Tags,BilledCost,BillingCurrency\n"
    "2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,Usage,Compute,n1,n1,,80.00,CNY\n"
    "2026-11-02T01:00:00Z,2026-11-02T02:00:00Z,Usage,Compute,n1,n1,,80.00,CNY\n"
    '2026-11-02T00:00:00Z,2026-11-02T01:00:00Z,Usage,Compute,etl-vm,etl,"{""batch"": ""b1""}",'
    "7.00123456,CNY\n"
)


@pytest.fixture(scope="module")
def config(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "trainledger.toml").write_text(textwrap.dedent(CONFIG), encoding="utf-8")
    return workspace.load(root)


def _attribute(tmp_path: Path, kind: str, text: str, config):
    lake = Lake(tmp_path / kind)
    src = tmp_path / f"{kind}.csv"
    src.write_text(text, encoding="utf-8")
    sacct = tmp_path / "sacct.txt"
    sacct.write_text(SACCT, encoding="utf-8")
    run("slurm", sacct, lake, tz="Asia/Shanghai")
    run(kind, src, lake, import_date="2026-12-10")
    facts = Facts(jobs=tuple(lake.read("jobs").to_pylist()),
                  bill_lines=tuple(lake.read("bill_lines").to_pylist()))
    return attribute(facts, config, price_lookup, T0.date())


def test_huawei_bill_is_attributed_like_focus(tmp_path, config):
    hw = _attribute(tmp_path, "huawei", HUAWEI, config)
    fo = _attribute(tmp_path, "focus", FOCUS, config)

    def view(result):
        return sorted((str(ln.basis), str(ln.batch_id), str(ln.run_id), str(ln.amount.expected),
                       ln.provenance.row)
                      for ln in result.lines)

    assert view(hw) == view(fo)
    assert hw.conservation == fo.conservation
    assert hw.conservation[0]["billed_total"] == "167.00123456"
    b1 = sum(ln.amount.expected for ln in hw.lines if ln.batch_id == "b1")
    # job 100 holds 4 of 8 GPUs: 40.00 in hour one, 20.00 in the half hour of hour two, + the ETL VM
    assert str(b1) == "67.00123456"
