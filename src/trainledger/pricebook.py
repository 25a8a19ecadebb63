"""Price books: dated, sourced unit prices and FX rates, from TOML or CSV.

A price book is data, never code. Each entry is a ``PriceEntry`` (item, unit, price with optional
low/high, currency, source, effective date, optional expiry, evidence) plus what this file adds:
``gpus_per_node`` for node units, an ``owner`` who must confirm an assumed price, a note, and the
place in the file it came from. ``[[fx]]`` rows are dated exchange rates with a source.

Units are normalised before anything is multiplied (``UNITS``): every unit belongs to one
dimension and has a factor to that dimension's base unit::

    gpu time   gpu_hour (base), card_hour, gpu_day = card_day (24), gpu_month = card_month (730),
               node_hour / node_day / node_month (x gpus_per_node)
    time       hour (base), day (24), week (168), month (730), year (8760)
    storage    gb_month (base), tb_month (1024: a GB is 2^30 bytes, as cloud storage bills count it)
    labor      person_hour (base), person_day (8), person_month (168 = 21 days x 8 h), person_year
    energy     kwh (base), mwh (1000);  power capacity: kw_month
    volume     gb (base), tb (1024);   tokens: token, ktok, mtok;   count: item;   each: each

A month is 730 hours (8760 / 12, the cloud billing convention); a person-month is 168 working
hours. Converting between dimensions, or to a node unit without ``gpus_per_node``, is a unit
mismatch: ``ConfigError`` naming the file and the entry. A price used after its expiry or before
its effective date is *stale*: ``lookup`` refuses it unless the caller passes ``allow_stale=True``
(and then must show a warning); ``PriceBook.stale(on)`` lists every stale entry. ``stale_reason``
words why (``expired 2025-06-01`` / ``effective only from 2026-01-01``) for all of them.

TOML layout::

    currency = "USD"                       # optional: the book's reporting currency
    [[price]]
    item = "gpu_hour:h100-80gb"            # kind:name; the kind (gpu_hour, storage, labor…) fixes
                                           # the unit's dimension
    unit = "node_hour"
    gpus_per_node = 8
    price = 98.32                          # low = ..., high = ... optional
    currency = "USD"
    source = "https://... (page title), read 2024-05-01"
    effective = 2023-07-26
    expires = 2025-06-04                   # optional
    evidence = "assumed"                   # contract | measured | assumed (assumed needs owner)
    owner = "procurement"
    [[fx]]
    base = "USD"; quote = "CNY"; rate = 7.1884; date = 2024-12-31; source = "..."

CSV layout: a header with ``item,unit,price,currency,source,effective`` and optionally ``low,high,
expires,evidence,owner,gpus_per_node,note``; an FX rate is a row whose item is ``fx:USD/CNY``
(price = rate, effective = date of the rate).

Chinese beside the English: ``source_zh`` next to ``source`` and ``note_zh`` next to ``note`` (a key
in TOML, a column in CSV) are the texts' reviewed Chinese. The loader folds each into its English as
an ``i18n.core.Twin`` (a ``str`` that is the English, ``.text("zh-CN")`` the Chinese), so a page in
Chinese shows it, the English pages and the JSON's ``source`` stay as written and the JSON adds
``source_zh``. Keep it a Twin on its way to the page: ``str(twin)`` and f-strings drop the Chinese.
"""

from __future__ import annotations

import csv
import tomllib
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING

from trainledger.errors import ConfigError, NotFound
from trainledger.i18n.core import Twin
from trainledger.model.money import Money, check_currency, to_decimal
from trainledger.model.prices import PriceEntry
from trainledger.model.vocab import Evidence

if TYPE_CHECKING:
    from trainledger.estimate.messages import Msg

SAMPLE_PRICE_BOOK = Path(__file__).parent / "estimate" / "data" / "sample_pricebook.toml"

# unit -> (dimension, factor to the dimension's base unit, needs gpus_per_node)
UNITS: dict[str, tuple[str, Decimal, bool]] = {
    "gpu_hour": ("gpu_time", Decimal(1), False),
    "card_hour": ("gpu_time", Decimal(1), False),
    "gpu_day": ("gpu_time", Decimal(24), False),
    "card_day": ("gpu_time", Decimal(24), False),
    "gpu_month": ("gpu_time", Decimal(730), False),
    "card_month": ("gpu_time", Decimal(730), False),
    "node_hour": ("gpu_time", Decimal(1), True),
    "node_day": ("gpu_time", Decimal(24), True),
    "node_month": ("gpu_time", Decimal(730), True),
    "hour": ("time", Decimal(1), False),
    "day": ("time", Decimal(24), False),
    "week": ("time", Decimal(168), False),
    "month": ("time", Decimal(730), False),
    "year": ("time", Decimal(8760), False),
    "gb_month": ("storage", Decimal(1), False),
    "tb_month": ("storage", Decimal(1024), False),
    "person_hour": ("labor", Decimal(1), False),
    "person_day": ("labor", Decimal(8), False),
    "person_month": ("labor", Decimal(168), False),
    "person_year": ("labor", Decimal(2016), False),
    "kwh": ("energy", Decimal(1), False),
    "mwh": ("energy", Decimal(1000), False),
    "kw_month": ("power_capacity", Decimal(1), False),
    "gb": ("volume", Decimal(1), False),
    "tb": ("volume", Decimal(1024), False),
    "token": ("tokens", Decimal(1), False),
    "ktok": ("tokens", Decimal(1000), False),
    "mtok": ("tokens", Decimal(1000000), False),
    "item": ("count", Decimal(1), False),
    "each": ("each", Decimal(1), False),
}

# the item kind (text before ':') fixes the dimension its unit must have
KIND_DIMENSION = {
    "gpu_hour": "gpu_time",
    "storage": "storage",
    "labor": "labor",
    "power": "energy",
    "colo": "power_capacity",
    "egress": "volume",
}


@dataclass(frozen=True, slots=True)
class BookEntry:
    """A price entry with what the file says about it besides the price."""

    entry: PriceEntry
    origin: str  # "file, [[price]] #3" or "file, row 7"
    gpus_per_node: int | None = None
    owner: str = ""
    note: str = ""


@dataclass(frozen=True, slots=True)
class FxRate:
    """1 ``base`` = ``rate`` ``quote`` on ``day``."""

    base: str
    quote: str
    rate: Decimal
    day: date
    source: str
    origin: str
    expires: date | None = None
    evidence: Evidence = Evidence.CONTRACT
    owner: str = ""

    def inverse(self) -> FxRate:
        return replace(self, base=self.quote, quote=self.base, rate=Decimal(1) / self.rate)

    def is_stale(self, on: date) -> bool:
        return on < self.day or (self.expires is not None and on > self.expires)


@dataclass(frozen=True, slots=True)
class StaleItem:
    kind: str  # price | fx
    item: str
    reason: str
    origin: str


def unit_factor(unit: str, gpus_per_node: int | None, *, where: str) -> tuple[str, Decimal]:
    """(dimension, factor to base) of ``unit``; raises ConfigError naming ``where``."""
    spec = UNITS.get(unit)
    if spec is None:
        raise ConfigError(
            f"{where}: unknown unit {unit!r}",
            remedy="use one of: " + ", ".join(sorted(UNITS)),
        )
    dim, factor, per_node = spec
    if per_node:
        if not gpus_per_node:
            raise ConfigError(
                f"{where}: unit {unit!r} needs gpus_per_node to convert to GPU-hours",
                remedy="add gpus_per_node = 8 (or your node size) to the entry",
            )
        factor = factor * gpus_per_node
    return dim, factor


class PriceBook:
    """Prices and FX rates of one file, looked up by item and date."""

    def __init__(self, path: str, entries: list[BookEntry], fx: list[FxRate], currency: str | None = None) -> None:
        self.path = path
        self.currency = currency
        self.entries = tuple(entries)
        self.fx = tuple(fx)
        seen: dict[tuple[str, date], str] = {}
        for be in self.entries:
            key = (be.entry.item, be.entry.effective)
            if key in seen:
                raise ConfigError(
                    f"{be.origin}: {be.entry.item} has two prices effective {be.entry.effective} (also {seen[key]})",
                    remedy="give one an expiry and a later effective date, or delete one",
                )
            seen[key] = be.origin

    def items(self) -> list[str]:
        return sorted({be.entry.item for be in self.entries})

    def entry_for(self, item: str, on: date, *, allow_stale: bool = False) -> BookEntry:
        key = item.strip().lower()
        cands = [be for be in self.entries if be.entry.item == key]
        if not cands:
            raise NotFound(
                f"{self.path}: no price for {key!r}",
                remedy=f"add a [[price]] entry with item = {key!r}, a unit, source and date",
            )
        valid = [be for be in cands if not be.entry.is_stale(on)]
        if valid:
            return max(valid, key=lambda be: be.entry.effective)
        past = [be for be in cands if be.entry.effective <= on]
        best = max(past, key=lambda be: be.entry.effective) if past else min(cands, key=lambda be: be.entry.effective)
        if allow_stale:
            return best
        e = best.entry
        why = stale_reason(on, e.effective, e.expires)
        raise NotFound(
            f"{best.origin}: the price of {key!r} is stale ({why}); no current price on {on}",
            remedy="add a current dated price to the price book (stale prices are never used silently)",
        )

    def lookup(self, item: str, on: date, *, allow_stale: bool = False) -> PriceEntry:
        """The price of ``item`` in force ``on``. Raises NotFound if none (or only stale ones,
        unless ``allow_stale``; the caller must then flag it, see ``PriceEntry.is_stale``)."""
        return self.entry_for(item, on, allow_stale=allow_stale).entry

    def unit_price(self, item: str, unit: str, on: date, *, allow_stale: bool = False) -> PriceEntry:
        """``lookup`` with price, low and high converted to ``unit`` (e.g. card_day -> gpu_hour)."""
        return self.priced_entry(item, unit, on, allow_stale=allow_stale)[1]

    def priced_entry(
        self, item: str, unit: str, on: date, *, allow_stale: bool = False
    ) -> tuple[BookEntry, PriceEntry]:
        """One lookup for callers that need both: the ``entry_for`` (origin, owner, node size, note)
        and its price, low and high converted to ``unit`` as ``unit_price`` gives them."""
        be = self.entry_for(item, on, allow_stale=allow_stale)
        e = be.entry
        where = f"{be.origin} ({e.item})"
        dim_from, f_from = unit_factor(e.unit, be.gpus_per_node, where=where)
        dim_to, f_to = unit_factor(unit, be.gpus_per_node, where=where)
        if dim_from != dim_to:
            raise ConfigError(
                f"{where}: unit mismatch: the price is per {e.unit} ({dim_from}) but {unit} ({dim_to}) is needed",
                remedy=f"price {e.item} in a {dim_to} unit such as {_base_unit(dim_to)}",
            )
        k = f_to / f_from
        return be, replace(e, unit=unit, price=e.price * k, low=e.low * k, high=e.high * k)

    def fx_rate(self, base: str, quote: str, on: date) -> FxRate:
        """The latest rate dated on or before ``on`` (direct, else the inverse of quote/base)."""
        base, quote = check_currency(base), check_currency(quote)
        if base == quote:
            return FxRate(base, quote, Decimal(1), on, "identity", self.path)
        cands = [r for r in self.fx if (r.base, r.quote) == (base, quote)]
        cands += [r.inverse() for r in self.fx if (r.base, r.quote) == (quote, base)]
        known = [r for r in cands if r.day <= on]
        if not known:
            raise NotFound(
                f"{self.path}: no {base}/{quote} exchange rate dated on or before {on}",
                remedy=f"add [[fx]] base = {base!r}, quote = {quote!r}, rate, date and source",
            )
        return max(known, key=lambda r: r.day)

    def convert(self, amount: Decimal | Money, from_ccy: str, to_ccy: str, on: date) -> Decimal:
        value = amount.amount if isinstance(amount, Money) else to_decimal(amount)
        return value * self.fx_rate(from_ccy, to_ccy, on).rate

    def stale(self, on: date) -> list[StaleItem]:
        out = []
        for be in self.entries:
            e = be.entry
            why = stale_reason(on, e.effective, e.expires)
            if why is not None:
                out.append(StaleItem("price", e.item, why, be.origin))
        for r in self.fx:  # a rate dated after ``on`` is simply not used (``fx_rate``): only expiry counts
            if r.expires is not None and on > r.expires:
                out.append(StaleItem("fx", f"{r.base}/{r.quote}", stale_reason(on, r.day, r.expires), r.origin))
        return out


def stale_reason(on: date, effective: date, expires: date | None) -> Msg | None:
    """Why a price (or rate) in force from ``effective`` to ``expires`` is stale on ``on``, None
    while it is in force: ``expired 2025-06-01`` or ``effective only from 2026-01-01``.

    The one wording of staleness for the price book's errors, ``stale()`` and the estimator's
    warnings: a catalogue message, so its ``str`` is English and ``.text("zh-CN")`` Chinese.
    """
    from trainledger.estimate.messages import Msg  # here, not above: the estimate package imports this module

    if effective > on:
        return Msg("price.not_yet", day=effective)
    if expires is not None and on > expires:
        return Msg("price.expired", day=expires)
    return None


def _base_unit(dim: str) -> str:
    return next(u for u, (d, f, n) in UNITS.items() if d == dim and f == 1 and not n)


def load_price_book(path: str | Path) -> PriceBook:
    """Load a TOML (``.toml``) or CSV (anything else) price book, checking every entry."""
    p = Path(path)
    if not p.is_file():
        raise NotFound(f"price book {p} does not exist", remedy="pass an existing --price-book FILE")
    if p.suffix.lower() == ".toml":
        return _load_toml(p)
    return _load_csv(p)


def _load_toml(p: Path) -> PriceBook:
    try:
        with p.open("rb") as fh:
            doc = tomllib.load(fh, parse_float=Decimal)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{p}: not valid TOML: {exc}", remedy="fix the syntax") from None
    entries = [_entry(dict(row), f"{p}, [[price]] #{i}") for i, row in enumerate(doc.get("price", []), start=1)]
    fx = [_fx(dict(row), f"{p}, [[fx]] #{i}") for i, row in enumerate(doc.get("fx", []), start=1)]
    cur = doc.get("currency")
    return PriceBook(str(p), entries, fx, check_currency(cur) if cur else None)


def _load_csv(p: Path) -> PriceBook:
    entries, fx = [], []
    with p.open(newline="", encoding="utf-8") as fh:
        reader = csv.DictReader(fh)
        missing = {"item", "unit", "price", "currency", "source", "effective"} - set(reader.fieldnames or [])
        if missing:
            raise ConfigError(
                f"{p}: CSV price book lacks columns {sorted(missing)}",
                remedy="header: item,unit,price,currency,source,effective[,low,high,...]",
            )
        for n, raw in enumerate(reader, start=1):
            row = {k: v for k, v in raw.items() if k and v not in (None, "")}
            where = f"{p}, row {n}"
            item = row.get("item", "")
            if item.lower().startswith("fx:"):
                pair = item[3:].split("/")
                if len(pair) != 2:
                    raise ConfigError(f"{where}: FX item must look like fx:USD/CNY, got {item!r}")
                fx.append(
                    _fx(
                        {
                            "base": pair[0],
                            "quote": pair[1],
                            "rate": row.get("price"),
                            "date": row.get("effective"),
                            "source": row.get("source", ""),
                            "source_zh": row.get("source_zh"),
                            "expires": row.get("expires"),
                            "evidence": row.get("evidence"),
                            "owner": row.get("owner"),
                        },
                        where,
                    )
                )
            else:
                entries.append(_entry(row, where))
    return PriceBook(str(p), entries, fx)


def _date(value: object, field: str, where: str) -> date:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value).strip())
    except ValueError:
        raise ConfigError(f"{where}: {field} {value!r} is not an ISO date (YYYY-MM-DD)") from None


def _dec(value: object, field: str, where: str) -> Decimal:
    try:
        return to_decimal(str(value) if isinstance(value, int | Decimal) else value)
    except (TypeError, ValueError, InvalidOperation):
        raise ConfigError(f"{where}: {field} {value!r} is not a number") from None


def _text(row: dict, key: str, where: str) -> str:
    """``row[key]`` as written ("" when absent) — with its reviewed Chinese ``<key>_zh``, when the
    book gives one, as a ``Twin``. Never ``str()`` the result: that drops the Chinese."""
    en = "" if row.get(key) is None else str(row[key])
    zh = row.get(f"{key}_zh")
    if zh is None or not str(zh).strip():
        return en
    if not en.strip():
        raise ConfigError(
            f"{where}: {key}_zh is given without {key}",
            remedy=f"write the English {key} beside it (the English pages and the JSON show {key})",
        )
    return Twin(en, str(zh).strip())


def _entry(row: dict, where: str) -> BookEntry:
    for f in ("item", "unit", "price", "currency", "source", "effective"):
        if row.get(f) in (None, ""):
            raise ConfigError(
                f"{where}: missing {f!r}",
                remedy="every price needs item, unit, price, currency, source and effective date",
            )
    item = str(row["item"]).strip().lower()
    where = f"{where} ({item})"
    unit = str(row["unit"]).strip().lower()
    gpn = row.get("gpus_per_node")
    gpn = int(gpn) if gpn not in (None, "") else None
    dim, _ = unit_factor(unit, gpn, where=where)
    kind = item.split(":", 1)[0]
    want = KIND_DIMENSION.get(kind)
    if want is not None and dim != want:
        raise ConfigError(
            f"{where}: unit mismatch: {kind} items are priced in {want} units, not {unit!r} ({dim})",
            remedy=f"use a {want} unit such as {_base_unit(want)}",
        )
    try:
        entry = PriceEntry(
            item=item,
            unit=unit,
            price=_dec(row["price"], "price", where),
            currency=str(row["currency"]),
            source=_text(row, "source", where),
            effective=_date(row["effective"], "effective", where),
            expires=_date(row["expires"], "expires", where) if row.get("expires") else None,
            evidence=Evidence(str(row.get("evidence") or "contract")),
            low=_dec(row["low"], "low", where) if row.get("low") not in (None, "") else None,
            high=_dec(row["high"], "high", where) if row.get("high") not in (None, "") else None,
            owner=str(row.get("owner") or ""),
        )
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    owner = entry.owner
    if entry.evidence is Evidence.ASSUMED and not owner:
        raise ConfigError(
            f"{where}: an assumed price needs an owner who must confirm it",
            remedy='add owner = "procurement" (or whoever confirms it)',
        )
    return BookEntry(entry, where, gpn, owner, _text(row, "note", where))


def _fx(row: dict, where: str) -> FxRate:
    for f in ("base", "quote", "rate", "date", "source"):
        if row.get(f) in (None, ""):
            raise ConfigError(f"{where}: FX rate missing {f!r}")
    try:
        rate = _dec(row["rate"], "rate", where)
        if rate <= 0:
            raise ConfigError(f"{where}: FX rate must be > 0")
        ev = Evidence(str(row.get("evidence") or "contract"))
        return FxRate(
            check_currency(str(row["base"])),
            check_currency(str(row["quote"])),
            rate,
            _date(row["date"], "date", where),
            _text(row, "source", where),
            where,
            _date(row["expires"], "expires", where) if row.get("expires") else None,
            ev,
            str(row.get("owner") or ""),
        )
    except ValueError as exc:
        raise ConfigError(f"{where}: {exc}") from None
