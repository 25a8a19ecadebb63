"""The invoice importer: exact amounts, credit notes, stages, currencies."""

from __future__ import annotations

import json
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


HEAD = "invoice_id,vendor,date,amount,currency,stage,description\n"


def _flags(lake) -> dict[tuple[str, str], list[str]]:
    return {
        (r["invoice_id"], r["amount"]): json.loads(r["flags"])
        for r in lake.read("external_services").to_pylist()
    }


def test_invoice_id_reused_in_one_file_is_accepted_and_flagged(lake, write):
    text = HEAD + (
        "INV-9,DataCo,2026-10-15,100.00,CNY,delivery,first\n"
        'INV-9,DataCo,2026-10-16,250.00,CNY,delivery,"same id, other invoice"\n'
        "INV-10,DataCo,2026-10-17,5.00,CNY,ongoing,\n"
    )
    result = run("invoice", write("inv.csv", text), lake)
    assert (result.accepted, result.duplicates, result.flagged) == (3, 0, 2)
    assert _flags(lake) == {
        ("INV-9", "100.00"): ["invoice_id_reused"],
        ("INV-9", "250.00"): ["invoice_id_reused"],
        ("INV-10", "5.00"): [],
    }
    amounts = lake.read("external_services").column("amount").to_pylist()
    assert sum(Decimal(a) for a in amounts) == Decimal("355.00")  # the money is kept


def test_identical_invoice_line_twice_is_a_repeat_not_a_reuse(lake, write):
    line = "INV-1,DataCo,2026-10-15,100.00,CNY,delivery,\n"
    result = run("invoice", write("inv.csv", HEAD + line + line), lake)
    assert (result.accepted, result.flagged) == (2, 2)
    assert {tuple(f) for f in _flags(lake).values()} == {("repeated_row_in_file",)}


def test_invoice_id_reused_across_files(lake, write):
    oct_ = HEAD + "INV-1,DataCo,2026-10-15,100.00,CNY,delivery,\n"
    first = run("invoice", write("oct.csv", oct_), lake)
    assert first.flagged == 0
    nov = HEAD + (
        "INV-1,DataCo,2026-10-15,100.00,CNY,delivery,\n"  # the same line again: a duplicate
        "INV-1,DataCo,2026-11-15,80.00,CNY,delivery,\n"  # the same id, other content: flagged
        "INV-2,DataCo,2026-11-20,7.00,CNY,ongoing,\n"
    )
    second = run("invoice", write("nov.csv", nov), lake)
    assert (second.accepted, second.duplicates, second.flagged) == (2, 1, 1)
    assert _flags(lake) == {
        ("INV-1", "100.00"): [],  # the earlier partition is never rewritten
        ("INV-1", "80.00"): ["invoice_id_reused"],
        ("INV-2", "7.00"): [],
    }
