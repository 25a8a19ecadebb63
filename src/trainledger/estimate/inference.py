"""Inference (long-term serving) cost: estimated on its own, never added to training.

Self-hosted: 2 x N_active FLOPs per token (Kaplan et al. 2020) over requests x tokens, at a low,
assumed serving utilisation (decoding is memory-bound) and a fleet utilisation, priced per
GPU-hour — but never below the always-on replicas (each on enough GPUs to hold the 16-bit weights)
running all month. API: tokens x a price per million tokens from the price book. For RAG the
retrieval index's storage (``index_gb``) is priced per GB-month here too.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from trainledger.errors import BadInput
from trainledger.estimate.catalog import Accelerator, get_accelerator
from trainledger.estimate.data_costs import read_input
from trainledger.estimate.messages import Msg
from trainledger.estimate.montecarlo import Pct, Sampler
from trainledger.estimate.pricing import Pricing
from trainledger.estimate.priors import priors
from trainledger.estimate.quantities import Uncertain, parse_count

DAYS_PER_MONTH = 365 / 12
KEYS = (
    "requests_per_day",
    "tokens_per_request",
    "months",
    "mode",
    "api_price_item",
    "gpu",
    "price_item",
    "params",
    "active_params",
    "index_gb",
    "storage_item",
    "replicas",
)
HOURS_PER_MONTH = 730


@dataclass(frozen=True, slots=True)
class InferenceEstimate:
    mode: str
    months: int
    monthly: Pct
    total: Pct
    gpu_hours_per_month: Pct | None
    retrieval_storage_monthly: Pct | None


def estimate_inference(
    sampler: Sampler,
    spec: dict,
    pricing: Pricing,
    *,
    train_acc: Accelerator | None,
    active_params: float | None,
    params: float | None = None,
) -> InferenceEstimate | None:
    if not spec:
        return None
    total_params = spec.get("params")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise BadInput(f"[inference]: unknown keys {unknown}", remedy="use " + ", ".join(KEYS))
    src = {"evidence": "assumed", "source": Msg("src.spec_table", table="[inference]"), "owner": "serving team"}
    months = int(spec.get("months", 12))
    if months < 1:
        raise BadInput("[inference]: months must be >= 1")
    mode = str(spec.get("mode", "self_hosted"))
    n = sampler.n
    monthly = np.zeros(n)
    gpu_hours = None
    if "requests_per_day" in spec:
        req = sampler.draw(
            read_input(
                Msg("name.inf_requests"),
                spec["requests_per_day"],
                "request/day",
                src,
                "[inference]",
            )
        )
        tok = sampler.draw(
            read_input(
                Msg("name.inf_tokens"),
                spec.get("tokens_per_request", [500, 1000, 2000]),
                "token",
                src,
                "[inference]",
            )
        )
        tokens_month = req * tok * DAYS_PER_MONTH
        if mode == "api":
            item = spec.get("api_price_item")
            if not item:
                raise BadInput("[inference]: mode = 'api' needs api_price_item (a price per mtok)")
            monthly = monthly + tokens_month / 1e6 * sampler.draw(pricing.rate(item, "mtok"))
        elif mode == "self_hosted":
            acc = get_accelerator(spec["gpu"]) if "gpu" in spec else train_acc
            act = parse_count(spec["active_params"], "active_params") if "active_params" in spec else active_params
            if acc is None or act is None:
                raise BadInput("[inference]: self-hosted serving needs gpu and active_params")
            sv = priors()["serving"]
            mfu = sampler.draw(
                Uncertain(
                    Msg("name.serving_mfu"),
                    sv["mfu_low"],
                    sv["mfu_mode"],
                    sv["mfu_high"],
                    unit="fraction",
                    evidence=sv["evidence"],
                    source=sv["source"],
                    owner=sv["owner"],
                )
            )
            util = sampler.draw(
                Uncertain(
                    Msg("name.serving_util"),
                    sv["utilisation_low"],
                    sv["utilisation_mode"],
                    sv["utilisation_high"],
                    unit="fraction",
                    evidence=sv["evidence"],
                    source=sv["source"],
                    owner=sv["owner"],
                )
            )
            load_hours = 2 * act * tokens_month / (acc.peak_flops() * mfu) / 3600 / util
            # the floor: always-on replicas, each on enough GPUs to hold the weights (16-bit)
            total = parse_count(total_params, "params") if total_params else (params or act)
            per_replica = math.ceil(total * 2 * sv["memory_headroom"] / acc.memory_bytes)
            replicas = int(spec.get("replicas", sv["always_on_replicas"]))
            floor = replicas * per_replica * HOURS_PER_MONTH
            gpu_hours = np.maximum(load_hours, floor)
            item = spec.get("price_item", f"gpu_hour:{acc.id}")
            monthly = monthly + gpu_hours * sampler.draw(pricing.rate(item, "gpu_hour"))
        else:
            raise BadInput(f"[inference]: mode {mode!r} is not self_hosted or api")
    storage = None
    if "index_gb" in spec:
        gb = sampler.draw(read_input(Msg("name.index_size"), spec["index_gb"], "GB", src, "[inference]"))
        item = spec.get("storage_item", "storage:standard")
        storage_arr = gb * sampler.draw(pricing.rate(item, "gb_month"))
        monthly = monthly + storage_arr
        storage = Pct.of(storage_arr)
    return InferenceEstimate(
        mode,
        months,
        Pct.of(monthly),
        Pct.of(monthly * months),
        Pct.of(gpu_hours) if gpu_hours is not None else None,
        storage,
    )
