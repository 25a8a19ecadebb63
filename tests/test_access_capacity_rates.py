"""An owned or reserved capacity's rate is a unit price wherever it is printed (review3 G26).

The owned demo's capacities: h800-own at 11.8758 CNY/GPU-h (amortized from the note's inputs: a node at
2,150,000, power at 0.68 per kWh …) and h800-reserved at 30.00 (a contract). The engine marks those
drawer rows ``value_kind = unit_price`` where it makes them (engine/capacity.py), so an engineer's
and a viewer's copy — Markdown, JSON, HTML and the workbook, from the CLI and from the dashboard —
holds neither the rates nor the note's inputs, while finance's and admin's do. A drawer row stored
before the engine marked it is still restricted by its name.
"""

from __future__ import annotations

import io
import re
import zipfile

import pytest

from tests.web.roles_ws import run_cli

A = "csa-sft-2026-11-a"
def exact(text: str) -> re.Pattern:
    """``text`` as a number of its own (not the tail of 12,730.00 nor the head of 30.001)."""
    return re.compile(rf"(?<![\d.,]){re.escape(text)}(?![\d])")


RATES = (exact("11.8758"), exact("30.00"))
INPUTS = (exact("2150000"), exact("0.68"), exact("360000"))  # a node's price, a kWh's, ops staff a year
FORMATS = ("md", "json", "html", "xlsx")
SVG_GEOMETRY = re.compile(r'\b(x|y|x1|x2|y1|y2|width|height)="[\d.]+"')  # a chart's coordinates (y="30.00")

pytestmark = [pytest.mark.filterwarnings("ignore::DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")]


def texts(data: bytes, fmt: str) -> str:
    """The bytes as text; a workbook's XML parts (cells, shared strings, defined names) joined."""
    if fmt != "xlsx":
        return SVG_GEOMETRY.sub("", data.decode("utf-8"))
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return "\n".join(z.read(n).decode("utf-8") for n in z.namelist() if n.endswith(".xml"))


def seen(text: str) -> list[str]:
    return [p.pattern for p in RATES + INPUTS if p.search(text)]


@pytest.fixture(scope="module")
def owned(tmp_path_factory):
    root = tmp_path_factory.mktemp("owned-demo")
    run_cli("demo", "--scenario", "owned", "--dir", root)
    return root


@pytest.fixture(scope="module")
def sheets(owned, tmp_path_factory):
    """Every role's copy of batch A's sheet in every format, from the CLI (``sheet --role``)."""
    out = tmp_path_factory.mktemp("sheets")
    got = {}
    for role in ("admin", "finance", "engineer", "viewer"):
        for fmt in FORMATS:
            path = out / f"{role}.{fmt}"
            run_cli("--workspace", owned, "sheet", A, "--role", role, "--format", fmt, "--lang", "en", "--out", path)
            got[role, fmt] = texts(path.read_bytes(), fmt)
    return got


@pytest.mark.parametrize("fmt", FORMATS)
def test_engineer_and_viewer_copies_hold_no_capacity_rate(sheets, fmt):
    for role in ("engineer", "viewer"):
        assert not seen(sheets[role, fmt]), (role, fmt, seen(sheets[role, fmt]))
    for role in ("finance", "admin"):  # the same search finds them in the copies that may hold them
        want = RATES + INPUTS if fmt == "json" else RATES  # the note (its inputs) is printed in JSON only
        assert seen(sheets[role, fmt]) == [p.pattern for p in want], (role, fmt, seen(sheets[role, fmt]))


def test_the_drawer_row_stays_with_its_source_and_owner(sheets):
    md = sheets["engineer", "md"]
    md = md[md.index("\n## Assumptions drawer\n"):]  # the drawer itself (the balance's sensitivity names it too)
    row = next(x for x in md.splitlines() if x.startswith("| capacity h800-own: amortized hardware |"))
    assert "| restricted CNY/gpu\\_hour |" in row and "finance: zhao.min" in row and "FA-2025-0412" in row


def test_the_dashboard_serves_no_capacity_rate_to_an_engineer_or_a_viewer(owned):
    from starlette.testclient import TestClient

    from trainledger.web.app import create_app

    toks = {who: run_cli("--workspace", owned, "token", "create", "--role", who).strip().splitlines()[-1]
            for who in ("engineer", "viewer", "finance")}
    with TestClient(create_app(owned, require_token=True)) as c:
        for who, tok in toks.items():
            h = {"Authorization": f"Bearer {tok}"}
            pages = [texts(c.get(f"/batches/{A}", headers=h).content, "html"),
                     c.get(f"/batches/{A}", headers={**h, "accept": "application/json"}).text]
            pages += [texts(c.get(f"/batches/{A}/sheet.{fmt}", headers=h).content, fmt) for fmt in FORMATS]
            if who == "finance":
                assert all(seen(p) for p in pages)
            else:
                assert not any(seen(p) for p in pages), (who, [seen(p) for p in pages])


def test_a_stored_row_without_a_kind_is_restricted_by_its_name():
    """A ledger attributed before the engine set ``value_kind``: the capacity rows' names."""
    from trainledger.model.restricted import resolve
    from trainledger.report.access import mark_sheet

    drawer = [{"name": "capacity h800-own: amortized hardware", "evidence": "assumed", "source": "FA",
               "value": "11.8758", "unit": "CNY/gpu_hour", "owner": "fin", "note": "purchase_price_per_node=2150000"},
              {"name": "capacity pool: rate card gpu_hour:h800 from 2026-11-01", "evidence": "contract",
               "source": "price book", "value": "30.00", "unit": "CNY/gpu_hour"},
              {"name": "node-hour split", "evidence": "measured", "source": "cluster", "value": "by GPU-seconds"}]
    shown, d = resolve(mark_sheet({"assumptions": drawer}), "engineer")
    assert [a["value"] for a in shown["assumptions"]] == ["restricted", "restricted", "by GPU-seconds"]
    assert shown["assumptions"][0]["note"] == "restricted" and d.withheld["unit_price"] == 3
    marked = {"name": "cluster rent", "evidence": "contract", "source": "x", "value": "9.99",
              "value_kind": "unit_price"}  # a name no rule knows: the engine's kind decides
    assert resolve(mark_sheet({"assumptions": [marked]}), "viewer")[0]["assumptions"][0]["value"] == "restricted"
    assert resolve(mark_sheet({"assumptions": [marked]}), "finance")[0]["assumptions"][0]["value"] == "9.99"
