"""The effective share is over the GPU time that has a progress signal; unclassified hours (no
signal, state assumed) are shown beside it, never averaged in as 0 % (review 3 G2 and its addendum).

The reviewer's workspace 2 (tests/data/rv3 + the progress log of tests/data/rv3g2): llm-x holds
52.00 GPU-h, 32.94 of them effective (9101: 4.67 + 7.73 + 0.67; 9102: 2 + 4.54; the requeue 4 + 8 +
1.33) and 0.27 unclassified (the requeue's 2 minutes × 8 GPUs after its last progress sample);
llm-y holds 9.00, all unclassified (no progress log). By hand: llm-x 32.94 / (52.00 − 0.27) =
63.67 %; llm-y unknown; the period 2026-11 the same 63.67 % (the old report: 32.94 / 61.00 =
54.00 %, llm-y "0.00 %")."""

from __future__ import annotations

import json
import re
import shutil
from decimal import Decimal
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report.sheet import effective_share

D = Decimal
DATA = Path(__file__).resolve().parent / "data"


def run(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def make(root: Path, progress: bool) -> Path:
    from trainledger.service import Workspace

    run("init", root, "--currency", "CNY")
    toml = root / "trainledger.toml"
    text = toml.read_text() + (DATA / "rv3" / "ws2.toml.part").read_text()
    toml.write_text(text.replace('timezone = "UTC"', 'timezone = "Asia/Shanghai"')
                    .replace('price_book = ""', 'price_book = "prices.toml"')
                    .replace('gpu_item = ""', 'gpu_item = "gpu_hour:a100-80gb"'))
    shutil.copy(DATA / "rv3" / "ws2-prices.toml", root / "prices.toml")
    with Workspace.open(root) as wsp:
        wsp.import_files("slurm", [DATA / "rv3" / "sacct-hw.txt"])
        wsp.import_files("huawei", [DATA / "rv3" / "huawei-bill.csv"], options={"import_date": "2026-12-05"})
        if progress:
            wsp.import_files("progress", [DATA / "rv3g2" / "progress-x.jsonl"])
    run("--workspace", root, "attribute")
    return root


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> Path:
    return make(tmp_path_factory.mktemp("signal") / "ws2", progress=True)


def test_a_retry_chain_without_a_progress_log_says_unknown(tmp_path):
    """9102 (NODE_FAIL) → its requeue, no progress log: hang + lost and recovery unknown, not 0.00 / —."""
    root = make(tmp_path / "ws2np", progress=False)
    (chain,) = json.loads(run("--workspace", root, "sheet", "llm-x", "--format", "json"))["retry_chains"]
    assert chain["lost_gpu_hours"] is None and chain["recovery_gpu_hours"] is None
    row = next(ln for ln in run("--workspace", root, "--lang", "en", "sheet", "llm-x").splitlines()
               if ln.startswith("| 9102 | NODE"))
    assert row.count("unknown \\(no progress signal\\)") == 2, row
    zh = run("--workspace", root, "--lang", "zh-CN", "sheet", "llm-x", "--format", "html")
    cells = re.search(r'<tr data-run="9102">(.*?)</tr>', zh)[1]
    assert cells.count("未知（无进度信号）") == 2


def test_the_rule():
    assert effective_share(D(30), D(50), D(10)) == D("0.75")  # 30 of the 40 hours with a signal
    assert effective_share(D(0), D(9), D(9)) is None  # no signal at all: unknown, never 0 %
    assert effective_share(D(0), D(10), D(0)) == 0  # a signal and no effective hour: a measured 0 %


def test_report_shares_are_over_signal_hours(ws):
    doc = json.loads(run("--workspace", ws, "report", "--format", "json"))
    eff = {b["batch"]: b["effective"][0] for b in doc["batches"]}
    x, y = eff["llm-x"], eff["llm-y"]
    assert (D(x["gpu_hours"]), D(x["unclassified_gpu_hours"])) == (D("52"), D("0.266667"))
    assert D(x["part_gpu_hours"]).quantize(D("0.01")) == D("32.94")
    assert D(x["share"]) == D("0.6367")  # 32.9378 / 51.7333; was 32.94 / 52.00 = 0.6334
    assert y["share"] is None and D(y["unclassified_gpu_hours"]) == D("9") and D(y["gpu_hours"]) == D("9")
    (period,) = doc["effective_by_period"]
    assert period["period"] == "2026-11" and D(period["share"]) == D("0.6367")  # was 0.5400 with llm-y as 0 %
    assert D(period["unclassified_gpu_hours"]) == D("9.266667")


def test_report_renderers_say_unknown(ws, tmp_path):
    md = run("--workspace", ws, "--lang", "en", "report")
    row = next(ln for ln in md.splitlines() if ln.startswith("| llm | llm-y |") and "9.00" in ln)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[4:8] == ["9.00", "0.00", "—", "9.00"]  # held, effective, share unknown, unclassified beside
    assert "| 2026-11 | billed | CNY | 61.00 | 9.27 | 63.67 % |" in md
    zh = run("--workspace", ws, "--lang", "zh-CN", "report")
    assert "未分类卡时" in zh and "有效占比按有进度信号的卡时计算" in zh
    html = run("--workspace", ws, "--lang", "en", "report", "--format", "html")
    rows = [re.findall(r"<td[^>]*>([^<]*)</td>", m)
            for m in re.findall(r"<tr><td>llm</td><td>llm-y</td>(.*?)</tr>", html)]
    (shares,) = [c for c in rows if len(c) == 9]  # the shares table's row
    assert shares[2:6] == ["9.00", "0.00", "—", "9.00"]
    assert "unclassified GPU-hours" in html
    out = tmp_path / "r.xlsx"
    run("--workspace", ws, "report", "--format", "xlsx", "--out", out)
    values = openpyxl.load_workbook(out, data_only=True)["Shares"]
    formulas = openpyxl.load_workbook(out)["Shares"]
    rows = {r[1]: r for r in values.iter_rows(min_row=2, values_only=True)}
    assert rows["llm-y"][6] == "—" and rows["llm-y"][10] == 9
    assert abs(D(str(rows["llm-x"][6])) - D("0.6367")) < D("0.00005")
    assert formulas["G2"].value == '=IF(E2-K2=0,"—",F2/(E2-K2))'


def test_sheet_uses_the_same_rule(ws):
    for batch, share, unclassified in (("llm-x", "0.6367", "0.2667"), ("llm-y", None, "9.0000")):
        (e,) = json.loads(run("--workspace", ws, "sheet", batch, "--format", "json"))["compute_efficiency"]
        assert e["effective_share"] == share and e["unclassified_gpu_hours"] == unclassified
    (chain,) = json.loads(run("--workspace", ws, "sheet", "llm-x", "--format", "json"))["retry_chains"]
    assert chain["lost_gpu_hours"] is not None and chain["recovery_gpu_hours"] is not None  # a signal: measured
    md = run("--workspace", ws, "--lang", "en", "sheet", "llm-y")
    assert "unknown \\(no progress signal\\) | 9.00 |" in md
    assert "is not the variance bridge's rework" in md  # the review class "avoidable rework" labelled apart
