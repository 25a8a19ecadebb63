"""Review 7 L14: the texts the tool ships (the sources of data/priors.toml, mfu.toml and
accelerators.toml, the range notes) read in Chinese in a zh-CN estimate, in md, html and json;
the English report stays as it was.

A drawer cell "holds an English sentence" when, after the references that stay as written are
taken out (quoted passages, ``et al.``, command-line flags, URLs, the product and document names in
``NAMES``), three ASCII words still follow one another, one of them lower-case. Rows priced from
the price book (``单价 …``) are checked too: these estimates price with the shipped sample book,
whose every source carries its ``source_zh`` (tests/estimate/test_zh_price_book.py); a user's own
book is shown as written.
"""

from __future__ import annotations

import html
import re
import tomllib

import pytest

from tests.estimate.helpers import estimate
from trainledger.estimate import catalog as catalog_mod
from trainledger.estimate import priors as priors_mod
from trainledger.i18n.core import Twin, twins
from trainledger.report.estimate_render import render_estimate

TASKS = {
    "lora": {"task": "lora", "params": "7B", "tokens": "50M"},
    "sft": {"task": "full_finetune", "params": "7B", "tokens": "200M"},
    "pretrain": {"task": "pretrain", "params": "7B", "tokens": "140B"},
}
GPUS = ("h800", "h20", "ascend-910b")

# References that stay as written inside a Chinese text: product, document and system names.
NAMES = (
    "NVIDIA HGX H20",
    "Google Cloud TPU",
    "Megatron-LM README",
    "DeepSeek-V3",
    "Tensor Core GPU",
    "Transformer Engine",
    "Ada Lovelace",
    "GeForce RTX",
    "AMD Instinct",
    "Infinity Fabric",
    "Uptime Institute Global Data Center Survey",
    "AWS Savings Plans",
    "Switch Transformer",
    "Megatron-Core MoE",
    "Llama 3",
    "Kempner Institute",
    "Megatron-Turing NLG",
    "IBM",
    "PyTorch FSDP",
    "PyTorch DDP",
    "DeepSpeed ZeRO-Offload++",
    "HBM3",
)
QUOTED = re.compile(r"'[^']*'")  # a verbatim quotation of the cited source (its Chinese stands beside it)
REFS = re.compile(r"\bet al\.|--[a-z][\w-]*(?: [a-z]+)?|\S+\.(?:com|org|io|gov)\S*|github\.com\S*")
WORD = r"(?<![\w/.-])[A-Za-z][A-Za-z'-]*(?![\w/.])"  # letters only: "H100", "bf16", "x16" are no words
SENTENCE = re.compile(rf"{WORD}(?:[ ,;:]+{WORD}){{2,}}")


def english_sentence(cell: str) -> str | None:
    """Three ASCII words in a row, one of them lower-case (a product name such as "NVIDIA DGX" or
    "Google Cloud TPU" is capitalised; an English sentence is not)."""
    text = QUOTED.sub(" ", REFS.sub(" ", cell))
    for name in NAMES:
        text = text.replace(name, " ")
    for m in SENTENCE.finditer(text):
        if any(w.islower() and len(w) > 1 for w in re.findall(r"[A-Za-z][A-Za-z'-]*", m.group(0))):
            return m.group(0)
    return None


def _md_drawer(md: str) -> list[list[str]]:
    tail = md.split("## 假设抽屉", 1)[1]
    rows = [line for line in tail.splitlines() if line.startswith("| ") and not line.startswith("| 名称")]
    return [[c.strip().replace("\\", "") for c in r.strip("|").split(" | ")] for r in rows]


def _html_drawer(page: str) -> list[list[str]]:
    body = page.split('<details class="drawer"', 1)[1].split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [html.unescape(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, flags=re.S)]
        for tr in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def _problems(rows: list[list[str]]) -> list[tuple[str, str]]:
    bad = []
    for name, _value, _unit, _evidence, source, _owner, note in rows:
        for cell in (source, note):
            if (hit := english_sentence(cell)) is not None:
                bad.append((name, hit))
    return bad


@pytest.fixture(scope="module")
def results(book):
    return {
        (task, gpu): estimate(book, samples=2000, gpu=gpu, **values).to_dict()
        for task, values in TASKS.items()
        for gpu in GPUS
    }


@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("task", list(TASKS))
def test_zh_drawer_has_no_english_sentence(results, task, gpu):
    d = results[(task, gpu)]
    md = render_estimate(d, "md", "zh-CN")
    page = render_estimate(d, "html", "zh-CN")
    assert _problems(_md_drawer(md)) == []
    assert _problems(_html_drawer(page)) == []
    # the cells checked are the drawer's: the rows are there, the accelerator's among them
    assert any(r[0].startswith(f"{gpu} 显存") for r in _md_drawer(md))
    assert len(_html_drawer(page)) == len(_md_drawer(md)) == len(d["assumptions"])


def test_the_brief_s_examples_read_in_chinese(results):
    md = render_estimate(results[("lora", "h800")], "md", "zh-CN")
    for english in (
        "fine-tuning runs are short",
        "seed 004: most training spend",
        "H800 is the H100 SXM die",
        "lowest, median and highest figure",
    ):
        assert english not in md
    for chinese in ("微调训练时间短", "seed 004：大部分训练开销", "H800 是面向中国市场", "取 5 个 H100/H200 数字"):
        assert chinese in md


def test_json_keeps_the_english_and_adds_source_zh(results):
    d = results[("lora", "h800")]
    fine = next(a for a in d["assumptions"] if a["name"] == "fine-tuning utilisation factor")
    assert fine["source"] == priors_mod.priors()["finetune"]["source"]
    assert fine["source"].startswith("fine-tuning runs are short")
    assert fine["source_zh"].startswith("微调训练时间短")
    assert d["gpu"]["source"].startswith("H800 is the H100 SXM die")
    assert d["gpu"]["source_zh"].startswith("H800 是面向中国市场")


@pytest.mark.parametrize("gpu", GPUS)
@pytest.mark.parametrize("task", list(TASKS))
def test_en_report_shows_no_chinese(results, task, gpu):
    d = results[(task, gpu)]
    for fmt in ("md", "html"):
        out = render_estimate(d, fmt, "en")
        assert not re.search(r"[\u4e00-\u9fff]", out), fmt


def _texts(table, path=""):
    if isinstance(table, dict):
        for k, v in table.items():
            if isinstance(v, str) and k.endswith("source"):
                yield f"{path}{k}", v, table.get(f"{k}_zh")
            else:
                yield from _texts(v, f"{path}{k}.")
    elif isinstance(table, list):
        for i, v in enumerate(table):
            yield from _texts(v, f"{path}{v.get('id', i) if isinstance(v, dict) else i}.")


@pytest.mark.parametrize("name", ["priors.toml", "mfu.toml", "accelerators.toml"])
def test_every_shipped_source_has_a_reviewed_chinese_twin(name):
    """Each ``source`` of the three data files has its ``source_zh`` (the task-type placeholder's
    comes from the catalogue, ``src.placeholder``), and the loaders fold it in as a ``Twin``."""
    raw = tomllib.loads((priors_mod.DATA / name).read_text(encoding="utf-8"))
    missing = [
        path
        for path, en, zh in _texts(raw)
        if zh is None and path != "defaults.meta.source"
    ]
    assert missing == []
    for path, _en, zh in _texts(raw):
        if zh is not None:
            assert re.search(r"[\u4e00-\u9fff]", zh), path
            assert english_sentence(zh) is None, (path, english_sentence(zh))
    loaded = {"priors.toml": priors_mod.priors(), "mfu.toml": priors_mod.mfu_table()}.get(name)
    if loaded is not None:
        assert all(not k.endswith("_zh") for k in _keys(loaded))
    else:
        acc = catalog_mod.catalog()["h800"]
        assert isinstance(acc.source, Twin) and isinstance(acc.interconnect_source, Twin)


def _keys(table):
    if isinstance(table, dict):
        for k, v in table.items():
            yield k
            yield from _keys(v)
    elif isinstance(table, list):
        for v in table:
            yield from _keys(v)


def test_twins_fold_and_render():
    table = twins({"a": {"source": "x", "source_zh": "甲"}, "rows": [{"note": "y", "note_zh": "乙"}]})
    assert table == {"a": {"source": "x"}, "rows": [{"note": "y"}]}
    assert table["a"]["source"].text("zh-CN") == "甲" and table["a"]["source"].text("en") == "x"
    import pickle

    again = pickle.loads(pickle.dumps(table["rows"][0]["note"]))
    assert isinstance(again, Twin) and again.zh == "乙" and again == "y"
