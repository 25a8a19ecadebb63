"""`imports list`: its totals line is the sum of the per-import lines it shows (and of the
--json records), all imports and then the live ones; the import hint about the time zone does not
suggest --tz to a user who gave it."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

HEAD = "JobID|JobName|Account|WCKey|Comment|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList|Restarts"
ROW = "{id}|sft|ml|b1||li|2026-11-02T08:00:00|2026-11-02T08:00:00|2026-11-02T08:10:00|2026-11-02T10:10:00|" \
      "{state}|0:0|gres/gpu=8,node=1|gpu-node-01|0"
COLUMNS = ("rows_read", "accepted", "duplicates", "quarantined", "flagged")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    return root


def sacct(path, ids, bad=0, state="COMPLETED"):
    lines = [ROW.format(id=i, state=state) for i in ids]
    lines += [f"{9000 + k}|x|ml" for k in range(bad)]  # cut short: quarantined
    path.write_text(HEAD + "\n" + "\n".join(lines) + "\n", encoding="utf-8")
    return path


def listed(root):
    """(the import lines' counts, the totals lines' counts) of the text table."""
    out = run("--workspace", root, "imports", "list").splitlines()
    lines = [ln.split() for ln in out[1:]]
    imports = [[int(x) for x in parts[3:8]] for parts in lines if len(parts) >= 9 and parts[1] == "slurm"]
    totals = [[int(x) for x in ln.split()[-5:]] for ln in out if ln.startswith(("total", "of which live"))]
    return imports, totals, out


def test_the_totals_are_the_sums_of_the_lines_shown(ws, tmp_path):
    a = sacct(tmp_path / "a.txt", [1, 2, 3], bad=2)
    b = sacct(tmp_path / "b.txt", [3, 4])  # 3 is in a.txt: a duplicate
    c = sacct(tmp_path / "c.txt", [5], state="WEIRD")  # not a Slurm state: flagged
    for f in (a, b, a, c):  # a.txt again: nothing new
        run("--workspace", ws, "import", "slurm", f, "--tz", "UTC")
    imports, totals, out = listed(ws)
    assert sorted(imports) == [[1, 1, 0, 0, 1], [2, 1, 1, 0, 0], [5, 3, 0, 2, 0]]
    assert totals == [[8, 5, 1, 2, 1]] and "total (3 imports)" in out[-1]
    records = json.loads(run("--workspace", ws, "imports", "list", "--json"))
    assert [sum(r[k] for r in records) for k in COLUMNS] == totals[0]
    for r in records:
        assert r["rows_read"] == r["accepted"] + r["duplicates"] + r["quarantined"]
    # drop one: the total still sums every line shown, the live line only the live ones
    run("--workspace", ws, "imports", "drop", records[0]["id"], "--reason", "test")
    imports, totals, out = listed(ws)
    assert totals[0] == [sum(col) for col in zip(*imports, strict=True)]
    live = [line for line, r in zip(imports, json.loads(run("--workspace", ws, "imports", "list", "--json")),
                                    strict=True) if r["status"] == "live"]
    assert totals[1] == [sum(col) for col in zip(*live, strict=True)] and "of which live (2)" in out[-1]


def test_zh_totals_line(ws, tmp_path):
    run("--workspace", ws, "import", "slurm", sacct(tmp_path / "a.txt", [1, 2]), "--tz", "UTC")
    out = run("--workspace", ws, "--lang", "zh-CN", "imports", "list").splitlines()
    assert out[-1].startswith("合计（1 次导入）") and out[-1].split()[-5:] == ["2", "2", "0", "0", "0"]


def test_the_tz_hint_does_not_suggest_tz_when_it_was_given(ws, tmp_path):
    a = sacct(tmp_path / "a.txt", [1])
    given = run("--workspace", ws, "import", "slurm", a, "--tz", "Asia/Shanghai")
    assert "(sacct times read as Asia/Shanghai, the zone --tz gave)" in given
    assert "set --tz" not in given
    default = run("--workspace", ws, "import", "slurm", sacct(tmp_path / "b.txt", [2]))
    assert "set --tz or sources.slurm.timezone" in default  # the workspace's zone: --tz is the remedy
    zh = run("--workspace", ws, "--lang", "zh-CN", "import", "slurm", sacct(tmp_path / "c.txt", [3]), "--tz", "UTC")
    assert "（sacct 时间按 --tz 给出的 UTC 读取）" in zh and "请设置 --tz" not in zh


def test_the_local_times_hint_of_a_mapped_table_likewise(ws, tmp_path):
    log = tmp_path / "cluster_log.csv"
    log.write_text("job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n"
                   "1,u,vc,8,48,1,COMPLETED,2020-05-01 00:00:07,2020-05-01 00:01:07,2020-05-01 02:01:07,7200,60\n",
                   encoding="utf-8")
    given = run("--workspace", ws, "import", "jobs", log, "--preset", "slurm-trace", "--tz", "Asia/Shanghai")
    assert "(times without an offset read as Asia/Shanghai, the zone --tz gave)" in given
    assert "import it with --tz" not in given
    log2 = tmp_path / "cluster_log2.csv"
    log2.write_text(log.read_text(encoding="utf-8").replace("1,u,", "2,u,"), encoding="utf-8")
    default = run("--workspace", ws, "import", "jobs", log2, "--preset", "slurm-trace")
    assert "import it with --tz ZONE" in default
