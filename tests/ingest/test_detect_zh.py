"""A file of the wrong kind gets its one clear error in Chinese from end to end: each importer's
description, identify()'s reason and what the file looks like are catalogued (i18n/texts_ingest_detect.py);
so are the built-in presets' descriptions (`trainledger presets`) and the MIG "(rounded)" flag."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from tests.ingest.test_ingest_common import EXTRA_FILES, FIXTURES
from tests.test_problems_i18n import CJK, english_runs

from trainledger.cli import cli
from trainledger.errors import TrainledgerError
from trainledger.i18n import localize
from trainledger.ingest import IMPORTERS, check_file
from trainledger.ingest.mapfile import presets
from trainledger.ingest.presets import DESCRIPTIONS


def _headers(text: str) -> list[str]:
    first = text.splitlines()[0] if text else ""
    return sorted({h.strip() for h in re.split(r"[,|\t;]", first) if h.strip()}, key=len, reverse=True)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("kinds")
    out = {}
    for kind, (name, text) in FIXTURES.items():
        p = root / kind / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        if kind in EXTRA_FILES:
            extra, body = EXTRA_FILES[kind]
            (root / kind / extra).parent.mkdir(parents=True, exist_ok=True)
            (root / kind / extra).write_text(body, encoding="utf-8")
        out[kind] = (p, _headers(text))
    return out


def test_every_wrong_kind_error_reads_in_chinese(files):
    checked = 0
    for imp in IMPORTERS:
        for kind, (path, headers) in files.items():
            if kind == imp.kind:
                continue
            try:
                check_file(imp, path)
            except TrainledgerError as e:
                zh = e.text("zh-CN").replace(str(path), "")
                for h in headers:  # the file's own header names are quoted, not translated
                    zh = zh.replace(h, "列")
                assert CJK.search(zh), (imp.kind, kind, zh)
                assert not english_runs(zh), (imp.kind, kind, zh)
                checked += 1
    assert checked > 300  # (22 + 1 kinds, most refuse most others' files)


def test_the_issue_example():
    en = ("not sacct --parsable2 output: its header has no JobID column; it looks like comma-separated text with"
          " header vc, node num")
    assert localize(en, "zh-CN") == ("不是 sacct --parsable2 输出：它的表头没有 JobID 列；它看起来像以逗号分隔的文本，"
                                     "表头为 vc, node num")


def test_a_space_where_chinese_meets_a_latin_value():
    """Review 3 G12: ``不是sacct`` / ``像FOCUS`` had no space; a Chinese value stays joined."""
    from trainledger.i18n.patterns import spaced

    got = spaced("不是{d}：它看起来像{w}", {"d": "sacct 输出", "w": "FOCUS 账单"})
    assert got == "不是 sacct 输出：它看起来像 FOCUS 账单"
    assert spaced("它看起来像{w}，表头", {"w": "以逗号分隔的文本"}) == "它看起来像以逗号分隔的文本，表头"
    assert spaced("文件 {f}：第{n}行", {"f": "a.csv", "n": "3"}) == "文件 a.csv：第 3 行"
    assert spaced("{a}：{b}", {"a": "x", "b": "y"}) == "x：y"  # full-width punctuation needs no space


def test_every_importer_description_is_catalogued():
    for imp in IMPORTERS:
        zh = localize(imp.description, "zh-CN")
        assert zh != imp.description and CJK.search(zh), imp.kind


def test_preset_descriptions_in_both_languages():
    known = presets()
    assert set(DESCRIPTIONS) == set(known)
    for name, m in known.items():
        en, zh = DESCRIPTIONS[name]
        assert en == m.description and CJK.search(zh), name
    out = CliRunner().invoke(cli, ["--lang", "zh-CN", "presets"]).output
    for name, m in known.items():
        assert DESCRIPTIONS[name][1] in out and m.description not in out, name
    assert "格式见" in out and "the format" not in out
    assert "Alibaba openb node list" in CliRunner().invoke(cli, ["presets"]).output


def test_the_mig_flag_says_rounded_in_chinese():
    rounded = "nvidia.com/mig-1g.10gb=2: counted as 1/7 of a GPU each (rounded)"
    assert localize(rounded, "zh-CN") == "nvidia.com/mig-1g.10gb=2：每个按 1/7 张 GPU 计（已舍入）"
    exact = "nvidia.com/mig-2g.20gb=1: counted as 2/4 of a GPU each"
    assert localize(exact, "zh-CN") == "nvidia.com/mig-2g.20gb=1：每个按 2/4 张 GPU 计"
