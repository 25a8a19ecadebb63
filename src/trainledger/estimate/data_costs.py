"""Data costs (seed 004, part two): licensing, cleaning and de-duplication labour, labelling,
validation, and a held-out evaluation set — each a range, each priced from the price book.

Quantities come from the spec's ``[data]`` table; what it leaves out comes from the task type's
placeholder in ``data/priors.toml`` (evidence "assumed", owner "data lead"), and the estimate
says so.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from trainledger.errors import BadInput
from trainledger.estimate.messages import Msg, Term
from trainledger.estimate.montecarlo import Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import placeholder_meta, priors
from trainledger.estimate.quantities import Uncertain, fmt_count

FIELDS = ("licensing", "cleaning_person_months", "labelled_items", "review_fraction", "eval_items")
UNITS = {
    "licensing": "",
    "cleaning_person_months": "person_month",
    "labelled_items": "item",
    "review_fraction": "fraction",
    "eval_items": "item",
}


def read_input(name: str, raw: object, unit: str, default_meta: dict, what: str) -> Uncertain:
    """[low, mode, high], a number, or a table with low/mode/high, evidence, source, owner."""
    meta = {
        "evidence": default_meta.get("evidence", "assumed"),
        "source": default_meta.get("source", ""),
        "owner": default_meta.get("owner", ""),
    }
    if isinstance(raw, dict):
        vals = [raw[k] for k in ("low", "mode", "high")] if "low" in raw else [raw["value"]] * 3
        meta.update({k: raw[k] for k in ("evidence", "source", "owner") if k in raw})
        if "evidence" in raw and "source" not in raw:
            raise BadInput(f"{what}.{name}: an input with an evidence level needs a source")
    elif isinstance(raw, list | tuple):
        if len(raw) != 3:
            raise BadInput(f"{what}.{name}: give [low, mode, high]", remedy="e.g. [1, 2, 4]")
        vals = list(raw)
    elif isinstance(raw, int | float):
        vals = [raw] * 3
    else:
        raise BadInput(f"{what}.{name}: {raw!r} is not a number, [low, mode, high] or a table")
    try:
        lo, mo, hi = (float(x) for x in vals)
    except (TypeError, ValueError):
        raise BadInput(f"{what}.{name}: {vals!r} are not numbers") from None
    if lo < 0:
        raise BadInput(f"{what}.{name}: must be >= 0")
    if meta["evidence"] == "assumed" and not meta["owner"]:
        meta["owner"] = default_meta.get("owner") or "unassigned"
    return Uncertain(name, lo, mo, hi, unit=unit, **meta)


# which inputs each line's quantity rests on (its price comes from the dated price book)
LINE_INPUTS = {
    "licensing": ("licensing",),
    "cleaning": ("cleaning_person_months",),
    "labelling": ("labelled_items",),
    "eval_set": ("eval_items",),
    "validation": ("labelled_items", "review_fraction"),
}


class DataCost(NamedTuple):
    total: np.ndarray
    lines: dict[str, np.ndarray]  # per-line samples
    placeholders: list[str]  # the inputs that came from the task type's placeholder
    placeholder_lines: tuple[str, ...]  # the lines whose quantity rests on one of them


FINETUNES = ("full_finetune", "lora", "qlora")
PRETRAINS = ("pretrain", "continued_pretrain")


def placeholders_for(task: str, tokens: float | None) -> dict[str, tuple[list, dict]]:
    """The task type's data placeholders, sized from the request's tokens where the size says
    something (``[defaults.scale]``): field -> ([low, mode, high], evidence/source/owner). A
    fine-tune's labelled items are the task's labelled set, never more than the samples it trains
    on (tokens / (epochs x tokens per sample))."""
    table = priors()["defaults"]
    meta = placeholder_meta("data lead")
    out = {f: (list(v), meta) for f, v in table[task if task in table else "lora"]["data"].items()}
    if not tokens:
        return out
    sc = table["scale"]
    if task in FINETUNES:
        # the samples trained on bound the freshly labelled ones; beyond the task's labelled set the
        # training data is existing / public / generated (a 1B-token fine-tune is not 488k new labels)
        ep, tps = sc["epochs"], sc["tokens_per_sample"]
        samples = [round(tokens / (ep[2] * tps[2])), round(tokens / (ep[1] * tps[1])), round(tokens / (ep[0] * tps[0]))]
        table_items, _ = out["labelled_items"]
        items = [min(s, t) for s, t in zip(samples, table_items, strict=True)]
        src = Msg(
            "src.placeholder_labelled",
            task=Term(task),
            table=" / ".join(fmt_count(x) for x in table_items),
            tokens=fmt_count(tokens),
            samples=" / ".join(fmt_count(x) for x in samples),
        )
        out["labelled_items"] = (items, {**meta, "source": src})
    elif task in PRETRAINS:
        ref = float(sc[f"reference_tokens_{task}"])
        k = min(sc["factor_cap"], max(sc["factor_floor"], math.sqrt(tokens / ref)))
        base, _ = out["cleaning_person_months"]
        src = Msg(
            "src.placeholder_cleaning",
            task=Term(task),
            ref=fmt_count(ref),
            tokens=fmt_count(tokens),
            factor=k,
            floor=sc["factor_floor"],
            cap=sc["factor_cap"],
        )
        out["cleaning_person_months"] = ([x * k for x in base], {**meta, "source": src})
    return out


def data_cost(sampler: Sampler, spec_data: dict, task: str, pricing: Pricing, tokens: float | None = None) -> DataCost:
    """The data lines, their total, and which of them rest on placeholders (sized from ``tokens``)."""
    defaults = placeholders_for(task, tokens)
    meta = placeholder_meta("data lead")
    unknown = sorted(set(spec_data) - set(FIELDS) - {"extra"})
    if unknown:
        raise BadInput(f"[data]: unknown keys {unknown}", remedy="use " + ", ".join(FIELDS) + ", extra")
    placeholders = []
    q: dict[str, Uncertain] = {}
    for f in FIELDS:
        raw = spec_data.get(f)
        if raw is None:
            raw, src = defaults[f]
            placeholders.append(f)
        else:
            src = {"evidence": "assumed", "source": Msg("src.spec_table", table="[data]"), "owner": "data lead"}
        name = Msg(f"name.data.{f}")
        q[f] = read_input(name, raw, UNITS[f], src, "[data]")
    n = sampler.n
    lines: dict[str, np.ndarray] = {}
    lic = q["licensing"]
    lic_raw = spec_data.get("licensing")
    ccy = (lic_raw.get("currency") if isinstance(lic_raw, dict) else None) or meta["licensing_currency"]
    if lic.high > 0:
        lines["licensing"] = sampler.draw(
            pricing.money(
                lic.name,
                lic.low,
                lic.mode,
                lic.high,
                ccy,
                evidence=lic.evidence,
                source=lic.source,
                owner=lic.owner,
            )
        )
    if q["cleaning_person_months"].high > 0:
        rate = sampler.draw(pricing.rate("labor:data_prep", "person_month"))
        lines["cleaning"] = sampler.draw(q["cleaning_person_months"]) * rate
    labelled = sampler.draw(q["labelled_items"]) if q["labelled_items"].high > 0 else None
    if labelled is not None or q["eval_items"].high > 0:
        label_price = sampler.draw(pricing.rate("data:label_item", "item"))
        if labelled is not None:
            lines["labelling"] = labelled * label_price
        if q["eval_items"].high > 0:
            lines["eval_set"] = sampler.draw(q["eval_items"]) * label_price
    if labelled is not None and q["review_fraction"].high > 0:
        review_price = sampler.draw(pricing.rate("data:review_item", "item"))
        lines["validation"] = labelled * sampler.draw(q["review_fraction"]) * review_price
    for i, extra in enumerate(spec_data.get("extra", []), start=1):
        if not isinstance(extra, dict) or "name" not in extra or "currency" not in extra:
            raise BadInput(f"[[data.extra]] #{i}: needs name, currency and low/mode/high")
        u = read_input(
            Msg("name.data.extra", name=extra["name"]),
            extra,
            "",
            {"evidence": "assumed", "source": Msg("src.spec_table", table="[[data.extra]]"), "owner": "data lead"},
            "[data.extra]",
        )
        lines[str(extra["name"])] = sampler.draw(
            pricing.money(
                u.name,
                u.low,
                u.mode,
                u.high,
                str(extra["currency"]).upper(),
                evidence=u.evidence,
                source=u.source,
                owner=u.owner,
            )
        )
    total = np.zeros(n)
    for arr in lines.values():
        total = total + arr
    ph_lines = tuple(k for k in lines if any(i in placeholders for i in LINE_INPUTS.get(k, ())))
    return DataCost(total, lines, placeholders, ph_lines)
