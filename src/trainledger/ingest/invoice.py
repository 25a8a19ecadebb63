"""``invoice``: vendor invoices CSV → table ``external_services``.

One row per invoice line: amount as exact decimal text (credit notes may be negative), an ISO
currency (the file's, else ``options["currency"]``), and the stage — ``delivery`` work for the
first build, or an ``ongoing`` dependency every upgrade needs. An ``invoice_id`` that comes
again with different content (in this file or an earlier one) is accepted and flagged
``invoice_id_reused``: the money is real, but someone must look.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trainledger.errors import BadInput
from trainledger.ingest.base import Context, Record, Rejected, col
from trainledger.ingest.convert import currency, iso_date, money_text, one_of, stripped
from trainledger.ingest.delimited import DelimitedImporter
from trainledger.model.money import check_currency
from trainledger.model.vocab import ServiceStage


class InvoiceImporter(DelimitedImporter):
    kind = "invoice"
    table = "external_services"
    description = "a vendor invoice CSV"
    signature = ("invoice_id", "vendor", "amount")
    missing_remedy = "an invoice file needs invoice_id, vendor, date, amount and stage columns"
    options_used = ("currency",)
    # an invoice id seen with different content, in this file or the lake: kept, but flagged
    conflicts = (("invoice_id", "invoice_id_reused"),)
    columns = (
        col("invoice_id", "invoice_id", convert=stripped, required=True, needed=True),
        col("vendor", "vendor", convert=stripped, required=True, needed=True),
        col("date", "date", convert=iso_date, required=True, needed=True),
        col("amount", "amount", convert=money_text, required=True, needed=True),
        col("currency", "currency", convert=currency),
        col("stage", "stage", convert=one_of(ServiceStage), required=True, needed=True),
        col("description", "description", default=""),
        col("batch", "batch", convert=stripped),
    )

    def configure(self, options: Mapping[str, Any]) -> str | None:
        code = options.get("currency")
        try:
            return check_currency(str(code)) if code else None
        except ValueError as e:
            raise BadInput(str(e), remedy="pass a three-letter ISO 4217 code, e.g. CNY") from None

    def normalise(self, values: dict[str, Any], record: Record, ctx: Context) -> dict[str, Any]:
        if values["currency"] is None:
            if ctx.cfg is None:
                raise Rejected("currency is empty", "fill in currency, or pass --currency CODE")
            values["currency"] = ctx.cfg
        values["batch"] = values["batch"] or None
        return values
