"""Both languages all the way: every problem kind the engine can emit is in the bilingual catalogue,
and the demo's zh-CN sheets carry no English sentence the tool wrote."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import problems_i18n as pi

SRC = Path(__file__).resolve().parents[1] / "src" / "trainledger"
# the engine's Problem (engine/context.py); estimate/ has its own Problem and catalogue (estimate/messages.py)
EMITTERS = sorted((SRC / "engine").glob("*.py")) + [SRC / "service.py", SRC / "analysis" / "occupancy_check.py"]
_CALL = re.compile(r'\bProblem\(\s*"([a-z_]+)"')
_KEY = re.compile(r'"([a-z_]+)":')
CJK = re.compile(r"[\u4e00-\u9fff]")
WORD = r"[A-Za-z][A-Za-z'’-]*"
COMMAND = re.compile(r"\btrainledger [^\u3000-\u303f\uff00-\uffef|<]*")  # a command line is code
ENGLISH_RUN = re.compile(rf"{WORD}(?:[ ,;:()/]+{WORD}){{3,}}")  # four English words in a row


def _calls() -> list[tuple[str, str, str]]:
    """(kind, call text, file) for every Problem(...) the engine and service create."""
    out = []
    for path in EMITTERS:
        text = path.read_text(encoding="utf-8")
        for m in _CALL.finditer(text):
            depth, i = 0, m.start() + len("Problem")
            while True:  # to the matching parenthesis
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                if depth == 0:
                    break
                i += 1
            out.append((m.group(1), text[m.start():i + 1], path.name))
    return out


def english_runs(text: str, allowed: str = "") -> list[str]:
    """Runs of four or more English words, outside `code`, paths and text found in ``allowed``
    (what the user wrote: names, goals, sources, decision reasons)."""
    text = re.sub(r"`[^`]*`", " ", text).replace("\\", "")
    text = COMMAND.sub(" ", text)
    found = []
    for cell in re.split(r"\s*\|\s*", text):
        for m in ENGLISH_RUN.finditer(cell):
            if m.group(0) not in allowed:
                found.append(m.group(0))
    return found


def test_every_kind_the_code_emits_is_in_the_catalogue_and_nothing_else_is():
    emitted = {kind for kind, _, _ in _calls()}
    assert len(emitted) >= 20
    assert emitted - pi.KINDS == set(), "add these kinds to report/problems_i18n.py"
    assert pi.KINDS - emitted == set(), "catalogue kinds no code emits any more"


@pytest.mark.parametrize("kind", sorted(pi.KINDS))
def test_each_kind_has_both_languages(kind):
    entry = pi.CATALOGUE[kind]
    assert set(entry) == {pi.EN, pi.ZH}
    (en_label, en_msg), (zh_label, zh_msg) = entry[pi.EN], entry[pi.ZH]
    assert en_label and en_msg and not CJK.search(en_label + en_msg)
    assert CJK.search(zh_label) and CJK.search(zh_msg)
    fields = lambda t: {f for _, f, _, _ in string.Formatter().parse(t) if f}  # noqa: E731
    assert fields(en_msg) == fields(zh_msg), "both languages say the same facts"
    assert not english_runs(zh_label + " " + re.sub(r"\{\w+\}", "0", zh_msg))


def test_templates_read_only_fields_the_code_puts_in_detail():
    for kind, call, where in _calls():
        keys = set(_KEY.findall(call)) | ({"total"} if "**rec" in call or "**records" in call else set())
        for lang in (pi.EN, pi.ZH):
            need = {f for _, f, _, _ in string.Formatter().parse(pi.CATALOGUE[kind][lang][1]) if f}
            assert need <= keys, f"{where}: {kind} lacks detail {sorted(need - keys)}"


def test_a_problem_renders_from_its_detail_in_each_language():
    p = {"kind": "oversubscribed_node", "message": "gpu-01 2026-11-02T02:00:00+00:00: jobs hold 8.50 GPUs but…",
         "detail": {"node": "gpu-01", "row": 3, "at": "2026-11-02T02:00:00+00:00", "held": "8.50", "slots": 8}}
    assert pi.message(p, "zh-CN") == "gpu-01 2026-11-02T02:00:00+00:00：作业占用 8.50 张 GPU，但节点只有 8 张"
    assert pi.message(p, "en") == "gpu-01 2026-11-02T02:00:00+00:00: jobs hold 8.50 GPUs but the node has 8"
    side = {"kind": "conservation", "message": "m", "detail": {"subject": "CNY (workspace)", "total": "1",
                                                             "carried": "2", "side": "too much", "gap": "1"}}
    assert "多归属 1" in pi.message(side, "zh-CN")
    old = {"kind": "stale_price", "message": "price x is stale", "detail": {"item": "x"}}  # an older ledger's
    assert pi.message(old, "en") == "price x is stale"
    assert pi.message(old, "zh-CN") == "价格已过期（详情见 JSON 底稿：--format json）"
    js = pi.for_json(p)
    assert (js["kind"], js["message"]) == (p["kind"], p["message"])
    assert js["label"] == "node oversubscribed" and js["label_zh"] == "节点超额占用"
    assert js["message_zh"] == pi.message(p, "zh-CN")


def test_the_checker_finds_english_prose():
    assert english_runs("| 说明 | its compute stays in the unattributed bucket |")
    assert not english_runs("| 作业 `job_without_batch` | gpu-node-01 | 1,392.00 CNY | eval-v3 |")
    assert not english_runs("重新导入：trainledger import slurm a.txt --tz Asia/Shanghai --replace <导入编号>")
    assert not english_runs("| 来源 | finance rate card FY2026 |", allowed="finance rate card FY2026")


def _user_text(ws: Path) -> str:
    """What the user wrote into the workspace: configuration, input files, plans, decision reasons."""
    parts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(ws.rglob("*"))
             if p.is_file() and not {"reports", "lake"} & set(p.parts)
             and p.suffix in {".toml", ".csv", ".jsonl", ".json", ".txt"}]
    for js in sorted((ws / "reports").glob("*.json")):
        plan = json.loads(js.read_text(encoding="utf-8")).get("plan_vs_actual") or {}
        parts += [str(d.get("reason", "")) for d in plan.get("decisions", [])]
    return "\n".join(parts)


@pytest.fixture(scope="module", params=["rented", "owned"])
def demo_workspace(request, tmp_path_factory) -> Path:
    ws = tmp_path_factory.mktemp(f"demo-{request.param}") / "ws"
    args = ["demo", "--dir", str(ws)] + (["--scenario", "owned"] if request.param == "owned" else [])
    result = CliRunner().invoke(cli, args, prog_name="trainledger")
    assert result.exit_code == 0, result.output
    return ws


def test_the_demo_zh_cn_sheets_have_no_english_sentence(demo_workspace):
    ws = demo_workspace
    allowed = _user_text(ws)
    sheets = sorted((ws / "reports").glob("*.md")) + sorted((ws / "reports").glob("*.html"))
    assert len(sheets) >= 4
    left = {}
    for sheet in sheets:
        text = sheet.read_text(encoding="utf-8")
        assert "lang=\"zh-CN\"" in text or sheet.suffix == ".md"
        text = re.sub(r"<(style|script)\b.*?</\1>", " ", text, flags=re.S)
        text = re.sub(r"<[^>]+>", " | ", text)
        runs = english_runs(text, allowed)
        if runs:
            left[sheet.name] = runs[:5]
    assert not left, left
    md = (ws / "reports" / "csa-sft-2026-11-a.md").read_text(encoding="utf-8")
    assert "作业无批次" in md and "job_without_batch" not in md


def test_attribute_prints_its_problems_in_the_language_asked(tmp_path):
    src = Path(__file__).resolve().parents[1] / "docs" / "first-hour" / "slurm-cloud"
    ws = tmp_path / "ws"
    run = lambda *a: CliRunner().invoke(cli, [str(x) for x in a], prog_name="trainledger")  # noqa: E731
    assert run("init", ws, "--currency", "CNY").exit_code == 0
    (ws / "trainledger.toml").write_text((src / "trainledger.toml").read_text(encoding="utf-8"), encoding="utf-8")
    assert run("--workspace", ws, "import", "slurm", src / "sacct.txt").exit_code == 0
    zh = run("--workspace", ws, "attribute", "--lang", "zh-CN")
    assert zh.exit_code == 0 and "! 作业无批次：作业 7004 未匹配任何 slurm 规则" in zh.output
    assert "matched no slurm rule" not in zh.output and "job_without_batch" not in zh.output  # codes only in JSON
    en = run("--workspace", ws, "attribute")
    assert "! job without a batch: job 7004 matched no slurm rule" in en.output
    assert "job_without_batch" not in en.output
