"""The import and scheduler commands' smaller texts (review finding 12): a count reads as a count,
a header-only file says it had no rows, a mapped import's --tz hint names no Slurm setting, a
pending job's wait is not a garbled sentence, and `imports drop --by` names the person."""

from __future__ import annotations

import json

from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

HEAD = ("账期,消费时间,账号ID,Owner账号ID,财务单元,产品,产品Code,计费项,实例ID,实例昵称,分拆项ID,分拆项名称,"
        "实例标签,地域,用量,用量单位,官网价,优惠金额,应付金额,币种\n")
ROW = ("2026-11,2026-11-10 {h}:00:00 - 2026-11-10 {e}:00:00,1,1,算法部,云服务器ECS-按量付费,ecs,GPU实例规格,"
       "i-h800-a1,h800-a1,h800-a1,h800-a1,,华北6,1,小时,400.00,80.00,320.00,CNY\n")
SACCT = """JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts
7001|sft|ml|b1||li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|COMPLETED|0:0|gres/gpu=8,node=1|gpu-node-01|0
7002|sft|ml|b1||li|2026-11-02T11:00:00|2026-11-02T11:00:00|Unknown|Unknown|PENDING|0:0||None assigned|0
"""


def run(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


def _ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    return root


def test_provisional_bill_says_a_count_of_rows(tmp_path):
    root = _ws(tmp_path)
    bill = tmp_path / "bill.csv"
    bill.write_text(HEAD + "".join(ROW.format(h=h, e=h + 1) for h in range(10, 13)), encoding="utf-8")
    out = run("--workspace", root, "--lang", "en", "import", "aliyun", bill)
    line = next(ln for ln in out.splitlines() if ln.strip().startswith("provisional bill"))
    assert line.strip() == "provisional bill: 3 row(s)", out
    zh = run("--workspace", _ws(tmp_path / "z"), "--lang", "zh-CN", "import", "aliyun", bill)
    assert "暂估账单：3 行" in zh and "provisional bill" not in zh  # review 4 H10: the label in Chinese too


def test_a_header_only_file_says_it_has_no_data_rows(tmp_path):
    root = _ws(tmp_path)
    bill = tmp_path / "empty.csv"
    bill.write_text(HEAD, encoding="utf-8")
    out = run("--workspace", root, "--lang", "en", "import", "aliyun", bill)
    assert "0 accepted, 0 duplicate, 0 quarantined" in out and "the file has no data rows" in out
    full = tmp_path / "bill.csv"
    full.write_text(HEAD + ROW.format(h=10, e=11), encoding="utf-8")
    assert "no data rows" not in run("--workspace", root, "--lang", "en", "import", "aliyun", full)
    assert "no data rows" not in run("--workspace", root, "--lang", "en", "import", "aliyun", full)  # all dup
    assert "没有数据行" in run("--workspace", root, "--lang", "zh-CN", "import", "aliyun", bill)


def test_a_mapped_import_tz_hint_names_no_slurm_setting():
    from trainledger.i18n.core import text

    for lang in ("en", "zh-CN"):
        hint = text("cli.import.local_tz", lang, tz="UTC", example="Asia/Shanghai")
        assert "sources.slurm" not in hint and "--tz" in hint


def test_jobs_with_a_pending_job_says_it_is_still_pending(tmp_path):
    root = _ws(tmp_path)
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    run("--workspace", root, "import", "slurm", tmp_path / "sacct.txt")
    assert json.loads(run("--workspace", root, "jobs", "--json"))["never_started"] == 1
    out = run("--workspace", root, "jobs", "--lang", "en")
    assert "waited 0 times" not in out and "mean – s" not in out
    # submitted 11:00, after the latest fact (7001's end, 10:10): the sheet's queued rows count no wait yet
    assert "never started, no end: 1 jobs whose wait is in no queued figure" in out
    assert "1 个作业的等待不计入任何排队数字" in run("--workspace", root, "jobs", "--lang", "zh-CN")


def test_imports_drop_by_names_the_person_in_both_logs(tmp_path):
    root = _ws(tmp_path)
    (tmp_path / "sacct.txt").write_text(SACCT, encoding="utf-8")
    run("--workspace", root, "import", "slurm", tmp_path / "sacct.txt")
    (imp,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    run("--workspace", root, "imports", "drop", imp["id"], "--reason", "wrong tz", "--by", "li.na")
    with Workspace.open(root) as wsp:
        (drop,) = [e for e in wsp.ledger.audit_log() if e["action"] == "drop_import"]
        assert drop["actor"] == "li.na"
        assert [e["actor"] for e in wsp.lake.events() if e.get("action") == "drop"] == ["li.na"]


def test_imports_show_in_zh_says_the_provisional_flag_as_the_sheet_does(tmp_path):
    """Review 4 H3: the flagged rows of `imports show` are in Chinese on --lang zh-CN (the stored
    English note is parsed and said with the sheet's sentence); English keeps the stored text."""
    import json

    root = _ws(tmp_path)
    bill = tmp_path / "bill.csv"
    bill.write_text(HEAD + "".join(ROW.format(h=h, e=h + 1) for h in range(10, 12)), encoding="utf-8")
    run("--workspace", root, "import", "aliyun", bill)
    ident = json.loads(run("--workspace", root, "imports", "list", "--json"))[0]["id"]
    zh = run("--workspace", root, "--lang", "zh-CN", "imports", "show", ident)
    assert zh.count("行为暂估数据") == 2 and "（阿里云，导入 " in zh and "is final after" not in zh
    en = run("--workspace", root, "--lang", "en", "imports", "show", ident)
    assert en.count("is final after") == 2 and "暂估" not in en
