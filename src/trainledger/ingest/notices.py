"""What an import tells the user besides its counts, in English and Simplified Chinese.

An importer or ``run.run_import`` attaches notices to its ``ImportResult`` as (key, values)
pairs; ``render`` spells one in a language. The keys:

- ``reread``: the file's rows are already in the lake from an import of the same content read
  with other options (another ``--tz``), so this reading was not added; the remedy names
  ``--replace``;
- ``reread_other``: the file was imported before with other ``--set`` values (another import of
  it, another statement) and this import added nothing of its own — its rows were duplicates of
  (or conflict with) those: to change them, ``--replace`` that import;
- ``repeated``: bill rows repeat rows of an earlier import unchanged (the file states them more
  often; the extra copies are flagged ``repeated_row_in_file``): counted as the file states them;
- ``restated_replace`` / ``restated_partial``: bill rows state a charge of an earlier import
  (same account, resource, period, charge category/class and SKU) with another amount or other
  columns; both are counted. ``_replace`` (the file touches at least half of the earlier import's rows)
  names ``--replace``; ``_partial`` says how many rows replacing would withdraw, and the
  alternatives (service.py ``_restated_notice``);
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
    "repeated": (
        "{rows} row(s) repeat rows of import {id} unchanged (same charge, {currency} amount and every other"
        " column): a repeat, not a restatement. This file states them more often than import {id}; they are"
        " counted as this file states them (the extra copies are flagged repeated_row_in_file)",
        "有 {rows} 行原样重复了导入 {id} 中的行（费用、{currency} 金额及其他各列均相同）：这是重复，不是重述。"
        "本文件列出这些行的次数多于导入 {id}；按本文件所列计入（多出的副本带有标记 repeated_row_in_file）",
    ),
    "restated_replace": (
        "{rows} row(s) restate rows of import {id} (same billing account, resource, charge period,"
        " category, class and SKU: {examples} {currency}); both are counted. This file restates or repeats"
        " {touched:,} of that import's {total:,} rows: if it replaces that export, run `{command}`",
        "有 {rows} 行重述了导入 {id} 中的行（计费账户、资源、计费时段、费用类别、类型和 SKU 相同："
        "{examples_zh} {currency}）；两者都已计入。本文件重述或重复了该导入 {total:,} 行中的 {touched:,} 行："
        "若本文件取代那份导出，请运行 `{command}`",
    ),
    "restated_partial": (
        "{rows} row(s) restate rows of import {id} (same billing account, resource, charge period,"
        " category, class and SKU: {examples} {currency}); both are counted. This file touches {touched:,}"
        " of that import's {total:,} rows: --replace {id} would withdraw the other {others:,} rows. If both"
        " charges are real, drop nothing; if that import is wrong, run `trainledger imports drop {id}` and"
        " import a corrected file in its place",
        "有 {rows} 行重述了导入 {id} 中的行（计费账户、资源、计费时段、费用类别、类型和 SKU 相同："
        "{examples_zh} {currency}）；两者都已计入。本文件只涉及该导入 {total:,} 行中的 {touched:,} 行："
        "--replace {id} 会撤下其余 {others:,} 行。若两笔费用都属实，无需删除；若该导入有误，请运行"
        " `trainledger imports drop {id}`，再导入更正后的文件",
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
