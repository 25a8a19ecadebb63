"""The XLSX workbook of a batch sheet, read back with openpyxl: formulas only from the builder, and
recomputing them from the exact decimals gives the engine's figures; hostile names stay text."""

from __future__ import annotations

import dataclasses
import re
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from trainledger.report import xlsx
from trainledger.report.access import for_role
from trainledger.service import Workspace

BATCHES = ("csa-sft-2026-11-a", "csa-sft-2026-11-b")
HOSTILE = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-2+3", "@SUM(A1:A9)", "=cmd|' /C calc'!A0"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Path:
    from trainledger.cli.demo_cmd import run_demo
    from trainledger.demo import DEFAULT_SEED

    root = tmp_path_factory.mktemp("xlsx-demo")
    run_demo(root, DEFAULT_SEED, echo=lambda *a, **k: None)
    return root


@pytest.fixture(scope="module")
def data(demo):
    with Workspace.open(demo) as wsp:
        # the sheet as the admin sees it: its Restricted fields resolved (report/access.py)
        return {b: (for_role(wsp.sheet(b))[0], wsp.ledger.cost_lines(b)) for b in BATCHES}


def _write(tmp_path, sheet, lines, name="b.xlsx"):
    out = tmp_path / name
    book = xlsx.write_xlsx(sheet, lines, out)
    return book, openpyxl.load_workbook(out)


def _exact(cell) -> Decimal:
    """A cell as the decimal it stands for: exact text as is, a number through its shortest repr."""
    v = cell.value
    return Decimal(v) if isinstance(v, str) else Decimal(repr(v))


def _evaluate(ws, formula: str, exact_of) -> Decimal:
    """Evaluate the builder's small formulas (+, -, ROUND) in Decimal, each reference read through
    ``exact_of`` — the check that a formula points at the cells it should."""
    expr = re.sub(r"\$?([A-Z]{1,3})\$?([0-9]+)", lambda m: f"D({str(exact_of(ws, m.group(0)))!r})", formula[1:])
    rnd = lambda x, n: x.quantize(Decimal(1).scaleb(-n), ROUND_HALF_EVEN)  # noqa: E731
    assert re.fullmatch(r"[D()'0-9.\-+,ROUND E]*", expr), expr
    return eval(expr, {"__builtins__": {}}, {"D": Decimal, "ROUND": rnd})  # noqa: S307 - checked above


def _all_formulas(wb) -> dict[tuple[str, str], str]:
    return {(ws.title, c.coordinate): c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
            if c.data_type == "f"}


def test_demo_writes_a_workbook_per_batch(demo):
    for b in BATCHES:
        wb = openpyxl.load_workbook(demo / "reports" / f"{b}.xlsx")
        assert wb.sheetnames == list(xlsx.SHEETS)
        assert wb["README"]["B2"].value == b


@pytest.mark.parametrize("batch", BATCHES)
def test_every_formula_cell_comes_from_the_builder(tmp_path, data, batch):
    book, wb = _write(tmp_path, *data[batch])
    found = _all_formulas(wb)
    assert found, "the workbook has live formulas"
    assert found == book.formulas  # same cells, same text: nothing else in the file is a formula
    assert {sheet for sheet, _ in found} == {"Summary", "Balance", "Variance", "Control"}


@pytest.mark.parametrize("batch", BATCHES)
def test_variance_formulas_recompute_to_the_engines_decimals(tmp_path, data, batch):
    sheet, lines = data[batch]
    _, wb = _write(tmp_path, sheet, lines)
    ws = wb["Variance"]
    head = [c.value for c in ws[1]]
    col = {p: head.index(f"{xlsx.H('exact')}: {p}") + 1 for p in xlsx.PARTS}
    inputs = {openpyxl.utils.get_column_letter(3 + k): p for k, p in enumerate(xlsx.PARTS)}

    def exact_of(ws, ref):  # a formula input, read through its exact-text column
        letter, row = re.fullmatch(r"([A-Z]+)([0-9]+)", ref).groups()
        if letter in inputs:
            return Decimal(ws.cell(row=int(row), column=col[inputs[letter]]).value)
        return _evaluate(ws, ws[ref].value, exact_of)  # a formula over formulas

    rows = sheet["plan_vs_actual"]["variance"]
    assert ws.cell(row=len(rows) + 2, column=1).value is None  # the bridge, then the plan-line block
    for i, v in enumerate(rows, 2):
        parts = {p: Decimal(v[p]) for p in xlsx.PARTS}
        assert ws.cell(row=i, column=1).value == v["basis"] and ws.cell(row=i, column=2).value == v["currency"]
        for k, p in enumerate(xlsx.PARTS):  # live over the plan-line block (test_report_xlsx_variance.py)
            assert ws.cell(row=i, column=3 + k).value.startswith("=SUMIFS(")
            assert Decimal(ws.cell(row=i, column=col[p]).value) == parts[p]
        delta, computed_delta, total, computed_total, check = (ws.cell(row=i, column=11 + k) for k in range(5))
        assert delta.value == f"=D{i}-C{i}" and total.value == f"=E{i}+F{i}+G{i}+H{i}+I{i}+J{i}"
        assert _exact(computed_delta) == parts["actual"] - parts["plan"] == _evaluate(ws, delta.value, exact_of)
        engine_total = sum((parts[p] for p in xlsx.PARTS[2:]), Decimal(0))  # other charges and not split too
        assert _exact(computed_total) == engine_total == _evaluate(ws, total.value, exact_of)
        assert _evaluate(ws, check.value, exact_of) == Decimal("0.00")


CENT = Decimal("0.01")
FOR = openpyxl.utils.get_column_letter(xlsx.LINE_AT["for_formulas"])  # the column every SUMIFS adds


def _control_rows(ws, recs) -> dict[str, int]:
    rows = {ws.cell(row=i, column=1).value: i for i in range(4, 4 + len(recs))}
    assert list(rows) == [r["currency"] for r in recs]
    return rows


@pytest.mark.parametrize("batch", BATCHES)
def test_control_is_a_live_sumifs_over_lines_that_shows_zero(tmp_path, data, batch):
    from tests.xlsx_eval import Evaluator
    from trainledger.model import CASH_BASES

    sheet, lines = data[batch]
    _, wb = _write(tmp_path, sheet, lines)
    cached = openpyxl.load_workbook(tmp_path / "b.xlsx", data_only=True)["Control"]
    ws, ev = wb["Control"], Evaluator(wb)
    recs = sheet["conservation"]["by_currency"]
    for cur, i in _control_rows(ws, recs).items():
        r = next(x for x in recs if x["currency"] == cur)
        mine = sum((ln.amount.expected for ln in lines if ln.basis in CASH_BASES and ln.currency == cur), Decimal(0))
        assert ws.cell(row=i, column=3).value.startswith(f"=SUMIFS(Lines!${FOR}$2:${FOR}$")
        assert abs(ev.value("Control", f"C{i}") - mine) < Decimal("1e-6")  # this batch: its Lines
        assert Decimal(repr(cached.cell(row=i, column=3).value)) == mine  # stored: the engine's decimal
        assert abs(ev.value("Control", f"E{i}") - Decimal(r["attributed"])) < Decimal("1e-6")
        assert ev.value("Control", f"F{i}") == Decimal(r["unattributed"])  # the rows by reason, summed
        assert _exact(ws.cell(row=i, column=2)) == Decimal(r["billed_total"])
        assert ev.value("Control", f"G{i}") == 0 == cached.cell(row=i, column=7).value
    assert any(ln.basis in CASH_BASES and ln.currency == "CNY" for ln in lines)  # the batch has cash in CNY


def test_control_moves_when_a_range_a_sign_or_a_line_is_broken(tmp_path, data):
    from tests.xlsx_eval import Evaluator
    from trainledger.model import CASH_BASES

    sheet, lines = data["csa-sft-2026-11-a"]
    _, wb = _write(tmp_path, sheet, lines)
    ws = wb["Control"]
    i = _control_rows(ws, sheet["conservation"]["by_currency"])["CNY"]
    check = f"G{i}"
    assert Evaluator(wb).value("Control", check) == 0
    sumifs, total, unattributed = ws[f"C{i}"].value, ws[f"E{i}"].value, ws[f"F{i}"].value
    ws[f"C{i}"].value = re.sub(r"(\$[A-Z]\$2:\$[A-Z]\$)[0-9]+", r"\g<1>40", sumifs)  # the range cut short
    assert Evaluator(wb).value("Control", check) != 0
    ws[f"C{i}"].value = sumifs
    ws[f"E{i}"].value = total.replace("+", "-")  # a sign flipped
    assert Evaluator(wb).value("Control", check) != 0
    ws[f"E{i}"].value = total
    a, z = re.fullmatch(r"=SUM\(([A-Z]+[0-9]+):([A-Z]+)([0-9]+)\)", unattributed).group(1, 3)
    ws[f"F{i}"].value = f"=SUM({a}:E{int(z) - 1})"  # one reason left out
    assert Evaluator(wb).value("Control", check) != 0
    ws[f"F{i}"].value = unattributed
    row = next(k for k, ln in enumerate(lines, 2) if ln.basis in CASH_BASES and ln.currency == "CNY")
    moved = Evaluator(wb, {("Lines", f"{FOR}{row}"): Decimal(repr(wb["Lines"][f"{FOR}{row}"].value)) + 1})
    assert moved.value("Control", check) == Decimal("-1.00")  # a Lines amount edited: the control says so


def test_lines_carry_provenance_and_exact_amounts(tmp_path, data):
    sheet, lines = data["csa-sft-2026-11-b"]
    book, wb = _write(tmp_path, sheet, lines)
    ws = wb["Lines"]
    assert ws.max_row == len(lines) + 1
    inexact = 0
    for i, ln in enumerate(lines, 2):
        row = {k: c for k, c in zip(xlsx.LINE_COLUMNS, ws[i], strict=False)}
        p = ln.provenance
        assert row["source_sha256"].value == p.source_sha256 and row["row"].value == p.row
        assert row["rule"].value == p.rule and row["basis"].value == str(ln.basis)
        assert row["import_key"].value == (p.import_key or None)  # which import the row came through
        row = [c for c in ws[i]]
        for k, f in enumerate(("low", "expected", "high"), 3):
            assert _exact(row[k]) == getattr(ln.amount, f)  # exact, whether number or text
        if any(row[k].data_type == "s" for k in (3, 4, 5)):
            inexact += 1
            assert row[xlsx.LINE_AT["note"] - 1].value == xlsx.H("PRECISION")
        else:
            assert row[4].number_format.endswith(f'"{ln.currency}"')
    assert inexact == len({(t, c[1:]) for t, c in book.inexact if t == "Lines"})


def test_assumptions_are_defined_names(tmp_path, data):
    sheet, lines = data["csa-sft-2026-11-a"]
    _, wb = _write(tmp_path, sheet, lines)
    ws = wb["Assumptions"]
    by_name = {}
    for a in sheet["assumptions"]:
        base = xlsx._slug(a["name"])
        for key in ("low", "high"):
            if a.get(key) is not None:
                by_name[f"{base}_{key}"] = Decimal(a[key])
    assert len(by_name) >= 10
    for name, value in by_name.items():
        title, coord = next(wb.defined_names[name].destinations)
        assert title == "Assumptions"
        assert _exact(ws[coord]) == value
        assert ws.cell(row=ws[coord].row, column=6).value  # its owner stands beside it


def test_hostile_names_stay_text(tmp_path, data):
    sheet, lines = data["csa-sft-2026-11-a"]
    sheet = dict(sheet, batch=dict(sheet["batch"], id=HOSTILE[0], name=HOSTILE[1]),
                 runs=[dict(r, job=HOSTILE[2], id=HOSTILE[3]) for r in sheet["runs"]],
                 assumptions=[dict(a, owner=HOSTILE[3]) for a in sheet["assumptions"]],
                 totals_by_basis=[dict(t, evidence=HOSTILE[4]) for t in sheet["totals_by_basis"]])
    lines = [dataclasses.replace(ln, detail=HOSTILE[4], run_id=ln.run_id and HOSTILE[3]) for ln in lines]
    book, wb = _write(tmp_path, sheet, lines)
    assert _all_formulas(wb) == book.formulas
    seen = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for c in row:
                if c.value in HOSTILE:
                    # a typed string with its exact text: no formula, and no CSV apostrophe (F14)
                    assert c.data_type == "s" and not c.quotePrefix, (ws.title, c.coordinate)
                    seen.add(c.value)
    assert seen == set(HOSTILE)
    assert wb["README"]["B2"].value == HOSTILE[0]


def test_text_never_becomes_a_formula_even_for_control_characters(tmp_path):
    book = xlsx.Book()
    ws = book.sheet("T")
    book.text(ws, 1, 1, "=1+1\x07")
    book.wb.save(tmp_path / "t.xlsx")
    c = openpyxl.load_workbook(tmp_path / "t.xlsx")["T"]["A1"]
    assert (c.value, c.data_type) == ("=1+1", "s")
    with pytest.raises(ValueError):
        book.formula(ws, 1, 2, "{a}+1", cached=0, a="A1);CMD(")


def test_both_languages_and_charts(tmp_path, data):
    sheet, lines = data["csa-sft-2026-11-b"]
    _, wb = _write(tmp_path, sheet, lines)
    readme = [c.value for row in wb["README"].iter_rows() for c in row if c.value]
    for key in ("bases", "evidence_levels", "verify"):
        assert xlsx.L[key][0] in readme and xlsx.L[key][1] in readme
    assert wb["Summary"]["A1"].value == "basis / 口径"
    charts = wb["Summary"]._charts
    bases = {t["basis"] for t in sheet["totals_by_basis"]}
    assert len(charts) == 1 + len(bases)  # GPU-hours by state, then one cost chart per basis
    assert all(len(ch.series) in (1, 3) for ch in charts)


def test_money_is_never_rounded_silently():
    assert xlsx.float_exact(Decimal("282600.97"))
    assert not xlsx.float_exact(Decimal("0.4799999999999999999999999999"))
    assert not xlsx.float_exact(Decimal("221439.204953050402226688"))
    book = xlsx.Book()
    ws = book.sheet("M")
    assert book.money(ws, 1, 1, "0.4799999999999999999999999999", "CNY") is False
    assert ws["A1"].value == "0.4799999999999999999999999999" and book.inexact == [("M", "A1")]
    assert book.money(ws, 2, 1, "1234.5", "JPY") is True
    assert ws["A2"].number_format == '#,##0 "JPY"'


def test_cli_requires_out_for_xlsx(demo, tmp_path):
    from trainledger.cli import cli

    r = CliRunner().invoke(cli, ["--workspace", str(demo), "sheet", BATCHES[0], "--format", "xlsx"])
    assert r.exit_code == 2 and "--out" in r.output
    out = tmp_path / "a.xlsx"
    r = CliRunner().invoke(cli, ["--workspace", str(demo), "sheet", BATCHES[0], "--format", "xlsx",
                                 "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert openpyxl.load_workbook(out)["README"]["B2"].value == BATCHES[0]


@pytest.mark.parametrize("batch", BATCHES)
def test_summary_totals_are_live_sums_over_lines(tmp_path, data, batch):
    """Summary's SUMIFS, evaluated over the lines' exact amounts, gives the engine's total (cash:
    every digit; estimates: the engine's minor-unit rounding), and its check cell comes to 0.00."""
    sheet, lines = data[batch]
    _, wb = _write(tmp_path, sheet, lines)
    ws, lw = wb["Summary"], wb["Lines"]
    n = len(lines) + 1
    for r in lw.iter_rows(min_row=2):  # what SUMIFS adds: each exact amount to 15 significant digits
        assert r[xlsx.LINE_AT["for_formulas"] - 1].value == float(format(_exact(r[4]), ".15g"))
    for i, t in enumerate(xlsx.in_seed_order(sheet)["totals_by_basis"], 2):
        f = ws.cell(row=i, column=8).value
        assert f == (f"=SUMIFS(Lines!${FOR}$2:${FOR}${n},Lines!$B$2:$B${n},A{i},Lines!$C$2:$C${n},B{i},"
                     f"Lines!$G$2:$G${n},C{i})")
        key = (ws[f"A{i}"].value, ws[f"B{i}"].value, ws[f"C{i}"].value)
        assert key == (t["basis"], t["evidence"], t["currency"])
        total = sum((_exact(r[4]) for r in lw.iter_rows(min_row=2) if (r[1].value, r[2].value, r[6].value) == key),
                    Decimal(0))
        engine = Decimal(t["expected"])
        q = Decimal(1).scaleb(-xlsx.places(t["currency"]))
        assert _exact(ws.cell(row=i, column=5)) == engine
        assert (total if t["cash"] else total.quantize(q, ROUND_HALF_EVEN)) == engine
        check = ws.cell(row=i, column=9).value
        p = xlsx.places(t["currency"])
        assert check == f"=ROUND(H{i},{p})-ROUND(E{i},{p})"
        assert total.quantize(q, ROUND_HALF_EVEN) - engine == 0


def test_a_hostile_run_id_keeps_its_exact_text_in_xlsx_and_is_escaped_in_csv(tmp_path, data):
    """F14: run id ``+cmd-calc`` (from a Slurm comment): the workbook stores the exact text as a string
    cell (no apostrophe, no quotePrefix, no formula); the CSV, which a spreadsheet parses, escapes it."""
    import zipfile

    from trainledger.report.csv_lines import to_csv

    sheet, lines = data["csa-sft-2026-11-a"]
    lines = [dataclasses.replace(ln, run_id="+cmd-calc", detail="=1+1") for ln in lines[:3]]
    book, wb = _write(tmp_path, sheet, lines)
    ws = wb["Lines"]
    for i in range(2, 5):
        for col, text in ((10, "+cmd-calc"), (12, "=1+1")):
            c = ws.cell(row=i, column=col)
            assert (c.value, c.data_type, c.quotePrefix) == (text, "s", False)
    assert _all_formulas(wb) == book.formulas and not any(s == "Lines" for s, _ in book.formulas)
    with zipfile.ZipFile(tmp_path / "b.xlsx") as z:
        xml = z.read("xl/worksheets/sheet3.xml").decode()
    assert xml.count('t="inlineStr"><is><t>+cmd-calc</t>') == 3 and "'+cmd-calc" not in xml
    rows = to_csv(lines).splitlines()[1:]
    assert all(",'+cmd-calc," in r and ",'=1+1," in r for r in rows)


@pytest.fixture(scope="module")
def others(demo, data):
    from trainledger.report.sheet import attributed_by_batch

    with Workspace.open(demo) as wsp:
        return attributed_by_batch(wsp, data[BATCHES[0]][0]["attribution_id"])


def test_the_summary_keeps_each_batchs_attributed_and_it_is_their_lines(demo, data, others):
    """The engine's attributed per batch, basis and category sums to each currency's attributed, and
    each row is what that batch's own cost lines add up to (summed here from the ledger's lines)."""
    from trainledger.model import CASH_BASES

    with Workspace.open(demo) as wsp:
        lines = {b: wsp.ledger.cost_lines(b) for b in BATCHES}
    for r in data[BATCHES[0]][0]["conservation"]["by_currency"]:
        rows = [x for x in others["cash"] if x["currency"] == r["currency"]]
        assert sum((Decimal(x["amount"]) for x in rows), Decimal(0)) == Decimal(r["attributed"])
    assert {x["batch"] for x in others["cash"]} == set(BATCHES)
    for x in others["cash"]:
        mine = sum((ln.amount.expected for ln in lines[x["batch"]] if ln.basis in CASH_BASES
                    and str(ln.basis) == x["basis"] and ln.category == x["category"]
                    and ln.currency == x["currency"]), Decimal(0))
        assert Decimal(x["amount"]) == mine, x
    assert others["amortized"] == [] and others["capacity"] == []  # the demo's bill has no EffectiveCost view


def _table(ws) -> dict[tuple[str, str, str, str], int]:
    """The first other-batches table of Control: (currency, batch, basis, category) → its row."""
    head = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == xlsx.H("other_batches_table"))
    out, r = {}, head + 3
    while ws.cell(r, 1).value is not None:
        out[tuple(ws.cell(r, k).value for k in range(1, 5))] = r
        r += 1
    return out


@pytest.mark.parametrize("batch", BATCHES)
def test_other_batches_are_a_sum_over_their_table(tmp_path, data, others, batch):
    from tests.xlsx_eval import Evaluator

    sheet, lines = data[batch]
    book = xlsx.write_xlsx(sheet, lines, tmp_path / "b.xlsx", others=others)
    wb = openpyxl.load_workbook(tmp_path / "b.xlsx")
    ws, ev = wb["Control"], Evaluator(wb)
    table = _table(ws)
    assert {k[1] for k in table} == set(BATCHES) - {batch}  # the others, never this batch
    for cur, i in _control_rows(ws, sheet["conservation"]["by_currency"]).items():
        theirs = [x for x in others["cash"] if x["currency"] == cur and x["batch"] != batch]
        rows = [table[(x["currency"], x["batch"], x["basis"], x["category"])] for x in theirs]
        want = sum((Decimal(x["amount"]) for x in theirs), Decimal(0))
        if rows:
            assert ws[f"D{i}"].value == f"=SUM(E{min(rows)}:E{max(rows)})"
            assert sum((_exact(ws[f"E{r}"]) for r in rows), Decimal(0)) == want  # the table's own cells
        else:
            assert ws[f"D{i}"].value == "=0"
        assert ev.value("Control", f"D{i}") == want == book.wb.cached[("Control", f"D{i}")]
        assert ev.value("Control", f"G{i}") == 0
        if rows:  # an other batch's amount edited: the control says so
            moved = Evaluator(wb, {("Control", f"E{rows[0]}"): _exact(ws[f"E{rows[0]}"]) + 1})
            assert moved.value("Control", f"G{i}") == Decimal("-1.00")


def test_a_role_that_may_not_see_a_vendors_amount_gets_no_sum_over_it(tmp_path, data, others):
    """Batch B's external services are a vendor's amounts (an engineer sees them, a viewer does not):
    the viewer's workbook of batch A lists them as restricted, and its other batches are the engine's
    figure as a value, said so; no formula of Control reads a restricted cell."""
    from tests.xlsx_eval import Evaluator

    sheet, lines = data["csa-sft-2026-11-a"]
    xlsx.write_xlsx(sheet, lines, tmp_path / "e.xlsx", role="viewer", others=others)
    wb = openpyxl.load_workbook(tmp_path / "e.xlsx")
    ws = wb["Control"]
    table = _table(ws)
    external = [r for k, r in table.items() if k[3] == "external"]
    assert external and all(ws[f"E{r}"].value == xlsx.L["restricted"][0] for r in external)
    assert all(isinstance(ws[f"E{r}"].value, int | float) for k, r in table.items() if k[3] == "compute")
    secret = {Decimal(x["amount"]) for x in others["cash"] if x["category"] == "external" and x["batch"] != sheet[
        "batch"]["id"]}
    assert not secret & {_exact(c) for row in ws.iter_rows() for c in row if isinstance(c.value, int | float)
                         and c.row in external}
    hidden = {c.coordinate for row in ws.iter_rows() for c in row if c.value == xlsx.L["restricted"][0]}
    invoiced = []
    for cur, i in _control_rows(ws, sheet["conservation"]["by_currency"]).items():
        if ws[f"B{i}"].value == "restricted":  # an invoice's currency: its totals give it back
            invoiced.append(cur)
            assert [ws[f"{c}{i}"].value for c in "CDEH"] == [xlsx.L["restricted"][0]] * 3 + ["restricted"]
            continue
        assert ws[f"D{i}"].data_type == "n"  # a value, not a SUM over the withheld rows
        assert xlsx.L["withheld_others"][0] in ws[f"J{i}"].value
        assert Evaluator(wb).value("Control", f"G{i}") == 0
    assert sorted(invoiced) == ["CNY", "USD"]  # batch B's invoices are billed in both (review 7 L13)
    for row in ws.iter_rows():
        for c in row:
            if c.data_type == "f":
                refs = set(re.findall(r"[A-Z]+[0-9]+", c.value.replace("$", "")))
                spans = re.findall(r"([A-Z]+)([0-9]+):([A-Z]+)([0-9]+)", c.value.replace("$", ""))
                inside = {f"{a}{n}" for a, r1, _, r2 in spans for n in range(int(r1), int(r2) + 1)}
                assert not (refs | inside) & hidden, c.coordinate


def test_csv_and_lines_carry_the_import_key(tmp_path, data):
    import csv
    import io

    from trainledger.report.csv_lines import COLUMNS, to_csv

    sheet, lines = data["csa-sft-2026-11-b"]
    rows = list(csv.DictReader(io.StringIO(to_csv(lines))))
    assert list(rows[0]) == list(COLUMNS) and COLUMNS.index("import_key") == COLUMNS.index("source_sha256") + 1
    assert [r["import_key"] for r in rows] == [ln.provenance.import_key for ln in lines]
    assert any(len(r["import_key"]) == 64 for r in rows)
    _, wb = _write(tmp_path, sheet, lines)
    assert wb["Lines"].cell(1, xlsx.LINE_AT["import_key"]).value == xlsx.H("import_key")
    assert " / " in xlsx.H("import_key")  # headed in both languages
