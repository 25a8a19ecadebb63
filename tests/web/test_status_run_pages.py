"""Review 2, F7: the status and run pages are labelled tables in the page's language — no field
names, codes, True/False, nor the other language's text — while their JSON stays the view model."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")

BATCH = "csa-sft-2026-11-a"
CODES = ("plan_version", "evidence_sha256", "answered_by", "created_at", "planned_for_work_done", "review_class",
         "efficiency_by_state", "rework_by", "name_zh", "change_pct", "planned_experiment", "cause_evidence",
         "submitted_at", "gpu_hours_by_state", "suggested_review_class", "compute_cost", "gpu_equivalents",
         "allocated_idle", "unforeseeable_fault", "True", "False", "None")


def _text(html: str) -> str:
    """The page's visible text (no tags, attributes, style or script)."""
    html = re.sub(r"<(style|script)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<select\b.*?</select>", " ", html, flags=re.S)  # the form's option codes are values
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]+", text))


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_status_page_is_labelled_in_its_language(client, lang):
    model = client.get(f"/batches/{BATCH}/status", headers={"Accept": "application/json"}).json()
    assert model["status"]["alerts"] and model["review"]["variance"]  # the JSON: the view model, as it was
    page = _text(client.get(f"/batches/{BATCH}/status", params={"lang": lang}).text)
    assert not [c for c in CODES if c in _words(page)], page[:2000]
    other = "en" if lang == "zh-CN" else "zh-CN"
    for a in model["status"]["alerts"]:
        assert a["text"][lang] in page
        assert a["text"][other] not in page
    if lang == "zh-CN":
        for word in ("执行状态", "差异桥", "按资源状态的卡时", "已由决策", "有效训练", "教训"):
            assert word in page, word
        assert "reached" not in page and "answered" not in page
    else:
        assert "已由决策" not in page and "账单现金" not in page
        assert "variance bridge" in page and "answered by decision" in page


@pytest.mark.parametrize("lang", ["en", "zh-CN"])
def test_run_page_is_labelled_in_its_language(client, lang):
    model = client.get(f"/batches/{BATCH}/runs/a-r03", headers={"Accept": "application/json"}).json()
    assert model["run"]["reason"] == "planned_experiment"  # codes stay in the JSON
    page = _text(client.get(f"/batches/{BATCH}/runs/a-r03", params={"lang": lang}).text)
    facts = page.split("a-r03", 2)[2].split("failure cause" if lang == "en" else "失败原因")[0]
    assert not [c for c in CODES if c in _words(facts)], facts
    if lang == "zh-CN":
        for word in ("作业", "计划内试验", "结束状态", "提交时间", "不可预见故障", "按资源状态的卡时"):
            assert word in facts, word
    else:
        assert "planned experiment" in facts and "submitted" in facts and "unforeseeable fault" in facts
        assert "计划" not in page


def test_status_page_units_are_in_its_language(client):
    """Review 4 H10: the lessons' units and the work done say 小时 / 卡时 / 轮 / 百万 token on the zh-CN
    page, as the CLI does; the English page keeps the plan's unit codes."""
    en = _text(client.get(f"/batches/{BATCH}/status", params={"lang": "en"}).text)
    zh = _text(client.get(f"/batches/{BATCH}/status", params={"lang": "zh-CN"}).text)
    codes = re.compile(r"\((?:[A-Z]{3}/)?(?:hour|gpu_hour|rounds|Mtoken)(?:/Mtoken)?\)|Mtoken|gpu_hour")
    assert codes.search(en) and "(gpu_hour/Mtoken)" in en  # the page shows units at all
    assert not codes.findall(zh), codes.findall(zh)
    assert "(卡时/百万 token)" in zh and "百万 token" in zh


def test_batch_page_drawer_names_the_node_split_setting_in_its_language(client):
    """Review 4 H10: the assumptions drawer's source of the node-hour split is Chinese on zh-CN."""
    zh = client.get(f"/batches/{BATCH}", params={"lang": "zh-CN"}).text
    en = client.get(f"/batches/{BATCH}", params={"lang": "en"}).text
    assert "workspace cluster.gpus_per_node" in en and "workspace cluster" not in zh
    assert "工作区设置 cluster.gpus_per_node" in zh
