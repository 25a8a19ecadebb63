"""Commitments, on the FOCUS working group's own scenario files: cash when paid, cost when used.

A reservation is billed when bought (BilledCost on the purchase row, 0 on the usage it covers)
and amortized where it is used (EffectiveCost). trainledger keeps both views as two bases
(``billed``, ``effective_cost``) and reconciles each against its own column of the bill; it never adds
them, nor the second to owned hardware's ``amortized`` (review 5 J12)."""

import json
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.service import Workspace

from .configs import ONE_BATCH

SPEC = Path(__file__).resolve().parent / "data" / "focus-spec-examples"
CONFIG = ONE_BATCH + """
[[rules]]
id = "vm"
source = "focus"
field = "resource_id"
match = "regex"
pattern = "^<my-(resource|large-vm|medium-vm)-id>$"
batch = "b1"
"""


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root, currency="USD").close()
    with open(root / "trainledger.toml", "a", encoding="utf-8") as f:
        f.write(textwrap.dedent(CONFIG))
    return root


def attribute(ws, *files):
    for name in files:
        out = CliRunner().invoke(cli, ["--workspace", str(ws), "import", "focus", str(SPEC / name),
                                       "--currency", "USD", "--json"], catch_exceptions=False)
        assert json.loads(out.output)["quarantined"] == 0, out.output
    with Workspace.open(ws) as wsp:
        return wsp.attribute()


def amounts(result, basis, **where):
    return sum((ln.amount.expected for ln in result.lines if ln.basis == basis
                and all(getattr(ln, k) == v for k, v in where.items())), Decimal(0))


def test_used_and_unused_commitment_hours(ws):
    r = attribute(ws, "commitment_discount_usage_scenario_3.csv")
    assert amounts(r, "billed") == 0  # paid elsewhere: nothing on these rows is cash
    assert amounts(r, "effective_cost", batch_id="b1") == Decimal("0.75")
    assert amounts(r, "amortized") == 0  # the bill's view is not owned hardware's amortized (J12)
    unused = [ln for ln in r.lines if ln.basis == "effective_cost" and ln.batch_id is None]
    assert [(ln.amount.expected, ln.detail) for ln in unused] == [(Decimal("0.25"), "reserved_unused")]
    assert r.conservation_amortized == [{"currency": "USD", "billed_total": "1.00", "attributed": "0.75",
                                         "unattributed": "0.25", "difference": "0.00",
                                         "unattributed_by_reason": [{"reason": "reserved_unused",
                                                                     "detail": "<my-commitment-discount-id>",
                                                                     "amount": "0.25"}]}]


def test_a_purchase_is_cash_up_front_and_nothing_amortized(ws):
    r = attribute(ws, "commitment_discount_purchase_scenario_1.csv")
    (line,) = [ln for ln in r.lines if ln.basis == "billed"]
    assert line.amount.expected == Decimal("8760.00") and line.batch_id is None
    assert "commitment purchase" in line.reason and "effective-cost view" in line.reason
    assert r.conservation[0]["difference"] == "0.00"


def test_zero_utilisation_both_views_reconcile_and_differ(ws):
    r = attribute(ws, "zero_percent_utilization_without_commitment_discount_flexibility.csv")
    billed = {c["currency"]: c for c in r.conservation}["USD"]
    amortized = {c["currency"]: c for c in r.conservation_amortized}["USD"]
    assert (billed["billed_total"], billed["attributed"], billed["unattributed"]) == ("3.50", "2.00", "1.50")
    assert (amortized["billed_total"], amortized["attributed"], amortized["unattributed"]) == ("3.50", "2.00", "1.50")
    assert billed["difference"] == amortized["difference"] == "0.00"
    # the same 1.50 is a purchase in one view and unused capacity in the other
    assert {ln.detail for ln in r.lines if ln.batch_id is None and ln.basis == "billed"} == {"commitment_purchase"}
    assert {ln.detail for ln in r.lines if ln.batch_id is None and ln.basis == "effective_cost"} == {"reserved_unused"}


def test_the_sheet_and_the_command_show_both_views(ws):
    attribute(ws, "zero_percent_utilization_without_commitment_discount_flexibility.csv")
    out = CliRunner().invoke(cli, ["--workspace", str(ws), "attribute"], catch_exceptions=False).output
    assert "USD: billed 3.50 = attributed 2.00 + unattributed 1.50" in out
    assert "USD effective cost (the bill's EffectiveCost view): 3.50 = attributed 2.00 + unattributed 1.50" in out
    md = CliRunner().invoke(cli, ["--workspace", str(ws), "sheet", "b1", "--format", "md"]).output
    totals = md.split("## Totals by basis")[1].split("##")[0]
    assert "| billed |" in totals and "| effective cost |" in totals  # two rows, never one sum
    assert "| amortized |" not in totals  # owned hardware's basis: none here (J12)
    assert "Conservation, the bill's effective-cost view" in md


def test_a_commitment_purchase_is_described_in_chinese_on_the_zh_sheet_and_command(ws):
    """Review 6 K10: "承诺购买：commitment purchase cd-1, paid here, …" — the detail was English."""
    attribute(ws, "zero_percent_utilization_without_commitment_discount_flexibility.csv")
    out = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", "zh-CN", "attribute"], catch_exceptions=False)
    md = CliRunner().invoke(cli, ["--workspace", str(ws), "--lang", "zh-CN", "sheet", "b1", "--format", "md"]).output
    for text in (out.output, md):
        assert "在此付款，在承诺期内使用" in text and "paid here" not in text
