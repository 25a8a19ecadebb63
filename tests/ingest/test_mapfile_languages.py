"""Issue 8: a mapping file's every error in one language per mode, naming the file, the key and
the remedy; in English no Chinese but the file's own quoted headers, in Chinese no English
sentence (keys, headers, options and TOML examples are the file's own words)."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.errors import BadInput
from trainledger.ingest import mapfile
from trainledger.ingest.mapfile import SCALE_REMEDY, load, parse

WHERE = "maps/bill.toml"
BILL = 'table = "bill_lines"\n'
JOBS = 'table = "jobs"\n[columns]\njob_id = "id"\n'
CASES = {  # name → (TOML, the key the message names)
    "not_toml": ("table = ", None),
    "unknown_key": ("tabel = 1\n", "tabel"),
    "unknown_key_elsewhere": ('table = "jobs"\nzone = "UTC"\n[columns]\njob_id = "id"\n', "zone"),
    "unknown_key_elsewhere_words": ('table = "jobs"\nvocabulary = 1\n[columns]\njob_id = "id"\n', "vocabulary"),
    "not_target_table": ('table = "bill_line"\n', "table"),
    "does_not_apply": (BILL + "nulls = []\n", "nulls"),
    "must_be_table": (BILL + 'time = "iso"\n', "time"),
    "header_or_list": (BILL + "signature = [1]\n", "signature"),
    "columns_empty": ('table = "jobs"\n', "columns"),
    "no_field": (BILL + '[columns]\nbiled_cost = "x"\n', "columns.biled_cost"),
    "text_or_number": (BILL + "[constants]\nbilled_cost = [1]\n", "constants.billed_cost"),
    "name_a_header": ('table = "jobs"\n[columns]\njob_id = "id"\n[tags]\nteam = 1\n', "tags.team"),
    "numbers_need_origin": ('table = "jobs"\n[time]\nformat = "number"\n[columns]\njob_id = "id"\nstart = "s"\n',
                            "time"),
    "list_of_headers": (BILL + 'signature = "x"\n', "signature"),
    "list_of_texts": ('table = "jobs"\nnulls = [1]\n[columns]\njob_id = "id"\n', "nulls"),
    "whole_seconds": ('table = "occupancy"\ninterval_s = 0\n[columns]\nts = "t"\n', "interval_s"),
    "unverified": (BILL + "unverified = 3\n", "unverified"),
    "not_iso_or_number": (BILL + '[time]\nformat = "nope"\n', "time.format"),
    "not_iso_time": (BILL + '[time]\norigin = "yesterday"\n', "time.origin"),
    "no_utc_offset": (BILL + '[time]\norigin = "2020-01-01T00:00:00"\n', "time.origin"),
    "unknown_zone": (BILL + '[time]\nzone = "Mars/Olympus"\n', "time.zone"),
    "unit_not_one_of": (BILL + '[time]\nunit = "sec"\n', "time.unit"),
    "time_unknown_key": (BILL + '[time]\nzon = "UTC"\n', "time.zon"),
    "job_column_key": ('table = "jobs"\n[columns]\njob_id = { from = "id", type = "decimal" }\n',
                       "columns.job_id.type"),
    "column_unknown_key": (BILL + '[columns]\nbilled_cost = { from = "x", scal = "1" }\n', "columns.billed_cost.scal"),
    "names_no_header": (BILL + '[columns]\nbilled_cost = { type = "decimal" }\n', "columns.billed_cost"),
    "unknown_type": (BILL + '[columns]\nbilled_cost = { from = "x", type = "decimel" }\n', "columns.billed_cost.type"),
    "scale_not_number": (BILL + '[columns]\nbilled_cost = { from = "金额(分)", type = "decimal", scale = "1/100" }\n',
                         "columns.billed_cost.scale"),
    "map_words": (BILL + '[columns]\ncharge_category = { from = "x", map = { a = 1 } }\n',
                  "columns.charge_category.map"),
    "state_only": ('table = "jobs"\n[columns]\njob_id = { from = "id", map = { a = "b" } }\n', "columns.job_id.map"),
    "keep_or_null": (BILL + '[columns]\ncharge_category = { from = "x", unmapped = "drop" }\n',
                     "columns.charge_category.unmapped"),
    "number_time_origin": (BILL + '[columns]\ncharge_period_start = { from = "t", type = "time", unit = "s" }\n',
                           "columns.charge_period_start"),
    "unit_origin_time": (BILL + '[columns]\nbilled_cost = { from = "x", unit = "s" }\n', "columns.billed_cost"),
    "wide_table": ('table = "capacity"\nwide = 1\n[columns]\ncluster = "c"\n', "wide"),
    "wide_needs": ('table = "capacity"\n[wide]\nfield = "vc"\n[columns]\ncluster = "c"\n', "wide"),
    "wide_also": ('table = "capacity"\n[wide]\nfield = "vc"\nvalue = "gpus"\n[columns]\ncluster = "c"\nvc = "v"\n',
                  "wide.vc"),
    "period_unknown_key": (BILL + '[period]\nweek = "w"\n', "period.week"),
    "finalised_table": (BILL + "finalised = 4\n", "finalised"),
    "finalised_range": (BILL + "[finalised]\nday = 31\n", "finalised"),
    "notes_tables": (BILL + "notes = [1]\n", "notes"),
    "notes_needs": (BILL + '[[notes]]\ntext = "x"\nwhen = "sometimes"\n', "notes[1]"),
}
CJK = re.compile(r"[\u3400-\u9fff\u3000-\u303f\uff00-\uffef]")
# an English sentence's words: what must not be left in the Chinese of a message
ENGLISH = re.compile(r"\b(must|unknown|is not|does not|apply|e\.g\.|known|see docs|leave|needs|names no|only|give|"
                     r"pass|use one|import it|write|add|map onto|has no|did you mean|the|of|and|or|written|"
                     r"header|table [a-z]|empty|offset|time zone|field and|day is)\b")


def _own_words(text: str) -> str:
    """``text`` without what the file itself says: quoted headers and TOML examples, code spans,
    the file's path, keys (``columns.x.type``), options and lists of names."""
    text = text.replace(WHERE, "")
    text = re.sub(r"`[^`]*`|\"[^\"]*\"|'[^']*'|\{[^{}]*(\{[^{}]*\}[^{}]*)*\}|\[[^\]]*\]|--[\w-]+", "", text)
    return re.sub(r"[A-Za-z_][\w.]*[=]?", lambda m: "" if "." in m.group() or "_" in m.group() else m.group(), text)


def _error(toml: str) -> BadInput:
    with pytest.raises(BadInput) as e:
        parse(toml, WHERE)
    return e.value


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_mapping_error_is_one_language_per_mode(name):
    toml, key = CASES[name]
    e = _error(toml)
    en, zh = e.text("en"), e.text("zh-CN")
    assert en.startswith(f"{WHERE}: ") and "\n  remedy: " in en, en  # the file, then the remedy
    assert zh.startswith(f"{WHERE}：") and "\n  解决办法：" in zh, zh
    if key:
        assert f": {key}: " in en and f"{key}：" in zh
    quoted_out = re.sub(r"\"[^\"]*\"", "", en)  # the file's own quoted headers may be Chinese
    assert not CJK.search(quoted_out), f"Chinese in the English message: {en}"
    said = zh.split("：", 1)[1]
    if name == "not_toml":  # Python's own words on where the TOML breaks are passed on as they are
        assert said.startswith("不是合法的 TOML：")
        said = said.split("\n")[1]
    left = ENGLISH.findall(_own_words(said))
    assert not left, f"English words {left} in the Chinese message: {zh}"


def test_a_closeness_hint_is_said_in_the_message_language():
    e = _error(BILL + '[columns]\nbiled_cost = "x"\n')
    assert "bill_lines has no field 'biled_cost' — did you mean billed_cost?" in e.text("en")
    assert "bill_lines 没有字段 'biled_cost'——是否想写 billed_cost？" in e.text("zh-CN")
    assert "是否" not in e.text("en") and "did you mean" not in e.text("zh-CN")


def test_choosing_a_mapping_is_one_language_per_mode():
    for options, tables in (({"preset": "a", "mapping": "b"}, ("jobs",)), ({}, ("jobs",)),
                            ({"preset": "slurm-trac"}, ("jobs",)), ({"mapping": "nope.toml"}, ("jobs",)),
                            ({"preset": "aliyun-split-bill"}, ("jobs",))):
        with pytest.raises(BadInput) as e:
            load(options, tables, "jobs")
        en, zh = e.value.text("en"), e.value.text("zh-CN")
        assert not CJK.search(en), en
        assert not ENGLISH.findall(_own_words(zh)), zh
    with pytest.raises(BadInput) as e:
        load({"preset": "slurm-trac"}, ("jobs",), "jobs")
    assert "no preset 'slurm-trac' — did you mean slurm-trace?" in str(e.value)
    assert "没有预设 'slurm-trac'——是否想写 slurm-trace？" in e.value.text("zh-CN")


def test_the_fen_remedy_shows_the_option_that_divides_by_100():
    """A bill whose amounts are in fen (分): the remedy's example is a column that reads them in yuan."""
    e = _error(CASES["scale_not_number"][0])
    assert "'1/100' is not a number" in e.text("en") and "'1/100' 不是数字" in e.text("zh-CN")
    assert e.remedy == SCALE_REMEDY and "fen (1/100 yuan)" in e.text("en")
    assert "divides each amount by 100" in e.text("en")
    assert "金额以分为单位的账单" in e.text("zh-CN") and "除以 100" in e.text("zh-CN")
    example = re.search(r"billed_cost = (\{.*?\}), which", SCALE_REMEDY).group(1)
    m = parse(f"{BILL}[columns]\nbilled_cost = {example}\n", WHERE)
    col = m.column("billed_cost")
    assert col.scale == Decimal("0.01") and Decimal("12345") * col.scale == Decimal("123.45")


def test_an_old_format_file_is_told_how_to_rewrite_in_either_language(tmp_path):
    old = tmp_path / "old.toml"
    old.write_text('table = "bill_lines"\ntimezone = "Asia/Shanghai"\n[columns]\n'
                   'charge_period_start = { from = "s", type = "epoch_s" }\n')
    en = mapfile.legacy_notes("mapped_bills", {"mapping": str(old)})
    zh = mapfile.legacy_notes("mapped_bills", {"mapping": str(old)}, "zh-CN")
    assert en[0].endswith("old mapping format, read translated; rewrite it so:") and len(en) == len(zh) == 3
    assert 'timezone = "Asia/Shanghai" is the old spelling: write [time] zone = "Asia/Shanghai"' in en[1]
    assert zh[0].endswith("旧映射格式（已按新格式读取），请这样改写：") and "是旧写法" in zh[1] and "是旧写法" in zh[2]
    assert not any(CJK.search(line) for line in en)
    assert not any(ENGLISH.findall(_own_words(line.replace(str(old), ""))) for line in zh), zh


def test_the_cli_says_a_mapping_error_in_chinese_without_english(tmp_path):
    root = tmp_path / "ws"
    CliRunner().invoke(cli, ["init", str(root), "--currency", "CNY"], catch_exceptions=False)
    bad = tmp_path / "m.toml"
    bad.write_text('table = "jobs"\n[columns]\njob_id = { from = "id", type = "decimal" }\n')
    jobs = tmp_path / "j.csv"
    jobs.write_text("id\n1\n")
    out = CliRunner().invoke(cli, ["--workspace", str(root), "--lang", "zh-CN", "import", "jobs", str(jobs),
                                   "--mapping", str(bad)]).output
    assert "不适用于作业类表" in out and "does" not in out and "apply" not in out, out
    out = CliRunner().invoke(cli, ["--workspace", str(root), "import", "jobs", str(jobs), "--mapping", str(bad)]).output
    assert "does not apply to the job tables" in out and not CJK.search(out), out
