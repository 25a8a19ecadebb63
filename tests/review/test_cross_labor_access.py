"""The cross-batch report never shows an engineer or a viewer one person's rate-derived cost: a batch
whose labor is one role has its labor total, its monthly labor spend, its labor plan row and curve
restricted (report/cross_access.py ``cross_for_role``), and so has the total across batches (the total minus
the other batches would give it away). Several roles summed stay visible to an engineer, as on the sheet."""

from __future__ import annotations

import difflib
import json
from decimal import Decimal
from io import BytesIO

import openpyxl
import pytest

from trainledger.demo.scenario import BATCH_A, BATCH_B
from trainledger.report import cross, cross_render
from trainledger.report.cross_xlsx import build_workbook
from trainledger.service import Workspace

ONE_ROLE = "training_engineering"


def _report(ws_dir, monkeypatch, *, one_role_batch: str | None) -> cross.CrossReport:
    with Workspace.open(ws_dir) as wsp:
        real = wsp.ledger.cost_lines

        def lines(batch_id=None, **kw):  # the batch's labor as if one person had booked it all
            return [ln for ln in real(batch_id, **kw) if not (
                ln.batch_id == one_role_batch and ln.category == "labor" and not ln.detail.endswith("/" + ONE_ROLE))]

        monkeypatch.setattr(wsp.ledger, "cost_lines", lines)
        return cross.build(wsp, cross.Scope())


@pytest.fixture
def one_person(demo_dir, monkeypatch):
    return _report(demo_dir, monkeypatch, one_role_batch=BATCH_A)


def _labor(r: cross.CrossReport, batch: str) -> cross.Figure:
    return next(f for b in r.batches if b.batch == batch for f in b.totals if f.basis == "internal")


def test_one_persons_labor_is_restricted_for_engineer_and_viewer(one_person):
    a, b = _labor(one_person, BATCH_A), _labor(one_person, BATCH_B)
    assert a.roles == {ONE_ROLE} and a.kind == "labor_cost_person" and len(b.roles) > 1
    figure = f"{a.expected:,.2f}"  # as the renderers print it
    assert Decimal(a.expected) > 0 and figure in cross_render.render(one_person, "md", "en", "admin")
    for role in ("engineer", "viewer"):
        for fmt in ("md", "html", "json"):
            text = cross_render.render(one_person, fmt, "en", role)
            assert figure not in text and format(a.expected, "f") not in text, (role, fmt)
        js = json.loads(cross_render.render(one_person, "json", "en", role))
        assert js["access"]["withheld"]["labor_cost_person"] >= 3  # batch total, its month, the total
        batch_a = next(x for x in js["batches"] if x["batch"] == BATCH_A)
        assert next(f for f in batch_a["totals"] if f["basis"] == "internal")["expected"] == "restricted"
        assert next(f for f in js["totals"] if f["basis"] == "internal")["expected"] == "restricted"
        assert all(p["ac"]["expected"] == "restricted" for p in batch_a["plan_vs_actual"] if p["basis"] == "internal")
        assert not any(c["batch"] == BATCH_A and c["basis"] == "internal" for c in js["spend_curves"])
        cells = [c.value for ws in build_workbook(one_person, role).wb for row in ws.iter_rows() for c in row]
        assert float(a.expected) not in cells and figure not in map(str, cells)
    engineer = json.loads(cross_render.render(one_person, "json", "en", "engineer"))
    batch_b = next(x for x in engineer["batches"] if x["batch"] == BATCH_B)
    assert Decimal(next(f for f in batch_b["totals"] if f["basis"] == "internal")["expected"]) == b.expected
    finance = cross_render.render(one_person, "md", "zh-CN", "finance")
    assert figure in finance and "受限" not in finance


def test_several_roles_stay_visible_to_an_engineer(demo_dir, monkeypatch):
    r = _report(demo_dir, monkeypatch, one_role_batch=None)
    assert all(len(_labor(r, x).roles) > 1 for x in (BATCH_A, BATCH_B))
    admin = cross_render.render(r, "md", "en", "admin").splitlines()
    eng = [x for x in cross_render.render(r, "md", "en", "engineer").splitlines()
           if not x.startswith("_Restricted fields withheld for role engineer")]
    # the engineer's copy is the admin's but for the internal spend curves, whose daily steps are one
    # person's hours × a rate (review 7 L15): each whole curve is left out; and for the internal rows the
    # rate guard withholds (report/rate_guard.py: the plan's internal figures, the shared work's labor
    # money), whose money cells read "restricted", every other cell as the admin's
    ops = [op for op in difflib.SequenceMatcher(a=admin, b=eng, autojunk=False).get_opcodes() if op[0] != "equal"
           and not (op[0] == "insert" and not "".join(eng[op[3]:op[4]]).strip())]  # the note's blank line
    assert ops and {tag for tag, *_ in ops} <= {"delete", "replace"}, ops
    replaced = [(a, e) for tag, i1, i2, j1, j2 in ops if tag == "replace"
                for a, e in zip(admin[i1:i2], eng[j1:j2], strict=True)]
    assert {a.split(" | ")[0].strip("| ") for a, _ in replaced} >= {"2026-11", BATCH_A, BATCH_B}, replaced
    for a, e in replaced:
        cells = [(x.strip(), y.strip()) for x, y in zip(a.split(" | "), e.split(" | "), strict=True)]
        assert "| internal |" in a and any(x != y for x, y in cells)
        assert all(x == y or y.strip("| ") == "restricted" for x, y in cells), (a, e)
    for _tag, i1, i2, _j1, _j2 in (op for op in ops if op[0] == "delete"):
        heads = [x for x in admin[i1:i2] if x.startswith("### ")]
        assert heads and all("Cumulative spend vs plan" in h and "· internal ·" in h for h in heads), heads
    viewer = cross_render.render(r, "md", "zh-CN", "viewer")
    assert f"{_labor(r, BATCH_A).expected:,.2f}" not in viewer and "受限" in viewer


def test_the_workbook_has_no_check_over_a_withheld_total(one_person):
    buf = BytesIO()
    build_workbook(one_person, "engineer").wb.save(buf)
    ws = openpyxl.load_workbook(BytesIO(buf.getvalue()))["Summary"]
    row = next(r for r in range(2, ws.max_row + 1) if ws.cell(r, 1).value == "internal")
    assert ws.cell(row, 4).value == "restricted" and ws.cell(row, 6).value is None and ws.cell(row, 7).value is None
