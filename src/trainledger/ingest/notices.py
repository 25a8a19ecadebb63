"""What an import tells the user besides its counts, in English and Simplified Chinese.

An importer or ``run.run_import`` attaches notices to its ``ImportResult`` as (key, values)
pairs; ``render`` spells one in a language. The keys:

- ``reread``: the file's rows are already in the lake from an import of the same content read
  with other options (another ``--tz``), so this reading was not added; the remedy names
  ``--replace``;
- ``reread_other``: the file was imported before with other ``--set`` values (another import of
  it, another statement) and this import added nothing of its own — its rows were duplicates of
  (or conflict with) those: to change them, ``--replace`` that import;
- ``restated``: bill rows restate rows of an earlier import (same account, resource, period,
  charge category/class and SKU); both are counted;
- ``rule_unmatched``: a storage rule's prefix matches no object of an import that lists objects
  of its bucket (ingest/storage.py ``prefix_notice``), with one of that bucket's paths;
- ``unnamed_job``: steps imported without ``--set job=`` name their job by the file's hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TEXT: dict[str, tuple[str, str]] = {
    "reread": (
        "{rows} row(s) of this file are already in the lake from import {id}, read with {old};"
        " they were not read again with {new}. To re-read them with {new}, run"
        " `{command}`",
        "该文件的 {rows} 行已由导入 {id}（按 {old} 读取）存入数据湖，本次未按 {new} 重新读取。"
        "如需按 {new} 重新读取，请运行 `{command}`",
    ),
    "reread_other": (
        "these rows were read before with other options (import {id}); to change them use"
        " --replace {id}",
        "这些行此前已按其他选项读取（导入 {id}）；如需更改，请使用 --replace {id}",
    ),
    "restated": (
        "{rows} row(s) restate rows of import {id} (same billing account, resource, charge period,"
        " category, class and SKU: {earlier} then {later} {currency}); both are counted. If the later"
        " export replaces the earlier, run `{command}`",
        "有 {rows} 行重述了导入 {id} 中的行（计费账户、资源、计费时段、费用类别、类型和 SKU 相同："
        "先 {earlier}，后 {later} {currency}）；两者都已计入。若后一份导出取代前一份，请运行 `{command}`",
    ),
    "rule_unmatched": (
        "storage rule prefix {prefix} matches no object of this import, though it lists objects of bucket"
        " {bucket} (e.g. {example}): the rule classifies nothing here; correct its prefix"
        " ([[storage_prefixes]] in trainledger.toml)",
        "存储前缀规则 {prefix} 未匹配本次导入的任何对象，而本次导入列有存储桶 {bucket} 的对象（例如 {example}）："
        "该规则在此不归类任何对象；请更正其前缀（trainledger.toml 中的 [[storage_prefixes]]）",
    ),
    "unnamed_job": (
        "no --set job= given: these steps name their job {job} (from the file's hash); to tie them"
        " to a job run `{command}`",
        "未给出 --set job=：这些步数记录以 {job}（取自文件哈希）命名其作业；如需关联到作业，请运行 `{command}`",
    ),
}


def render(key: str, values: Mapping[str, Any], lang: str = "en") -> str:
    en, zh = TEXT[key]
    return (zh if lang == "zh-CN" else en).format(**values)


def option_text(options: Mapping[str, Any], keys: list[str]) -> str:
    """``--tz UTC``-style words for the options ``keys`` (an unset one: ``no --tz``)."""
    words = []
    for k in keys:
        flag = "--" + k.replace("_", "-")
        val = options.get(k)
        words.append(f"{flag} {val}" if val not in (None, "", [], {}) else f"no {flag}")
    return ", ".join(words)


__all__ = ["TEXT", "option_text", "render"]
