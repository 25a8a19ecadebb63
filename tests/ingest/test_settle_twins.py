"""Identical rows inside one file are legitimate and all count, on every path (review finding 9).

A file's repeated rows (two equal 2.40 CNY traffic charges) are the statement of the file. Whatever
the order of imports — fresh, the same file again, an earlier version of it with a row in
quarantine, ``--replace`` of that version, ``imports drop`` + re-import — the live lake holds each
row of the final file exactly as many times as the file has it.
"""

from __future__ import annotations

import json
from collections import Counter
from decimal import Decimal

import pyarrow as pa
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.ingest.test_ingest_lake import _rows

from trainledger.cli import cli
from trainledger.lake import Lake, Settle
from trainledger.service import Workspace

TABLE = "external_services"
OLD, NEW = "a" * 64, "b" * 64


def _import(lake: Lake, sha: str, hashes: list[str], rows: list[int]) -> int:
    """Import the rows ``rows`` (1-based row numbers) of a file whose row i has hash hashes[i-1]."""
    t = _rows(hashes, sha)
    t = t.filter(pa.array([r in rows for r in t.column("row").to_pylist()]))
    with lake.open_partition(TABLE, sha) as w:
        w.write(t)
        committed = w.commit(settle=Settle())
    return 0 if committed is None else committed.rows


def _live(lake: Lake) -> Counter:
    return Counter(lake.read(TABLE).column("row_hash").to_pylist())


files = st.lists(st.sampled_from("xyz"), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(final=files, data=st.data())
def test_every_path_keeps_each_copy_of_the_final_file(tmp_path_factory, final, data):
    """The earlier version is the final file with some rows quarantined (not in its partition);
    after any path the lake holds the final file's multiset of rows."""
    n = len(final)
    every = list(range(1, n + 1))
    quarantined = data.draw(st.sets(st.sampled_from(every), max_size=n), label="quarantined")
    first = [r for r in every if r not in quarantined]
    path = data.draw(st.sampled_from(["fresh", "again", "fix", "fix+replace", "fix+again"]))
    lake = Lake(tmp_path_factory.mktemp("lake"))
    want = Counter(final)
    if path == "fresh":
        _import(lake, NEW, final, every)
    elif path == "again":
        _import(lake, NEW, final, every)
        assert _import(lake, NEW, final, every) == 0
    else:
        _import(lake, OLD, final, first)  # the version with the bad rows (same hashes otherwise)
        _import(lake, NEW, final, every)  # the fixed file
        assert _live(lake) == want, path
        if path == "fix+again":
            assert _import(lake, NEW, final, every) == 0
        else:  # --replace OLD / `imports drop OLD` + import the fixed file again
            lake.log_drop("invoice", OLD, "fixed", table=TABLE)
            _import(lake, NEW, final, every)
    assert _live(lake) == want, (path, first)


BILL_HEAD = ("账期,消费时间,账号ID,Owner账号ID,财务单元,产品,产品Code,计费项,实例ID,实例昵称,分拆项ID,分拆项名称,"
             "实例标签,地域,用量,用量单位,官网价,优惠金额,应付金额,币种\n")
NODE = ("2026-11,2026-11-10 {h:02d}:00:00 - 2026-11-10 {e:02d}:00:00,1,1,算法部,云服务器ECS-按量付费,ecs,GPU实例规格,"
        "i-h800-a1,h800-a1,h800-a1,h800-a1,key:cluster value:h800,华北6,1,小时,400.00,80.00,320.00,CNY\n")
EIP = ("2026-11,2026-11-10 09:00:00 - 2026-11-10 13:00:00,1,1,算法部,弹性公网IP,eip,流量,eip-9,eip-9,eip-9,eip-9,,"
       "华北6,3,GB,3.00,0.00,{amount},CNY\n")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def _billed(root) -> str:
    with Workspace.open(root) as ws:
        amounts = ws.lake.read("bill_lines").column("billed_cost").to_pylist()
    return str(sum(Decimal(a) for a in amounts))


def test_fixing_a_quarantined_twin_then_replace_keeps_both_twins(tmp_path):
    """The reviewer's path: import with 壹佰元 (quarantined), fix it to 2.40 (now two identical
    rows), import, --replace the old import: 4 × 320 + 2 × 2.40 as a fresh import gives."""
    nodes = "".join(NODE.format(h=h, e=h + 1) for h in range(9, 13))
    bad, fixed = tmp_path / "bill.csv", tmp_path / "bill-fixed.csv"
    bad.write_text(BILL_HEAD + nodes + EIP.format(amount="2.40") + EIP.format(amount="壹佰元"), encoding="utf-8")
    fixed.write_text(BILL_HEAD + nodes + EIP.format(amount="2.40") * 2, encoding="utf-8")
    fresh, root = tmp_path / "fresh", tmp_path / "ws"
    for r in (fresh, root):
        Workspace.init(r).close()
    run("--workspace", fresh, "import", "aliyun", fixed)
    assert _billed(fresh) == "1284.80"

    run("--workspace", root, "import", "aliyun", bad)
    (old,) = json.loads(run("--workspace", root, "imports", "list", "--json"))
    assert old["quarantined"] == 1
    said = run("--workspace", root, "--lang", "en", "attribute")  # the remedy names the import to replace
    assert f"`trainledger --workspace {root} import aliyun FILE --replace ID` (import {old['id']};" in said
    run("--workspace", root, "import", "aliyun", fixed)
    out = run("--workspace", root, "import", "aliyun", fixed, "--replace", old["id"])
    # the drop gives the fixed file the 5 rows it stated beside the old import's (lake/resettle.py):
    # its re-read then finds all 6 of its rows in the lake
    assert "(import +rows: " in out and "+5)" in out and "0 accepted, 6 duplicate, 0 quarantined" in out, out
    assert _billed(root) == "1284.80"
