"""Native Chinese cloud bills (Alibaba split-item, Huawei resource detail, Volcano Engine bill
detail) into the FOCUS bill table. Fixtures use the column names of the vendors' documentation
(docs/formats.md § Chinese cloud bills); values are made up."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from tests.ingest.ingest_helpers import check_golden, run, snapshot

from trainledger.errors import WrongFileType
from trainledger.ingest import import_files
from trainledger.lake import Lake

ALIYUN = (
    "账期,账单日期,账号ID,Owner账号ID,财务单元,产品,产品Code,计费项,实例ID,实例昵称,分拆项ID,"
    "分拆项名称,实例标签,地域,用量,用量单位,官网价,优惠金额,应付金额,币种\n"
    "2026-11,2026-11-02,1234567890,1234567890,算法部,云服务器ECS-按量付费,ecs,GPU实例规格,"
    "i-bp1gpu01,gpu01,i-bp1gpu01,gpu01,key:batch value:b7; key:team value:nlp,华东2（上海）,24,"
    "小时,3360.00,336.00,3024.00,CNY\n"
    "2026-11,2026-11-02,1234567890,1234567890,算法部,对象存储OSS,oss,标准存储容量,"
    "cn-shanghai;standard,,ckpt-bucket,ckpt-bucket,,华东2（上海）,1024,GB,4.12,0,4.12,CNY\n"
    "2026-11,2026-11-03,1234567890,1234567890,,云服务器ECS-按量付费,ecs,GPU实例规格,"
    "i-bp1gpu02,gpu02,,,,华东2（上海）,24,小时,3360.00,336.00,abc,CNY\n"
)

HUAWEI = (
    "账期,企业项目,企业项目ID,账号,产品类型编码,产品类型,产品编码,产品ID,产品,计费模式,消费时间,"
    "使用开始时间,使用结束时间,账单类型,资源ID,资源名称,资源标签,区域,使用量,使用量单位,官网价,"
    "应付金额,抹零金额\n"
    "2026-11,llm-train,4f1c,zhangsan,hws.service.type.ec2,弹性云服务器,hws.resource.type.vm,"
    "00301-1,GPU加速型p2s,按需,2026-11-02 10:00:00 GMT+08:00-2026-11-02 11:00:00 GMT+08:00,"
    "2026-11-02 10:00:00 GMT+08:00,2026-11-02 11:00:00 GMT+08:00,消费-使用,vm-gpu01,gpu01,"
    "batch=b7;team=nlp,华北-北京四,1,小时,55.00000000,49.50123456,0.00123456\n"
    "2026-11,llm-train,4f1c,zhangsan,hws.service.type.obs,对象存储服务,hws.resource.type.obs,"
    "00301-2,标准存储,按需,2026-11-02 00:00:00 GMT+08:00-2026-11-03 00:00:00 GMT+08:00,,,"
    "消费-使用,ckpt-bucket,ckpt-bucket,,华北-北京四,100,GB,1.00000000,0.99,0\n"
    "2026-11,llm-train,4f1c,zhangsan,hws.service.type.ec2,弹性云服务器,hws.resource.type.vm,"
    "00301-1,GPU加速型p2s,按需,,2026-11-05 00:00:00 GMT+08:00,2026-11-05 01:00:00 GMT+08:00,"
    "调账-人工补录,vm-gpu01,gpu01,,华北-北京四,,,-10,-10.00,0\n"
)

VOLC = (
    "BillPeriod,ExpenseDate,PayerID,OwnerID,Product,ProductZh,BillingMode,BillCategory,"
    "ExpenseBeginTime,ExpenseEndTime,InstanceNo,InstanceName,Region,Element,Count,Unit,Price,"
    "OriginalBillAmount,PreferentialBillAmount,PayableAmount,Currency,Tag\n"
    "2026-11,2026-11-02,2100057673,2100057673,ECS,云服务器,按量计费,consume-use,"
    "2026-11-02 00:00:00,2026-11-03 00:00:00,i-ycjlq77tdg8rx6ib4v1s,gpu-node-1,cn-beijing,"
    "GPU实例,24,小时,30,720,72,648,CNY,\"{\"\"batch\"\":\"\"b7\"\"}\"\n"
    "2026-11,2026-11-02,2100057673,2100057673,TOS,对象存储,按量计费,consume-use,,,"
    "tos-ckpt,ckpt,cn-beijing,标准存储,500,GB*天,0.004,2,0,2,CNY,\n"
)


@pytest.mark.parametrize(
    ("kind", "name", "text"),
    [("aliyun", "aliyun_split_bill", ALIYUN), ("huawei", "huawei_resource_bill", HUAWEI),
     ("volcengine", "volcengine_bill", VOLC)],
)
def test_golden(lake, write, kind, name, text):
    path = write(f"{name}.csv", text)
    res = run(kind, path, lake, import_date="2026-11-20")
    check_golden(name, snapshot(lake, kind, [res]))


def test_aliyun_rows_are_focus_bill_lines(lake, write):
    res = run("aliyun", write("a.csv", ALIYUN), lake, import_date="2026-11-20")
    assert (res.rows_read, res.accepted, res.quarantined) == (3, 2, 1)
    rows = lake.read("bill_lines").to_pylist()
    gpu = rows[0]
    # a day of the bill is a Beijing day: 2026-11-02 00:00 +08:00 is 2026-11-01 16:00 UTC
    assert gpu["charge_period_start"].isoformat() == "2026-11-01T16:00:00+00:00"
    assert gpu["charge_period_end"].isoformat() == "2026-11-02T16:00:00+00:00"
    assert (gpu["billed_cost"], gpu["list_cost"], gpu["currency"]) == ("3024.00", "3360.00", "CNY")
    assert (gpu["service_category"], gpu["provider"]) == ("Compute", "Alibaba Cloud")
    assert json.loads(gpu["tags"]) == {"batch": "b7", "team": "nlp"}
    # an OSS row names its bucket (the split item), not the region-and-tier "instance"
    assert rows[1]["resource_id"] == "ckpt-bucket"
    assert json.loads(rows[1]["extra"])["实例ID"] == "cn-shanghai;standard"
    assert sum(Decimal(r["billed_cost"]) for r in rows) == Decimal("3028.12")
    assert any("provisional" in f for f in json.loads(gpu["flags"]))


def test_gb18030_export_reads_like_utf8_and_is_a_duplicate_of_it(lake, write):
    first = run("aliyun", write("gb.csv", ALIYUN.encode("gb18030")), lake, import_date="2026-11-20")
    again = run("aliyun", write("utf8.csv", ALIYUN), lake, import_date="2026-11-20")
    assert (first.accepted, again.accepted, again.duplicates) == (2, 0, 2)
    assert lake.read("bill_lines").column("resource_name").to_pylist() == ["gpu01", "ckpt-bucket"]


def test_idempotent_and_same_content_under_another_name(lake, write):
    a = run("huawei", write("h.csv", HUAWEI), lake, import_date="2026-11-20")
    b = run("huawei", write("h.csv", HUAWEI), lake, import_date="2026-11-20")
    c = run("huawei", write("copy.csv", HUAWEI), lake, import_date="2026-11-20")
    assert a.accepted == 3 and (b.accepted, b.duplicates) == (0, 3) and c.duplicates == 3
    assert lake.read("bill_lines").num_rows == 3


def test_huawei_eight_decimals_and_vocabulary(lake, write):
    run("huawei", write("h.csv", HUAWEI), lake, import_date="2026-12-10")
    rows = lake.read("bill_lines").to_pylist()
    flags = [json.loads(r["flags"]) for r in rows]
    assert rows[0]["billed_cost"] == "49.50123456"
    assert any("8 decimals" in f for f in flags[0])
    assert not any("8 decimals" in f for f in flags[1])  # 0.99 is cents
    # the bill of November is final on 4 December 10:00 (+08:00): imported on the 10th, no note
    assert not any("provisional" in f for fl in flags for f in fl)
    # a bill type the preset does not know (made up: not among the documented ones) is kept with its
    # money and flagged, never quarantined
    assert rows[2]["charge_category"] == "调账-人工补录" and rows[2]["billed_cost"] == "-10.00"
    assert any("ChargeCategory" in f for f in flags[2])
    assert rows[0]["charge_category"] == "Usage" and rows[0]["service_category"] == "Compute"
    assert rows[0]["charge_period_start"].isoformat() == "2026-11-02T02:00:00+00:00"
    # the OBS row has no start/end: the period comes from its 消费时间 range
    assert rows[1]["charge_period_start"].isoformat() == "2026-11-01T16:00:00+00:00"
    assert rows[1]["charge_period_end"].isoformat() == "2026-11-02T16:00:00+00:00"


def test_volcengine_day_without_times_and_categories(lake, write):
    run("volcengine", write("v.csv", VOLC), lake, import_date="2026-11-20")
    rows = lake.read("bill_lines").to_pylist()
    assert rows[0]["charge_period_start"].isoformat() == "2026-11-01T16:00:00+00:00"
    assert rows[1]["charge_period_end"].isoformat() == "2026-11-02T16:00:00+00:00"  # ExpenseDate
    assert [r["service_category"] for r in rows] == ["Compute", "Storage"]
    assert json.loads(rows[0]["tags"]) == {"batch": "b7"}
    assert rows[0]["provider"] == "Volcano Engine"


def test_wrong_vendor_gets_one_clear_error(lake, write):
    with pytest.raises(WrongFileType) as e:
        import_files("huawei", [write("a.csv", ALIYUN)], lake)
    msg = str(e.value)
    assert "Alibaba Cloud split-item bill" in msg and "import aliyun" in msg.replace("`", "")
    with pytest.raises(WrongFileType) as e:
        import_files("slurm", [write("v.csv", VOLC)], lake, options={"tz": "UTC"})
    assert "Volcano Engine" in str(e.value)


def test_gb18030_export_with_mostly_ascii_rows_is_recognised(lake, write):
    """Real exports are mostly digits and ids: the file's head looks like damaged UTF-8 with few
    bad bytes, yet the Chinese header must still be read (as the preset's GB18030)."""
    header, *rows = ALIYUN.splitlines(keepends=True)
    ascii_row = ("2026-11,2026-11-02,1,1,x,ECS,ecs,GPU,i-{0},n{0},i-{0},n{0},,cn,1,h,1.00,0,1.00,CNY\n")
    text = header + "".join(ascii_row.format(i) for i in range(3000))
    res = run("aliyun", write("big.csv", text.encode("gb18030")), lake, import_date="2026-11-20")
    assert (res.rows_read, res.accepted) == (3000, 3000)


def test_a_carriage_return_before_a_header_is_no_traceback(tmp_path):
    """Found by the FOCUS fuzz test: a stray CR and a non-UTF-8 byte before a header crashed the
    GB18030 header re-read of the Chinese bill presets while another kind asked what the file is."""
    from trainledger.ingest import looks_like

    path = tmp_path / "bill.csv"
    header = "AvailabilityZone-BilledCost,BillingAccountId,BillingCurrency,ChargePeriodStart\n"
    row = "cn-wulanchabu-b,288.00,1498327710643215,杭州知言科技有限公司（示例）,CNY\n"
    path.write_bytes(b"\r\x8a" + header.encode() + row.encode() * 3)
    description, kind = looks_like(path)
    assert kind is None and description


def test_volcengine_rows_are_provisional_until_the_4th_10_00(lake, write, tmp_path):
    """docs/6269/139896: "费用账单建议在次月第4个自然日10点后拉取账单文件" — a November row imported on
    2026-11-20 may still change; imported 2026-12-10 it is final."""
    run("volcengine", write("v.csv", VOLC), lake, import_date="2026-11-20")
    flags = [json.loads(r["flags"]) for r in lake.read("bill_lines").to_pylist()]
    assert all(any("final after 2026-12-04T10:00:00+08:00" in f for f in fl) for fl in flags)
    later = Lake(tmp_path / "later")
    run("volcengine", write("v2.csv", VOLC), later, import_date="2026-12-10")
    assert not any("provisional" in f for r in later.read("bill_lines").to_pylist() for f in json.loads(r["flags"]))
