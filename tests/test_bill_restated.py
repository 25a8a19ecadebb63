"""A later FOCUS export restating a charge of an earlier one: both rows stay counted (nothing is
dropped), the import says so grouped with the remedy, and every attribute carries a problem
naming both imports and the amount counted twice. Correction rows are what FOCUS meant for this."""

from __future__ import annotations

from decimal import Decimal

import pytest
from click.testing import CliRunner

from trainledger.cli import cli
from trainledger.engine import restated
from trainledger.service import Workspace

HEAD = ("BillingAccountId,BillingPeriodStart,BillingPeriodEnd,ChargePeriodStart,ChargePeriodEnd,ChargeCategory,"
        "ChargeClass,ChargeDescription,BilledCost,EffectiveCost,BillingCurrency,ResourceId,ServiceName,"
        "ProviderName,SkuId\n")


def row(hour, amount, cls="", resource="trn-a001", desc="p4d On Demand"):
    return (f"123,2026-11-01T00:00:00Z,2026-12-01T00:00:00Z,2026-11-10T{hour:02d}:00:00Z,"
            f"2026-11-10T{hour + 1:02d}:00:00Z,Usage,{cls},{desc},{amount},{amount},USD,{resource},EC2,AWS,p4d\n")


def run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def ws(tmp_path):
    root = tmp_path / "ws"
    Workspace.init(root).close()
    (tmp_path / "nov.csv").write_text(HEAD + row(8, "32.7726") + row(9, "32.7726") + row(10, "5.00",
                                      resource="trn-a002"), encoding="utf-8")
    (tmp_path / "nov-later.csv").write_text(
        HEAD + row(8, "30.0000") + row(9, "32.7726")  # 08:00 restated, 09:00 the same row again
        + row(10, "-1.00", cls="Correction", resource="trn-a002", desc="credit"),  # a correction: fine
        encoding="utf-8")
    return root, tmp_path


def test_a_restated_row_is_reported_at_import_and_at_attribute(ws):
    root, d = ws
    run("--workspace", root, "import", "focus", d / "nov.csv")
    out = run("--workspace", root, "import", "focus", d / "nov-later.csv")
    with Workspace.open(root) as wsp:
        ids = {rec["path"]: rec["sha256"][:12] for rec in wsp.lake.imports()}
    first, later = ids[str(d / "nov.csv")], ids[str(d / "nov-later.csv")]
    assert "2 accepted, 1 duplicate, 0 quarantined" in out  # nothing dropped
    assert (f"1 row(s) restate rows of import {first} (same billing account, resource, charge period,"
            " category, class and SKU: 32.7726 then 30.0000 USD); both are counted") in out
    assert f"`trainledger --workspace {root} import focus {d / 'nov-later.csv'} --replace {first}`" in out

    with Workspace.open(root) as wsp:
        result = wsp.attribute()
    (p,) = [p for p in result.problems if p.kind == "restated_bill_row"]
    assert (p.detail["earlier"], p.detail["later"], p.detail["rows"]) == (first, later, 1)
    assert (p.detail["earlier_amount"], p.detail["later_amount"]) == ("32.7726", "30.0000")
    assert "32.7726 USD is counted twice" in p.message
    (usd,) = result.conservation
    assert Decimal(usd["billed_total"]) == Decimal("32.7726") * 2 + Decimal("5.00") + Decimal("30.0000") - 1


def test_the_zh_cn_notice_and_problem_text(ws):
    from trainledger.report import problems_i18n as pi

    root, d = ws
    run("--workspace", root, "import", "focus", d / "nov.csv")
    out = run("--workspace", root, "--lang", "zh-CN", "import", "focus", d / "nov-later.csv")
    assert "有 1 行重述了导入" in out and "两者都已计入" in out
    with Workspace.open(root) as wsp:
        (p,) = [p for p in wsp.attribute().problems if p.kind == "restated_bill_row"]
    assert "32.7726 USD 被重复计入" in pi.message(p.as_dict(), "zh-CN")


def test_find_groups_by_charge_and_skips_corrections_and_same_file_rows():
    base = {"billing_account_id": "a", "resource_id": "r", "charge_period_start": 1, "charge_period_end": 2,
            "charge_category": "Usage", "charge_class": None, "sku_id": "s", "sku_price_id": None,
            "currency": "USD"}
    rows = [base | {"billed_cost": "10", "source_sha256": "A"},
            base | {"billed_cost": "10", "source_sha256": "A"},  # a repeat within one file: the file's own
            base | {"billed_cost": "7", "source_sha256": "B"},
            base | {"billed_cost": "-3", "source_sha256": "C", "charge_class": "Correction"},
            base | {"billed_cost": "9", "source_sha256": "B", "resource_id": "other"}]
    (r,) = restated.find(rows, ["B", "A", "C"])  # B was imported first
    assert (r.earlier, r.later, r.rows, r.earlier_amount, r.later_amount) == ("B", "A", 1, 7, 20)
    assert restated.find(rows[:2] + rows[3:], ["A", "B", "C"]) == []
