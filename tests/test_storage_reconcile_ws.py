"""The storage reconciliation through a workspace: a Huawei resource detail bill (资源详单, mapped to
FOCUS by its preset) with an OBS row and an unknown bucket, an inventory listing, then
``attribute --json``, ``trainledger storage`` and the batch sheet in json / md / html, en and zh-CN.

By hand: ``obs://ckpt-obs/run1/a.pt`` is 1000 GiB, standard (0.12 CNY per GiB-month), written
2026-11-01 and listed on 2026-11-30: 29 days = 1000 × 29 × 24 / 730 = 953.4247 GiB-months →
114.41 CNY. The bill's OBS row for ckpt-obs (November, local time) is 120.00 CNY for 695,808
GB-hours = 953.1616 GB-months: volume (953.1616 − 953.4247) × 0.12 = −0.03, price 120.00 −
114.41 − (−0.03) = 5.62 (the bill's 0.1259 per GB-month against the book's 0.12); difference 5.59.
The row for ``old-bucket`` (7.50) names a bucket the inventory does not list.
"""

from __future__ import annotations

import json
import textwrap

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .engine.factories import CONFIG

HUAWEI = (
    "账期,产品类型编码,产品类型,账单类型,使用开始时间,使用结束时间,资源ID,资源名称,资源标签,使用量,使用量单位,"
    "应付金额\n"
    "2026-11,hws.service.type.obs,对象存储服务,消费-使用,2026-11-01 00:00:00 GMT+08:00,"
    "2026-12-01 00:00:00 GMT+08:00,ckpt-obs,ckpt-obs,batch=b1,695808,GB-Hours,120.00\n"
    "2026-11,hws.service.type.obs,对象存储服务,消费-使用,2026-11-01 00:00:00 GMT+08:00,"
    "2026-12-01 00:00:00 GMT+08:00,old-bucket,old-bucket,,,,7.50\n"
)
INVENTORY = ("path,size_bytes,storage_class,owner,purpose,review_at,last_modified,snapshot_date,batch\n"
             "obs://ckpt-obs/run1/a.pt,1073741824000,checkpoint,o,recovery,2027-01-01,2026-11-01T00:00:00Z,"
             "2026-11-30,b1\n")
BOOK = """
[[price]]
item = "storage:standard"
unit = "gb_month"
price = "0.12"
low = "0.10"
high = "0.15"
currency = "CNY"
source = "list price"
effective = 2026-01-01
"""
RULE = '\n[[rules]]\nid = "storage-batch"\nsource = "storage"\nfield = "batch"\nmatch = "template"\n'


def _ws(tmp_path):
    root = tmp_path / "ws"
    root.mkdir()
    config = CONFIG.replace('[workspace]\ncurrency = "CNY"', '[workspace]\ncurrency = "CNY"\nprice_book = "p.toml"')
    (root / "trainledger.toml").write_text(textwrap.dedent(config) + RULE, encoding="utf-8")
    (root / "p.toml").write_text(BOOK, encoding="utf-8")
    (tmp_path / "hw.csv").write_text(HUAWEI, encoding="utf-8")
    (tmp_path / "inv.csv").write_text(INVENTORY, encoding="utf-8")
    with Workspace.init(root) as wsp:
        wsp.import_files("huawei", [tmp_path / "hw.csv"], options={"encoding": "utf-8"})
        wsp.import_files("storage", [tmp_path / "inv.csv"])
    return root


def _cli(*args):
    r = CliRunner().invoke(cli, [str(a) for a in args])
    assert r.exit_code == 0, r.output
    return r.output


def test_attribute_json_carries_the_reconciliation_per_currency(tmp_path):
    root = _ws(tmp_path)
    (cny,) = json.loads(_cli("--workspace", root, "attribute", "--json"))
    rec = cny["storage_reconciliation"]
    assert (rec["billed"], rec["estimate"]["expected"], rec["difference"]) == ("127.50", "114.41", "13.09")
    g, u = rec["groups"]
    assert (g["month"], g["location"], g["match"], g["billed_gib_months"]) == (
        "2026-11", "ckpt-obs", "matched", "953.1616")
    assert {p["kind"]: p["amount"] for p in g["parts"]} == {"volume": "-0.03", "price": "5.62"}
    assert (u["match"], u["difference"]) == ("bill_only", "7.50")
    assert rec["unmatched_bill_rows"][0]["resource"] == "old-bucket"
    assert _sum_of_groups(rec) == rec["difference"]


def _sum_of_groups(rec) -> str:  # the groups' differences, summed exactly
    from decimal import Decimal

    return str(sum((Decimal(g["difference"]) for g in rec["groups"]), Decimal(0)))


def test_storage_command_and_the_batch_sheet_in_both_languages(tmp_path):
    root = _ws(tmp_path)
    out = _cli("--workspace", root, "attribute")
    assert "CNY storage: billed 127.50 vs inventory estimate 114.41 (difference 13.09;" in out
    out = _cli("--workspace", root, "--lang", "zh-CN", "attribute")
    assert "CNY 存储：账单 127.50，清单估算 114.41（差额 13.09；" in out
    text = _cli("--workspace", root, "storage")
    assert "ckpt-obs | matched | 120.00 CNY | 114.41 (95.34–143.01) CNY | 5.59 CNY" in text
    assert "old-bucket" in text and "names a bucket / prefix the inventory does not list" in text
    zh = _cli("--workspace", root, "--lang", "zh-CN", "storage")
    assert "存储账单与存储清单估算对账——工作区" in zh and "单价差（账单单价 − 价格表单价） 5.62" in zh
    ws = json.loads(_cli("--workspace", root, "storage", "--json"))
    assert ws["by_currency"][0]["by_match"] == {"bill_only": "7.50", "matched": "5.59"}

    sheet = json.loads(_cli("--workspace", root, "sheet", "b1", "--format", "json"))
    rec = sheet["storage_reconciliation"]
    (g,) = rec["groups"]  # the unknown bucket's row is unattributed: not on b1's sheet
    assert (g["batch_billed"], g["batch_estimate"], g["difference"]) == ("120.00", "114.41", "5.59")
    md = _cli("--workspace", root, "sheet", "b1", "--format", "md")
    assert "### Storage bills against the inventory estimate (two bases side by side)" in md
    assert "| 2026-11 | ckpt-obs | matched | b1 | 120.00 CNY |" in md
    md_zh = _cli("--workspace", root, "--lang", "zh-CN", "sheet", "b1", "--format", "md")
    assert "### 存储账单与存储清单估算对账（两种口径并列）" in md_zh and "| 2026-11 | ckpt-obs | 已匹配 | b1 |" in md_zh
    html = _cli("--workspace", root, "sheet", "b1", "--format", "html")
    assert 'id="storage-reconciliation-groups"' in html and 'data-exact="5.59"' in html
    html_zh = _cli("--workspace", root, "--lang", "zh-CN", "sheet", "b1", "--format", "html")
    assert "本批次：账单 / 估算" in html_zh and "120.00 / 114.41 CNY" in html_zh
