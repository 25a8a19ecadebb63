"""``attribute`` and the sheet show a pool's occupancy split and the demand left waiting while
capacity was idle — the latter as an opportunity cost beside the totals, in en and zh-CN.

The hand example of tests/engine/test_occupancy_money.py, as a workspace: cluster X pool vcA (8
GPUs a day at 10.00), jobs 1 and 2 of batch b1 (96 GPU-h = 960.00), and a per-minute Helios-style
series of X/vcA for 11-02: 6 running / 2 idle / 3 pending GPUs 00–12 h, 0 / 8 / 0 after. By hand:
3,840.00 = 960.00 + held, jobs not imported 240.00 (24 GPU-h) + no job held 2,640.00; demand left
waiting while capacity was idle min(3, 2) × 12 = 24 GPU-h = 240.00 (all pending while some GPU was
idle 3 × 12 = 36 GPU-h = 360.00)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .engine.factories import CONFIG
from .engine.test_vc_pools import POOL, RULE

VC = Path(__file__).resolve().parent / "data" / "vc-pools"


def run(*args) -> str:
    res = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture(scope="module")
def ws(tmp_path_factory):
    root = tmp_path_factory.mktemp("occ-cli") / "ws"
    with Workspace.init(root, currency="CNY"):
        pass
    cfg = textwrap.dedent(CONFIG).replace('[[rules]]\nid = "wckey"', (RULE + POOL.format(
        id="pool-a", vc='vc = "vcA"\n', rate="10.00")).strip() + '\n[[rules]]\nid = "wckey"', 1)
    (root / "trainledger.toml").write_text(cfg, encoding="utf-8")
    rows = ["time,total_gpu_num,running_gpu_num,pending_gpu_num,idle_gpu_num"]
    for m in range(1440):
        h = m // 60
        rows.append(f"2026-11-02 {h:02d}:{m % 60:02d}:00,8,{6 if h < 12 else 0},{3 if h < 12 else 0},"
                    f"{2 if h < 12 else 8}")
    (root / "occ.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    with Workspace.open(root) as wsp:
        wsp.import_files("nodes", [VC / "gpus.csv"], options={"preset": "helios-gpus", "tz": "UTC",
                                                            "set": ["cluster=X"]})
        wsp.import_files("jobs", [VC / "jobs.csv"], options={"preset": "slurm-trace", "tz": "UTC",
                                                           "set": ["cluster=X"]})
        wsp.import_files("occupancy", [root / "occ.csv"], options={"preset": "helios", "tz": "UTC",
                                                                 "set": ["cluster=X", "vc=vcA"]})
    return root


def test_attribute_prints_the_split_and_the_opportunity_cost_apart(ws):
    out = run("--workspace", ws, "--lang", "en", "attribute")
    assert "capacity pool-a CNY: 3,840.00 = attributed 960.00 + unheld 2,640.00" in out
    assert "+ held, jobs not imported 240.00 CNY (24.00 GPU-h, by the occupancy series: 1,440 samples" in out
    assert ("opportunity cost, not in any total: demand left waiting while capacity was idle 24.00 GPU-h ="
            " 240.00 CNY (all pending while some GPU was idle: 36.00 GPU-h = 360.00)") in out
    zh = run("--workspace", ws, "--lang", "zh-CN", "attribute")
    assert "+ 有作业占用（作业未导入）240.00 CNY（24.00 卡时" in zh
    assert "机会成本（不计入任何合计）：容量空闲时仍在排队的需求 24.00 卡时 = 240.00 CNY" in zh
    (rec,) = [r for r in json.loads(run("--workspace", ws, "attribute", "--json")) if r.get("capacity")]
    assert rec["held_not_imported"] == "240.00" and rec["unheld"] == "2640.00"
    assert rec["occupancy"]["waiting_while_idle"]["opportunity_cost"] == "240.00"


def test_the_sheet_shows_the_column_and_the_opportunity_cost_line(ws, tmp_path):
    run("--workspace", ws, "attribute")
    md = run("--workspace", ws, "--lang", "en", "sheet", "b1", "--format", "md")
    assert "| held, jobs not imported |" in md
    assert "| pool-a | rate card | 10.00 | 3,840.00 | 960.00 | 240.00 | 2,640.00 | 0.00 | 0.00 | CNY |" in md
    assert "_Opportunity cost, not in any total — capacity pool-a: demand left waiting while capacity was idle" \
           " 24.00 GPU-h = 240.00 CNY" in md
    zh = run("--workspace", ws, "--lang", "zh-CN", "sheet", "b1", "--format", "md")
    assert "有作业占用（作业未导入）" in zh and "_机会成本（不计入任何合计）——容量 pool-a" in zh
    html = tmp_path / "b1.html"
    run("--workspace", ws, "--lang", "en", "sheet", "b1", "--format", "html", "--out", html)
    page = html.read_text(encoding="utf-8")
    assert "<th>held, jobs not imported</th>" in page and '<td class="num">240.00</td>' in page
    assert '<p class="note opportunity">Opportunity cost, not in any total — capacity pool-a' in page


def test_the_workbook_control_adds_the_held_not_imported_column(ws, tmp_path):
    from openpyxl import load_workbook

    run("--workspace", ws, "attribute")
    out = tmp_path / "b1.xlsx"
    run("--workspace", ws, "--lang", "en", "sheet", "b1", "--format", "xlsx", "--out", out)
    wb, cached = load_workbook(out), load_workbook(out, data_only=True)
    for ws_ in wb.worksheets:
        for row in ws_.iter_rows():
            head = [str(c.value or "") for c in ws_[row[0].row - 1]] if row[0].row > 1 else []
            if row[0].value == "pool-a" and any("held, jobs not imported" in h for h in head):
                at = {h.split(" / ")[0]: i for i, h in enumerate(head)}
                got = [c.value for c in cached[ws_.title][row[0].row]]
                # total, attributed (this batch's SUMIFS over Lines + the other batches), unheld, jwb, not imported
                assert [got[at[k]] for k in ("capacity cost", "attributed", "no job held",
                                              "held by jobs without a batch", "held, jobs not imported")] == \
                    [3840, 960, 2640, 0, 240], (head, got)
                check = row[at["formula"]]
                assert str(check.value).startswith("=ROUND(") and got[check.column - 1] == 0
                return
    raise AssertionError("no capacity control row for pool-a")
