"""The accelerator catalog (``data/accelerators.toml``): memory and dense peak per chip, sourced.

Each row may carry its interconnect (``link``, ``link_gbps``, ``network_gbps``, with
``interconnect_source``), read by interconnect.py. Ids are case-insensitive. Any other
accelerator is described with ``custom(memory_gb, peak_tflops)``; it gets the wide ``other`` MFU
range and an assumption row saying so. ``source_zh`` / ``interconnect_source_zh`` are the reviewed
Chinese of a row's texts (folded in as ``i18n.core.Twin``, see priors.py).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from trainledger.errors import BadInput, NotFound
from trainledger.estimate.messages import Msg
from trainledger.i18n.core import twins
from trainledger.model.vocab import Evidence

DATA = Path(__file__).parent / "data"
GIB = 2**30


@dataclass(frozen=True, slots=True)
class Accelerator:
    id: str
    name: str
    memory_gb: float  # datasheet GB, taken as GiB
    peak_tflops: float  # dense BF16 (FP16 where there is no BF16)
    family: str  # selects the MFU range
    source: str
    evidence: Evidence = Evidence.CONTRACT
    owner: str = ""
    fp8_tflops: float | None = None
    link: str = ""  # GPU-to-GPU link inside a node: nvlink, pcie, infinity_fabric ("" = not published)
    link_gbps: float | None = None  # per GPU per direction, GB/s
    network_gbps: float | None = None  # scale-out NIC per GPU per direction, GB/s (reference server)
    interconnect_source: str = ""

    @property
    def memory_bytes(self) -> int:
        return int(self.memory_gb * GIB)

    def peak_flops(self) -> float:
        return self.peak_tflops * 1e12


@cache
def catalog() -> dict[str, Accelerator]:
    with (DATA / "accelerators.toml").open("rb") as fh:
        rows = twins(tomllib.load(fh))["accelerator"]
    out = {}
    for r in rows:
        acc = Accelerator(
            id=r["id"],
            name=r["name"],
            memory_gb=float(r["memory_gb"]),
            peak_tflops=float(r["peak_tflops"]),
            family=r["family"],
            source=r["source"],
            evidence=Evidence(r.get("evidence", "contract")),
            owner=r.get("owner", ""),
            fp8_tflops=float(r["fp8_tflops"]) if "fp8_tflops" in r else None,
            link=r.get("link", ""),
            link_gbps=float(r["link_gbps"]) if "link_gbps" in r else None,
            network_gbps=float(r["network_gbps"]) if "network_gbps" in r else None,
            interconnect_source=r.get("interconnect_source", ""),
        )
        out[acc.id] = acc
    return out


def get_accelerator(gpu_id: str) -> Accelerator:
    key = gpu_id.strip().lower()
    acc = catalog().get(key)
    if acc is None:
        raise NotFound(
            f"unknown accelerator {gpu_id!r}",
            remedy="use one of "
            + ", ".join(sorted(catalog()))
            + ", or describe it with --gpu-memory-gb and --peak-tflops",
        )
    return acc


def custom(
    memory_gb: float, peak_tflops: float, gpu_id: str | None = None, base: Accelerator | None = None
) -> Accelerator:
    """An accelerator not in the catalog, or a catalog one with memory / peak overridden."""
    if memory_gb <= 0 or peak_tflops <= 0:
        raise BadInput("--gpu-memory-gb and --peak-tflops must both be > 0")
    if base is not None:
        return Accelerator(
            base.id,
            Msg("acc.overridden", name=base.name),
            memory_gb,
            peak_tflops,
            base.family,
            Msg("src.user_accelerator"),
            Evidence.ASSUMED,
            "requester",
            base.fp8_tflops,
            base.link,
            base.link_gbps,
            base.network_gbps,
            base.interconnect_source,
        )
    return Accelerator(
        (gpu_id or "custom").lower(),
        Msg("acc.custom", gb=memory_gb, tflops=peak_tflops),
        memory_gb,
        peak_tflops,
        "other",
        Msg("src.user_accelerator"),
        Evidence.ASSUMED,
        "requester",
    )
