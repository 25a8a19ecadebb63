"""Prices for the estimate: price-book entries as uncertain inputs in one reporting currency.

Every price is read with its unit normalised to the unit the quantity is in (``unit_price``),
converted with the dated FX rate in force on the pricing date (each rate used becomes a row of the
assumptions drawer), and flagged when stale: a stale price is used only with a visible warning.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from trainledger.estimate.quantities import Uncertain, fmt_num
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence
from trainledger.pricebook import PriceBook


class Pricing:
    def __init__(self, book: PriceBook, on: date, currency: str) -> None:
        self.book = book
        self.on = on
        self.currency = currency
        self.fx_used: dict[str, Assumption] = {}
        self.warnings: list[str] = []
        self.stale_items: dict[str, str] = {}
        self.items_used: list[str] = []

    def fx(self, ccy: str) -> Decimal:
        if ccy == self.currency:
            return Decimal(1)
        r = self.book.fx_rate(ccy, self.currency, self.on)
        key = f"{ccy}/{self.currency}"
        if key not in self.fx_used:
            owner = r.owner or ("finance" if r.evidence is Evidence.ASSUMED else "")
            self.fx_used[key] = Assumption(
                f"FX {key}",
                r.evidence,
                f"{r.source} ({r.origin})",
                value=fmt_num(float(r.rate), 6),
                unit=f"{self.currency} per {ccy}",
                owner=owner,
                note=f"rate dated {r.day}",
            )
            if r.is_stale(self.on):
                self.warnings.append(f"FX rate {key} dated {r.day} has expired ({r.origin})")
        return r.rate

    def rate(self, item: str, unit: str, name: str | None = None) -> Uncertain:
        """The price of ``item`` per ``unit`` in the reporting currency, as an uncertain input."""
        be = self.book.entry_for(item, self.on, allow_stale=True)
        e = self.book.unit_price(item, unit, self.on, allow_stale=True)
        k = self.fx(e.currency)
        note = f"{be.origin}; effective {e.effective}" + (f", expires {e.expires}" if e.expires else "")
        if e.is_stale(self.on):
            note = "STALE: " + note
            self.stale_items[e.item] = (
                f"expired {e.expires}" if e.effective <= self.on else f"effective only from {e.effective}"
            )
        if e.currency != self.currency:
            note += f"; converted from {e.currency}"
        self.items_used.append(e.item)
        owner = be.owner or ("procurement" if e.evidence is Evidence.ASSUMED else "")
        return Uncertain(
            name or f"price {e.item}",
            float(e.low * k),
            float(e.price * k),
            float(e.high * k),
            unit=f"{self.currency}/{unit}",
            evidence=e.evidence,
            source=e.source,
            owner=owner,
            note=note,
        )

    def summary_warnings(self) -> list[str]:
        out = list(dict.fromkeys(self.warnings))
        if self.stale_items:
            items = ", ".join(f"{k} ({v})" for k, v in self.stale_items.items())
            out.append(
                f"{len(self.stale_items)} stale price(s) on {self.on}, used only as flagged "
                f"assumptions: {items} — update {self.book.path}"
            )
        return out

    def money(
        self,
        name: str,
        low: float,
        mode: float,
        high: float,
        ccy: str,
        *,
        evidence: str,
        source: str,
        owner: str,
    ) -> Uncertain:
        k = float(self.fx(ccy))
        note = f"converted from {ccy}" if ccy != self.currency else ""
        return Uncertain(
            name,
            low * k,
            mode * k,
            high * k,
            unit=self.currency,
            evidence=evidence,
            source=source,
            owner=owner,
            note=note,
        )
