"""A later FOCUS export that repeats a row of an earlier one exactly, beside one that restates a
row (same charge, another cost): the repeat is the problem ``repeated_bill_row`` (counted as the
later file states it, nothing twice), the restatement ``restated_bill_row`` (both counted); the
texts in English and zh-CN, the row the repeat leaves flagged, and conservation to the cent.
Rows from the FOCUS 1.0 sample data (tests/data/focus-sample-data), imported through the CLI."""

from __future__ import annotations

import csv
import io
import json
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.report import problems_i18n as pi
from trainledger.service import Workspace

SAMPLE = Path(__file__).resolve().parent / "data" / "focus-sample-data" / "focus_sample.csv"
N = 10  # sample rows in the earlier export
NEW_COST = "0.01234560000"  # the restated row's BilledCost in the later export


def run(*args, code=0):
    result = CliRunner().invoke(cli, ["--lang", "en", *map(str, args)], catch_exceptions=False)
    assert result.exit_code == code, result.output
    return result.output


def sample_rows() -> tuple[str, list[str]]:
    """The sample's header line and its first ``N`` data lines, as the file has them."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines(keepends=True)
    return lines[0], lines[1:N + 1]


def restate(line: str, cost: str) -> str:
    """``line`` with another BilledCost (every other column as it was)."""
    fields = next(csv.reader([line]))
    header = next(csv.reader([SAMPLE.read_text(encoding="utf-8").splitlines()[0]]))
    at = header.index("BilledCost")
    assert fields[at] != cost
    fields[at] = cost
    out = io.StringIO()
    csv.writer(out, lineterminator="\n", quoting=csv.QUOTE_MINIMAL).writerow(fields)
    return out.getvalue()


def billed(line: str) -> Decimal:
    header = next(csv.reader([SAMPLE.read_text(encoding="utf-8").splitlines()[0]]))
    return Decimal(next(csv.reader([line]))[header.index("BilledCost")])


@pytest.fixture
def imported(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    head, rows = sample_rows()
    earlier, later = tmp_path / "sept.csv", tmp_path / "sept-later.csv"
    earlier.write_text(head + "".join(rows), encoding="utf-8")
    # the later export: row 2 restated (another cost), row 3 stated twice (the earlier states it once)
    later_rows = [rows[0], restate(rows[1], NEW_COST), *rows[2:], rows[2]]
    later.write_text(head + "".join(later_rows), encoding="utf-8")
    assert f"{N} accepted, 0 duplicate, 0 quarantined" in run("--workspace", root, "import", "focus", earlier)
    out = run("--workspace", root, "import", "focus", later)
    assert f"2 accepted, {N - 1} duplicate, 0 quarantined" in out  # the restatement and the second copy
    listing = {Path(r["path"]).name: r for r in json.loads(run("--workspace", root, "imports", "list", "--json"))}
    return root, rows, listing["sept.csv"], listing["sept-later.csv"]


def test_a_repeat_and_a_restatement_are_told_apart(imported):
    root, rows, first, second = imported
    with Workspace.open(root) as wsp:
        result = wsp.attribute()
    by_kind = {p.kind: p for p in result.problems if p.kind in ("repeated_bill_row", "restated_bill_row")}
    assert set(by_kind) == {"repeated_bill_row", "restated_bill_row"}
    rep, res = by_kind["repeated_bill_row"], by_kind["restated_bill_row"]
    assert rep.detail == {"rows": 1, "earlier": first["id"], "later": second["id"], "currency": "USD"}
    assert (res.detail["rows"], res.detail["earlier"], res.detail["later"]) == (1, first["id"], second["id"])
    assert (Decimal(res.detail["earlier_amount"]), Decimal(res.detail["later_amount"])) == \
        (billed(rows[1]), Decimal(NEW_COST))  # the restated row's two costs, not the repeated one's

    en = pi.message(rep.as_dict(), "en")
    assert en == (f"1 bill row(s) of import {second['id']} repeat rows of import {first['id']} unchanged (same"
                  " charge, USD amount and every other column): a repeat, not a restatement; counted as import"
                  f" {second['id']} states them, nothing twice")
    zh = pi.message(rep.as_dict(), "zh-CN")
    assert zh == (f"导入 {second['id']} 的 1 行账单原样重复了导入 {first['id']} 中的行"
                  "（费用、USD 金额及其他各列均相同）："
                  f"这是重复陈述，不是重述；按导入 {second['id']} 的陈述计入，没有重复计入")
    assert pi.label("repeated_bill_row", "zh-CN") == "账单行被后续导入重复陈述"
    assert f"{billed(rows[1])} USD 被重复计入" in pi.message(res.as_dict(), "zh-CN")

    # conservation to the cent: the earlier file's rows, the restated row's new cost and the repeat's
    # second copy — each once, nothing dropped, nothing twice
    (usd,) = [c for c in result.conservation if c["currency"] == "USD"]
    want = sum(map(billed, rows)) + Decimal(NEW_COST) + billed(rows[2])
    assert Decimal(usd["billed_total"]) == want
    assert Decimal(usd["attributed"]) + Decimal(usd["unattributed"]) == want
    assert Decimal(usd["difference"]) == 0
    assert not [p for p in result.problems if p.kind == "conservation"]


def test_the_repeat_is_the_row_the_later_file_states_twice(imported):
    """The copy the lake keeps of the later export is its second statement of the row (line 12 of
    the file: data row 11), flagged as repeated within the file; the first copy is a duplicate of
    the earlier export's row."""
    root, rows, _first, second = imported
    shown = json.loads(run("--workspace", root, "imports", "show", second["id"], "--json"))
    flagged = {r["row"]: r["notes"] for r in shown["flagged_rows"]}
    assert flagged == {N + 1: ["repeated_row_in_file"]}
    with Workspace.open(root) as wsp:
        bill = wsp.lake.read("bill_lines").to_pylist()
    mine = sorted((r["row"], r["billed_cost"]) for r in bill if r["source_sha256"] == second["sha256"])
    assert [(row, Decimal(str(cost))) for row, cost in mine] == [(2, Decimal(NEW_COST)), (N + 1, billed(rows[2]))]
    assert second["flagged"] == 1 and (second["accepted"], second["duplicates"]) == (2, N - 1)
