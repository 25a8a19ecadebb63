"""Issue 8 (K6 for Alibaba and Huawei): a bill that names its product only in Chinese still gets a
service category, as the Volcano Engine preset already did. The files are the documented fixtures of
tests/data/cn-bills with the product-code column left out (or emptied), as a console export without
it writes them; a name the preset does not know keeps its row, flagged, in either language."""

from __future__ import annotations

import csv
import io
import json

from tests.ingest.ingest_helpers import run
from tests.ingest.test_cn_bills_documented import DATA, FINAL

from trainledger.i18n import localize


def _without(name: str, drop: str, tmp_path, rows: list[dict] | None = None):
    """The fixture ``name`` without its column ``drop`` (and with ``rows`` added)."""
    text = (DATA / name).read_text(encoding="utf-8")
    table = list(csv.DictReader(io.StringIO(text)))
    head = [h for h in table[0] if h != drop]
    out = io.StringIO()
    w = csv.DictWriter(out, head, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in table + (rows or []):
        w.writerow({h: r.get(h, "") for h in head})
    path = tmp_path / name
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


def _rows(lake):
    return lake.read("bill_lines").to_pylist()


def _unknown(row) -> bool:
    return any("no service category" in f for f in json.loads(row["flags"]))


def test_an_alibaba_bill_without_product_codes_is_categorised_by_product_name(lake, tmp_path):
    res = run("aliyun", _without("aliyun_split_bill_documented.csv", "产品Code", tmp_path), lake, import_date=FINAL)
    assert (res.accepted, res.quarantined) == (2, 0)
    gpu, oss = _rows(lake)  # 产品 云服务器ECS, 对象存储OSS
    assert (gpu["service_category"], oss["service_category"]) == ("Compute", "Storage")
    assert not _unknown(gpu) and not _unknown(oss)


def test_an_alibaba_api_row_with_an_empty_product_code_falls_back_to_its_name(lake, tmp_path):
    text = (DATA / "aliyun_split_bill_api.csv").read_text(encoding="utf-8").splitlines()
    head = text[0].split(",")
    rows = [line.split(",") for line in text[1:]]
    rows[0][head.index("ProductCode")] = ""  # ProductName 云服务器ECS
    rows[1][head.index("ProductCode")] = ""
    rows[1][head.index("ProductName")] = "云数据库 PolarDB"  # a product the preset does not know
    path = tmp_path / "api.csv"
    path.write_text("\n".join([text[0], *(",".join(r) for r in rows)]) + "\n", encoding="utf-8")
    run("aliyun", path, lake, import_date=FINAL)
    known, other = _rows(lake)
    assert (known["service_category"], other["service_category"]) == ("Compute", None)
    assert not _unknown(known) and _unknown(other)
    note = next(f for f in json.loads(other["flags"]) if "no service category" in f)
    zh = localize(note, "zh-CN")
    assert zh.startswith("备注：未识别服务类别") and "产品 / ProductName" in zh and "is not one" not in zh
    assert not any("\u4e00" <= c <= "\u9fff" for c in note.replace("产品Code", "").replace("产品", ""))


def test_a_huawei_bill_without_product_type_codes_is_categorised_by_product_type(lake, tmp_path):
    more = [{"账期": "2020-08", "账号": "zhangsan", "产品类型": "对象存储服务", "产品": "标准存储单AZ存储",
             "计费模式": "按需", "消费时间": "2020-08-23 22:00:00 GMT+08:00-2020-08-23 23:00:00 GMT+08:00",
             "使用开始时间": "2020-08-23 22:00:00 GMT+08:00", "使用结束时间": "2020-08-23 23:00:00 GMT+08:00",
             "账单类型": "消费-使用", "资源ID": "ckpt-obs", "资源名称": "ckpt-obs", "使用量": "100", "单价": "0.099",
             "官网价": "9.90", "优惠金额": "0", "抹零金额": "0", "应付金额": "9.90"},
            {"账期": "2020-08", "账号": "zhangsan", "产品类型": "云数据库 GaussDB", "产品": "实例",
             "计费模式": "按需", "消费时间": "2020-08-23 22:00:00 GMT+08:00-2020-08-23 23:00:00 GMT+08:00",
             "使用开始时间": "2020-08-23 22:00:00 GMT+08:00", "使用结束时间": "2020-08-23 23:00:00 GMT+08:00",
             "账单类型": "消费-使用", "资源ID": "db-1", "资源名称": "db-1", "使用量": "1", "单价": "2",
             "官网价": "2.00", "优惠金额": "0", "抹零金额": "0", "应付金额": "2.00"}]
    path = _without("huawei_resource_bill_documented.csv", "产品类型编码", tmp_path, more)
    res = run("huawei", path, lake, import_date=FINAL)
    assert (res.accepted, res.quarantined) == (3, 0)
    ecs, obs, db = _rows(lake)  # 产品类型 弹性云服务器 (the bill guide's own example), 对象存储服务, an unknown one
    assert [r["service_category"] for r in (ecs, obs, db)] == ["Compute", "Storage", None]
    assert [_unknown(r) for r in (ecs, obs, db)] == [False, False, True]
