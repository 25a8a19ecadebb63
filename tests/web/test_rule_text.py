"""A cost line's rule is said as a sentence on the run, cost-line and source-row pages, in the page's
language, with the code beside it (review 3 G12/G15: "rule gpu_seconds_on_node/slurm-wckey" raw)."""

from __future__ import annotations

import html
import re

import pytest

from trainledger.demo.scenario import BATCH_A
from trainledger.web.rule_text import rule_sentence

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


@pytest.mark.parametrize(("rule", "en", "zh"), [
    ("gpu_seconds_on_node/slurm-wckey", "split by the GPU-seconds each job held; the job's batch from workspace rule"
     " slurm-wckey", "节点成本按各作业占用的 GPU 秒分摊；作业的批次来自工作区规则 slurm-wckey"),
    ("gpu_seconds_on_node/unheld", "capacity no job held (unattributed)", "无作业占用的容量（未归属）"),
    ("gpu_seconds_on_node/no_rule_matched", "the job matched no workspace rule", "该作业未匹配任何工作区规则"),
    ("queued/slurm-wckey", "opportunity cost, no cash", "机会成本，非现金"),
    ("allocation/build-phase-labor/labor", "allocation policy build-phase-labor spreading the labor pool",
     "分摊策略 build-phase-labor 分摊 人力 池"),
    ("timesheet_batch_column", "the batch named in the timesheet's own batch column", "工时表自身批次列中注明的批次"),
    ("no_rule_matched", "no workspace rule matched the row", "该行未匹配任何工作区规则"),
    ("capacity h8-rc (trainledger.toml row 12): gpu_seconds_on_node/slurm-wckey",
     "capacity h8-rc of trainledger.toml (its row 12), held by this job: the node's cost split by the GPU-seconds",
     "trainledger.toml 中的容量 h8-rc（其第 12 行），由本作业占用：节点成本按各作业占用的 GPU 秒分摊"),
    ("focus-tag-batch (EffectiveCost)", "workspace rule focus-tag-batch, valued at the bill's EffectiveCost",
     "工作区规则 focus-tag-batch，按账单的 EffectiveCost 计价"),
])
def test_each_rule_the_engine_writes_is_a_sentence(rule, en, zh):
    assert en in rule_sentence(rule, "en") and zh in rule_sentence(rule, "zh-CN")


def test_the_run_page_says_the_rule(client):
    for lang, words in (("en", "the node's cost split by the GPU-seconds each job held"),
                        ("zh-CN", "节点成本按各作业占用的 GPU 秒分摊")):
        page = html.unescape(client.get(f"/batches/{BATCH_A}/runs/a-r01", params={"lang": lang}).text)
        cells = re.findall(r'<td class="rule">(.*?) <code>([^<]+)</code></td>', page)
        assert any(words in said and code == "gpu_seconds_on_node/slurm-wckey" for said, code in cells), cells[:2]
        assert all(said and said != code and said == rule_sentence(code, lang) for said, code in cells)
    line = re.search(r'href="(/lines/[^"]+)"', client.get(f"/batches/{BATCH_A}/runs/a-r01").text)[1]
    assert "工作区规则" in client.get(line, params={"lang": "zh-CN"}).text
