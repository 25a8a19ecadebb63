"""The invoice importer: exact amounts, credit notes, stages, currencies."""

from __future__ import annotations

from decimal import Decimal

from ingest_helpers import check_golden, run, snapshot

INVOICES = (
    "invoice_id,vendor,date,amount,currency,stage,description,batch\n"
    "INV-001,DataCo,2026-10-15,12000.00,CNY,delivery,annotation of 50k samples,b-2026-07\n"
    "INV-002,EvalLab,2026-10-20,3500.5,cny,ongoing,monthly eval service,\n"
    "CN-001,DataCo,2026-10-30,-1200.00,CNY,Delivery,credit note: rejected samples,b-2026-07\n"
    # no currency and none given: quarantined
    "INV-003,GPUCloud,2026-10-31,880,,ongoing,support,\n"
    # an unquoted thousands separator splits the amount: quarantined
    "INV-004,X,2026-10-31,1,000.00,USD,delivery,,\n"
    # not a ServiceStage: quarantined
    "INV-005,Y,2026-10-31,100.00,USD,maintenance,,\n"
)


def test_invoice_golden(lake, write):
    result = run("invoice", write("invoices.csv", INVOICES), lake)
    assert (result.rows_read, result.accepted, result.quarantined) == (6, 3, 3)
    check_golden("invoice_lines", snapshot(lake, "invoice", [result]))


def test_currency_option_fills_missing_currency(lake, write):
    result = run("invoice", write("invoices.csv", INVOICES), lake, currency="CNY")
    assert result.accepted == 4
    amounts = lake.read("external_services").column("amount").to_pylist()
    assert sum(Decimal(a) for a in amounts) == Decimal("15180.50")
