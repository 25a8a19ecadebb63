"""The message catalogue and the zh-CN reports: every sentence in both languages, no English left
in a Chinese report, and the JSON keeping its English text beside a parallel ``*_zh`` field."""

from __future__ import annotations

import json
import pickle
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.estimate import messages
from trainledger.estimate.data_costs import FIELDS
from trainledger.estimate.labor import PHASES
from trainledger.estimate.memory import TERMS
from trainledger.estimate.messages import MESSAGES, Msg, Term, placeholders, text
from trainledger.mdtext import inline
from trainledger.model.vocab import TaskType
from trainledger.report.estimate_render import render_compare, render_estimate

SRC = Path(messages.__file__).parent
CLI_SRC = SRC.parent / "cli" / "estimate.py"
PRICEBOOK_SRC = SRC.parent / "pricebook.py"  # stale_reason words staleness with catalogue messages
CJK = re.compile(r"[\u4e00-\u9fff]")
ON = "2026-11-29"  # the sample price book has stale prices on this date: the stale warning shows
LORA = ["estimate", "--task", "lora", "--params", "7B", "--tokens", "50M", "--gpu", "h800"]
RAG = ["estimate", "--task", "rag"]
COMPARE = ["compare", "--gpu", "h100-80gb", "--gpus", "256", "--years", "3", "--utilisation", "0.4..0.6..0.8"]
COMMON = ["--on", ON, "--samples", "3000"]
IDENTICAL_OK = {"label.labor_line", "unit.token"}  # nothing to translate: placeholders / a loanword


def run(args: list[str], **kw):
    r = CliRunner().invoke(cli, args, catch_exceptions=False, **kw)
    assert r.exit_code == 0, r.output
    return r


# ---------------------------------------------------------------- the catalogue itself


@pytest.mark.parametrize("msg_id", sorted(MESSAGES))
def test_every_message_has_both_languages_and_the_same_placeholders(msg_id):
    en, zh = MESSAGES[msg_id]
    assert en.strip() and zh.strip(), f"{msg_id}: empty text"
    assert placeholders(en) == placeholders(zh), f"{msg_id}: placeholders differ"
    if msg_id not in IDENTICAL_OK:
        assert en != zh, f"{msg_id}: not translated"
    if CJK.search(en):
        pytest.fail(f"{msg_id}: Chinese in the English text")


def _ids_used_in_code() -> set[str]:
    pattern = re.compile(r"""(?<![.\w])(?:Msg|text|t)\(\s*f?["']([a-z_][a-z0-9_.{}/ -]*)["']""")
    found = set()
    for path in [*SRC.rglob("*.py"), CLI_SRC, PRICEBOOK_SRC]:
        for m in pattern.finditer(path.read_text(encoding="utf-8")):
            found.add(m.group(1))
    return found


def test_every_message_id_the_code_uses_exists():
    used = _ids_used_in_code()
    assert len(used) > 60
    dynamic = {i for i in used if "{" in i}
    for msg_id in used - dynamic:
        key = msg_id if msg_id in MESSAGES else f"label.{msg_id}"  # labels.t() adds the prefix
        assert key in MESSAGES, f"unknown message id {msg_id!r}"
    # the ids built from vocabularies: every member must have its message
    expanded = (
        [f"name.data.{f}" for f in FIELDS]
        + [f"warn.ph.data.{f}" for f in FIELDS]
        + [f"warn.ph.labor.{p}" for p in PHASES]
        + [f"name.labor.{p}" for p in PHASES]
        + [f"term.{x}" for x in TERMS]
        + [f"task.main_cost.{x.value}" for x in TaskType]
        + [f"size.{s}" for s in ("small", "medium", "large")]
        + [f"guided.ask_{k}" for k in ("params", "tokens", "gpu")]
        + [f"reason.{x}" for x in ("pretrain", "continued_pretrain")]
    )
    missing = [i for i in expanded if i not in MESSAGES]
    assert not missing


def test_msg_is_its_english_text_and_renders_chinese():
    m = Msg("warn.gpus_not_multiple", gpus=13, mp=2)
    assert m == "--gpus 13 is not a multiple of tensor x pipeline parallel 2: some GPUs would idle"
    assert hash(m) == hash(str(m)) and m.encode() == str(m).encode()  # same sampler seeds as before
    assert m.zh == text("warn.gpus_not_multiple", "zh-CN", gpus=13, mp=2) and "闲置" in m.zh
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.zh == m.zh
    nested = Msg("name.labor.run", role=Term("training_engineering"))
    assert nested == "labor run: training_engineering (per round)" and nested.zh == "每轮运行人力：训练工程"
    listed = Msg("warn.placeholders", items=[Msg("warn.ph.labor.build"), Msg("warn.ph.labor.run")])
    assert "labor build, labor run" in listed and "、" in listed.zh


# ---------------------------------------------------------------- zh-CN reports: no English sentences


def _json(args: list[str]) -> dict:
    return json.loads(run([*args, *COMMON, "--format", "json"]).stdout)


@pytest.mark.parametrize("args", [LORA, RAG], ids=["lora", "rag"])
def test_zh_markdown_has_chinese_warnings_and_notes_and_no_english_ones(args):
    d = _json(args)
    assert d["warnings"] and len(d["warnings"]) == len(d["warnings_zh"])
    assert len(d["notes"]) == len(d["notes_zh"])
    md = run([*args, *COMMON, "--format", "md", "--lang", "zh-CN"]).stdout
    for en, zh in zip(d["warnings"] + d["notes"], d["warnings_zh"] + d["notes_zh"], strict=True):
        assert inline(zh) in md and CJK.search(zh)  # as Markdown: [data] is written \[data\]
        assert inline(en) not in md
    assert "以下输入沿用了按任务类型给出的占位值" in md and "placeholders used for" not in md
    assert "个过期价格" in md and "stale price(s)" not in md
    for s in d["sensitivity"]:  # the tornado's labels
        assert inline(s.get("name_zh", s["name"]), lead=False) in md
    assert "mode " not in md and "STALE" not in md and "最可能值" in md  # drawer notes


def test_zh_lora_memory_and_notes():
    md = run([*LORA, *COMMON, "--format", "md", "--lang", "zh-CN"]).stdout
    assert "未指定 --gpus" in md and "no --gpus given" not in md
    assert "激活值占主导" in md and "dominate (" not in md
    assert "显存主导项**: 激活值" in md


def test_zh_rag_route_note():
    d = _json(RAG)
    assert d["notes"][0].startswith("rag changes no weights")  # JSON keeps its English text
    assert d["notes_zh"][0].startswith("RAG 不改动模型权重")
    md = run([*RAG, *COMMON, "--format", "md", "--lang", "zh-CN"]).stdout
    assert "RAG 不改动模型权重" in md and "rag changes no weights" not in md


def test_zh_html_estimate(tmp_path):
    out = tmp_path / "e.html"
    run([*LORA, *COMMON, "--format", "html", "--lang", "zh-CN", "-o", str(out)])
    html = out.read_text(encoding="utf-8")
    assert "以下输入沿用了按任务类型给出的占位值" in html and "placeholders used for" not in html
    assert "数据：标注条数" in html and "data: labelled items" not in html


def test_english_report_has_no_chinese():
    md = run([*LORA, *COMMON, "--format", "md"]).stdout
    assert not CJK.search(md)
    assert "placeholders used for" in md and "## Warnings" in md


def test_json_contract_keys_kept_and_zh_fields_added():
    d = _json(LORA)
    for k in ("task", "gpu", "memory", "effective_gpu_hours", "gpu_hours", "wallclock_days", "cost", "assumptions"):
        assert k in d
    for a in d["assumptions"]:
        assert {"name", "evidence", "source"} <= set(a) and ("value" in a or {"low", "high"} <= set(a))
    rounds = next(a for a in d["assumptions"] if a["name"] == "experiment rounds (final-run equivalents)")
    assert rounds["name_zh"] == "实验轮次（折合最终运行次数）" and rounds["note_zh"].startswith("最可能值")
    assert d["memory"]["why"].startswith("activations dominate") and d["memory"]["why_zh"].startswith("激活值")
    assert all(not CJK.search(w) for w in d["warnings"] + d["notes"])


def test_json_warning_on_stderr_follows_lang():
    r = run([*LORA, *COMMON, "--format", "json", "--lang", "zh-CN"])
    assert "警告：以下输入沿用了" in r.stderr and "warning:" not in r.stderr
    assert json.loads(r.stdout)["warnings"][0].startswith("placeholders used for")


def test_render_falls_back_to_english_without_zh_fields():
    d = _json(RAG)
    for k in ("warnings_zh", "notes_zh"):
        d.pop(k)
    md = render_estimate(d, "md", "zh-CN")
    assert inline(d["warnings"][0]) in md  # an older JSON still renders


# ---------------------------------------------------------------- guided mode


def test_guided_zh_asks_the_three_questions_in_chinese():
    r = run(["estimate", "--guided", "--lang", "zh-CN", "--format", "json", "--samples", "1000"], input="n\n0\nn\n")
    for q in ("guided.q_weights", "guided.q_labelled", "guided.q_rounds"):
        assert text(q, "zh-CN") in r.stderr
        assert text(q, "en") not in r.stderr
    assert "任务类型：提示词加检索" in r.stderr and "不改动权重" in r.stderr
    assert json.loads(r.stdout)["task"] == "rag"


def test_guided_zh_follow_up_prompts():
    r = run(
        ["estimate", "--guided", "--lang", "zh-CN", "--format", "json", "--samples", "1000"],
        input="y\n20000\ny\n7B\n30M\na100-80gb\n",
    )
    assert "参数量（如 7B）" in r.stderr and "加速卡型号" in r.stderr and "Parameters" not in r.stderr
    assert "属于微调" in r.stderr


# ---------------------------------------------------------------- compare


def test_compare_zh_markdown():
    d = json.loads(run([*COMPARE, *COMMON, "--format", "json"]).stdout)
    assert d["basis"].startswith("cash to serve") and d["basis_zh"].startswith("同等需求")
    assert len(d["warnings"]) == len(d["warnings_zh"])
    md = render_compare(d, "md", "zh-CN")
    for en, zh in zip(d["warnings"], d["warnings_zh"], strict=True):
        assert inline(zh) in md and inline(en) not in md
    for english in ("on_demand", "billed", "amortized", "cash to serve", "exit_egress", "demand GPU-h/yr", "mode "):
        assert english not in md
    assert "按需租用" in md and "自建（自购硬件）" in md and "集群利用率（实际使用时长占比）" in md
    assert not CJK.search(render_compare(d, "md", "en"))


def test_fixed_vocabularies_the_views_translate_are_catalogued():
    d = json.loads(run([*COMPARE, "--external-per-year", "1e6..2e6", *COMMON, "--format", "json"]).stdout)
    for o in d["options"]:
        assert f"compare.option.{o['name']}" in MESSAGES
        assert all(f"compare.line.{k}" in MESSAGES for k in o["lines"])
    e = _json(LORA)
    assert all(f"line.{k}" in MESSAGES for k in e["cost"]["data_lines"])
    data = SRC / "data"
    owners = set(re.findall(r'owner = "([^"]+)"', "".join(p.read_text() for p in data.glob("*.toml"))))
    owners |= {"requester", "data lead", "project lead", "serving team", "unassigned"}  # set in code
    assert not [o for o in owners if f"owner.{o}" not in MESSAGES]
    units = {u for u in re.findall(r'unit = "([^"]+)"', "".join(p.read_text() for p in data.glob("*.toml")))}
    assert not [u for u in units if f"unit.{u}" not in MESSAGES]


def test_compare_zh_unavailable_reason():
    r = run(["compare", "--gpu", "l40s", "--gpus", "8", *COMMON, "--format", "md", "--lang", "zh-CN"])
    assert "不可用" in r.stdout and "无法估算自建方案" in r.stdout and "no price for" not in r.stdout
    d = json.loads(run(["compare", "--gpu", "l40s", "--gpus", "8", *COMMON, "--format", "json"]).stdout)
    own = d["options"][2]
    assert "no price for 'capex:server:l40s'" in own["unavailable_reason"] and own["unavailable_reason_zh"]
