"""Review 8 (R8-3, R8-4, R8-5), on a sacct dump with a PENDING and a RUNNING job and one rate-card capacity.

The dump (local time Asia/Shanghai, capacity ``g1``: node n1, 8 GPUs, 2026-11-10 +08:00, 12.50 CNY/GPU-hour),
every job of batch b1 (WCKey):

====  =========  =====  ===========  ===========  ====  ==========================================
job   state      GPUs   submit       start        end   what it is by hand
====  =========  =====  ===========  ===========  ====  ==========================================
1     COMPLETED  2      00:00        01:00        03:00 queue 1 h × 2 = 2 GPU-h (25.00); held 4 GPU-h
2     PENDING    4      02:00        —            —     waits to the cutoff 06:00: 4 h × 4 = 16 GPU-h
3     RUNNING    1      03:00        03:00        —     open: held to the cutoff, 3 GPU-h (37.50)
4     COMPLETED  1      04:00        04:00        06:00 held 2 GPU-h (25.00); its End is the latest fact
5–7   COMPLETED  1      04:00–04:40  same         +20m  each 1/3 GPU-h = 4.1666… → 4.17 on its own line
====  =========  =====  ===========  ===========  ====  ==========================================

- The cutoff (the latest fact, engine/asof.py) is job 4's End, 06:00 +08:00 = 2026-11-09T22:00:00Z.
- Job 2 names no node, so no capacity holds it, and ``cluster.gpu_item`` is unset: its 16 queued GPU-hours are
  counted but not valued. Job 1's 2 are valued at the capacity's rate, 25.00; the queued row's price is
  25.00 ÷ 2 = 12.5000, not 25.00 ÷ 18 = 1.3889 (R8-3).
- ``jobs``: held 4 + 3 + 2 + 3 × 1/3 = 10 GPU-hours, of which the open job 3's 3 (R8-4); queued 2 + 16 = 18.
- The rate-card row: 50.00 + 37.50 + 25.00 + 3 × 4.17 = 125.01 CNY over 10 GPU-hours; 12.50 × 10 = 125.00 (R8-5).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

HEAD = ("JobID|JobIDRaw|JobName|Account|WCKey|User|Submit|Eligible|Start|End|State|ExitCode|AllocTRES|NodeList"
        "|Restarts\n")
ROWS = [
    ("1", "00:00", "01:00", "03:00", "COMPLETED", 2, "n1"),
    ("2", "02:00", None, None, "PENDING", 4, None),
    ("3", "03:00", "03:00", None, "RUNNING", 1, "n1"),
    ("4", "04:00", "04:00", "06:00", "COMPLETED", 1, "n1"),
    ("5", "04:00", "04:00", "04:20", "COMPLETED", 1, "n1"),
    ("6", "04:20", "04:20", "04:40", "COMPLETED", 1, "n1"),
    ("7", "04:40", "04:40", "05:00", "COMPLETED", 1, "n1"),
]
DAY = "2026-11-10T"
TOML = """[workspace]
name = "r8"
currency = "CNY"
language = "en"
db_url = ""
price_book = ""
timezone = "Asia/Shanghai"

[sources.slurm]
timezone = "Asia/Shanghai"

[cluster]
gpus_per_node = 8
gpu_item = ""

[[projects]]
id = "p"
goal = "review 8"

[[batches]]
id = "b1"
project = "p"
goal = "g"
data_snapshot = "d1"
data_processing_version = "p1"
model_version = "m1"
code_version = "c1"
config_version = "b1-v1"
team = "t1"
owner = "wang.lei"

[[rules]]
id = "slurm-wckey"
source = "slurm"
field = "wckey"
match = "template"
pattern = "{batch}"

[[capacity]]
id = "g1"
nodes = ["n1"]
gpus_per_node = 8
from = 2026-11-10T00:00:00+08:00
until = 2026-11-11T00:00:00+08:00
currency = "CNY"
rate = "12.50"
unit = "gpu_hour"
effective = 2026-11-01
source = "contract RC-1"
owner = "procurement: qian.yu"
evidence = "contract"
"""


def _sacct() -> str:
    def at(hm):
        return f"{DAY}{hm}:00" if hm else "Unknown"

    return HEAD + "".join(
        f"{j}|{j}|job-{j}|acct|b1|alice|{at(sub)}|{at(sub)}|{at(start)}|{at(end)}|{state}|0:0|"
        f"cpu=4,node=1,gres/gpu={gpus}|{node or 'None assigned'}|0\n"
        for j, sub, start, end, state, gpus, node in ROWS)


def run(*args):
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("r8")
    root = tmp / "ws"
    Workspace.init(root).close()
    (root / "trainledger.toml").write_text(TOML, encoding="utf-8")
    (tmp / "sacct.txt").write_text(_sacct(), encoding="utf-8")
    run("--workspace", root, "import", "slurm", tmp / "sacct.txt")
    run("--workspace", root, "attribute")
    return root


def _sheet(ws):
    return json.loads(run("--workspace", ws, "sheet", "b1", "--format", "json"))


def test_never_started_queue_is_its_own_not_valued_row_and_the_price_is_over_valued_hours(ws):
    rows = [r for r in _sheet(ws)["compute_by_state"] if r["basis"] == "queued"]
    valued, unvalued = rows
    assert (valued["gpu_hours"], valued["valued"], valued["amounts"][0]["expected"]) == ("2.0000", True, "25.00")
    assert valued["price_per_gpu_hour"]["amount"] == "12.5000"  # 25.00 ÷ 2, not 25.00 ÷ 18
    assert (unvalued["gpu_hours"], unvalued["valued"], unvalued["amounts"]) == ("16.0000", False, [])
    assert unvalued["price_per_gpu_hour"] is None


def test_the_sheet_says_queued_hours_valued_and_not_and_they_add_up(ws):
    h = _sheet(ws)["compute_hours"]
    assert (h["queued_valued_gpu_hours"], h["queued_not_valued_gpu_hours"], h["queued_gpu_hours"]) == (
        "2.0000", "16.0000", "18.0000")
    md = run("--workspace", ws, "sheet", "b1")
    assert "| queued | queued | 16.00 | not valued | — |" in md
    assert "valued 2.00 + not valued 16.00 = 18.00" in md
    zh = run("--workspace", ws, "sheet", "b1", "--lang", "zh-CN")
    assert "已计价 2.00 + 未计价 16.00 = 18.00" in zh


def test_attributes_warning_names_the_hours_it_did_not_value(ws):
    out = run("--workspace", ws, "attribute")
    assert ("queue not valued: 16.0000 queued GPU-hours of 1 job(s) that no [[capacity]] holds (1 never started,"
            " so they name no node) are counted but not valued") in out


def test_jobs_counts_the_pending_wait_and_the_open_attempt_to_the_cutoff(ws):
    got = json.loads(run("--workspace", ws, "jobs", "--json"))
    assert got["cutoff"] == {"time": "2026-11-09T22:00:00+00:00", "source": "latest_fact"}
    assert got["pending_wait_seconds"]["count"] == 1 and got["pending_wait_seconds"]["mean"] == 4 * 3600.0
    assert got["queued_gpu_hours"] == {"total": "18.000000", "started": "2.000000", "given_up": "0.000000",
                                       "pending": "16.000000"}
    assert got["open_attempts"] == 1
    assert (got["gpu_hours"]["total"], got["gpu_hours"]["open_attempts"]) == ("10.000000", "3.000000")
    assert got["gpu_hours"]["by_final_state"] == {"COMPLETED": "7.000000", "RUNNING": "3.000000"}


def test_jobs_total_agrees_with_what_attribute_charges(ws):
    """The sheet's held hours (the runs') equal ``jobs``' total, the open job included."""
    s = _sheet(ws)
    assert Decimal(s["compute_hours"]["runs_gpu_hours"]) == Decimal(
        json.loads(run("--workspace", ws, "jobs", "--json"))["gpu_hours"]["total"])


def test_jobs_text_says_where_it_cut_in_both_languages(ws):
    en = run("--workspace", ws, "jobs", "--lang", "en")
    assert "GPU-hours (fractional GPUs pro rata): 10.000000" in en
    assert ("of which 1 open attempts (started, not ended), each counted to where attribute cuts it"
            " (Start + Elapsed from the export, else the cutoff 2026-11-09 22:00:00 UTC): 3.000000") in en
    assert "still pending, waited so far (eligible, else submit → 2026-11-09 22:00:00 UTC), 1 jobs: mean 14400 s" in en
    assert "queued GPU-hours, as the sheets' queued rows count them (valued or not): 18.000000" in en
    zh = run("--workspace", ws, "jobs", "--lang", "zh-CN")
    assert "其中 1 次未结束的尝试（已启动未结束），各计至 attribute 的截止点" in zh and "：3.000000" in zh
    assert "截止时刻 2026-11-09 22:00:00 UTC：已导入数据中最晚的时刻" in zh


def test_a_rate_card_rows_per_line_rounding_is_said_beside_its_price(ws):
    s = _sheet(ws)
    (card,) = [r for r in s["compute_by_state"] if r["basis"] == "rate_card"]
    assert (card["gpu_hours"], card["amounts"][0]["expected"]) == ("10.0000", "125.01")
    assert card["price_per_gpu_hour"] == {"amount": "12.5000", "currency": "CNY", "split_rounding": True,
                                          "split_lines": 6}
    note = ("125.01 CNY is the sum of 6 cost lines, each rounded to the minor unit on its own; price per GPU-hour ×"
            " GPU-hours = 125.00 CNY")
    assert note in run("--workspace", ws, "sheet", "b1")
    assert note in run("--workspace", ws, "sheet", "b1", "--format", "html")
    assert "125.01 CNY 是 6 条成本行之和" in run("--workspace", ws, "sheet", "b1", "--lang", "zh-CN")


def test_the_workbook_says_the_same_notes_and_marks_the_unvalued_queue(ws, tmp_path):
    from openpyxl import load_workbook

    out = tmp_path / "b1.xlsx"
    run("--workspace", ws, "sheet", "b1", "--format", "xlsx", "--out", out)
    texts = [c for sh in load_workbook(out).worksheets for row in sh.iter_rows(values_only=True) for c in row
             if isinstance(c, str)]
    assert any("125.01 CNY is the sum of 6 cost lines" in c for c in texts)
    assert any("valued 2.00 + not valued 16.00 = 18.00" in c for c in texts)
    assert any(c.startswith("queued") and "not valued" in c and "未计价" in c for c in texts)  # en / zh-CN
