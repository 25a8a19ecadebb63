"""The estimate's inputs: ``EstimateSpec``, built from a TOML spec file and/or CLI options.

A spec file uses the CLI's option names (``-`` or ``_``) at top level, plus optional tables::

    name = "llm-70b-pretrain"
    task = "pretrain"
    params = "70B"
    tokens = "2T"
    gpu = "a100-80gb"
    gpus = 2048
    rounds = "1.2..1.5..2.5"    # or several_rounds = true: the task's prior, as the guided mode asks
    flash_attention = false     # --no-flash-attention (default true)
    [data]                      # each a [low, mode, high] list or a table with low/mode/high,
    licensing = { low = 0, mode = 50000, high = 200000, currency = "USD", source = "quote Q-17", evidence = "contract" }
    cleaning_person_months = [2, 4, 8]
    labelled_items = [0, 0, 0]
    review_fraction = [0, 0, 0]
    eval_items = [1000, 2000, 4000]
    [labor.build]               # person-months by role (one-time)
    training_engineering = [2, 4, 8]
    [labor.run]                 # person-months by role, per round
    training_engineering = [0.5, 1, 2]
    [inference]                 # serving, estimated separately from training
    requests_per_day = [1000, 5000, 20000]
    tokens_per_request = [500, 1000, 2000]
    months = 12

CLI options given explicitly override the file. Every key, its unit and default:
docs/estimate-spec.md (tests/estimate/test_spec_doc.py keeps the two in step).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from trainledger.errors import BadInput, NotFound
from trainledger.estimate.quantities import parse_count, parse_range
from trainledger.estimate.tasks import parse_task
from trainledger.model.money import check_currency
from trainledger.model.vocab import TaskType

INT_FIELDS = (
    "gpus",
    "seq_len",
    "micro_batch",
    "zero_stage",
    "tp",
    "pp",
    "layers",
    "hidden",
    "heads",
    "vocab",
    "lora_rank",
    "samples",
    "seed",
    "top_k",
    "ep",
    "moe_layers",
)
COUNT_FIELDS = ("params", "active_params", "tokens")
TEXT_FIELDS = (
    "gpu",
    "recompute",
    "offload",
    "fsdp",
    "precision",
    "optimizer",
    "price_book",
    "price_item",
    "name",
    "ep_overlap",
    "network",
)
FLOAT_FIELDS = ("gpu_memory_gb", "peak_tflops")
BOOL_FIELDS = ("flash_attention", "several_rounds")
TABLES = ("data", "labor", "inference")


@dataclass(frozen=True)
class EstimateSpec:
    task: TaskType
    params: float | None = None
    active_params: float | None = None
    tokens: float | None = None
    gpu: str | None = None
    gpu_memory_gb: float | None = None
    peak_tflops: float | None = None
    gpus: int | None = None
    seq_len: int = 4096
    micro_batch: int = 1
    zero_stage: int | None = None
    tp: int | None = None
    pp: int | None = None
    recompute: str | None = None
    offload: str | None = None  # None: no offload (not searched: your nodes' host memory is not known)
    fsdp: str | None = None  # PyTorch FSDP sharding strategy instead of DeepSpeed ZeRO: full, hybrid, …
    flash_attention: bool = True
    precision: str = "bf16"
    optimizer: str = "adamw"
    layers: int | None = None
    hidden: int | None = None
    heads: int | None = None
    vocab: int | None = None
    lora_rank: int = 16
    top_k: int | None = None  # experts per token (MoE); None: [moe.defaults] top_k
    ep: int | None = None  # expert-parallel degree; None: one node's GPUs at most
    moe_layers: int | None = None  # layers with experts; None: all layers
    ep_overlap: str | None = None  # all-to-all overlapped with compute: none, partial (default), full
    network: str | None = None  # between nodes: infiniband (default), roce, ethernet
    price_book: str | None = None
    price_item: str | None = None
    rounds: tuple[float, float, float] | None = None
    several_rounds: bool | None = None  # the guided answer; --rounds wins over it
    currency: str | None = None
    on: date | None = None
    samples: int = 100_000
    seed: int = 20240607
    name: str = ""
    data: dict = field(default_factory=dict)
    labor: dict = field(default_factory=dict)
    inference: dict = field(default_factory=dict)
    plan_ignored: bool = False  # the file had a [plan] table (plan --from-estimate's), not read here


def load_spec_file(path: str | Path) -> dict:
    p = Path(path)
    if not p.is_file():
        raise NotFound(f"spec file {p} does not exist", remedy="pass an existing --from SPEC.toml")
    try:
        with p.open("rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"not valid TOML: {exc}", path=str(p), remedy="fix the syntax") from None
    out = {k.replace("-", "_"): v for k, v in raw.items()}
    pb = out.get("price_book")
    if pb and not Path(pb).is_absolute():
        out["price_book"] = str((p.parent / pb).resolve())
    return out


def build_spec(values: dict, *, where: str = "options") -> EstimateSpec:
    """Validate and convert raw values (from TOML and/or click) into an ``EstimateSpec``."""
    v = {k.replace("-", "_"): x for k, x in values.items() if x is not None}
    known = set(EstimateSpec.__dataclass_fields__) - {"plan_ignored"}
    plan = v.pop("plan", None)  # a plan spec's [plan] table: `plan --from-estimate` reads it, the estimator not
    if plan is not None and not isinstance(plan, dict):
        raise BadInput(f"{where}: [plan] must be a table", remedy="see docs/plan.md for the [plan] table")
    unknown = sorted(set(v) - known)
    if unknown:
        raise BadInput(
            f"{where}: unknown keys {unknown}",
            remedy="see `trainledger estimate --help` for the accepted names",
        )
    if "task" not in v:
        raise BadInput(
            f"{where}: no task type given",
            remedy="pass --task (pretrain, continued_pretrain, full_finetune, lora, "
            "qlora, rag) or run `trainledger estimate --guided`",
        )
    kw: dict = {"task": parse_task(str(v["task"])), "plan_ignored": plan is not None}
    for f in COUNT_FIELDS:
        if f in v:
            kw[f] = parse_count(v[f], f.replace("_", "-"))
    for f in INT_FIELDS:
        if f in v:
            x = parse_count(v[f], f.replace("_", "-"), allow_zero=f in ("zero_stage", "seed"))
            if x != int(x):
                raise BadInput(
                    f"{where}: {f.replace('_', '-')} must be a whole number, got {v[f]!r}",
                    remedy=f"pass --{f.replace('_', '-')} as a whole number",
                )
            kw[f] = int(x)
    for f in FLOAT_FIELDS:
        if f in v:
            kw[f] = parse_count(v[f], f.replace("_", "-"))
    for f in BOOL_FIELDS:
        if f in v:
            kw[f] = parse_bool(v[f], f.replace("_", "-"), where)
    for f in TEXT_FIELDS:
        if f in v:
            kw[f] = str(v[f]).strip().lower() if f not in ("price_book", "name") else str(v[f])
    if "rounds" in v:
        kw["rounds"] = parse_range(v["rounds"], "rounds")
    if "currency" in v:
        try:
            kw["currency"] = check_currency(str(v["currency"]))
        except ValueError as exc:
            raise BadInput(f"{where}: {exc}") from None
    if "on" in v:
        d = v["on"]
        try:
            kw["on"] = d if isinstance(d, date) else date.fromisoformat(str(d))
        except ValueError:
            raise BadInput(f"{where}: on {d!r} is not an ISO date") from None
    for t in TABLES:
        if t in v:
            if not isinstance(v[t], dict):
                raise BadInput(f"{where}: [{t}] must be a table")
            kw[t] = v[t]
    spec = EstimateSpec(**kw)
    check(spec, where)
    return spec


def parse_bool(value: object, what: str, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "y", "1"):
        return True
    if text in ("false", "no", "n", "0"):
        return False
    raise BadInput(f"{where}: {what} must be true or false, got {value!r}")


MIN_SAMPLES = 100  # P10 and P90 need at least ten samples beyond each of them


def check(spec: EstimateSpec, where: str) -> None:
    if spec.samples < MIN_SAMPLES:
        raise BadInput(
            f"{where}: --samples {spec.samples} is too few for P10 / P50 / P90",
            remedy=f"pass --samples {MIN_SAMPLES} or more (default 100000; 20000 is fast and stable to ~1%)",
        )
    if spec.rounds and spec.rounds[0] < 1:
        raise BadInput(
            f"{where}: rounds must be >= 1 (final-run equivalents)",
            remedy="e.g. --rounds 1..2..4 (1 = the final run alone)",
        )
    if spec.task is TaskType.RAG:
        return
    if spec.params is None or spec.tokens is None:
        raise BadInput(
            f"{where}: {spec.task.value} needs --params and --tokens",
            remedy="e.g. --params 7B --tokens 2T",
        )
    custom = spec.gpu_memory_gb is not None or spec.peak_tflops is not None
    if custom and (spec.gpu_memory_gb is None or spec.peak_tflops is None):
        raise BadInput(
            f"{where}: give both --gpu-memory-gb and --peak-tflops",
            remedy="an accelerator outside the catalog needs its memory (GB) and dense BF16 peak (TFLOP/s)",
        )
    if spec.gpu is None and not custom:
        raise BadInput(
            f"{where}: no accelerator given",
            remedy="pass --gpu ID (e.g. a100-80gb) or --gpu-memory-gb and --peak-tflops",
        )
    if spec.ep_overlap is not None and spec.ep_overlap not in ("none", "partial", "full"):
        raise BadInput(
            f"{where}: ep_overlap {spec.ep_overlap!r} is not none, partial or full",
            remedy="full = DualPipe-style overlap (DeepSeek-V3); partial = some; "
            "none = all-to-all on the critical path",
        )
    if spec.network is not None and spec.network not in ("infiniband", "roce", "ethernet"):
        raise BadInput(
            f"{where}: network {spec.network!r} is not infiniband, roce or ethernet",
            remedy="name the fabric between your nodes (ethernet = TCP without RDMA)",
        )
    if spec.zero_stage is not None and spec.zero_stage not in (0, 1, 2, 3):
        raise BadInput(f"{where}: zero-stage must be 0, 1, 2 or 3", remedy="pass --zero-stage 0-3 or leave it out")
