"""Procurement comparison (``trainledger compare``): rent on demand vs reserved vs own hardware vs
a managed platform or an external service, over N years, including exit costs, on one basis.

Options: on_demand, reserved, own, platform (a managed service's markup over on-demand rent) and,
when a vendor's yearly quote is given, external_service. The basis is the same for every option:
the cash it takes to serve the same demand (GPU-hours per year, a range) for N years, in one
currency, from the same price book and the same Monte Carlo draws. Own hardware counts the
purchase minus its resale value at the end (amortised), power with PUE, colocation per kW,
operations staff and support; demand above a fleet's capacity overflows to on-demand rent. Exit
costs are the data egress when leaving a cloud and the (negative) resale when selling hardware;
the resale value falls with the horizon: straight-line over a sourced server useful life, times a
used-market haircut, floored at salvage (``priors.toml [procurement.resale]``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date

import numpy as np

from trainledger.errors import BadInput, NotFound
from trainledger.estimate.catalog import get_accelerator
from trainledger.estimate.messages import Msg, bilingual, both, text
from trainledger.estimate.montecarlo import Pct, Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import priors, triple
from trainledger.estimate.quantities import Uncertain, money_dec
from trainledger.model.prices import Assumption
from trainledger.pricebook import PriceBook

HOURS_PER_YEAR = 8760
GPUS_PER_SERVER = 8


@dataclass(frozen=True)
class Option:
    name: str
    basis: str
    total: Pct | None
    per_gpu_hour: Pct | None
    lines: dict[str, Pct]
    unavailable: str = ""


@dataclass(frozen=True)
class Comparison:
    gpu: str
    gpus: int
    years: int
    currency: str
    priced_on: str
    price_book: str
    demand: Pct
    options: tuple[Option, ...]
    assumptions: tuple[Assumption, ...]
    warnings: tuple[str, ...]  # catalogue messages (``messages.Msg``): English, with ``.zh``

    def to_dict(self) -> dict:
        def m(p: Pct | None) -> dict | None:
            if p is None:
                return None
            return {k: money_dec(getattr(p, k), self.currency) for k in ("p10", "p50", "p90")}

        warnings_en, warnings_zh = both(self.warnings)
        return {
            "schema": "trainledger.compare/1",
            "gpu": self.gpu,
            "gpus": self.gpus,
            "years": self.years,
            "currency": self.currency,
            "priced_on": self.priced_on,
            "price_book": self.price_book,
            "basis": text("compare.basis", "en"),
            "basis_zh": text("compare.basis", "zh-CN"),
            "demand_gpu_hours_per_year": {k: round(getattr(self.demand, k)) for k in ("p10", "p50", "p90")},
            "options": [
                bilingual(
                    {
                        "name": o.name,
                        "basis": o.basis,
                        "available": not o.unavailable,
                        "unavailable_reason": o.unavailable,
                        "total": m(o.total),
                        "per_gpu_hour": m(o.per_gpu_hour),
                        "lines": {k: m(v) for k, v in o.lines.items()},
                    },
                    ("basis", "unavailable_reason"),
                )
                for o in self.options
            ],
            "assumptions": [bilingual(a.as_dict()) for a in self.assumptions],
            "warnings": warnings_en,
            "warnings_zh": warnings_zh,
        }


def compare(
    book: PriceBook,
    *,
    gpu: str,
    gpus: int,
    years: int,
    utilisation: tuple[float, float, float] | None = None,
    gpu_hours_per_year: tuple[float, float, float] | None = None,
    on: date | None = None,
    currency: str | None = None,
    price_item: str | None = None,
    external_per_year: tuple[float, float, float] | None = None,
    samples: int = 100_000,
    seed: int = 20240607,
) -> Comparison:
    acc = get_accelerator(gpu)
    if gpus < 1 or years < 1:
        raise BadInput("--gpus and --years must be >= 1")
    on = on or date.today()
    cur = currency or book.currency or "USD"
    pr = Pricing(book, on, cur)
    s = Sampler(samples, seed)
    meta = priors()["procurement"]
    capacity = gpus * HOURS_PER_YEAR
    if gpu_hours_per_year is not None:
        demand = s.draw(
            Uncertain(
                Msg("name.demand"),
                *gpu_hours_per_year,
                unit="gpu_hour",
                evidence="assumed",
                source=Msg("src.requester"),
                owner="requester",
            )
        )
    else:
        lo, mo, hi = utilisation or (0.4, 0.6, 0.8)
        if not 0 < lo <= hi <= 1:
            raise BadInput("--utilisation must be within (0, 1]")
        demand = capacity * s.draw(
            Uncertain(
                Msg("name.utilisation"),
                lo,
                mo,
                hi,
                unit="fraction",
                evidence="assumed",
                source=Msg("src.requester_utilisation"),
                owner="requester",
            )
        )
    used_hours = demand * years
    od = s.draw(pr.rate(price_item or f"gpu_hour:{acc.id}", "gpu_hour"))
    egress_tb = s.draw(triple(Msg("name.exit_data"), meta["exit_egress_tb"], meta, "TB"))
    egress = egress_tb * 1000 * s.draw(pr.rate("egress:internet", "gb"))
    overflow = np.maximum(demand - capacity, 0.0) * years * od
    options = []

    def option(name: str, basis: str, lines: dict[str, np.ndarray]) -> Option:
        total = sum(lines.values(), np.zeros(s.n))
        return Option(
            name,
            basis,
            Pct.of(total),
            Pct.of(total / used_hours),
            {k: Pct.of(v) for k, v in lines.items()},
        )

    billed = Msg("compare.basis.billed")
    options.append(option("on_demand", billed, {"rent": used_hours * od, "exit_egress": egress}))
    disc = s.draw(triple(Msg("name.reserved_discount"), meta["reserved_discount"], meta))
    options.append(
        option(
            "reserved",
            Msg("compare.basis.billed_reserved"),
            {
                "reservation": capacity * years * od * (1 - disc),
                "overflow_on_demand": overflow,
                "exit_egress": egress,
            },
        )
    )
    options.append(_own(s, pr, acc, gpus, years, meta, overflow, used_hours))
    markup = s.draw(triple(Msg("name.platform_markup"), meta["platform_markup"], meta))
    options.append(option("platform", billed, {"platform": used_hours * od * markup, "exit_egress": egress}))
    if external_per_year is not None:
        fee = s.draw(
            Uncertain(
                Msg("name.external_fee"),
                *external_per_year,
                unit=cur,
                evidence="assumed",
                source=Msg("src.external_quote"),
                owner="procurement",
            )
        )
        options.append(option("external_service", billed, {"vendor": fee * years, "exit_egress": egress}))
    drawer = [u.as_assumption() for u in s.uncertain()] + list(pr.fx_used.values())
    return Comparison(
        acc.id,
        gpus,
        years,
        cur,
        on.isoformat(),
        book.path,
        Pct.of(demand),
        tuple(options),
        tuple(drawer),
        tuple(pr.summary_warnings()),
    )


def _own(
    s: Sampler,
    pr: Pricing,
    acc,
    gpus: int,
    years: int,
    meta: dict,
    overflow: np.ndarray,
    used_hours: np.ndarray,
) -> Option:
    servers = math.ceil(gpus / GPUS_PER_SERVER)
    amortized = Msg("compare.basis.amortized")
    capex_item = f"capex:server:{acc.id}"
    known = pr.book.items()
    for item in (capex_item, "power:grid", "colo:kw", "labor:platform_support"):
        if item not in known:
            why = Msg("compare.own_no_price", path=pr.book.path, item=item)
            return Option("own", amortized, None, None, {}, unavailable=why)
    try:
        capex_each = s.draw(pr.rate(capex_item, "each", Msg("name.server_price", acc=acc.id)))
        kwh = s.draw(pr.rate("power:grid", "kwh"))
        colo = s.draw(pr.rate("colo:kw", "kw_month"))
        staff = s.draw(pr.rate("labor:platform_support", "person_month"))
    except NotFound as exc:
        return Option("own", amortized, None, None, {}, unavailable=Msg("compare.own_unavailable", reason=exc.message))
    kw_key = "server_kw_h100" if acc.family == "hopper" else "server_kw_a100"
    kw = Uncertain.point(
        Msg("name.server_power", cls=kw_key[10:].upper()),
        meta[kw_key],
        unit="kW",
        evidence="measured",
        source=meta["source"],
    )
    server_kw = s.draw(kw)
    load = s.draw(triple(Msg("name.power_load"), meta["load_factor"], meta))
    pue = s.draw(triple(Msg("name.pue"), meta["pue"], meta))
    fte = s.draw(triple(Msg("name.ops_fte"), meta["ops_fte_per_256_gpus"], meta))
    support = s.draw(triple(Msg("name.support"), meta["support_fraction_per_year"], meta))
    residual = resale_fraction(s, years, meta["resale"])
    capex = servers * capex_each
    lines = {
        "purchase": capex,
        "power": servers * server_kw * load * pue * HOURS_PER_YEAR * years * kwh,
        "colocation": servers * server_kw * colo * 12 * years,
        "operations_staff": fte * gpus / 256 * staff * 12 * years,
        "support": capex * support * years,
        "overflow_on_demand": overflow,
        "exit_resale": -capex * residual,
    }
    total = sum(lines.values(), np.zeros(s.n))
    return Option(
        "own",
        amortized,
        Pct.of(total),
        Pct.of(total / used_hours),
        {k: Pct.of(v) for k, v in lines.items()},
    )


def resale_fraction(s: Sampler, years: int, rs: dict) -> np.ndarray:
    """Resale value at the end as a share of the purchase price: the straight-line remaining book
    value after ``years`` of a sourced useful life, times a used-market haircut, never below a
    salvage floor — so a longer horizon never resells for more."""
    life = s.draw(triple(Msg("name.useful_life"), rs["useful_life_years"], rs, "years"))
    haircut = s.draw(triple(Msg("name.resale_haircut"), rs["haircut"], rs))
    floor = s.draw(triple(Msg("name.salvage_floor"), rs["floor"], rs))
    return np.maximum(floor, haircut * np.clip(1.0 - years / life, 0.0, 1.0))


def compare_view(d: dict, lang: str) -> dict:
    """Moved to ``trainledger.report.estimate_view``; kept here for existing imports."""
    from trainledger.report.estimate_view import compare_view as view

    return view(d, lang)


__all__ = ["Comparison", "Option", "compare", "compare_view"]
