"""What the import says of a later FOCUS export sharing charges with an earlier one (review 7
L6): a charge at the earlier amount is a repeat, not a restatement; a charge at another amount is
restated (old then new); ``--replace`` is proposed only when the file touches at least half of the
earlier import's rows, else the notice says how many rows replacing would withdraw."""

from __future__ import annotations

import re

import pytest

from trainledger.service import Workspace

from .test_bill_restated import HEAD, row, run


def imported(tmp_path, earlier, later, lang):
    """Import ``earlier`` then ``later`` (lists of FOCUS rows) into a new workspace; the second
    import's output in ``lang`` and the earlier import's id."""
    root = tmp_path / f"ws-{lang}"
    Workspace.init(root).close()
    (tmp_path / "A.csv").write_text(HEAD + "".join(earlier), encoding="utf-8")
    (tmp_path / "B.csv").write_text(HEAD + "".join(later), encoding="utf-8")
    run("--workspace", root, "import", "focus", tmp_path / "A.csv")
    out = run("--workspace", root, "--lang", lang, "import", "focus", tmp_path / "B.csv")
    with Workspace.open(root) as wsp:
        (first,) = [rec["sha256"][:12] for rec in wsp.lake.imports() if rec["path"].endswith("A.csv")]
    # a printed command names the workspace (cli/output.py runnable, review 7 L7): the notice's text
    # is compared without it, and every command it prints must carry it
    commands = re.findall(r"`trainledger [^`]*`", out)
    assert all(c.startswith(f"`trainledger --workspace {root} ") for c in commands), commands
    return out.replace(f"trainledger --workspace {root} ", "trainledger "), first


def test_an_identical_repeat_is_a_repeat_not_a_restatement(tmp_path):
    a = [row(8, "150.00"), row(9, "150.00")]
    b = [row(8, "150.00"), row(8, "150.00"), row(9, "150.00")]  # r1 twice, r2: the file's statement
    out, first = imported(tmp_path, a, b, "en")
    assert "1 accepted, 2 duplicate" in out
    assert (f"1 row(s) repeat rows of import {first} unchanged (same charge, USD amount and every other"
            f" column): a repeat, not a restatement. This file states them more often than import {first};"
            " they are counted as this file states them (the extra copies are flagged repeated_row_in_file)"
            ) in out
    assert "restate rows" not in out and "--replace" not in out and "150.00 then 150.00" not in out
    zh, first = imported(tmp_path, a, b, "zh-CN")
    assert (f"有 1 行原样重复了导入 {first} 中的行（费用、USD 金额及其他各列均相同）：这是重复，不是重述。"
            f"本文件列出这些行的次数多于导入 {first}；按本文件所列计入（多出的副本带有标记 repeated_row_in_file）"
            ) in zh
    assert "重述了导入" not in zh and "--replace" not in zh and "repeat rows" not in zh


def test_the_same_amount_with_other_columns_is_a_restatement(tmp_path):
    """Same charge and amount, another description: both rows are counted, so it is no repeat."""
    a = [row(8, "150.00"), row(9, "150.00")]
    out, first = imported(tmp_path, a, [row(8, "150.00", desc="p4d On Demand (restated)")], "en")
    assert f"1 row(s) restate rows of import {first}" in out and "150.00 then 150.00 USD" in out
    assert "This file restates or repeats 1 of that import's 2 rows" in out  # half: proposed
    assert "repeat rows" not in out


WEEK1 = [row(h, f"{10 + h}.00") for h in range(20)]  # 20 hourly rows: 10.00 … 29.00


def test_one_restated_row_of_many_does_not_propose_replacing_the_whole_import(tmp_path):
    week2 = [row(5, "99.00")] + [row(h, "7.00", resource="trn-b001") for h in range(3)]  # 05:00 restated
    out, first = imported(tmp_path, WEEK1, week2, "en")
    assert "4 accepted, 0 duplicate" in out
    assert (f"1 row(s) restate rows of import {first} (same billing account, resource, charge period,"
            " category, class and SKU: 15.00 then 99.00 USD); both are counted. This file touches 1 of"
            f" that import's 20 rows: --replace {first} would withdraw the other 19 rows. If both charges"
            f" are real, drop nothing; if that import is wrong, run `trainledger imports drop {first}` and"
            " import a corrected file in its place") in out
    assert "trainledger import focus" not in out  # no replace command offered
    zh, first = imported(tmp_path, WEEK1, week2, "zh-CN")
    assert (f"有 1 行重述了导入 {first} 中的行（计费账户、资源、计费时段、费用类别、类型和 SKU 相同："
            "先 15.00，后 99.00 USD）；两者都已计入。本文件只涉及该导入 20 行中的 1 行："
            f"--replace {first} 会撤下其余 19 行。若两笔费用都属实，无需删除；若该导入有误，请运行"
            f" `trainledger imports drop {first}`，再导入更正后的文件") in zh
    assert "trainledger import focus" not in zh and "touches" not in zh


def test_restating_most_rows_proposes_replace(tmp_path):
    # a re-export of the same 20 hours: 4 amounts restated, the other 16 identical (duplicates)
    later = [row(h, "1.00") if h in (2, 3, 4, 5) else WEEK1[h] for h in range(20)]
    out, first = imported(tmp_path, WEEK1, later, "en")
    assert "4 accepted, 16 duplicate" in out
    command = f"`trainledger import focus {tmp_path / 'B.csv'} --replace {first}`"
    assert (f"4 row(s) restate rows of import {first} (same billing account, resource, charge period,"
            " category, class and SKU: 12.00 then 1.00; 13.00 then 1.00; 14.00 then 1.00; … USD); both are"
            " counted. This file restates or repeats 20 of that import's 20 rows: if it replaces that"
            f" export, run {command}") in out
    assert "withdraw" not in out
    zh, first = imported(tmp_path, WEEK1, later, "zh-CN")
    assert (f"有 4 行重述了导入 {first} 中的行（计费账户、资源、计费时段、费用类别、类型和 SKU 相同："
            "先 12.00，后 1.00；先 13.00，后 1.00；先 14.00，后 1.00；…… USD）；两者都已计入。"
            f"本文件重述或重复了该导入 20 行中的 20 行：若本文件取代那份导出，请运行 {command}") in zh


@pytest.mark.parametrize(("restated", "proposed"), [(10, True), (9, False)])
def test_replace_is_proposed_from_half_of_the_earlier_rows(tmp_path, restated, proposed):
    """The rule's edge: a file restating 10 of 20 rows (no others) proposes --replace; 9 does not."""
    later = [row(h, "1.00") for h in range(restated)]
    out, first = imported(tmp_path, WEEK1, later, "en")
    assert f"This file restates or repeats {restated} of that import's 20 rows" in out if proposed else (
        f"This file touches {restated} of that import's 20 rows: --replace {first} would withdraw the other"
        f" {20 - restated} rows" in out)
    assert (f"--replace {first}`" in out) is proposed  # the command, only when proposed
