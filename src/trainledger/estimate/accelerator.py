"""The accelerator a request names, its GPU-hour price, and the drawer rows of the setup's defaults.

``accelerator_for`` reads the catalog (or builds a custom accelerator from --gpu-memory-gb and
--peak-tflops); ``compute_price`` finds its price, or the nearest catalog accelerator's as an owned
assumption; ``setup_assumptions`` lists the setup choices the request left to the tool.
"""

from __future__ import annotations

import math
from dataclasses import replace

from trainledger.errors import NotFound
from trainledger.estimate.catalog import Accelerator, catalog, custom, get_accelerator
from trainledger.estimate.messages import Msg
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.quantities import Uncertain
from trainledger.estimate.spec import EstimateSpec
from trainledger.model.prices import Assumption
from trainledger.model.vocab import Evidence


def accelerator_for(spec: EstimateSpec) -> Accelerator:
    if spec.gpu_memory_gb is not None and spec.peak_tflops is not None:
        base = None
        if spec.gpu:
            try:
                base = get_accelerator(spec.gpu)
            except LookupError:
                base = None
        return custom(spec.gpu_memory_gb, spec.peak_tflops, spec.gpu, base)
    return get_accelerator(spec.gpu or "")


def setup_assumptions(spec: EstimateSpec, setup) -> list[Assumption]:
    """Drawer rows for the training setup's defaults: recomputation, CPU offload, attention kernel."""
    rows = []
    if not spec.recompute:
        rows.append(
            Assumption(
                Msg("name.recompute"),
                Evidence.ASSUMED,
                Msg("src.recompute_default"),
                value=setup.recompute,
                owner="requester",
            )
        )
    if spec.offload is None:
        rows.append(
            Assumption(
                Msg("name.offload_choice"),
                Evidence.ASSUMED,
                Msg("src.offload_default"),
                value=setup.offload,
                owner="requester",
            )
        )
    if setup.task.value == "qlora":
        rows.append(
            Assumption(
                Msg("name.paged_optimizer"),
                Evidence.ASSUMED,
                Msg("src.paged_optimizer"),
                value=Msg("value.paged_optimizer"),
                owner="requester",
            )
        )
    rows.append(
        Assumption(
            Msg("name.attention"),
            Evidence.ASSUMED,
            Msg("src.flash_attention" if spec.flash_attention else "src.no_flash_attention"),
            value=Msg("value.flash_attention" if spec.flash_attention else "value.no_flash_attention"),
            owner="requester",
        )
    )
    return rows


def compute_price(spec: EstimateSpec, acc: Accelerator, pricing: Pricing, warnings: list[Msg]) -> Uncertain:
    """The GPU-hour price; for an accelerator outside the catalog with no price of its own, the
    nearest catalog accelerator's (by peak and memory) — as a visible, owned assumption."""
    item = spec.price_item or f"gpu_hour:{acc.id}"
    try:
        return pricing.rate(item, "gpu_hour", strict=True)
    except NotFound as exc:
        if spec.price_item or acc.id in catalog():
            if not pricing.collect_missing:
                raise
            pricing.missing.setdefault(item, exc.message)
            return Uncertain.point(Msg("name.price", item=item), 0.0, unit=f"{pricing.currency}/gpu_hour")
    known = [a for a in catalog().values() if f"gpu_hour:{a.id}" in pricing.book.items()]
    if not known:
        raise NotFound(
            f"no price for {item!r} and no catalog accelerator to stand in for it",
            remedy="pass --price-item or add the price to the price book",
        )
    near = min(
        known,
        key=lambda a: abs(math.log(a.peak_tflops / acc.peak_tflops)) + abs(math.log(a.memory_gb / acc.memory_gb)),
    )
    u = pricing.rate(f"gpu_hour:{near.id}", "gpu_hour", Msg("name.proxy_price", acc=near.id))
    warnings.append(Msg("warn.proxy_price", item=item, near=near.id, tflops=near.peak_tflops, gb=near.memory_gb))
    return replace(
        u,
        evidence=Evidence.ASSUMED,
        owner="procurement",
        note=Msg("note.proxy", note=u.note),
    )
