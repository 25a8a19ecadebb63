"""Prices for the estimate: price-book entries as uncertain inputs in one reporting currency.

Every price is read with its unit normalised to the unit the quantity is in (``priced_entry``),
converted with the dated FX rate in force on the pricing date (each rate used becomes a row of the
assumptions drawer), and flagged when stale: a stale price is used only with a visible warning
that says why in the price book's own words (``stale_reason``).
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from pathlib import Path

from trainledger.errors import NotFound
from trainledger.estimate.messages import Msg
from trainledger.estimate.quantities import Uncertain, fmt_num
from trainledger.i18n.core import Twin
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence
from trainledger.pricebook import SAMPLE_PRICE_BOOK, PriceBook, stale_reason


def with_origin(source: str, origin: str) -> str:
    """``source (origin)``, the source still a ``Twin`` when it was one: an f-string alone gives a
    plain ``str`` and the price book's ``source_zh`` would never reach the page in Chinese."""
    if isinstance(source, Twin):
        return Twin(f"{source} ({origin})", f"{source.zh}（{origin}）")
    return f"{source} ({origin})"


class Pricing:
    """With ``collect_missing`` a price the book lacks is recorded in ``missing`` (item -> the
    book's message) and stands in as zero, so one estimate lists every missing item at once; the
    engine then refuses to give a result. Without it (``compare``) the first one raises."""

    def __init__(
        self,
        book: PriceBook,
        on: date,
        currency: str,
        *,
        collect_missing: bool = False,
        labor_rates: dict | None = None,
    ) -> None:
        self.collect_missing = collect_missing
        self.labor_rates = labor_rates or {}  # role -> workspace_book.LaborRateRange (per hour)
        self.missing: dict[str, str] = {}
        self.book = book
        self.on = on
        self.currency = currency
        self.fx_used: dict[str, Assumption] = {}
        self.warnings: list[Msg] = []
        self.stale_items: dict[str, Msg] = {}
        self.items_used: list[str] = []

    def fx(self, ccy: str) -> Decimal:
        if ccy == self.currency:
            return Decimal(1)
        r = self.book.fx_rate(ccy, self.currency, self.on)
        key = f"{ccy}/{self.currency}"
        if key not in self.fx_used:
            owner = r.owner or ("finance" if r.evidence is Evidence.ASSUMED else "")
            self.fx_used[key] = Assumption(
                Msg("name.fx", pair=key),
                r.evidence,
                with_origin(r.source, r.origin),
                value=fmt_num(float(r.rate), 6),
                unit=Msg("unit.fx", quote=self.currency, base=ccy),
                owner=owner,
                note=Msg("note.fx_dated", day=r.day),
            )
            if r.is_stale(self.on):
                self.warnings.append(Msg("warn.fx_expired", key=key, day=r.day, origin=r.origin))
        return r.rate

    def rate(self, item: str, unit: str, name: str | None = None, *, strict: bool = False) -> Uncertain:
        """The price of ``item`` per ``unit`` in the reporting currency, as an uncertain input; a
        ``labor:<role>`` the workspace rates itself comes from its ``[[labor_rates]]``."""
        role = item.removeprefix("labor:") if item.startswith("labor:") else None
        if role in self.labor_rates:
            return self.workspace_rate(self.labor_rates[role], item, unit, name)
        try:
            be, e = self.book.priced_entry(item, unit, self.on, allow_stale=True)
        except NotFound as exc:
            if strict or not self.collect_missing:
                raise
            self.missing.setdefault(item, exc.message)
            return Uncertain.point(Msg("name.price", item=item), 0.0, unit=f"{self.currency}/{unit}")
        k = self.fx(e.currency)
        if e.expires:
            note = Msg("note.price_expires", origin=be.origin, effective=e.effective, expires=e.expires)
        else:
            note = Msg("note.price", origin=be.origin, effective=e.effective)
        why = stale_reason(self.on, e.effective, e.expires)
        if why is not None:
            note = Msg("note.stale", note=note)
            self.stale_items[e.item] = why
        if e.currency != self.currency:
            note = Msg("note.converted", note=note, ccy=e.currency)
        self.items_used.append(e.item)
        owner = be.owner or ("procurement" if e.evidence is Evidence.ASSUMED else "")
        return Uncertain(
            name or Msg("name.price", item=e.item),
            float(e.low * k),
            float(e.price * k),
            float(e.high * k),
            unit=f"{self.currency}/{unit}",
            evidence=e.evidence,
            source=e.source,
            owner=owner,
            note=note,
        )

    def workspace_rate(self, r, item: str, unit: str, name: str | None) -> Uncertain:
        lo, mo, hi = r.per(unit)
        k = self.fx(r.currency)
        self.items_used.append(item)
        note = Msg("note.workspace_rate", ccy=r.currency, low=r.low, high=r.high)
        return Uncertain(
            name or Msg("name.price", item=item),
            float(lo * k),
            float(mo * k),
            float(hi * k),
            unit=f"{self.currency}/{unit}",
            evidence=r.evidence,
            source=r.source,
            owner=r.owner or ("finance" if r.evidence == "assumed" else ""),
            note=note,
        )

    def summary_warnings(self) -> list[Msg]:
        out = list(dict.fromkeys(self.warnings))
        if self.stale_items:
            items = [Msg("price.stale_item", item=k, why=v) for k, v in self.stale_items.items()]
            if Path(self.book.path) == SAMPLE_PRICE_BOOK:  # inside the package: not the user's file to edit
                out.append(Msg("warn.stale_sample_prices", n=len(self.stale_items), on=self.on, items=items))
            else:
                out.append(Msg("warn.stale_prices", n=len(self.stale_items), on=self.on, items=items,
                               path=self.book.path))
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
        note = Msg("note.converted_only", ccy=ccy) if ccy != self.currency else ""
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
